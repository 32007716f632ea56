/**
 * The spans of a call's turns (docs/OPERATIONS.md, "Traces"), under the span the agent runs in
 * (the call's `call.media`), each carrying the call's id:
 *
 * - `greeting`: what the agent says before the person's first words (the greeting, the
 *   introduction, the first question; a voicemail's message), with its `llm`, `tts` and
 *   `playout` spans;
 * - `turn`, one per reply to the person (`voice_agent.turn.index` from 1): from the end of the
 *   person's speech to the end of the last thing done for the reply (its audio played, or cut
 *   off). Under it, `stt` for each final transcript (from the end of the speech to the
 *   transcript), `llm` for each model request (`voice_agent.llm.first_token_ms`, and an event
 *   `first_token`), `tts` for each speech synthesized (`voice_agent.tts.first_byte_ms`, an
 *   event `first_byte`), `playout` for each speech played (`voice_agent.playout.interrupted`).
 *   Once the reply's audio started, the turn carries its latency as the call's latency record
 *   has it (`voice_agent.turn.user_stopped_ms`, `agent_started_ms`, `voice_to_voice_ms`, and
 *   the stages' `stt_ms`, `llm_first_token_ms`, `tts_first_byte_ms`, `engine_ms`).
 *
 * Speech the person says before the agent has started its reply (a sentence the recognizer
 * split in two) continues the same turn, as the turn latency counts it; speech after that opens
 * the next turn. The provider's own spans (its HTTP requests) go under the stage that made them.
 *
 * Times on the call's timeline (ms from the answer: the person's speech, the agent's audio)
 * become the spans' times through the session's clock. Turns end when the call's conversation
 * does (their spans are exported then, with the call's), each at the end of its last work.
 *
 * Untraced (core Tracing `traced`: no tracer to export to), nothing is made: every operation is
 * a no-op and `run` returns its effect as it is.
 *
 * @since 0.1.0
 */
import type { AgentCall, Playback } from "@voice-agent/core/ports/Agent"
import * as Tracing from "@voice-agent/core/Tracing"
import type { TurnLatencyRecord } from "@voice-agent/core/TurnLatency"
import { Clock, Context, Effect, Exit, Option, Stream } from "effect"
import type { Scope, Tracer } from "effect"

/**
 * A turn (or the greeting), as the work done for it names it.
 *
 * @category models
 */
export interface Turn {
  readonly span: Tracer.Span
}

/**
 * A stage of a turn running: a model request or a speech's synthesis.
 *
 * @category models
 */
export interface Stage {
  /** Its first result came (the model's first words, the speech's first audio); later calls do nothing. */
  readonly first: Effect.Effect<void>
  /** Runs `self` as the stage (the provider's spans under it): the stage ends with it. */
  readonly run: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The stage as a stream: its first element is the first result; it ends with the stream. */
  readonly stream: <A, E, R>(self: Stream.Stream<A, E, R>) => Stream.Stream<A, E, R>
}

/**
 * @category models
 */
export type StageName = "llm" | "tts"

/**
 * The providers' names, for the stages' `voice_agent.provider`.
 *
 * @category models
 */
export interface ProviderNames {
  readonly stt: string
  readonly llm?: string | undefined
  readonly tts: string
}

/**
 * @category models
 */
export interface TurnTrace {
  /** Opens the greeting: what the agent says from now until the person speaks. */
  readonly greeting: Effect.Effect<void>
  /**
   * The person's speech (`startMs` to `endMs` on the call's timeline) was recognized just now: an
   * `stt` span, in the turn it opens, or continues when its reply has not started yet.
   */
  readonly heard: (speech: { readonly startMs: number; readonly endMs: number }) => Effect.Effect<void>
  /** The turn work starting now belongs to (none before the greeting and the first words). */
  readonly current: () => Turn | undefined
  /** Starts the stage `name` of `turn`. */
  readonly stage: (turn: Turn | undefined, name: StageName) => Effect.Effect<Stage>
  /** A speech of `turn` is about to play: the turn's reply has started. */
  readonly speaking: (turn: Turn | undefined) => void
  /** A speech of `turn` played (or was cut off): a `playout` span. */
  readonly played: (turn: Turn | undefined, playback: Playback) => Effect.Effect<void>
  /** The current turn's latency, as recorded for the call. */
  readonly replied: (latency: TurnLatencyRecord) => void
}

const noStage: Stage = { first: Effect.void, run: (self) => self, stream: (self) => self }

/**
 * Nothing traced.
 *
 * @category constructors
 */
export const off: TurnTrace = {
  greeting: Effect.void,
  heard: () => Effect.void,
  current: () => undefined,
  stage: () => Effect.succeed(noStage),
  speaking: () => {},
  played: () => Effect.void,
  replied: () => {}
}

/** A turn as this module keeps it. */
interface Open extends Turn {
  readonly greeting: boolean
  /** The end of its last work, in ns. */
  endNs: bigint
  /** Its reply's audio started: the person's next words open the next turn. */
  answered: boolean
}

const firsts: Record<StageName, { readonly event: string; readonly attribute: string }> = {
  llm: { event: "first_token", attribute: "voice_agent.llm.first_token_ms" },
  tts: { event: "first_byte", attribute: "voice_agent.tts.first_byte_ms" }
}

