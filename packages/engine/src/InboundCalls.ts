/**
 * Calls coming in to an organization's numbers (the `InboundCalls` port), from the carrier's
 * notice to the conversation's end. `accept` finds the organization that owns the dialed number,
 * offers the call to the SDK agents listening on it (`CallControllers`, optional: without it
 * nobody listens; `taken` and `none` go on), records the call as an `inbound` conversation (no
 * campaign, no contact), answered at once, and returns what the carrier needs to stream it to
 * the media endpoint (the call id and its media token): the simulated carrier then connects,
 * Twilio is answered with TwiML that makes it connect. The media session runs the number's agent
 * there like on any call.
 *
 * A call the agents decline (`declined`: the listener assigned the call declined it, or did
 * not answer in time) reached the number all the same, so it is recorded like any call that did:
 * an `inbound` conversation that rang from its arrival to the decline and ended unanswered,
 * {@link declinedReason} with 0 s (no transcript, no recording), announced as `call.started` and
 * `call.ended`. The carrier then rejects it (Twilio's `<Reject/>`, whose call Twilio reports
 * `no-answer`).
 *
 * The end: each accepted call is followed in this process by CallLifecycle, answered on arrival
 * (no ringing; its carrier need not report its end: Twilio reports it only when the number has
 * a status callback): the agent's verdict (`AgentEnded`, from whichever daemon the stream
 * reached) ends the conversation with the termination reason of its outcome and who hung up,
 * at the carrier's end when it was reported, else at the verdict's; a carrier `Ended` with no
 * verdict within `verdictGraceMs` ends it as `bot-failure`, and so does a call that outlives
 * `maxCallMs` (hung up through the carrier first).
 *
 * Event webhooks: `call.started` when the call is accepted, `call.ended` when its conversation
 * ends (written in the transaction that ends it: `ConversationRepository.end`, `closeAbandoned`).
 *
 * A process that dies with inbound calls in progress leaves their conversations open (the
 * carrier drops such calls when their media streams close) until a sweep of any daemon, every
 * `sweepEveryMs`, ends them as `bot-failure` once they are older than any call can last,
 * keeping what was recorded of them (CallLifecycle `sweepAbandoned`; docs/DIALER.md, "Lost
 * calls").
 *
 * @since 0.1.0
 */
