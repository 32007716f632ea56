/**
 * The media session's agent side and its ending: the call's context as the agent sees it, the
 * agent's run and its verdict, the transcript written as the agent speaks, the agent's transfer
 * through the carrier (a `call.transfer` span; a refusal logged and answered with its reason),
 * and the verdict published.
 *
 * The agent's turns reach the store in the order the agent emits them, off the agent's path (a
 * fiber of their own): a slow or unreachable database never holds up what the agent says next.
 * A batch that cannot be written is logged and dropped. The verdict is published to CallEvents
 * (`AgentEnded`) for the dialer that holds the call once the transcript is stored, up to
 * `transcriptFlushMs` after the end. An agent that fails or dies is `agent-failure`; so is one
 * that takes longer than `verdictTimeoutMs` to answer after the person hung up.
 *
 * @since 0.1.0
 */
import type { ContactData } from "@voice-agent/core/Contact"
import type { ConversationRecord, TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import type { Agent, AgentCall, AgentEnd, CallContext, TransferResult } from "@voice-agent/core/ports/Agent"
import type { AnsweredBy, CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { CarrierError } from "@voice-agent/core/ports/Carrier"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { TurnLatencyRecord } from "@voice-agent/core/TurnLatency"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, Stream } from "effect"
import type { Scope } from "effect"
import { transcriptFlushMs } from "./CallProgress.ts"

/**
 * The carrier's answering-machine detection, from the call's Answered event when recorded
 * (`human` when none is, within 500 ms).
 *
 * @category constructors
 */
export const answeredByOf = (callEvents: CallEvents["Service"], callId: string): Effect.Effect<AnsweredBy> =>
  Effect.scoped(
    Effect.gen(function*() {
      const events = yield* callEvents.subscribe(callId)
      const answered = yield* Stream.runHead(
        events.pipe(Stream.filter((event) => event._tag === "Answered"))
      ).pipe(Effect.timeoutOption(Duration.millis(500)), Effect.map(Option.flatten))
      return Option.match(answered, {
        onNone: (): AnsweredBy => "human",
        onSome: (event): AnsweredBy => event._tag === "Answered" ? event.answeredBy : "human"
      })
    })
  )

/**
 * The call as its agent sees it.
 *
 * @category constructors
 */
export const contextOf = (
  callId: string,
  call: { readonly conversation: ConversationRecord; readonly data: ContactData },
  answeredBy: CallContext["answeredBy"]
): CallContext => ({
  callId,
  conversationId: call.conversation.id,
  direction: call.conversation.direction,
  from: call.conversation.fromNumber,
  to: call.conversation.toNumber,
  campaignId: call.conversation.campaignId,
  contactId: call.conversation.contactId,
  data: call.data,
  answeredBy
})

/** A batch that could not be written is tried again this often, this many times (a database restarting). */
const rewriteMs = 1_000
const writeAttempts = 30

/** What the agent emits for the store, in the order it emits it. */
type Emitted =
  | { readonly _tag: "Turn"; readonly turn: TranscriptTurnRecord }
  | { readonly _tag: "Latency"; readonly latency: TurnLatencyRecord }

/**
 * Writes `batch` with `write`; one that fails is written again every `rewriteMs`, and logged as
 * lost after `writeAttempts`.
 */
const persist = <A>(
  batch: ReadonlyArray<A>,
  write: (batch: ReadonlyArray<A>) => Effect.Effect<void>,
  what: string,
  attempt = 1
): Effect.Effect<void> =>
  batch.length === 0 ? Effect.void : write(batch).pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      if (attempt >= writeAttempts) return Effect.logError(`${what}: ${batch.length} not written`, cause)
      const retry = Effect.andThen(Effect.sleep(Duration.millis(rewriteMs)), persist(batch, write, what, attempt + 1))
      return attempt === 1
        ? Effect.andThen(Effect.logWarning(`${what}: ${batch.length} not written yet; trying again`, cause), retry)
        : retry
    })
  )

/**
 * The transcript's and turn latencies' writer, for the scope: `emitTurn` and `emitLatency`
 * queue, `flush` stops taking more and waits (up to `transcriptFlushMs`, then warns) for the rest
 * to be written. A fiber of the scope writes both while there is something to write, batch by
 * batch as they come: a batch's turns (in one write), then its latencies; what came after a batch
 * that fails waits behind it, in order. It ends once nothing waits (a call's few turns do not
 * keep a fiber waiting for the whole call), and the next emit starts another.
 *
 * @category constructors
 */
