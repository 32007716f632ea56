/**
 * The spans of a call's turns, on the test clock: a turn from the end of the person's speech to
 * the end of its reply's audio, the recognition's span from the speech's end to the transcript,
 * speech the recognizer split continuing the turn until the reply starts; nothing untraced.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AgentCall } from "@voice-agent/core/ports/Agent"
import * as Tracing from "@voice-agent/core/Tracing"
import { Clock, Effect, Option, Stream, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as CallContexts from "./testing/CallContexts.ts"
import * as TurnTrace from "./TurnTrace.ts"

const call: AgentCall = {
  context: CallContexts.outbound,
  input: Stream.never,
  // The test clock starts at 0: the call's timeline is the clock's.
  elapsedMs: Clock.currentTimeMillis,
  say: () => Effect.succeed({ _tag: "Played", startMs: 0, endMs: 0 }),
  interrupt: Effect.void,
  sendDtmf: () => Effect.void,
  transfer: () => Effect.die("no transfer in this test"),
  emitTurn: () => Effect.void,
  emitLatency: () => Effect.void
}

const names = { stt: "dg", llm: "house", tts: "speech" }
const ms = (span: Tracer.NativeSpan) => {
  const status = span.status
  return status._tag === "Ended"
    ? [Number(status.startTime / 1_000_000n), Number(status.endTime / 1_000_000n)]
    : [Number(status.startTime / 1_000_000n)]
}

describe("TurnTrace", () => {
  it.effect("untraced, nothing is made", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* TurnTrace.make(call, names), TurnTrace.off)
    }).pipe(Effect.scoped))

  it.effect("a turn from the speech's end to its reply's end, with its steps", () => {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    return Effect.gen(function*() {
      yield* Effect.scoped(Effect.gen(function*() {
        const trace = yield* TurnTrace.make(call, names)
        yield* trace.greeting
        const greeting = trace.current()
        yield* TestClock.adjust("3 seconds")
        // "Jane" ... "Q Public": two transcripts before the reply, one turn.
        yield* trace.heard({ startMs: 2_000, endMs: 2_500 })
        yield* TestClock.adjust("200 millis")
        yield* trace.heard({ startMs: 2_600, endMs: 3_100 })
        const first = trace.current()
        assert.notStrictEqual(first, greeting)
        const model = yield* trace.stage(first, "llm")
        yield* TestClock.adjust("300 millis")
        yield* model.first
        yield* model.run(Effect.void)
        trace.speaking(first)
        yield* trace.played(first, { _tag: "Played", startMs: 3_800, endMs: 5_000 })
        trace.replied({ userStoppedMs: 3_100, agentStartedMs: 3_800, stages: { stt_ms: 100, engine_ms: 300 } })
        // Speech after the reply started: the next turn.
        yield* TestClock.adjust("3 seconds")
        yield* trace.heard({ startMs: 5_500, endMs: 6_000 })
        assert.notStrictEqual(trace.current(), first)
        yield* trace.played(trace.current(), { _tag: "Interrupted", startMs: 6_600, playedMs: 400 })
      }))
    }).pipe(
      Tracing.forCall("call.media", "call-1"),
      Effect.withTracer(tracer),
      Effect.andThen(Effect.sync(() => {
        const media = spans.find((span) => span.name === "call.media")!
        const under = (parent: Tracer.AnySpan) => spans.filter((span) => Option.getOrUndefined(span.parent) === parent)
        assert.deepStrictEqual(under(media).map((span) => span.name), ["greeting", "turn", "turn"])
        const [, first, second] = under(media)
        assert.deepStrictEqual(under(first!).map((span) => [span.name, ...ms(span)]), [
          ["stt", 2_500, 3_000],
          ["stt", 3_100, 3_200],
          ["llm", 3_200, 3_500],
          ["playout", 3_800, 5_000]
        ])
        assert.deepStrictEqual(ms(first!), [2_500, 5_000])
        assert.deepStrictEqual(
          [...first!.attributes].filter(([key]) => key.startsWith("voice_agent.turn.")),
          [
            ["voice_agent.turn.index", 1],
            ["voice_agent.turn.user_stopped_ms", 3_100],
            ["voice_agent.turn.agent_started_ms", 3_800],
            ["voice_agent.turn.voice_to_voice_ms", 700],
            ["voice_agent.turn.stt_ms", 100],
            ["voice_agent.turn.engine_ms", 300]
          ]
        )
        const llm = under(first!).find((span) => span.name === "llm")!
        assert.strictEqual(llm.attributes.get("voice_agent.provider"), "house")
        assert.strictEqual(llm.attributes.get("voice_agent.llm.first_token_ms"), 300)
        assert.deepStrictEqual(ms(second!), [6_000, 7_000])
        assert.strictEqual(under(second!).at(-1)?.attributes.get("voice_agent.playout.interrupted"), true)
        for (const span of spans) assert.strictEqual(span.attributes.get(Tracing.callIdAttribute), "call-1")
      }))
    )
  })
})
