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
 * The call is then followed in this process through `CallEvents` (subscribed before the
 * carrier is asked, so no event is missed), with the dialer's rules (CallProgress `ending`, in
 * its media-agent mode): never answered, the carrier's reason (`busy`, `no-answer`, `failed`;
 * unanswered after `ringTimeoutMs`, hung up and `no-answer`); a carrier refusal, `failed` (also
 * published as the call's `Ended`, since no carrier will report it); answered, the termination
 * reason of the agent's verdict (`AgentEnded`, from whichever daemon the media stream reached),
 * or `bot-failure` when no verdict comes within `verdictGraceMs` of the carrier's end. An answered call is hung up after `maxCallMs`. The end is written with
 * `ConversationRepository.end`, which writes its `call.ended` in the same transaction.
 *
 * Shutdown (the scope the service was built in closes): calls in progress get `drainMs` to end,
 * then they are hung up and recorded as `bot-failure`, like the dialer's. A process that dies
 * with calls in progress leaves their conversations open (the dialer's lease recovery and the
 * inbound sweep do not cover these calls).
 *
 * @since 0.1.0
 */
import { terminationReasonFor } from "@voice-agent/core/ContactState"
import {
  BillingIssue,
  InvalidPhoneNumber,
  NumberOnDoNotCallList,
  OutboundDialingDisabled,
  PhoneNumberNotOwned
} from "@voice-agent/core/Errors"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEndReason } from "@voice-agent/core/ports/CallEvents"
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
import * as Webhook from "@voice-agent/core/Webhook"
import { Clock, Deferred, Duration, Effect, Fiber, FiberSet, Layer, Option, Ref, Result, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { HangUpCause, Progress } from "./CallProgress.ts"
import { ending, isSettled, noProgress, observe, standIn, verdictGraceMs } from "./CallProgress.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * @category models
 */
export interface DirectCallSettings {
  /**
   * The media WebSocket URL carriers stream calls to (waited for: a daemon knows its own address
   * once it listens).
   */
  readonly mediaUrl: Effect.Effect<string>
  /** A placed call with no answer nor end by then is hung up (`no-answer`). */
  readonly ringTimeoutMs: number
  /** An answered call is hung up after this long whatever happens. */
  readonly maxCallMs: number
  /** After the carrier's end of an answered call, how long the agent's verdict may take. */
  readonly verdictGraceMs: number
  /** On shutdown, calls in progress get this long to end before they are hung up. */
  readonly drainMs: number
}

/**
 * The dialer's timings (docs/DIALER.md): 60 s of ringing, one hour of call, 35 s for the
 * verdict, 30 s of drain.
 *
 * @category constructors
 */
export const defaults = (mediaUrl: Effect.Effect<string>): DirectCallSettings => ({
  mediaUrl,
  ringTimeoutMs: 60_000,
  maxCallMs: 3_600_000,
  verdictGraceMs,
  drainMs: 30_000
})

/** After our hang-up, how long the carrier gets to report the end before we record it ourselves. */
const endReportGraceMs = 10_000

/** Beyond the ringing, how long the media token stays good (the carrier connects after the answer). */
const tokenSlackMs = 60_000

const notE164 = "not an E.164 number"

type Phase = "placing" | "following" | "done"

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

    /** Follows `call` from the carrier's request to its recorded end; `placed` once the carrier answered. */
    const follow = (call: Call, placed: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const { callId } = call
        const phase = yield* Ref.make<Phase>("placing")
        const progress = yield* Ref.make<Progress>(noProgress)
        const hangUpCause = yield* Ref.make<HangUpCause | null>(null)

        const hangUp = (cause: HangUpCause) =>
          Ref.update(hangUpCause, (current) => current ?? cause).pipe(
            Effect.andThen(carrier.hangUp(callId)),
            Effect.catch((error) => Effect.logWarning(`Hang-up of call ${callId} failed: ${error.message}`))
          )

        const finish = (endedAt: number, reason: CallEndReason) =>
          Effect.gen(function*() {
            const { answered, verdict } = yield* Ref.get(progress)
            const end = ending(answered, reason, endedAt, yield* Ref.get(hangUpCause), standIn, verdict)
            const terminationReason = terminationReasonFor(end.outcome, end.endedBy)
            yield* conversations.end(call.conversationId, {
              answeredAt: answered === null ? null : fromMillis(answered.at),
              endedAt: fromMillis(Math.max(endedAt, answered?.at ?? endedAt)),
              terminationReason
            })
            yield* Ref.set(phase, "done")
            yield* Effect.logInfo(`Direct call ${callId} to ${call.to} ended: ${terminationReason}`)
          })

        const onInterrupted = Effect.gen(function*() {
          if ((yield* Ref.get(phase)) === "done") return
          yield* hangUp("stopping")
          const { ended } = yield* Ref.get(progress)
          yield* finish(ended?.at ?? (yield* Clock.currentTimeMillis), ended?.reason ?? "local-hangup")
        })

        const followed = Effect.gen(function*() {
          const events = yield* callEvents.subscribe(callId)
          const now = yield* Clock.currentTimeMillis
          const request = Effect.gen(function*() {
            const mediaUrl = yield* settings.mediaUrl
            return yield* Effect.result(carrier.placeCall({
              from: call.from,
              to: call.to,
              callId,
              mediaUrl,
              mediaToken: MediaToken.sign(key, callId, now + settings.ringTimeoutMs + tokenSlackMs)
            }))
          })
          const result = yield* request.pipe(Effect.ensuring(Deferred.succeed(placed, undefined)))
          if (Result.isFailure(result)) {
            yield* Effect.logInfo(`Carrier refused call ${callId} to ${call.to}: ${result.failure.message}`)
            // No carrier will report this call: its end is published here, so whoever follows
            // the call by its id (the agent attached to it) learns it too.
            const at = yield* Clock.currentTimeMillis
            yield* callEvents.publish(callId, { _tag: "Ended", at, reason: "failed" })
            return yield* finish(at, "failed")
          }
          yield* Ref.set(phase, "following")
          const ringTimer = yield* Effect.forkScoped(
            Effect.sleep(Duration.millis(settings.ringTimeoutMs)).pipe(Effect.andThen(hangUp("timeout")))
          )
          const endedSeen = yield* Deferred.make<void>()
          // Done: the carrier's end of a call never answered; for an answered one, also the
          // agent's verdict, or `verdictGraceMs` after the end without it.
          const untilDone = events.pipe(
            Stream.takeUntilEffect((event) =>
              Effect.gen(function*() {
                yield* Ref.update(progress, (p) => observe(p, event))
                switch (event._tag) {
                  case "Ringing":
                  case "AgentEnded":
                    break
                  case "Answered":
                    yield* Fiber.interrupt(ringTimer)
                    yield* Effect.forkScoped(
                      Effect.sleep(Duration.millis(settings.maxCallMs)).pipe(Effect.andThen(hangUp("timeout")))
                    )
                    break
                  case "Ended":
                    yield* Deferred.succeed(endedSeen, undefined)
                    break
                }
                return isSettled(yield* Ref.get(progress), true)
              })
            ),
            Stream.runDrain
          )
          const graceAfterEnd = Deferred.await(endedSeen).pipe(
            Effect.andThen(Effect.sleep(Duration.millis(settings.verdictGraceMs)))
          )
          const limit = settings.ringTimeoutMs + settings.maxCallMs + endReportGraceMs
          const completed = yield* Effect.timeoutOption(
            Effect.raceFirst(untilDone, graceAfterEnd),
            Duration.millis(limit)
          )
          const { ended } = yield* Ref.get(progress)
          if (Option.isNone(completed) || ended === null) {
            yield* hangUp("timeout")
            return yield* finish(yield* Clock.currentTimeMillis, "local-hangup")
          }
          yield* finish(ended.at, ended.reason)
        })

        yield* Effect.scoped(followed).pipe(Effect.onInterrupt(() => onInterrupted))
      }).pipe(
        Effect.provideService(WebhookRepository, webhooks),
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
