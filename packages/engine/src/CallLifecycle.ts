/**
 * One call followed to its end, for every kind of call: campaign calls (CallAttempt), direct
 * calls (DirectCalls) and inbound calls (InboundCalls). Each of them records, places or accepts
 * its call its own way, then hands it to a {@link Follower}, which runs the one lifecycle
 * (docs/DIALER.md, "Following a call"); the decisions are CallProgress's, pure:
 *
 * - the ring timer: a placed call with no answer after `ringTimeoutMs` is hung up (`timeout`);
 * - the longest call: an answered call is hung up after `maxCallMs`; with the stand-in agent,
 *   an answering machine is hung up at once and a person after the stand-in's script;
 * - the end: the carrier's end of a call never answered; for an answered one, also the agent's
 *   verdict, or `verdictGraceMs` after the carrier's end without it (`agent-failure`). A call
 *   answered on arrival (inbound) has no ringing, and its carrier need not report its end: the
 *   verdict alone ends it, and nothing comes after `maxCallMs`;
 * - no end in time (ring, call and `endReportGraceMs` for the carrier's report after our hang-up):
 *   hung up, and ended by us now;
 * - stopping (the follower's fiber interrupted): hung up, `agent-failure`;
 * - a transfer (the agent's verdict `transfer`: the carrier moved the call, CallProgress
 *   `isTransferred`): the verdict ends it at once, `bot-transfer`, and nothing hangs it up
 *   after (no timer, no time-out, no stopping): the carrier's end comes when the transferred
 *   conversation does.
 *
 * Traced (core Tracing), the call's events and our hang-ups are events of its `call` span
 * (`call.ringing`, `call.answered`, `call.agent_ended`, `call.ended`, `call.hang_up`), its end
 * the span's attributes (`voice_agent.call.outcome`, `ended_by`, `answered`); the carrier's
 * request is its `call.dial` span ({@link dialing}).
 *
 * The outcome and who hung up come from CallProgress's `ending`; direct and inbound calls then
 * close their conversation with {@link recordEnd} (its `call.ended` in the same transaction),
 * campaign calls with the dialer's `endCall`. Direct and inbound calls whose follower died with
 * its daemon are closed by {@link sweepAbandoned}; campaign calls by their lease's recovery.
 *
 * @since 0.1.0
 */
import type { CallOutcome } from "@voice-agent/core/ContactState"
import { terminationReasonFor } from "@voice-agent/core/ContactState"
import type { TerminationReason } from "@voice-agent/core/Conversation"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEndReason, CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { AbandonedCalls } from "@voice-agent/core/ports/ConversationRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { fromMillis } from "@voice-agent/core/Time"
import * as Tracing from "@voice-agent/core/Tracing"
import { Clock, Deferred, Effect, Fiber, Option, Ref, Stream } from "effect"
import type { Scope } from "effect"
import type { HangUpCause, Progress, StandIn } from "./CallProgress.ts"
import { ending, isSettled, isTransferred, noProgress, observe, verdictGraceMs } from "./CallProgress.ts"

/**
 * The timings every followed call shares; DialerSettings, DirectCallSettings and
 * InboundSettings extend it.
 *
 * @category models
 */
export interface CallTimings {
  /**
   * A placed call with no answer nor end by then is hung up (`no-answer`). For an inbound call,
   * how long the carrier has to connect its media stream (the media token's lifetime).
   */
  readonly ringTimeoutMs: number
  /** An answered call is hung up after this long whatever happens. */
  readonly maxCallMs: number
  /** After the carrier's end of an answered call, how long the agent's verdict may take. */
  readonly verdictGraceMs: number
}

/**
 * The timings of docs/DIALER.md: 60 s of ringing, one hour of call, the verdict's grace.
 *
 * @category constructors
 */
export const timings: CallTimings = { ringTimeoutMs: 60_000, maxCallMs: 3_600_000, verdictGraceMs }

/**
 * After our hang-up, how long the carrier gets to report the end before we record it ourselves.
 *
 * @category constants
 */
