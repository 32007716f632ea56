import { assert, describe, it } from "@effect/vitest"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Effect, Stream } from "effect"
import * as SimTextToSpeech from "./SimTextToSpeech.ts"
import * as SimVoice from "./SimVoice.ts"

const concat = (frames: ReadonlyArray<Int16Array>): Int16Array => {
  const out = new Int16Array(frames.length * SimTextToSpeech.FRAME_SAMPLES)
  frames.forEach((frame, i) => out.set(frame, i * SimTextToSpeech.FRAME_SAMPLES))
  return out
}

describe("SimTextToSpeech", () => {
  it.effect("speaks a text as 20 ms frames of simulated speech, the last one padded with silence", () =>
    Effect.gen(function*() {
      const text = "Hi Jane, this is Alex from Acme. Is now a good time?"
      const frames = yield* Stream.runCollect(SimTextToSpeech.synthesize(text))
      const speech = SimVoice.speak(text)
      assert.strictEqual(frames.length, Math.ceil(speech.length / 160))
      for (const frame of frames) assert.strictEqual(frame.length, 160)
      const samples = concat(frames)
      assert.deepStrictEqual(samples.subarray(0, speech.length), speech)
      assert.isTrue(samples.subarray(speech.length).every((sample) => sample === 0))
      assert.deepStrictEqual(SimSpeech.decode(samples).map((u) => u.text), [text])
    }))

  it.effect("encodes nothing before the stream runs, and afresh on each run", () =>
    Effect.gen(function*() {
      const stream = SimTextToSpeech.synthesize("forty two")
      const first = yield* Stream.runCollect(stream)
      const second = yield* Stream.runCollect(stream)
      assert.deepStrictEqual(second, first)
      const head = yield* Stream.runCollect(Stream.take(stream, 1))
      assert.strictEqual(head.length, 1)
    }))

  it.effect("refuses a text longer than SimSpeech.MAX_BYTES as rejected", () =>
    Effect.gen(function*() {
      const error = yield* Stream.runCollect(SimTextToSpeech.synthesize("é".repeat(2048))).pipe(Effect.flip)
      assert.strictEqual(error._tag, "SpeechError")
      assert.strictEqual(error.reason, "rejected")
      assert.isFalse(error.isRetryable)
      const longest = yield* Stream.runCollect(SimTextToSpeech.synthesize("a".repeat(SimSpeech.MAX_BYTES)))
      assert.strictEqual(longest.length, Math.ceil(SimVoice.speak("a".repeat(SimSpeech.MAX_BYTES)).length / 160))
    }))

  it.effect("layer provides TextToSpeech", () =>
    Effect.gen(function*() {
      const tts = yield* TextToSpeech
      const frames = yield* Stream.runCollect(tts.synthesize("yes", { voice: "any", language: "en-US" }))
      assert.deepStrictEqual(SimSpeech.decode(concat(frames)).map((u) => u.text), ["yes"])
    }).pipe(Effect.provide(SimTextToSpeech.layer)))
})
