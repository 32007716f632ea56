import { assert, describe, it } from "@effect/vitest"
import type { AudioFrame } from "@voice-agent/core/ports/Agent"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { PcmFrame } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect, Layer, Stream } from "effect"
import * as SimSpeechToText from "./SimSpeechToText.ts"
import * as SimTextToSpeech from "./SimTextToSpeech.ts"
import * as SimVoice from "./SimVoice.ts"

const FRAME = 160
const silentFrames = (count: number) => Array.from({ length: count }, () => new Int16Array(FRAME))

/** The frames of `text` spoken by the simulated text-to-speech, through μ-law as on the wire. */
const spoken = (text: string) =>
  Stream.runCollect(SimTextToSpeech.synthesize(text)).pipe(
    Effect.map((frames) => frames.map((frame) => MuLaw.decode(MuLaw.encode(frame))))
  )

/** Frames with timestamps, 20 ms apart from `fromMs`. */
const timed = (frames: ReadonlyArray<Int16Array>, fromMs: number): Array<PcmFrame> =>
  frames.map((samples, i) => ({ samples, timestampMs: fromMs + 20 * i }))

const transcripts = (frames: ReadonlyArray<PcmFrame>) =>
  Stream.runCollect(SimSpeechToText.transcribe(Stream.fromIterable(frames)))

describe("SimSpeechToText", () => {
  it.effect("transcribes what was spoken, final, with its span in ms from the answer", () =>
    Effect.gen(function*() {
      const text = "March third twenty twenty seven"
      const speech = yield* spoken(text)
      const frames = timed([...silentFrames(10), ...speech, ...silentFrames(10)], 1000)
      const [transcript, ...rest] = yield* transcripts(frames)
      assert.strictEqual(rest.length, 0)
      assert.deepStrictEqual(transcript, {
        text,
        startMs: 1200,
        endMs: 1200 + SimVoice.speak(text).length / 8,
        final: true
      })
    }))

  it.effect("transcribes each utterance as soon as the frame that ends it is read", () =>
    Effect.gen(function*() {
      const first = yield* spoken("Alex Morgan")
      const second = yield* spoken("one two three four")
      const frames = timed([...first, ...silentFrames(25), ...second], 0)
      const seen: Array<{ readonly text: string; readonly frame: number }> = []
      let read = 0
      yield* SimSpeechToText.transcribe(Stream.fromIterable(frames).pipe(Stream.tap(() => Effect.sync(() => read++))))
        .pipe(Stream.runForEach((t) => Effect.sync(() => seen.push({ text: t.text, frame: read }))))
      assert.deepStrictEqual(seen, [
        { text: "Alex Morgan", frame: first.length },
        { text: "one two three four", frame: frames.length }
      ])
    }))

  it.effect("counts a gap in the timestamps as silence", () =>
    Effect.gen(function*() {
      const speech = yield* spoken("forty two")
      const answer = yield* spoken("next Tuesday at ten a m")
      // the frames of silence between the two utterances never arrive: the timestamps jump 3 s
      const frames = [...timed(speech, 500), ...timed(answer, 500 + 20 * speech.length + 3000)]
      const result = yield* transcripts(frames)
      assert.deepStrictEqual(result.map((t) => t.text), ["forty two", "next Tuesday at ten a m"])
      const second = result[1]!
      assert.strictEqual(second.startMs, 500 + 20 * speech.length + 3000)
      assert.strictEqual(second.endMs - second.startMs, SimVoice.speak("next Tuesday at ten a m").length / 8)
    }))

  it.effect("the recognizer fed frame by frame hears what transcribe hears, at the same frame", () =>
    Effect.gen(function*() {
      const speech = yield* spoken("forty two")
      const answer = yield* spoken("next Tuesday at ten a m")
      const frames = [
        ...timed([...silentFrames(5), ...speech], 500),
        ...timed(answer, 500 + 20 * (5 + speech.length) + 3000)
      ]
      const streamed = yield* transcripts(frames)
      const recognize = SimSpeechToText.make.recognizer!()
      const pushed = frames.flatMap((frame, i) => recognize.push(frame).map((t) => ({ ...t, frame: i })))
      assert.deepStrictEqual(recognize.end(), [])
      assert.deepStrictEqual(pushed.map(({ frame: _, ...t }) => t), Array.from(streamed))
      assert.deepStrictEqual(pushed.map((t) => t.frame), [4 + speech.length, frames.length - 1])
    }))

  it.effect("recovers speech whose frames came with frames of silence inserted between them", () =>
    Effect.gen(function*() {
      const speech = yield* spoken("digit sequence one two three four")
      const frames = speech.flatMap((frame, i) => i % 9 === 8 ? [frame, ...silentFrames(1 + (i % 2))] : [frame])
      const result = yield* transcripts(timed(frames, 0))
      assert.deepStrictEqual(result.map((t) => t.text), ["digit sequence one two three four"])
    }))

  it.effect("hears nothing in silence or in damaged speech, and never fails", () =>
    Effect.gen(function*() {
      const speech = yield* spoken("yes")
      // frames 10 to 12 hold the header's symbols 2 and 3 whole (samples 1600 to 2000, the
      // length's last nibble and the filler's first): make both the highest tone, loud
      const tone = (i: number) => Math.round(8000 * Math.sin((2 * Math.PI * 85 * i) / 200))
      const damaged = speech.map((frame, f) => f >= 10 && f <= 12 ? frame.map((_, i) => tone(i + FRAME * f)) : frame)
      assert.deepStrictEqual(yield* transcripts(timed([...silentFrames(100), ...damaged], 0)), [])
      assert.deepStrictEqual(yield* transcripts([]), [])
    }))

  it.effect("takes the Agent port's pcm16 audio frames as they are", () =>
    Effect.gen(function*() {
      const speech = yield* spoken("Yes, speaking.")
      const frames: Array<Extract<AudioFrame, { readonly encoding: "pcm16" }>> = timed(speech, 40)
        .map((frame) => ({ encoding: "pcm16", ...frame }))
      const result = yield* Stream.runCollect(SimSpeechToText.transcribe(Stream.fromIterable(frames)))
      assert.deepStrictEqual(result.map((t) => [t.text, t.startMs]), [["Yes, speaking.", 40]])
    }))

  it.effect("layers: what TextToSpeech says, SpeechToText hears", () =>
    Effect.gen(function*() {
      const tts = yield* TextToSpeech
      const stt = yield* SpeechToText
      const lines = ["Hi, is this Jane?", "Yes, speaking.", "¿Hablas español? Sí. 日本語も。"]
      const said = yield* Effect.forEach(lines, (line) => Stream.runCollect(tts.synthesize(line)))
      const audio = Stream.fromIterable(timed(said.flatMap((frames) => [...frames, ...silentFrames(15)]), 0))
      const heard = yield* Stream.runCollect(stt.transcribe(audio, { language: "en-US", interimResults: true }))
      assert.deepStrictEqual(heard.map((t) => t.text), lines)
      assert.isTrue(heard.every((t) => t.final))
      assert.isTrue(heard.every((t, i) => t.startMs < t.endMs && (i === 0 || heard[i - 1]!.endMs < t.startMs)))
    }).pipe(Effect.provide(Layer.mergeAll(SimTextToSpeech.layer, SimSpeechToText.layer))))
})