export const endReportGraceMs = 10_000

/**
 * Beyond the ringing, how long a placed call's media token stays good (the carrier connects
 * after the answer).
 *
 * @category constants
 */
export const tokenSlackMs = 60_000

/**
 * How a call is followed.
 *
 * @category models
 */
export interface Rules {
  readonly timings: CallTimings
  /**
   * Who ends an answered call: `media`, the agent of the media session its stream reaches (its
   * verdict comes as `AgentEnded`); `stand-in`, the engine's scripted stand-in (CallProgress).
   */
  readonly agent: "media" | "stand-in"
  readonly standIn: StandIn
  /** For a call answered on arrival (inbound): when. */
  readonly answeredAt?: number | undefined
}

/**
 * How a followed call ended: when (never before its answer), its answer, the outcome and who
 * hung up.
 *
 * @category models
 */
export interface Ended {
  readonly at: number
  readonly answeredAt: number | null
  readonly outcome: CallOutcome
  readonly endedBy: "remote" | "agent"
}

/**
 * @category models
 */
export interface Follower {
  /** Hangs the call up through the carrier; the first cause is the one kept. A failure is logged. */
  readonly hangUp: (cause: HangUpCause) => Effect.Effect<void>
  /**
   * Follows the call on `events` (subscribed before the carrier was asked, so no event is
   * missed) to its end; its timers live in the scope.
   */
  readonly follow: (events: Stream.Stream<CallEvent>) => Effect.Effect<Ended, never, Scope.Scope>
  /** How the call ended at `at` for `reason`, with what was seen of it (a refused call: `failed`). */
  readonly ended: (at: number, reason: CallEndReason) => Effect.Effect<Ended>
  /** For a follower interrupted while the call lives: hangs it up and answers how it ended. */
  readonly stop: Effect.Effect<Ended>
}

/**
 * How long a follower follows a call at the most, from its start.
 *
 * @category constructors
 */
export const longestMs = (timings: CallTimings, answeredOnArrival: boolean): number =>
  answeredOnArrival ? timings.maxCallMs : timings.ringTimeoutMs + timings.maxCallMs + endReportGraceMs

/**
 * The attributes of a call's `call` span (core Tracing `call`): which way the call goes
 * (`outbound`, `inbound`) and what placed or took it (`campaign`, `direct`, `inbound`).
 *
 * @category constructors
 */
export const callAttributes = (kind: "campaign" | "direct" | "inbound", direction: "outbound" | "inbound") => ({
  "voice_agent.call.kind": kind,
  "voice_agent.call.direction": direction
})

/**
 * Runs `self`, the carrier's request for a call (`placeCall`), as the call's `call.dial` span:
 * from the request to the carrier's answer (placed, or refused with its reason).
 *
 * @category combinators
 */
export const dialing = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(self, "call.dial")

/** A call's event as an event of its `call` span (core Tracing). */
const traceEvent = (event: CallEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "Ringing":
      return Tracing.event("call.ringing", {}, event.at)
    case "Answered":
      return Tracing.event("call.answered", { "voice_agent.answered_by": event.answeredBy }, event.at)
    case "AgentEnded":
      return Tracing.event("call.agent_ended", {
        "voice_agent.call.outcome": event.outcome,
        "voice_agent.call.ended_by": event.endedBy
      }, event.at)
    case "Ended":
      return Tracing.event("call.ended", { "voice_agent.call.end_reason": event.reason }, event.at)
  }
}

/** How often the recorded events of an answered call whose stream ended are read for the verdict. */
const recheckMs = 50

/**
 * The follower of the call `callId`.
 *
 * @category constructors
 */
