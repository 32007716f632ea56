import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import type { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import type { SynthesizeOptions } from "@voice-agent/core/ports/TextToSpeech"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Redacted, Stream } from "effect"
import type { Layer } from "effect"
import type { HttpClient } from "effect/http"
import * as fc from "fast-check"
import * as AudioFake from "../../../test/support/openai-fake/AudioFake.ts"
import * as OpenAiSpeech from "./OpenAiSpeech.ts"

const KEY = "sk-test-speech-0a9b8c7d6e5f4321"
const TEXT = "Hello, this is Alex calling from Acme about your appointment."

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["node:http", NodeHttpClient.layerNodeHttp]
]

/** A fake and a synthesizer pointed at it (on the HttpClient the test provides). */
const setup = (config: Partial<OpenAiSpeech.Config> = {}, fakeOptions: AudioFake.Options = {}) =>
  Effect.gen(function*() {
    const fake = yield* AudioFake.make({ apiKey: KEY, ...fakeOptions })
    const tts = yield* OpenAiSpeech.make({ baseUrl: fake.url, apiKey: Redacted.make(KEY), ...config })
    const run = (text: string, options?: SynthesizeOptions) => Stream.runCollect(tts.synthesize(text, options))
    return { fake, tts, run }
  })

const join = (frames: ReadonlyArray<Int16Array>) => {
  const out = new Int16Array(frames.length * OpenAiSpeech.FRAME_SAMPLES)
  frames.forEach((frame, i) => out.set(frame, i * OpenAiSpeech.FRAME_SAMPLES))
  return out
}

const assertNoKey = (error: SpeechError) => assert.notInclude(error.message, KEY)

/** 24 kHz PCM bytes of `samples`. */
const pcmBytes = (samples: Int16Array) => Wav.encodeSamples(samples)

describe("decoder", () => {
  const input = AudioFake.upsample3(SimVoice.speak("chunks"))
  const bytes = pcmBytes(input)
  const whole = (() => {
    const state = OpenAiSpeech.decoder()
    return [...OpenAiSpeech.push(state, bytes), ...OpenAiSpeech.flush(state)]
  })()

  it("cuts 20 ms frames and pads the last one with silence", () => {
    const samples8k = SimVoice.speak("chunks").length
    assert.strictEqual(whole.length, Math.ceil(samples8k / 160))
    for (const frame of whole) assert.strictEqual(frame.length, 160)
    const last = whole[whole.length - 1]!
    assert.deepStrictEqual(
      [...last.subarray(samples8k % 160)],
      Array.from({ length: 160 - (samples8k % 160) }, () => 0)
    )
    assert.deepStrictEqual(SimSpeech.decode(join(whole)).map((u) => u.text), ["chunks"])
  })

  it("gives the same frames however the bytes are cut, odd sizes included", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 30 }), (cuts) => {
        const state = OpenAiSpeech.decoder()
        const frames: Array<Int16Array> = []
        let at = 0
        for (const cut of [...[...cuts].sort((a, b) => a - b), bytes.length]) {
          frames.push(...OpenAiSpeech.push(state, bytes.subarray(at, cut)))
          at = cut
        }
        frames.push(...OpenAiSpeech.flush(state))
        assert.deepStrictEqual(frames, whole)
      }),
      { numRuns: 50 }
    )
  })

  it("byte by byte too", () => {
    const state = OpenAiSpeech.decoder()
    const short = bytes.subarray(0, 4801)
    const frames: Array<Int16Array> = []
    for (let i = 0; i < short.length; i++) frames.push(...OpenAiSpeech.push(state, short.subarray(i, i + 1)))
    frames.push(...OpenAiSpeech.flush(state))
    const reference = OpenAiSpeech.decoder()
    assert.deepStrictEqual(frames, [...OpenAiSpeech.push(reference, short), ...OpenAiSpeech.flush(reference)])
  })

  it("answers nothing for an empty body", () => {
    const state = OpenAiSpeech.decoder()
    assert.deepStrictEqual([...OpenAiSpeech.push(state, new Uint8Array(0)), ...OpenAiSpeech.flush(state)], [])
  })
})

