import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import type { PcmFrame, SpeechError, TranscribeOptions } from "@voice-agent/core/ports/SpeechToText"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Redacted, Result, Stream } from "effect"
import type { Layer } from "effect"
import type { HttpClient } from "effect/http"
import { WaveFile } from "wavefile"
import * as AudioFake from "../../../test/support/openai-fake/AudioFake.ts"
import * as OpenAiTranscription from "./OpenAiTranscription.ts"

const KEY = "sk-test-transcription-5f2d8c1e9a7b"

const silence = (ms: number) => new Int16Array(ms * 8)
const join = (...parts: ReadonlyArray<Int16Array>) => {
  const out = new Int16Array(parts.reduce((n, part) => n + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
/** 20 ms frames of `samples`, the first at `fromMs`. */
const framesOf = (samples: Int16Array, fromMs = 0): Array<PcmFrame> =>
  Array.from({ length: Math.ceil(samples.length / 160) }, (_, i) => ({
    samples: samples.slice(i * 160, i * 160 + 160),
    timestampMs: fromMs + i * 20
  }))

// "Alex Morgan" lasts 1057 ms, "March third twenty twenty seven" 2057 ms (SimVoice, the agent's
// voice): the speech's last frame, 17 ms of it, ends at 1060 and 2060 ms. After FIRST and 1 s of
// silence, SECOND starts 3 ms before a frame ends: its first frame at speech level is the next
// one, at 2560 ms.
const FIRST = "Alex Morgan"
const SECOND = "March third twenty twenty seven"
/** 500 ms of silence, FIRST, 1 s of silence, SECOND, 600 ms of silence. */
const twoUtterances = () =>
  join(silence(500), SimVoice.speak(FIRST), silence(1000), SimVoice.speak(SECOND), silence(600))

const clients: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["node:http", NodeHttpClient.layerNodeHttp]
]

/** A fake and a recognizer pointed at it (on the HttpClient the test provides). */
const setup = (config: Partial<OpenAiTranscription.Config> = {}, fakeOptions: AudioFake.Options = {}) =>
  Effect.gen(function*() {
    const fake = yield* AudioFake.make({ apiKey: KEY, ...fakeOptions })
    const stt = yield* OpenAiTranscription.make({ baseUrl: fake.url, apiKey: Redacted.make(KEY), ...config })
    const run = (samples: Int16Array, options?: TranscribeOptions) =>
      Stream.runCollect(stt.transcribe(Stream.fromIterable(framesOf(samples)), options))
    return { fake, stt, run }
  })

const assertNoKey = (error: SpeechError) => assert.notInclude(error.message, KEY)

describe("segmenter", () => {
  const segment = (
    frames: ReadonlyArray<PcmFrame>,
    options: Parameters<typeof OpenAiTranscription.segmenter>[0] = {}
  ) => {
    const state = OpenAiTranscription.segmenter(options)
    const out = frames.flatMap((frame) => OpenAiTranscription.step(state, frame))
    return [...out, ...OpenAiTranscription.end(state)]
  }

  it("cuts two utterances at the speech's first and last frames, with the pre-roll and the hangover", () => {
    const utterances = segment(framesOf(twoUtterances()))
    assert.deepStrictEqual(utterances.map(({ endMs, startMs }) => [startMs, endMs]), [[500, 1560], [2560, 4620]])
    // 200 ms before, 400 ms of hangover after
    assert.deepStrictEqual(utterances.map((u) => u.samples.length / 8), [200 + 1060 + 400, 200 + 2060 + 400])
    assert.deepStrictEqual(SimSpeech.decode(utterances[0]!.samples).map((u) => u.text), [FIRST])
    assert.deepStrictEqual(SimSpeech.decode(utterances[1]!.samples).map((u) => u.text), [SECOND])
  })

  it("keeps the frames' time base", () => {
    const utterances = segment(framesOf(twoUtterances(), 61_000))
    assert.deepStrictEqual(utterances.map(({ endMs, startMs }) => [startMs, endMs]), [[61_500, 62_560], [
      63_560,
      65_620
    ]])
  })

  it("fills a gap inside an utterance with silence, and a long one ends it", () => {
    const frames = framesOf(join(silence(400), SimVoice.speak(SECOND)))
    // 100 ms of frames never delivered in the middle of the speech
    const withGap = [...frames.slice(0, 60), ...frames.slice(65)]
    const [utterance] = segment(withGap)
    // the audio ends with the speech, in the middle of a frame
    assert.deepStrictEqual([utterance!.startMs, utterance!.endMs], [400, 2457])
    assert.strictEqual(utterance!.samples.length / 8, 200 + 2057)
    assert.deepStrictEqual(
      [...utterance!.samples.subarray((1200 - 200) * 8, (1300 - 200) * 8)],
      Array.from({ length: 800 }, () => 0)
    )

    // two seconds missing: the detector's hangover passes in the gap
    const late = framesOf(SimVoice.speak(FIRST), 3000)
    const split = segment([...frames.slice(0, 60), ...late])
    assert.deepStrictEqual(split.map(({ endMs, startMs }) => [startMs, endMs]), [[400, 1200], [3000, 4057]])
  })

  it("keeps the pre-roll across a short gap before the speech, and skips empty frames", () => {
    const quiet = framesOf(silence(300))
    const speech = framesOf(join(SimVoice.speak(FIRST), silence(500)), 340)
    const [utterance] = segment([...quiet, { samples: new Int16Array(0), timestampMs: 300 }, ...speech])
    assert.deepStrictEqual([utterance!.startMs, utterance!.endMs], [340, 1400])
    // 160 ms of frames before the gap, the 40 ms gap as silence, the speech and its hangover
    assert.strictEqual(utterance!.samples.length / 8, 200 + 1060 + 400)
  })

  it("cuts speech longer than maxUtteranceMs", () => {
    const long = SimVoice.speak("a".repeat(40)) // 2.56 s
    const utterances = segment(framesOf(join(silence(100), long, silence(500))), { maxUtteranceMs: 1000 })
    assert.deepStrictEqual(utterances.map(({ endMs, startMs }) => [startMs, endMs]), [
      [100, 1000],
      [1000, 2000],
      // the end of the speech's last frame
      [2000, 2660]
    ])
    for (const u of utterances) assert.isAtMost(u.samples.length / 8, 1000)
  })

  it("ends an utterance with the audio", () => {
    const utterances = segment(framesOf(join(silence(300), SimVoice.speak(FIRST), silence(100))))
    assert.deepStrictEqual(utterances.map(({ endMs, startMs }) => [startMs, endMs]), [[300, 1360]])
    assert.deepStrictEqual(segment(framesOf(silence(3000))), [])
  })

  it("accepts frames of other lengths", () => {
    const audio = twoUtterances()
    const frames: Array<PcmFrame> = []
    const sizes = [80, 240, 160, 400, 7]
    for (let at = 0, i = 0; at < audio.length; at += sizes[i++ % sizes.length]!) {
      frames.push({ samples: audio.slice(at, at + sizes[i % sizes.length]!), timestampMs: at / 8 })
    }
    const utterances = segment(frames)
    assert.deepStrictEqual(utterances.map((u) => SimSpeech.decode(u.samples).map((d) => d.text)), [[FIRST], [SECOND]])
    // the speech's first and last frames: within a frame (at most 50 ms here) of the speech
    utterances.forEach(({ endMs, startMs }, i) => {
      assert.closeTo(startMs, [500, 2560][i]!, 50)
      assert.closeTo(endMs, [1560, 4620][i]!, 50)
    })
  })
})

describe("languageCode and promptOf", () => {
  it("takes the ISO-639-1 primary subtag of a BCP 47 tag", () => {
    assert.strictEqual(OpenAiTranscription.languageCode("en-US"), "en")
    assert.strictEqual(OpenAiTranscription.languageCode("PT_br"), "pt")
    assert.strictEqual(OpenAiTranscription.languageCode("fr"), "fr")
    assert.strictEqual(OpenAiTranscription.languageCode("yue-HK"), undefined)
    assert.strictEqual(OpenAiTranscription.languageCode(undefined), undefined)
  })

  it("joins the keywords within 600 characters", () => {
    assert.strictEqual(OpenAiTranscription.promptOf(["Alex Morgan", " Acme ", ""]), "Alex Morgan, Acme")
    assert.strictEqual(OpenAiTranscription.promptOf([]), undefined)
    const many = OpenAiTranscription.promptOf(Array.from({ length: 200 }, (_, i) => `keyword${i}`))!
    assert.isAtMost(many.length, 600)
    assert.isTrue(many.startsWith("keyword0, keyword1, "))
  })
})

describe("transcribe", () => {
  for (const [name, client] of clients) {
    it.live(`two utterances separated by silence are two transcripts, in order, with their times (${name})`, () =>
      Effect.gen(function*() {
        const { fake, run } = yield* setup()
        const transcripts = yield* run(twoUtterances())
        assert.deepStrictEqual(transcripts, [
          { text: FIRST, startMs: 500, endMs: 1560, final: true },
          { text: SECOND, startMs: 2560, endMs: 4620, final: true }
        ])
        assert.strictEqual(fake.transcriptions.length, 2)
      }).pipe(Effect.provide(client)))
  }

  it.live("uploads each utterance as a multipart form with a valid 8 kHz mono WAV", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({ model: "gpt-4o-transcribe" })
      yield* run(twoUtterances(), { language: "en-US", keywords: ["Alex Morgan", "Acme"] })
      const [request] = fake.transcriptions
      assert.strictEqual(request!.authorization, `Bearer ${KEY}`)
      assert.match(request!.contentType!, /^multipart\/form-data; boundary=/)
      assert.deepStrictEqual(request!.fields, {
        model: "gpt-4o-transcribe",
        response_format: "json",
        language: "en",
        prompt: "Alex Morgan, Acme"
      })
      const file = request!.file!
      assert.strictEqual(file.filename, "utterance.wav")
      assert.strictEqual(file.contentType, "audio/wav")
      const header = Result.getOrThrow(Wav.parseHeader(file.bytes))
      assert.deepStrictEqual(header, {
        formatTag: 1,
        channels: 1,
        sampleRate: 8000,
        byteRate: 16000,
        blockAlign: 2,
        bitsPerSample: 16,
        riffSize: file.bytes.length - 8,
        dataOffset: 44,
        dataSize: file.bytes.length - 44
      })
      assert.strictEqual(header.dataSize / 16, 200 + 1060 + 400)
      // an independent reader agrees: PCM, 8 kHz, 16-bit, mono, every sample there
      const wav = new WaveFile(file.bytes)
      const fmt = wav.fmt as { audioFormat: number; sampleRate: number; bitsPerSample: number; numChannels: number }
      assert.deepStrictEqual([fmt.audioFormat, fmt.sampleRate, fmt.bitsPerSample, fmt.numChannels], [1, 8000, 16, 1])
      assert.strictEqual(wav.getSamples(false).length, header.dataSize / 2)
      assert.deepStrictEqual(request!.response, { text: FIRST, usage: { type: "duration", seconds: 2 } })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("leaves out a language without an ISO-639-1 code, the prompt without keywords, the key without one", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({ apiKey: undefined }, { apiKey: null })
      const transcripts = yield* run(join(silence(200), SimVoice.speak(FIRST), silence(500)), { language: "yue-HK" })
      assert.deepStrictEqual(transcripts.map((t) => t.text), [FIRST])
      assert.strictEqual(fake.transcriptions[0]!.authorization, undefined)
      assert.deepStrictEqual(fake.transcriptions[0]!.fields, { model: "whisper-1", response_format: "json" })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("keeps a path prefix and drops a trailing slash of the base URL", () =>
    Effect.gen(function*() {
      const fake = yield* AudioFake.make({ apiKey: KEY })
      const stt = yield* OpenAiTranscription.make({ baseUrl: `${fake.url}/`, apiKey: Redacted.make(KEY) })
      const transcripts = yield* Stream.runCollect(
        stt.transcribe(Stream.fromIterable(framesOf(join(SimVoice.speak(FIRST), silence(500)))))
      )
      assert.deepStrictEqual(transcripts.map((t) => t.text), [FIRST])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("silence and noise that is not speech give no transcript and no request", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup()
      assert.deepStrictEqual(yield* run(silence(3000)), [])
      assert.strictEqual(fake.transcriptions.length, 0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("an utterance the server hears nothing in gives no transcript", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup()
      // a loud tone: speech to the detector, nothing to the simulated-speech decoder
      const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin(i / 3)))
      const transcripts = yield* run(join(tone, silence(600), SimVoice.speak(FIRST), silence(600)))
      assert.deepStrictEqual(transcripts.map((t) => t.text), [FIRST])
      assert.strictEqual(fake.transcriptions.length, 2)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("transcribes two utterances at once and still answers in order", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({ concurrency: 2 })
      // the first answer comes long after the second
      fake.fail("transcriptions", AudioFake.slow(1500))
      const transcripts = yield* run(twoUtterances())
      assert.deepStrictEqual(transcripts.map((t) => t.text), [FIRST, SECOND])
      assert.deepStrictEqual(fake.transcriptions.map((r) => r.answered), [1, 0])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("one at a time with concurrency 1", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup({ concurrency: 1 })
      fake.fail("transcriptions", AudioFake.slow(300))
      assert.deepStrictEqual((yield* run(twoUtterances())).map((t) => t.text), [FIRST, SECOND])
      assert.deepStrictEqual(fake.transcriptions.map((r) => r.answered), [0, 1])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("transcribe failures", () => {
  const failure = (fault: AudioFake.Fault, config: Partial<OpenAiTranscription.Config> = {}) =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup(config)
      fake.fail("transcriptions", fault)
      const error = yield* Effect.flip(run(twoUtterances()))
      assertNoKey(error)
      return error
    })

  it.live("a wrong key and no key are unauthorized", () =>
    Effect.gen(function*() {
      const fake = yield* AudioFake.make({ apiKey: "sk-the-right-one-00000000" })
      for (const apiKey of [Redacted.make(KEY), undefined]) {
        const stt = yield* OpenAiTranscription.make({ baseUrl: fake.url, apiKey })
        const error = yield* Effect.flip(
          Stream.runCollect(stt.transcribe(Stream.fromIterable(framesOf(twoUtterances()))))
        )
        assert.strictEqual(error.reason, "unauthorized")
        assert.isFalse(error.isRetryable)
        assert.include(error.message, "HTTP 401")
        assertNoKey(error)
        assert.notInclude(error.message, "sk-the-right-one")
      }
      assert.include(JSON.stringify(fake.transcriptions[0]!.response), "Incorrect API key provided: sk-")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("403 is unauthorized", () =>
    Effect.gen(function*() {
      const error = yield* failure(AudioFake.error(403, "You are not allowed to sample from this model"))
      assert.strictEqual(error.reason, "unauthorized")
      assert.include(error.message, "You are not allowed to sample from this model")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("400, 404, 413, 415 and 422 are rejected with the server's message", () =>
    Effect.gen(function*() {
      for (const status of [400, 404, 413, 415, 422]) {
        const error = yield* failure(AudioFake.error(status, `refusal number ${status}`, { code: "some_code" }))
        assert.strictEqual(error.reason, "rejected")
        assert.isFalse(error.isRetryable)
        assert.include(error.message, `HTTP ${status}, some_code`)
        assert.include(error.message, `refusal number ${status}`)
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("the server's own 400 for a file it cannot read is rejected", () =>
    Effect.gen(function*() {
      const { fake } = yield* setup()
      const form = new FormData()
      form.append("file", new File([new Uint8Array(100)], "utterance.wav", { type: "audio/wav" }))
      form.append("model", "whisper-1")
      const response = yield* Effect.promise(() =>
        fetch(`${fake.url}/audio/transcriptions`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}` },
          body: form
        })
      )
      assert.strictEqual(response.status, 400)
      assert.deepStrictEqual(yield* Effect.promise(() => response.json()), {
        error: {
          message: "Audio file might be corrupted or unsupported",
          type: "invalid_request_error",
          param: "file",
          code: "invalid_value"
        }
      })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("429 is rate-limited and retryable; 429 insufficient_quota is rejected", () =>
    Effect.gen(function*() {
      const limited = yield* failure(AudioFake.error(429, "Rate limit reached for whisper-1"))
      assert.strictEqual(limited.reason, "rate-limited")
      assert.isTrue(limited.isRetryable)
      const quota = yield* failure(
        AudioFake.error(429, "You exceeded your current quota", {
          type: "insufficient_quota",
          code: "insufficient_quota"
        })
      )
      assert.strictEqual(quota.reason, "rejected")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("5xx is unavailable and retryable", () =>
    Effect.gen(function*() {
      for (const status of [500, 502, 503]) {
        const error = yield* failure(AudioFake.error(status, "The server had an error while processing your request."))
        assert.strictEqual(error.reason, "unavailable")
        assert.isTrue(error.isRetryable)
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("no answer within timeoutMs is a timeout", () =>
    Effect.gen(function*() {
      const error = yield* failure(AudioFake.hang(), { timeoutMs: 300 })
      assert.strictEqual(error.reason, "timeout")
      assert.isTrue(error.isRetryable)
      assert.include(error.message, "within 300ms")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  for (const [name, client] of clients) {
    it.live(`a dropped connection is unavailable (${name})`, () =>
      Effect.gen(function*() {
        const { fake, run } = yield* setup()
        fake.fail("transcriptions", AudioFake.drop())
        const error = yield* Effect.flip(run(twoUtterances()))
        assert.strictEqual(error.reason, "unavailable")
        assertNoKey(error)
      }).pipe(Effect.provide(client)))
  }

  it.live("no server is unavailable, and says where", () =>
    Effect.gen(function*() {
      const stt = yield* OpenAiTranscription.make({ baseUrl: "http://127.0.0.1:9/v1", apiKey: Redacted.make(KEY) })
      const error = yield* Effect.flip(
        Stream.runCollect(stt.transcribe(Stream.fromIterable(framesOf(twoUtterances()))))
      )
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "http://127.0.0.1:9/v1")
      assertNoKey(error)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a 2xx that is not the documented JSON is unavailable", () =>
    Effect.gen(function*() {
      const { fake, run } = yield* setup()
      fake.fail("transcriptions", AudioFake.error(200, "not a transcription"))
      const error = yield* Effect.flip(run(twoUtterances()))
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "not the documented JSON")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a server that echoes the key has it cut out of the message", () =>
    Effect.gen(function*() {
      const error = yield* failure(AudioFake.error(400, `bad request from ${KEY}`))
      assert.include(error.message, "bad request from [redacted]")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("the fake's wire format (without the adapter)", () => {
  const post = (url: string, init: RequestInit) =>
    Effect.promise(async () => {
      const response = await fetch(url, { method: "POST", ...init })
      return { status: response.status, body: await response.json() }
    })

  it.live("401 without a key and with a wrong one, in OpenAI's error JSON", () =>
    Effect.gen(function*() {
      const fake = yield* AudioFake.make({ apiKey: KEY })
      const none = yield* post(`${fake.url}/audio/transcriptions`, { body: new FormData() })
      assert.strictEqual(none.status, 401)
      assert.deepStrictEqual(none.body, {
        error: {
          message:
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          type: "invalid_request_error",
          param: null,
          code: null
        }
      })
      const wrong = yield* post(`${fake.url}/audio/transcriptions`, {
        headers: { authorization: "Bearer sk-wrong-key-123456" },
        body: new FormData()
      })
      assert.strictEqual(wrong.status, 401)
      assert.deepStrictEqual(wrong.body, {
        error: {
          message:
            "Incorrect API key provided: sk-************3456. You can find your API key at https://platform.openai.com/account/api-keys.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key"
        }
      })
    }))

  it.live("400 for a body that is not multipart, and for a missing model", () =>
    Effect.gen(function*() {
      const fake = yield* AudioFake.make({ apiKey: KEY })
      const headers = { authorization: `Bearer ${KEY}` }
      const json = yield* post(`${fake.url}/audio/transcriptions`, {
        headers: { ...headers, "content-type": "application/json" },
        body: "{}"
      })
      assert.strictEqual(json.status, 400)
      const form = new FormData()
      form.append(
        "file",
        new File([OpenAiTranscription.wavOf(SimVoice.speak(FIRST))], "a.wav", { type: "audio/wav" })
      )
      const noModel = yield* post(`${fake.url}/audio/transcriptions`, { headers, body: form })
      assert.deepStrictEqual(noModel, {
        status: 400,
        body: {
          error: {
            message: "Missing required parameter: 'model'.",
            type: "invalid_request_error",
            param: "model",
            code: null
          }
        }
      })
      form.append("model", "whisper-1")
      form.append("response_format", "text")
      const text = yield* Effect.promise(async () => {
        const response = await fetch(`${fake.url}/audio/transcriptions`, { method: "POST", headers, body: form })
        return [response.status, await response.text()] as const
      })
      assert.deepStrictEqual(text, [200, `${FIRST}\n`])
    }))
})
