import { assert, describe, it } from "@effect/vitest"
import type { AgentCall, CallInput } from "@voice-agent/core/ports/Agent"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Deferred, Effect, Layer, Stream } from "effect"
import * as ScriptedAgent from "./ScriptedAgent.ts"
import * as CallContexts from "./testing/CallContexts.ts"

/** A recognizer that never reads its audio: the agent's audio queue fills, as under a starved CPU. */
const stalledRecognizer = Layer.succeed(SpeechToText, SpeechToText.of({ transcribe: () => Stream.never }))
const speech = Layer.succeed(TextToSpeech, TextToSpeech.of({ synthesize: () => Stream.make(new Int16Array(160)) }))

const callWith = (hungUp: AgentCall["hungUp"]): AgentCall => ({
  context: CallContexts.outbound,
  // The person started speaking, then hung up with 20 s of their audio still unread by the agent.
  input: Stream.concat(
    Stream.make({ _tag: "SpeechStarted", timestampMs: 0 }),
    Stream.fromIterable(
      Array.from({ length: 1_000 }, (_, i): CallInput => ({
        _tag: "Audio",
        frame: { encoding: "pcm16", samples: new Int16Array(160), timestampMs: 20 * i }
      }))
    )
  ),
  elapsedMs: Effect.succeed(0),
  say: (audio) => Effect.as(Stream.runDrain(audio), { _tag: "Interrupted" as const, startMs: 0, playedMs: 0 }),
  interrupt: Effect.void,
  sendDtmf: () => Effect.void,
  transfer: () => Effect.die("no transfer in this test"),
  emitTurn: () => Effect.void,
  emitLatency: () => Effect.void,
  hungUp
})

/**
 * A recognizer in process: hears "Alex Morgan" in the frame at 100 ms. Its `transcribe` is never
 * to be used when the call lets the agent take its audio.
 */
const inProcessRecognizer = Layer.succeed(
  SpeechToText,
  SpeechToText.of({
    transcribe: () => Stream.die("transcribe used although the audio was taken"),
    recognizer: () => ({
      push: (frame) => frame.timestampMs === 100 ? [{ text: "Alex Morgan", startMs: 0, endMs: 120, final: true }] : [],
      end: () => []
    })
  })
)

describe("ScriptedAgent", () => {
  it.live("with a recognizer in process, takes the call's audio from the session and hears the person", () =>
    Effect.gen(function*() {
      const agent = yield* ScriptedAgent.make({ ...ScriptedAgent.defaultScript, hangUpGraceMs: 0 })
      const turns: Array<{ readonly speaker: string; readonly text: string }> = []
      let taken = 0
      const end = yield* agent.run({
        ...callWith(undefined),
        // no audio in the input: the person's frames go to the sink the agent gives
        input: Stream.concat(
          Stream.make<Array<CallInput>>({ _tag: "SpeechStarted", timestampMs: 0 }, {
            _tag: "SpeechStopped",
            timestampMs: 140
          }),
          Stream.never
        ),
        say: () => Effect.succeed({ _tag: "Played" as const, startMs: 0, endMs: 100 }),
        emitTurn: (turn) => Effect.sync(() => void turns.push({ speaker: turn.speaker, text: turn.text })),
        takeAudio: (sink) =>
          Effect.sync(() => {
            for (let t = 0; t <= 140; t += 20) {
              taken++
              sink({ encoding: "pcm16", samples: new Int16Array(160), timestampMs: t })
            }
          })
      }).pipe(Effect.timeout("4 seconds"))
      assert.deepStrictEqual(end, { outcome: "completed", endedBy: "agent" })
      assert.strictEqual(taken, 8)
      assert.deepStrictEqual(turns.map((turn) => `${turn.speaker}: ${turn.text}`), [
        "AGENT: Hello, this is an automated call. Do you have a moment?",
        "HUMAN: Alex Morgan",
        "AGENT: Thank you for your time. Goodbye."
      ])
    }).pipe(Effect.provide(Layer.merge(inProcessRecognizer, speech))))

  /**
   * The person says something and is heard; the agent's goodbye then ends `thanksEnd` (the
   * person hanging up over it, or talking over it and staying).
   */
  const goodbyeEndingWith = (thanksEnd: "hang-up" | "talked-over") =>
    Effect.gen(function*() {
      const agent = yield* ScriptedAgent.make({ ...ScriptedAgent.defaultScript, hangUpGraceMs: 0 })
      const over = yield* Deferred.make<void>()
      const said: Array<string> = []
      return yield* agent.run({
        ...callWith(Deferred.await(over)),
        // As the session's: the input ends when the person hangs up.
        input: Stream.concat(
          Stream.make<Array<CallInput>>({ _tag: "SpeechStarted", timestampMs: 0 }, {
            _tag: "SpeechStopped",
            timestampMs: 140
          }),
          Stream.fromEffectDrain(Deferred.await(over))
        ),
        say: () =>
          Effect.gen(function*() {
            said.push("say")
            if (said.length === 1) return { _tag: "Played" as const, startMs: 0, endMs: 100 }
            // The session learns of the hang-up before it cuts the audio off (MediaSession).
            if (thanksEnd === "hang-up") yield* Deferred.succeed(over, undefined)
            return { _tag: "Interrupted" as const, startMs: 200, playedMs: 300 }
          }),
        takeAudio: (sink) =>
          Effect.sync(() => {
            for (let t = 0; t <= 140; t += 20) sink({ encoding: "pcm16", samples: new Int16Array(160), timestampMs: t })
          })
      }).pipe(Effect.timeout("4 seconds"))
    }).pipe(Effect.provide(Layer.merge(inProcessRecognizer, speech)))

  it.live("a person who hangs up while the goodbye plays cut the call short: they did not hear it", () =>
    Effect.map(
      goodbyeEndingWith("hang-up"),
      (end) => assert.deepStrictEqual(end, { outcome: "cut-short", endedBy: "remote" })
    ))

  it.live("a goodbye the person talks over, staying on the line, was reached", () =>
    Effect.map(
      goodbyeEndingWith("talked-over"),
      (end) => assert.deepStrictEqual(end, { outcome: "completed", endedBy: "agent" })
    ))

  it.live("learns of the hang-up from the session, however far behind its recognizer is", () =>
    Effect.gen(function*() {
      const agent = yield* ScriptedAgent.make()
      // (it gives the stalled recognizer its 2 s to transcribe what it has, then ends)
      const end = yield* agent.run(callWith(Effect.void)).pipe(Effect.timeout("4 seconds"))
      assert.deepStrictEqual(end, { outcome: "cut-short", endedBy: "remote" })
    }).pipe(Effect.provide(Layer.merge(stalledRecognizer, speech))))
})
