/**
 * Outbound calls outside any campaign (the `DirectCalls` port; the reference SDK's
 * `POST /v2/create-outbound`), from the request to the conversation's end. `place` checks the
 * organization (it may dial out, has no billing issue, owns `from`, and `to` is not on its
 * Do-Not-Call list), records an `outbound` conversation without campaign or contact, announces
 * `call.started`, and hands the call to the carrier with the media URL and a media token, as the
 * dialer does for a contact (CallAttempt); it answers once the carrier has taken the call or
 * refused it. Its call id is the conversation's `call_id`, the media session's call id and the
 * key of the call's `CallEvents`: the id the agent attaches with.
 *
 * The call is then followed in this process by CallLifecycle (through `CallEvents`, subscribed
 * before the carrier is asked, so no event is missed), in its media-agent mode: never answered,
 * the carrier's reason (`busy`, `no-answer`, `failed`; unanswered after `ringTimeoutMs`, hung up
 * and `no-answer`); a carrier refusal, `failed` (also published as the call's `Ended`, since no
 * carrier will report it); answered, the termination reason of the agent's verdict
 * (`AgentEnded`, from whichever daemon the media stream reached), or `bot-failure` when no
 * verdict comes within `verdictGraceMs` of the carrier's end. An answered call is hung up after
 * `maxCallMs`. The end is written with `ConversationRepository.end`, which writes its
 * `call.ended` in the same transaction.
 *
 * Shutdown (the scope the service was built in closes): calls in progress get `drainMs` to end,
 * then they are hung up and recorded as `bot-failure`, like the dialer's. A process that dies
 * with calls in progress leaves their conversations open until a sweep of any daemon, every
 * `sweepEveryMs`, ends them as `bot-failure` once they are older than any call can last,
 * keeping what was recorded of them (CallLifecycle `sweepAbandoned`, as for inbound calls).
 *
 * @since 0.1.0
 */
import {
  BillingIssue,
  InvalidPhoneNumber,
  NumberOnDoNotCallList,
  OutboundDialingDisabled,
  PhoneNumberNotOwned
} from "@voice-agent/core/Errors"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { DirectCallRequest, PlacedCall } from "@voice-agent/core/ports/DirectCalls"
import { DirectCalls } from "@voice-agent/core/ports/DirectCalls"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { fromMillis } from "@voice-agent/core/Time"
import * as Tracing from "@voice-agent/core/Tracing"
import * as Webhook from "@voice-agent/core/Webhook"
import { Clock, Deferred, Duration, Effect, Fiber, FiberSet, Layer, Ref, Result } from "effect"
import { randomUUID } from "node:crypto"
import * as CallLifecycle from "./CallLifecycle.ts"
import { standIn } from "./CallProgress.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * @category models
 */
export interface DirectCallSettings extends CallLifecycle.CallTimings {
  /**
   * The media WebSocket URL carriers stream calls to (waited for: a daemon knows its own address
   * once it listens).
   */
  readonly mediaUrl: Effect.Effect<string>
  /** On shutdown, calls in progress get this long to end before they are hung up. */
  readonly drainMs: number
  /** How often this process closes the direct calls whose follower died with its daemon. */
  readonly sweepEveryMs: number
}

/**
 * The dialer's timings (docs/DIALER.md): 60 s of ringing, one hour of call, 35 s for the
 * verdict, 30 s of drain; a sweep every minute.
 *
 * @category constructors
 */
export const defaults = (mediaUrl: Effect.Effect<string>): DirectCallSettings => ({
  mediaUrl,
  ...CallLifecycle.timings,
  drainMs: 30_000,
  sweepEveryMs: 60_000
})

const notE164 = "not an E.164 number"

interface Call {
  readonly callId: string
  readonly conversationId: string
  readonly organizationId: string
  readonly from: string
  readonly to: string
}

/**
 * The service; followers run in the scope it is built in (closing it drains them, then hangs up
 * those still going).
 *
 * @category constructors
 */
