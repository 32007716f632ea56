/**
 * Calls coming in to an organization's numbers (the `InboundCalls` port), from the carrier's
 * notice to the conversation's end. `accept` finds the organization that owns the dialed number,
 * offers the call to the remote agents listening on it (`CallControllers`, optional: without it
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
 * The end: each accepted call is followed in this process (like the dialer's attempts) through
 * `CallEvents`: the agent's verdict (`AgentEnded`, from whichever daemon the stream reached)
 * ends the conversation with the termination reason of its outcome and who hung up; a carrier
 * `Ended` with no verdict within `verdictGraceMs` ends it as `bot-failure`, and so does a call
 * that outlives `maxCallMs` (hung up through the carrier first). Carriers need not report
 * `Ended` for an inbound call: Twilio reports it only when the number has a status callback.
 *
 * Event webhooks: `call.started` when the call is accepted, `call.ended` when its conversation
 * ends (written in the transaction that ends it: `ConversationRepository.end`, `closeAbandoned`).
 *
 * A process that dies with inbound calls in progress leaves their conversations open (the
 * carrier drops such calls when their media streams close) until a sweep of any daemon, every
 * `sweepEveryMs`, ends them as `bot-failure` once they are older than any call can last,
 * keeping what was recorded of them (with a `RecordingStore` in the context, optional, the
 * recordings this process holds are finalized too; docs/DIALER.md, "Lost calls").
 *
 * @since 0.1.0
 */