export const make = (callId: string, rules: Rules): Effect.Effect<Follower, never, Carrier | CallEvents> =>
  Effect.gen(function*() {
    const carrier = yield* Carrier
    const callEvents = yield* CallEvents
    const { timings } = rules
    const media = rules.agent === "media"
    const endReported = rules.answeredAt === undefined
    const progress = yield* Ref.make<Progress>(
      rules.answeredAt === undefined ? noProgress : { ...noProgress, answered: { at: rules.answeredAt, by: "human" } }
    )
    const hangUpCause = yield* Ref.make<HangUpCause | null>(null)
    const settled = Effect.map(Ref.get(progress), (seen) => isSettled(seen, media, endReported))

    // A transferred call is no longer ours: hanging it up would cut the person off the target.
    const hangUp = (cause: HangUpCause) =>
      Effect.flatMap(Ref.get(progress), (seen) =>
        media && isTransferred(seen)
          ? Effect.logDebug(`Call ${callId} was transferred: not hung up (${cause})`)
          : Ref.update(hangUpCause, (current) => current ?? cause).pipe(
            Effect.andThen(Effect.logInfo(`Hanging up call ${callId} (${cause})`)),
            Effect.andThen(Tracing.event("call.hang_up", { "voice_agent.hang_up.cause": cause })),
            Effect.andThen(carrier.hangUp(callId)),
            Effect.catch((error) => Effect.logWarning(`Hang-up of call ${callId} failed: ${error.message}`))
          ))

    const ended = (at: number, reason: CallEndReason) =>
      Effect.gen(function*() {
        const { answered, verdict } = yield* Ref.get(progress)
        const end = ending(
          answered,
          reason,
          at,
          yield* Ref.get(hangUpCause),
          rules.standIn,
          media ? verdict : undefined
        )
        yield* Effect.annotateCurrentSpan({
          "voice_agent.call.outcome": end.outcome,
          "voice_agent.call.ended_by": end.endedBy,
          "voice_agent.call.answered": answered !== null
        })
        return { ...end, at: Math.max(at, answered?.at ?? at), answeredAt: answered?.at ?? null } satisfies Ended
      })

    const stop = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const seen = yield* Ref.get(progress)
      if (media && isTransferred(seen) && seen.verdict !== null) return yield* ended(seen.verdict.at, "local-hangup")
      yield* hangUp("stopping")
      const { ended: reported } = yield* Ref.get(progress)
      return yield* ended(reported?.at ?? now, reported?.reason ?? "local-hangup")
    })

    const follow = (events: Stream.Stream<CallEvent>) =>
      Effect.gen(function*() {
        const ringTimer = endReported
          ? yield* Effect.forkScoped(Effect.sleep(timings.ringTimeoutMs).pipe(Effect.andThen(hangUp("timeout"))))
          : undefined
        const endedSeen = yield* Deferred.make<void>()
        const onEvent = (event: CallEvent) =>
          Effect.gen(function*() {
            yield* Ref.update(progress, (seen) => observe(seen, event))
            yield* traceEvent(event)
            switch (event._tag) {
              case "Ringing":
              case "AgentEnded":
                break
              case "Answered": {
                if (ringTimer !== undefined) yield* Fiber.interrupt(ringTimer)
                yield* Effect.forkScoped(Effect.sleep(timings.maxCallMs).pipe(Effect.andThen(hangUp("timeout"))))
                if (media) break
                if (event.answeredBy === "machine") {
                  yield* hangUp("machine")
                  break
                }
                yield* Effect.forkScoped(
                  Effect.sleep(rules.standIn.hangUpAfterMs).pipe(Effect.andThen(hangUp("script-done")))
                )
                break
              }
              case "Ended":
                yield* Deferred.succeed(endedSeen, undefined)
                break
            }
            return yield* settled
          })
        // A call answered on arrival has no `Answered` among its events, so its stream ends with
        // `Ended` (CallEvents.isLast): a verdict after that is read from what is recorded.
        const recorded = Effect.scoped(
          Effect.flatMap(
            callEvents.subscribe(callId),
            (stream) => Stream.runForEach(stream, (event) => Ref.update(progress, (seen) => observe(seen, event)))
          )
        )
        const lateVerdict = Effect.gen(function*() {
          while (!(yield* settled)) {
            yield* Effect.sleep(recheckMs)
            yield* recorded
          }
        })
        const followed = events.pipe(Stream.takeUntilEffect(onEvent), Stream.runDrain, Effect.andThen(lateVerdict))
        const graceAfterEnd = Deferred.await(endedSeen).pipe(Effect.andThen(Effect.sleep(timings.verdictGraceMs)))
        const completed = yield* Effect.timeoutOption(
          Effect.raceFirst(followed, graceAfterEnd),
          longestMs(timings, !endReported)
        )
        const { ended: reported, verdict } = yield* Ref.get(progress)
        if (Option.isSome(completed) && reported !== null) return yield* ended(reported.at, reported.reason)
        if (Option.isSome(completed) && verdict !== null && (!endReported || verdict.outcome === "transfer")) {
          return yield* ended(verdict.at, verdict.endedBy === "agent" ? "local-hangup" : "remote-hangup")
        }
        yield* hangUp("timeout")
        return yield* ended(yield* Clock.currentTimeMillis, "local-hangup")
      })

    return { hangUp, follow, ended, stop } satisfies Follower
  })