export const make = (settings: DirectCallSettings) =>
  Effect.gen(function*() {
    const organizations = yield* OrganizationRepository
    const numbers = yield* PhoneNumberRepository
    const dnc = yield* DncRepository
    const conversations = yield* ConversationRepository
    const callEvents = yield* CallEvents
    const carrier = yield* Carrier
    const webhooks = yield* WebhookRepository
    const key = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)
    const newFollower = yield* CallLifecycle.maker
    const followers = yield* FiberSet.make<void>()
    // Runs before the set's own finalizer (which interrupts what is left): finalizers run in
    // reverse order of addition.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const running = yield* FiberSet.size(followers)
        if (running === 0) return
        yield* Effect.logInfo(`Waiting up to ${settings.drainMs} ms for ${running} outbound call(s) to end`)
        yield* FiberSet.awaitEmpty(followers).pipe(Effect.timeoutOption(Duration.millis(settings.drainMs)))
      })
    )

    yield* CallLifecycle.sweepAbandoned("direct", settings)

    /** Follows `call` from the carrier's request to its recorded end; `placed` once the carrier answered. */
    const follow = (call: Call, placed: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const { callId } = call
        const done = yield* Ref.make(false)
        const follower = yield* newFollower(callId, { timings: settings, agent: "media", standIn })

        const finish = (end: CallLifecycle.Ended) =>
          Effect.gen(function*() {
            const terminationReason = yield* CallLifecycle.recordEnd(conversations, call.conversationId, end)
            yield* Ref.set(done, true)
            yield* Effect.logInfo(`Direct call ${callId} to ${call.to} ended: ${terminationReason}`)
          })

        const followed = Effect.gen(function*() {
          const events = yield* callEvents.subscribe(callId)
          const now = yield* Clock.currentTimeMillis
          const request = Effect.gen(function*() {
            const mediaUrl = yield* settings.mediaUrl
            return yield* Effect.result(
              carrier.placeCall({
                from: call.from,
                to: call.to,
                callId,
                mediaUrl,
                mediaToken: MediaToken.sign(key, callId, now + settings.ringTimeoutMs + CallLifecycle.tokenSlackMs)
              }).pipe(CallLifecycle.dialing)
            )
          })
          const result = yield* request.pipe(Effect.ensuring(Deferred.succeed(placed, undefined)))
          if (Result.isFailure(result)) {
            yield* Effect.logInfo(`Carrier refused call ${callId} to ${call.to}: ${result.failure.message}`)
            // No carrier will report this call: its end is published here, so whoever follows
            // the call by its id (the agent attached to it) learns it too.
            const at = yield* Clock.currentTimeMillis
            yield* callEvents.publish(callId, { _tag: "Ended", at, reason: "failed" })
            return yield* finish(yield* follower.ended(at, "failed"))
          }
          yield* finish(yield* follower.follow(events))
        })

        const onInterrupted = Effect.gen(function*() {
          if (!(yield* Ref.get(done))) yield* finish(yield* follower.stop)
        })

        yield* Effect.scoped(followed).pipe(Effect.onInterrupt(() => onInterrupted))
      }).pipe(
        Tracing.call(call.callId, CallLifecycle.callAttributes("direct", "outbound")),
        Effect.annotateLogs({ call: call.callId }),
        Effect.catchCause((cause) => Effect.logError("Following an outbound call failed", cause))
      )

    const place = Effect.fn("DirectCalls.place")(function*({ from, organizationId, to }: DirectCallRequest) {
      if (!isE164(from)) return yield* new InvalidPhoneNumber({ phoneNumber: from, message: notE164 })
      if (!isE164(to)) return yield* new InvalidPhoneNumber({ phoneNumber: to, message: notE164 })
      const organization = yield* organizations.get(organizationId)
      if (!organization.outboundDialingEnabled) return yield* new OutboundDialingDisabled()
      if (organization.billingIssue) return yield* new BillingIssue()
      if ((yield* numbers.findOwned(organizationId, [from])).length === 0) {
        return yield* new PhoneNumberNotOwned({ phoneNumbers: [from] })
      }
      if ((yield* dnc.findListed(organizationId, [to])).length > 0) {
        return yield* new NumberOnDoNotCallList({ phoneNumber: to })
      }
      const callId = randomUUID()
      const startedAt = fromMillis(yield* Clock.currentTimeMillis)
      // From the record to the follower's start: not interrupted halfway (a request whose
      // client went away), so no conversation is left without a follower.
      const { conversation, follower, placed } = yield* Effect.uninterruptible(Effect.gen(function*() {
        const conversation = yield* conversations.insert({
          callId,
          organizationId,
          campaignId: null,
          contactId: null,
          direction: "outbound",
          fromNumber: from,
          toNumber: to,
          startedAt,
          answeredAt: null,
          endedAt: null,
          durationSec: null,
          terminationReason: null
        })
        yield* Webhook.emit([Webhook.callStarted(conversation)])
        const placed = yield* Deferred.make<void>()
        const follower = yield* FiberSet.run(
          followers,
          follow({ callId, conversationId: conversation.id, organizationId, from, to }, placed)
        )
        return { conversation, follower, placed }
      }))
      // The carrier's answer to the request (the follower ends at once if it never starts).
      yield* Effect.raceFirst(Deferred.await(placed), Effect.asVoid(Fiber.await(follower)))
      yield* Effect.logInfo(`Direct call ${callId} from ${from} to ${to} placed`)
      return { callId, conversationId: conversation.id } satisfies PlacedCall
    }, Effect.provideService(WebhookRepository, webhooks))

    return DirectCalls.of({ place })
  })

/**
 * @category layers
 */
export const layer = (
  settings: DirectCallSettings
): Layer.Layer<
  DirectCalls,
  never,
  | OrganizationRepository
  | PhoneNumberRepository
  | DncRepository
  | ConversationRepository
  | CallEvents
  | Carrier
  | ServerSecrets
  | WebhookRepository
> => Layer.effect(DirectCalls, make(settings))