import { terminationReasonFor } from "@voice-agent/core/ContactState"
import type { ConversationRecord, TerminationReason } from "@voice-agent/core/Conversation"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { AcceptedCall, InboundAnswer } from "@voice-agent/core/ports/InboundCalls"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as Webhook from "@voice-agent/core/Webhook"
import { Clock, Duration, Effect, Layer, Option, Pull, Schedule, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { verdictGraceMs } from "./CallProgress.ts"
import { offerer } from "./internal/offerCall.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * The termination reason of a call the remote agents declined: Twilio reports a call rejected
 * with `<Reject/>` as `no-answer`, so the record says what the carrier's own log says.
 *
 * @category constructors
 */
export const declinedReason: TerminationReason = "no-answer"

/**
 * @category models
 */
export interface InboundSettings {
  /**
   * The media WebSocket URL carriers stream calls to (waited for: a daemon knows its own address
   * once it listens).
   */
  readonly mediaUrl: Effect.Effect<string>
  /** How long the carrier has to connect the stream (the token's lifetime). */
  readonly connectTimeoutMs: number
  /** An inbound call is hung up after this long whatever happens (`bot-failure`). */
  readonly maxCallMs: number
  /** After the carrier's end of a call, how long the agent's verdict may take. */
  readonly verdictGraceMs: number
  /**
   * How often this process closes the inbound calls whose follower died with its daemon: those
   * started longer ago than the longest call could take (`maxCallMs` + `verdictGraceMs` + this).
   */
  readonly sweepEveryMs: number
}

/**
 * @category constructors
 */
export const defaults = (mediaUrl: Effect.Effect<string>): InboundSettings => ({
  mediaUrl,
  connectTimeoutMs: 60_000,
  sweepEveryMs: 60_000,
  maxCallMs: 3_600_000,
  verdictGraceMs
})

/** What the follower has seen of a call's end. */
const verdictIn = (events: ReadonlyArray<CallEvent>) =>
  events.find((event): event is Extract<CallEvent, { _tag: "AgentEnded" }> => event._tag === "AgentEnded")

type Ending =
  | { readonly _tag: "Verdict"; readonly event: Extract<CallEvent, { _tag: "AgentEnded" }> }
  | { readonly _tag: "NoVerdict"; readonly at: number }

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
    const carrier = yield* Carrier
    const webhooks = yield* WebhookRepository
    const key = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)
    const offer = yield* offerer
    const scope = yield* Effect.scope
    // Recordings kept outside the database (files) are finalized by the sweep when this process
    // holds them; the database's are finalized by the sweep's statement itself.
    const finalizeRecordings = Option.getOrUndefined(
      Option.map(yield* Effect.serviceOption(RecordingStore), (store) => store.finalizeLost)
    )

    /** The agent's verdict among the call's recorded events; fails while there is none. */
    const recordedVerdict = (callId: string) =>
      Effect.scoped(Effect.gen(function*() {
        const events = yield* Stream.runCollect(yield* callEvents.subscribe(callId))
        const verdict = verdictIn(events)
        return verdict === undefined ? yield* Effect.fail("no verdict yet" as const) : verdict
      }))

    /** The call's end as its events tell it, or none past `maxCallMs`. */
    const awaitEnding = (callId: string) =>
      Effect.scoped(Effect.gen(function*() {
        // One reader of the call's events: the verdict, or the carrier's end and then the verdict.
        const pull = yield* Stream.toPull(
          (yield* callEvents.subscribe(callId)).pipe(
            Stream.filter((event) => event._tag === "AgentEnded" || event._tag === "Ended")
          )
        )
        // A pull may hand over both events at once (Ended, then the verdict): the whole chunk counts.
        const next = Pull.catchDone(pull, () => Effect.succeed([]))
        const ending = Effect.gen(function*() {
          const first = yield* next
          if (first.length === 0) return yield* Effect.never
          const verdict = verdictIn(first)
          if (verdict !== undefined) return { _tag: "Verdict", event: verdict } satisfies Ending
          // Nothing reports an inbound call `Answered` on CallEvents, so this subscription ended
          // with `Ended` (CallEvents.isLast): the verdict is looked for in what is recorded.
          const late = yield* recordedVerdict(callId).pipe(
            Effect.retry(Schedule.spaced(Duration.millis(50))),
            Effect.timeoutOption(Duration.millis(settings.verdictGraceMs))
          )
          return Option.isSome(late)
            ? { _tag: "Verdict", event: late.value } satisfies Ending
            : { _tag: "NoVerdict", at: first[0].at } satisfies Ending
        })
        return yield* ending.pipe(Effect.timeoutOption(Duration.millis(settings.maxCallMs)))
      }))

    const follow = (accepted: AcceptedCall, answeredAt: Date) =>
      Effect.gen(function*() {
        const ending = yield* awaitEnding(accepted.callId)
        if (Option.isNone(ending)) {
          yield* carrier.hangUp(accepted.callId).pipe(
            Effect.catch((error) => Effect.logWarning(`Hang-up of call ${accepted.callId} failed: ${error.message}`))
          )
        }
        const now = yield* Clock.currentTimeMillis
        const end = Option.match(ending, {
          onNone: () => ({ at: now, reason: "bot-failure" as const }),
          onSome: (seen) =>
            seen._tag === "Verdict"
              ? { at: seen.event.at, reason: terminationReasonFor(seen.event.outcome, seen.event.endedBy) }
              : { at: seen.at, reason: "bot-failure" as const }
        })
        const endedAt = new Date(Math.max(end.at, answeredAt.getTime()))
        yield* conversations.end(accepted.conversationId, { answeredAt, endedAt, terminationReason: end.reason })
        yield* Effect.logInfo(`Inbound call ${accepted.callId} ended: ${end.reason}`)
      }).pipe(
        Effect.provideService(WebhookRepository, webhooks),
        Effect.annotateLogs({ call: accepted.callId }),
        Effect.catchCause((cause) => Effect.logError("Following an inbound call failed", cause))
      )

    // Calls whose follower died with its daemon (any daemon sweeps; an ended call is left alone).
    const sweep = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const closed = yield* conversations.closeAbandoned({
        kind: "inbound",
        startedBefore: new Date(now - settings.maxCallMs - settings.verdictGraceMs - settings.sweepEveryMs),
        now: new Date(now),
        finalizeRecordings
      })
      if (closed.length === 0) return
      yield* Effect.logWarning(`Closed ${closed.length} inbound call(s) whose daemon stopped following them`)
    }).pipe(
      Effect.provideService(WebhookRepository, webhooks),
      Effect.catchCause((cause) => Effect.logError("Sweeping abandoned inbound calls failed", cause))
    )
    yield* Effect.forkIn(
      Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(settings.sweepEveryMs)), sweep)),
      scope
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
            yield* recordDeclined({ ...call, startedAt: arrivedAt })
            yield* Effect.logInfo(
              `Inbound call ${callId} from ${from} to ${to} declined by the remote agents: ${declinedReason}`
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
            mediaToken: MediaToken.sign(key, callId, now + settings.connectTimeoutMs)
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