/**
 * {@link make} with the carrier and call events of the context it is taken in (a service's,
 * taken once when it is built).
 *
 * @category constructors
 */
export const maker: Effect.Effect<
  (callId: string, rules: Rules) => Effect.Effect<Follower>,
  never,
  Carrier | CallEvents
> = Effect.map(
  Effect.context<Carrier | CallEvents>(),
  (context) => (callId, rules) => Effect.provideContext(make(callId, rules), context)
)

/**
 * Closes the conversation of a direct or inbound call as it `ended` (its `call.ended` is written
 * in the same transaction); answers its termination reason.
 *
 * @category constructors
 */
export const recordEnd = (
  conversations: ConversationRepository["Service"],
  conversationId: string,
  end: Ended
): Effect.Effect<TerminationReason> =>
  Effect.gen(function*() {
    const terminationReason = terminationReasonFor(end.outcome, end.endedBy)
    yield* conversations.end(conversationId, {
      answeredAt: end.answeredAt === null ? null : fromMillis(end.answeredAt),
      endedAt: fromMillis(end.at),
      terminationReason
    })
    return terminationReason
  })

/**
 * Every `sweepEveryMs`, in the scope, closes the calls of `kind` whose follower died with its
 * daemon (any daemon sweeps; an ended call is left alone): those started longer ago than their
 * follower could take, as `bot-failure`, keeping what was recorded of them (with a
 * `RecordingStore` in the context, optional, the recordings this process holds are finalized
 * too; docs/DIALER.md, "Lost calls").
 *
 * @category constructors
 */
export const sweepAbandoned = (
  kind: AbandonedCalls["kind"],
  settings: CallTimings & { readonly sweepEveryMs: number }
): Effect.Effect<void, never, ConversationRepository | Scope.Scope> =>
  Effect.gen(function*() {
    const conversations = yield* ConversationRepository
    // Recordings kept outside the database (files) are finalized by the sweep when this process
    // holds them; the database's are finalized by the sweep's statement itself.
    const finalizeRecordings = Option.getOrUndefined(
      Option.map(yield* Effect.serviceOption(RecordingStore), (store) => store.finalizeLost)
    )
    const olderThanMs = longestMs(settings, kind === "inbound") + settings.verdictGraceMs + settings.sweepEveryMs
    const sweep = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const closed = yield* conversations.closeAbandoned({
        kind,
        startedBefore: new Date(now - olderThanMs),
        now: new Date(now),
        finalizeRecordings
      })
      if (closed.length === 0) return
      yield* Effect.logWarning(`Closed ${closed.length} ${kind} call(s) whose daemon stopped following them`)
    }).pipe(Effect.catchCause((cause) => Effect.logError(`Sweeping abandoned ${kind} calls failed`, cause)))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(settings.sweepEveryMs), sweep)))
  })