export const transcript = (
  conversations: ConversationRepository["Service"],
  conversationId: string,
  callId: string
) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // The writer runs as the session's (its span and annotations), whichever fiber emits.
    const session = yield* Effect.context()
    let waiting: Array<Emitted> = []
    /** The writer while it runs (forked, not started at once: it is set before it can end). */
    let writer: Fiber.Fiber<void> | undefined
    let flushed = false
    const writeBatch = (batch: ReadonlyArray<Emitted>) => {
      const turns: Array<TranscriptTurnRecord> = []
      const latencies: Array<TurnLatencyRecord> = []
      for (const record of batch) {
        if (record._tag === "Turn") turns.push(record.turn)
        else latencies.push(record.latency)
      }
      return Effect.andThen(
        persist(turns, (turns) =>
          conversations.appendTurns(conversationId, turns), `Transcript of call ${callId}: turn(s)`),
        persist(
          latencies,
          (latencies) =>
            Effect.forEach(latencies, (turn) =>
              conversations.recordLatency(conversationId, turn), { discard: true }),
          `Turn latency of call ${callId}: reply(ies)`
        )
      )
    }
    // Ends in the step that finds nothing waiting, so an emit never sees a writer about to end.
    const writeWaiting: Effect.Effect<void> = Effect.suspend(() => {
      const batch = waiting
      waiting = []
      if (batch.length === 0) {
        writer = undefined
        return Effect.void
      }
      return Effect.andThen(writeBatch(batch), writeWaiting)
    })
    const emit = (record: Emitted) =>
      Effect.suspend(() => {
        if (flushed) {
          return Effect.void
        }
        waiting.push(record)
        if (writer !== undefined) {
          return Effect.void
        }
        return Effect.map(Effect.forkIn(Effect.provideContext(writeWaiting, session), scope), (fiber) => {
          writer = fiber
        })
      })
    const emitTurn: AgentCall["emitTurn"] = (turn) =>
      emit({ _tag: "Turn", turn: { speaker: turn.speaker, text: turn.text, offsetMs: turn.offsetMs } })
    const emitLatency: AgentCall["emitLatency"] = (latency) =>
      emit({ _tag: "Latency", latency })
    const flush = Effect.gen(function*() {
      flushed = true
      if (writer === undefined) return
      const written = yield* Fiber.await(writer).pipe(Effect.timeoutOption(Duration.millis(transcriptFlushMs)))
      if (Option.isNone(written)) {
        yield* Effect.logWarning(`Call ${callId}: transcript not all written ${transcriptFlushMs} ms after the end`)
      }
    })
    return { emitTurn, emitLatency, flush }
  })

/**
 * Runs the agent on `call` in a fiber of the scope; `verdict` completes with what it answers
 * (`agent-failure` when it fails or dies). With `answeredBy` (the engine's answering-machine
 * detection, `MediaSessionMachineDetection`), the agent starts once it is known, with it in the
 * call's context, or as for a person when the person hangs up first.
 *
 * @category constructors
 */
export const runAgent = (
  agent: Agent["Service"],
  call: AgentCall,
  answeredBy?: Effect.Effect<CallContext["answeredBy"]>
): Effect.Effect<
  { readonly verdict: Deferred.Deferred<AgentEnd>; readonly fiber: Fiber.Fiber<boolean> },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const verdict = yield* Deferred.make<AgentEnd>()
    const started = answeredBy === undefined ? Effect.succeed(call) : Effect.map(
      call.hungUp === undefined ? answeredBy : Effect.raceFirst(answeredBy, Effect.as(call.hungUp, "human" as const)),
      (by): AgentCall => ({ ...call, context: { ...call.context, answeredBy: by } })
    )
    const fiber = yield* Effect.forkScoped(
      Effect.flatMap(started, agent.run).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Deferred.succeed(
            verdict,
            Exit.isSuccess(exit) ? exit.value : { outcome: "agent-failure", endedBy: "agent" } satisfies AgentEnd
          )
        )
      )
    )
    return { verdict, fiber }
  })

/**
 * The verdict once the call ended: as the agent answers it when the agent ended the call; when
 * the person did, within `verdictTimeoutMs`, else `agent-failure`.
 *
 * @category constructors
 */
export const awaitVerdict = (
  verdict: Deferred.Deferred<AgentEnd>,
  endedBy: "person" | "agent",
  verdictTimeoutMs: number
): Effect.Effect<AgentEnd> =>
  endedBy === "agent"
    ? Deferred.await(verdict)
    : Deferred.await(verdict).pipe(
      Effect.timeoutOption(Duration.millis(verdictTimeoutMs)),
      Effect.map(Option.getOrElse((): AgentEnd => ({ outcome: "agent-failure", endedBy: "remote" })))
    )

/**
 * Publishes the verdict of call `callId` (`AgentEnded`), and logs the end.
 *
 * @category constructors
 */
export const publish = (callEvents: CallEvents["Service"], callId: string, end: AgentEnd) =>
  Effect.gen(function*() {
    const at = yield* Clock.currentTimeMillis
    yield* callEvents.publish(callId, { _tag: "AgentEnded", at, outcome: end.outcome, endedBy: end.endedBy })
    yield* Effect.logInfo(`Media stream of call ${callId} ended: ${end.outcome} (ended by ${end.endedBy})`)
  })

/**
 * The agent's transfer of the call `callId` to `to`, through the carrier: `Transferred` once
 * the carrier has taken the call over, `Refused` with the carrier's reason otherwise (logged:
 * the call goes on with the agent).
 *
 * @category constructors
 */
export const transfer = (
  carrier: Option.Option<Carrier["Service"]>,
  callId: string,
  to: string
): Effect.Effect<TransferResult> =>
  Option.match(carrier, {
    onNone: () =>
      Effect.fail(new CarrierError({ reason: "rejected", message: "no carrier serves this media session" })),
    onSome: (carrier) => carrier.transfer(callId, to)
  }).pipe(
    Effect.withSpan("call.transfer", { attributes: { "voice_agent.transfer.to": to } }),
    Effect.as<TransferResult>({ _tag: "Transferred" }),
    Effect.tap(() => Effect.logInfo(`Call ${callId}: transferred to ${to}`)),
    Effect.catch((error) =>
      Effect.as(
        Effect.logWarning(`Call ${callId}: the transfer to ${to} was refused: ${error.message}`),
        { _tag: "Refused", reason: error.message } satisfies TransferResult
      )
    )
  )