import type { ConversationRecord, TerminationReason } from "@voice-agent/core/Conversation"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { AcceptedCall, InboundAnswer } from "@voice-agent/core/ports/InboundCalls"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as Tracing from "@voice-agent/core/Tracing"
import * as Webhook from "@voice-agent/core/Webhook"
import { Clock, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as CallLifecycle from "./CallLifecycle.ts"
import { standIn } from "./CallProgress.ts"
import { offerer } from "./internal/offerCall.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * The termination reason of a call the SDK agents declined: Twilio reports a call rejected
 * with `<Reject/>` as `no-answer`, so the record says what the carrier's own log says.
 *
 * @category constructors
 */
export const declinedReason: TerminationReason = "no-answer"

/**
 * The shared timings (CallLifecycle): `ringTimeoutMs` is how long the carrier has to connect the
 * stream (the media token's lifetime); an inbound call is hung up after `maxCallMs` whatever
 * happens (`bot-failure`).
 *
 * @category models
 */
export interface InboundSettings extends CallLifecycle.CallTimings {
  /**
   * The media WebSocket URL carriers stream calls to (waited for: a daemon knows its own address
   * once it listens).
   */
  readonly mediaUrl: Effect.Effect<string>
  /** How often this process closes the inbound calls whose follower died with its daemon. */
  readonly sweepEveryMs: number
}

/**
 * @category constructors
 */
export const defaults = (mediaUrl: Effect.Effect<string>): InboundSettings => ({
  mediaUrl,
  ...CallLifecycle.timings,
  sweepEveryMs: 60_000
})

/**
 * The service; followers run in the scope it is built in (closing it interrupts them, leaving
 * their conversations open as a dying process would).
 *
 * @category constructors
 */
export const make = (settings: InboundSettings) =>
  Effect.gen(function*() {
    const numbers = yield* PhoneNumberRepository
    const conversations = yield* ConversationRepository
    const callEvents = yield* CallEvents
    const newFollower = yield* CallLifecycle.maker
    const webhooks = yield* WebhookRepository
    const key = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)
    const offer = yield* offerer
    const scope = yield* Effect.scope
    yield* CallLifecycle.sweepAbandoned("inbound", settings)

    const follow = (accepted: AcceptedCall, answeredAt: Date) =>
      Effect.gen(function*() {
        const { callId } = accepted
        const rules = { timings: settings, agent: "media", standIn, answeredAt: answeredAt.getTime() } as const
        const follower = yield* newFollower(callId, rules)
        const end = yield* follower.follow(yield* callEvents.subscribe(callId))
        const terminationReason = yield* CallLifecycle.recordEnd(conversations, accepted.conversationId, end)
        yield* Effect.logInfo(`Inbound call ${callId} ended: ${terminationReason}`)
      }).pipe(
        Effect.scoped,
        Tracing.call(accepted.callId, CallLifecycle.callAttributes("inbound", "inbound")),
        Effect.annotateLogs({ call: accepted.callId }),
        Effect.catchCause((cause) => Effect.logError("Following an inbound call failed", cause))
      )

    /** Records a declined call: rang from `arrivedAt` until now, never answered. */
    const recordDeclined = (
      call: Omit<ConversationRecord, "id" | "answeredAt" | "endedAt" | "durationSec" | "terminationReason">
    ) =>
      Effect.gen(function*() {
        const conversation = yield* conversations.insert({
          ...call,
          answeredAt: null,
          endedAt: null,
          durationSec: null,
          terminationReason: null
        })
        yield* Webhook.emit([Webhook.callStarted(conversation)])
        const endedAt = new Date(yield* Clock.currentTimeMillis)
        yield* conversations.end(conversation.id, { answeredAt: null, endedAt, terminationReason: declinedReason })
      })

    return InboundCalls.of({
      accept: ({ from, to }) =>
        Effect.gen(function*() {
          if (!isE164(from) || !isE164(to)) return { _tag: "NotOurs" } satisfies InboundAnswer
          const owner = yield* numbers.findOwner(to)
          if (Option.isNone(owner)) return { _tag: "NotOurs" } satisfies InboundAnswer
          const callId = randomUUID()
          const organizationId = owner.value.organizationId
          const call = {
            callId,
            organizationId,
            campaignId: null,
            contactId: null,
            direction: "inbound" as const,
            fromNumber: from,
            toNumber: to
          }
          const arrivedAt = new Date(yield* Clock.currentTimeMillis)
          if ((yield* offer({ _tag: "Inbound", callId, organizationId, from, to })) === "declined") {
            yield* recordDeclined({ ...call, startedAt: arrivedAt }).pipe(
              Effect.tap(() =>
                Effect.annotateCurrentSpan({
                  "voice_agent.call.outcome": declinedReason,
                  "voice_agent.call.answered": false,
                  "voice_agent.call.declined": true
                })
              ),
              Tracing.call(callId, CallLifecycle.callAttributes("inbound", "inbound"))
            )
            yield* Effect.logInfo(
              `Inbound call ${callId} from ${from} to ${to} declined by the SDK agents: ${declinedReason}`
            )
            return { _tag: "Declined", callId, organizationId } satisfies InboundAnswer
          }
          const now = yield* Clock.currentTimeMillis
          const answeredAt = new Date(now)
          const conversation = yield* conversations.insert({
            ...call,
            startedAt: answeredAt,
            answeredAt,
            endedAt: null,
            durationSec: null,
            terminationReason: null
          })
          yield* Webhook.emit([Webhook.callStarted(conversation)])
          const accepted: AcceptedCall = {
            callId,
            conversationId: conversation.id,
            organizationId,
            mediaUrl: yield* settings.mediaUrl,
            mediaToken: MediaToken.sign(key, callId, now + settings.ringTimeoutMs)
          }
          yield* Effect.forkIn(follow(accepted, answeredAt), scope)
          yield* Effect.logInfo(`Inbound call ${callId} from ${from} to ${to} accepted`)
          return { _tag: "Accepted", call: accepted } satisfies InboundAnswer
        }).pipe(Effect.provideService(WebhookRepository, webhooks), Effect.uninterruptible)
    })
  })

/**
 * @category layers
 */
export const layer = (
  settings: InboundSettings
): Layer.Layer<
  InboundCalls,
  never,
  PhoneNumberRepository | ConversationRepository | CallEvents | Carrier | ServerSecrets | WebhookRepository
> => Layer.effect(InboundCalls, make(settings))