describe("synthesize", () => {
  for (const [name, client] of clients) {
    it.live(`answers 20 ms frames from which the text is recovered (${name})`, () =>
      Effect.gen(function*() {
        const { fake, run } = yield* setup()
        const frames = yield* run(TEXT)
        for (const frame of frames) assert.strictEqual(frame.length, 160)
        const samples = SimVoice.speak(TEXT).length
        assert.strictEqual(frames.length, Math.ceil(samples / 160))
        assert.deepStrictEqual(SimSpeech.decode(join(frames)).map((u) => u.text), [TEXT])
        // the answer came in several pieces, most of odd sizes
        assert.isTrue(fake.speeches[0]!.completed)
        assert.strictEqual(fake.speeches[0]!.bytesSent, 6 * samples)
      }).pipe(Effect.provide(client)))
  }

  it.live("POSTs the documented JSON with the bearer key", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup()
      yield* run(TEXT)
      const [request] = fake.speeches
      assert.strictEqual(request!.authorization, `Bearer ${KEY}`)
      assert.match(request!.contentType!, /^application\/json/)
      assert.deepStrictEqual(request!.body, { model: "tts-1", input: TEXT, voice: "alloy", response_format: "pcm" })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("the caller's voice overrides the default; speed, instructions and model as configured", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({
        model: "gpt-4o-mini-tts",
        voice: "coral",
        speed: 1.25,
        instructions: "Speak warmly."
      })
      yield* run("One.", { voice: "nova", language: "en-US" })
      yield* run("Two.")
      assert.deepStrictEqual(fake.speeches.map((s) => s.body), [
        {
          model: "gpt-4o-mini-tts",
          input: "One.",
          voice: "nova",
          response_format: "pcm",
          speed: 1.25,
          instructions: "Speak warmly."
        },
        {
          model: "gpt-4o-mini-tts",
          input: "Two.",
          voice: "coral",
          response_format: "pcm",
          speed: 1.25,
          instructions: "Speak warmly."
        }
      ])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("works with a server that takes no key (Kokoro-FastAPI's model and voice names)", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({ apiKey: undefined, model: "kokoro", voice: "af_heart" }, {
        apiKey: null,
        voices: ["af_heart", "am_adam"]
      })
      const frames = yield* run("Kokoro speaks too.")
      assert.deepStrictEqual(SimSpeech.decode(join(frames)).map((u) => u.text), ["Kokoro speaks too."])
      assert.strictEqual(fake.speeches[0]!.authorization, undefined)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a blank text gives no frames and no request", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup()
      assert.deepStrictEqual(yield* run(""), [])
      assert.deepStrictEqual(yield* run("  \n"), [])
      assert.strictEqual(fake.speeches.length, 0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("frames come out while the answer is still arriving", () =>
    Effect.gen(function*() {
      const { fake, tts } = yield* setup()
      // 200 ms of audio (24 kHz, 2 bytes a sample), then the server says nothing more
      fake.fail("speech", AudioFake.hang(9600))
      const first = yield* Stream.runCollect(Stream.take(tts.synthesize(TEXT), 5))
      assert.strictEqual(first.length, 5)
      assert.isFalse(fake.speeches[0]!.completed)
      assert.isAtMost(fake.speeches[0]!.bytesSent, 9600)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("interrupting the stream closes the request", () =>
    Effect.gen(function*() {
      const { fake, tts } = yield* setup({}, { chunkBytes: [960] })
      const text = "A long answer that the person interrupts. ".repeat(20)
      const first = yield* Stream.runCollect(Stream.take(tts.synthesize(text), 1))
      assert.strictEqual(first.length, 1)
      const closed = yield* fake.speechClosed(0)
      assert.isTrue(closed.abandoned)
      assert.isBelow(closed.bytesSent, 6 * SimVoice.speak(text).length)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("synthesize failures", () => {
  const failure = (fault: AudioFake.Fault | undefined, config: Partial<OpenAiSpeech.Config> = {}, text = TEXT) =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup(config)
      if (fault !== undefined) fake.fail("speech", fault)
      const error = yield* Effect.flip(run(text))
      assertNoKey(error)
      return error
    })

  it.live("a wrong key and no key are unauthorized", () =>
    Effect.gen(function*() {
      const fake = yield* AudioFake.make({ apiKey: "sk-the-right-one-00000000" })
      for (const apiKey of [Redacted.make(KEY), undefined]) {
        const tts = yield* OpenAiSpeech.make({ baseUrl: fake.url, apiKey })
        const error = yield* Effect.flip(Stream.runCollect(tts.synthesize(TEXT)))
        assert.strictEqual(error.reason, "unauthorized")
        assert.include(error.message, "HTTP 401")
        assertNoKey(error)
        assert.notInclude(error.message, "sk-the-right-one")
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("an unknown voice and a text over 4096 characters are rejected with the server's message", () =>
    Effect.gen(function*() {
      const voice = yield* failure(undefined, { voice: "nonexistent" })
      assert.strictEqual(voice.reason, "rejected")
      assert.isFalse(voice.isRetryable)
      assert.include(voice.message, "Invalid value for 'voice'")
      const long = yield* failure(undefined, {}, "x".repeat(4097))
      assert.strictEqual(long.reason, "rejected")
      assert.include(long.message, "HTTP 400, string_above_max_length")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("403 is unauthorized, 429 rate-limited, 5xx unavailable, other 4xx rejected", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [number, SpeechError["reason"]]> = [
        [403, "unauthorized"],
        [404, "rejected"],
        [413, "rejected"],
        [422, "rejected"],
        [429, "rate-limited"],
        [500, "unavailable"],
        [503, "unavailable"]
      ]
      for (const [status, reason] of cases) {
        const error = yield* failure(AudioFake.error(status, `answer ${status}`))
        assert.strictEqual(error.reason, reason, `${status}`)
        assert.include(error.message, `answer ${status}`)
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("no answer within timeoutMs is a timeout", () =>
    Effect.gen(function*() {
      const error = yield* failure(AudioFake.hang(), { timeoutMs: 300 })
      assert.strictEqual(error.reason, "timeout")
      assert.isTrue(error.isRetryable)
      assert.include(error.message, "within 300ms")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a server that stalls mid-answer times out after the frames it sent", () =>
    Effect.gen(function*() {
      const { fake, tts } = yield* setup({ timeoutMs: 300 })
      // the fake's speech made before the clock runs (flite takes tens of milliseconds, more on a busy machine)
      SimVoice.speak(TEXT)
      fake.fail("speech", AudioFake.hang(9600))
      const frames: Array<Int16Array> = []
      const error = yield* Effect.flip(
        Stream.runForEach(tts.synthesize(TEXT), (frame) => Effect.sync(() => frames.push(frame)))
      )
      assert.strictEqual(error.reason, "timeout")
      // all the audio received, then the failure: 9600 bytes = 4800 samples at 24 kHz = 1600 at 8 kHz
      assert.strictEqual(frames.length, 10)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  for (const [name, client] of clients) {
    it.live(`a connection dropped before the answer is unavailable (${name})`, () =>
      Effect.gen(function*() {
        const error = yield* failure(AudioFake.drop())
        assert.strictEqual(error.reason, "unavailable")
        assert.isTrue(error.isRetryable)
      }).pipe(Effect.provide(client)))

    it.live(`a connection dropped mid-answer is unavailable, after the frames it sent (${name})`, () =>
      Effect.gen(function*() {
        const { fake, tts } = yield* setup()
        fake.fail("speech", AudioFake.drop(9600))
        const frames: Array<Int16Array> = []
        const error = yield* Effect.flip(
          Stream.runForEach(tts.synthesize(TEXT), (frame) => Effect.sync(() => frames.push(frame)))
        )
        assert.strictEqual(error.reason, "unavailable")
        assertNoKey(error)
        assert.strictEqual(frames.length, 10)
      }).pipe(Effect.provide(client)))
  }

  it.live("a 2xx that is not raw PCM is rejected", () =>
    Effect.gen(function*() {
      const error = yield* failure(AudioFake.error(200, "this is JSON, not audio"))
      assert.strictEqual(error.reason, "rejected")
      assert.include(error.message, "application/json")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("no server is unavailable, and says where", () =>
    Effect.gen(function*() {
      const tts = yield* OpenAiSpeech.make({ baseUrl: "http://127.0.0.1:9/v1", apiKey: Redacted.make(KEY) })
      const error = yield* Effect.flip(Stream.runCollect(tts.synthesize(TEXT)))
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "http://127.0.0.1:9/v1")
      assertNoKey(error)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