const msToNs = (ms: number): bigint => BigInt(Math.round(ms * 1_000_000))
const nsToMs = (ns: bigint): number => Number(ns / 1_000n) / 1_000
const later = (a: bigint, b: bigint): bigint => a > b ? a : b

/**
 * The turns of `call`, for the scope (which ends them): {@link off} when nothing is traced.
 *
 * @category constructors
 */
export const make = (call: AgentCall, providers: ProviderNames): Effect.Effect<TurnTrace, never, Scope.Scope> =>
  Effect.gen(function*() {
    if (!(yield* Tracing.traced)) return off
    const tracer = yield* Effect.tracer
    const parent = Option.getOrUndefined(yield* Effect.option(Effect.currentParentSpan))
    const clock = yield* Clock.Clock
    const callId = call.context.callId
    const nowNs = () => clock.currentTimeNanosUnsafe()
    // The call's timeline (ms from the answer) in the clock's ns.
    const originNs = nowNs() - msToNs(yield* call.elapsedMs)
    const onTimeline = (ms: number): bigint => originNs + msToNs(ms)

    const spanAt = (name: string, under: Tracer.AnySpan | undefined, startTime: bigint) => {
      const span = tracer.span({
        name,
        parent: Option.fromUndefinedOr(under),
        annotations: Context.empty(),
        links: [],
        startTime,
        kind: "internal",
        root: under === undefined,
        sampled: under?.sampled ?? true
      })
      span.attribute(Tracing.callIdAttribute, callId)
      return span
    }

    const turns: Array<Open> = []
    let current: Open | undefined
    let replies = 0
    const open = (greeting: boolean, startNs: bigint): Open => {
      const span = spanAt(greeting ? "greeting" : "turn", parent, startNs)
      if (!greeting) span.attribute("voice_agent.turn.index", ++replies)
      const turn: Open = { span, greeting, endNs: startNs, answered: false }
      turns.push(turn)
      current = turn
      return turn
    }
    const extend = (turn: Turn | undefined, ns: bigint) => {
      if (turn !== undefined) (turn as Open).endNs = later((turn as Open).endNs, ns)
    }
    const under = (turn: Turn | undefined) => turn?.span ?? parent

    // The call's conversation is over: every turn ends at the end of its last work.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const turn of turns) turn.span.end(turn.endNs, Exit.void)
      })
    )

    return {
      greeting: Effect.sync(() => void open(true, nowNs())),
      heard: ({ endMs }) =>
        Effect.sync(() => {
          const now = nowNs()
          const spoken = onTimeline(endMs)
          const ended = spoken < now ? spoken : now
          const turn = current === undefined || current.greeting || current.answered ? open(false, ended) : current
          turn.span.attribute("voice_agent.turn.user_stopped_ms", Math.round(endMs))
          const stt = spanAt("stt", turn.span, ended)
          stt.attribute("voice_agent.provider", providers.stt)
          stt.end(now, Exit.void)
          extend(turn, now)
        }),
      current: () => current,
      stage: (turn, name) =>
        Effect.sync((): Stage => {
          const startNs = nowNs()
          const span = spanAt(name, under(turn), startNs)
          const provider = name === "llm" ? providers.llm : providers.tts
          if (provider !== undefined) span.attribute("voice_agent.provider", provider)
          let firstSeen = false
          const first = Effect.sync(() => {
            if (firstSeen) return
            firstSeen = true
            const now = nowNs()
            span.attribute(firsts[name].attribute, Math.round(nsToMs(now - startNs)))
            span.event(firsts[name].event, now)
          })
          const end = (exit: Exit.Exit<unknown, unknown>) =>
            Effect.sync(() => {
              const now = nowNs()
              span.end(now, exit)
              extend(turn, now)
            })
          const run = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
            Effect.onExit(Effect.withParentSpan(self, span) as Effect.Effect<A, E, R>, end)
          const stream = <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
            self.pipe(Stream.tap(() => first), Stream.onExit((exit: Exit.Exit<unknown, E>) => end(exit)))
          return { first, run, stream }
        }),
      speaking: (turn) => {
        if (turn !== undefined) (turn as Open).answered = true
      },
      played: (turn, playback) =>
        Effect.sync(() => {
          const endMs = playback._tag === "Played" ? playback.endMs : playback.startMs + playback.playedMs
          const span = spanAt("playout", under(turn), onTimeline(playback.startMs))
          span.attribute("voice_agent.playout.interrupted", playback._tag === "Interrupted")
          span.end(later(onTimeline(endMs), onTimeline(playback.startMs)), Exit.void)
          extend(turn, onTimeline(endMs))
        }),
      replied: (latency) => {
        if (current === undefined || current.greeting) return
        const span = current.span
        span.attribute("voice_agent.turn.user_stopped_ms", Math.round(latency.userStoppedMs))
        span.attribute("voice_agent.turn.agent_started_ms", Math.round(latency.agentStartedMs))
        span.attribute(
          "voice_agent.turn.voice_to_voice_ms",
          Math.max(0, Math.round(latency.agentStartedMs - latency.userStoppedMs))
        )
        for (const [stage, ms] of Object.entries(latency.stages)) {
          if (ms !== undefined) span.attribute(`voice_agent.turn.${stage}`, ms)
        }
      }
    } satisfies TurnTrace
  })
