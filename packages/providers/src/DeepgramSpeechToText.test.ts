/**
 * The Deepgram adapter against the local fake (test/support/deepgram-fake), which really decodes
 * the simulated speech it is sent: transcripts and their times on the call's clock, the URL and
 * the handshake, KeepAlive and CloseStream, the gaps in the timestamps, and each error class.
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as NodeWS from "@effect/platform-node/NodeWS"
import { assert, describe, it } from "@effect/vitest"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import type { PcmFrame, TranscribeOptions, Transcript } from "@voice-agent/core/ports/SpeechToText"
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import { Effect, Fiber, Redacted, Stream } from "effect"
import type { Layer, Scope } from "effect"
import type * as Socket from "effect/socket/Socket"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import * as DeepgramFake from "../../../test/support/deepgram-fake/DeepgramFake.ts"
import * as DeepgramSpeechToText from "./DeepgramSpeechToText.ts"

const KEY = "dg-secret-7f3a91c2e5"
const FRAME = 160

type Part = { readonly say: string } | { readonly silenceMs: number }

interface Spoken {
  readonly text: string
  readonly startMs: number
  readonly endMs: number
}

/** The parts as one signal cut into 20 ms frames from `fromMs`, and where each utterance is. */
const audio = (parts: ReadonlyArray<Part>, fromMs: number) => {
  const pieces: Array<Int16Array> = []
  const spoken: Array<Spoken> = []
  let at = 0
  for (const part of parts) {
    const piece = "say" in part ? SimVoice.speak(part.say) : new Int16Array(part.silenceMs * 8)
    if ("say" in part) {
      spoken.push({ text: part.say, startMs: fromMs + at / 8, endMs: fromMs + (at + piece.length) / 8 })
    }
    pieces.push(piece)
    at += piece.length
  }
  const signal = new Int16Array(Math.ceil(at / FRAME) * FRAME)
  let offset = 0
  for (const piece of pieces) {
    signal.set(piece, offset)
    offset += piece.length
  }
  const frames: Array<PcmFrame> = []
  for (let i = 0; i < signal.length; i += FRAME) {
    frames.push({ samples: signal.subarray(i, i + FRAME), timestampMs: fromMs + i / 8 })
  }
  return { frames, spoken, samples: signal.length }
}

const finals = (spoken: ReadonlyArray<Spoken>): Array<Transcript> =>
  spoken.map(({ endMs, startMs, text }) => ({
    text,
    startMs: Math.round(startMs),
    endMs: Math.round(endMs),
    final: true
  }))

const config = (fake: DeepgramFake.DeepgramFake, more: Partial<DeepgramSpeechToText.DeepgramConfig> = {}) => ({
  apiKey: Redacted.make(KEY),
  baseUrl: fake.url,
  ...more
})

const transcribe = (
  settings: DeepgramSpeechToText.DeepgramConfig,
  frames: Stream.Stream<PcmFrame> | ReadonlyArray<PcmFrame>,
  options?: TranscribeOptions,
  sockets: Layer.Layer<Socket.WebSocketConstructor> = NodeWS.layerWebSocketConstructor
) =>
  DeepgramSpeechToText.make(settings).pipe(
    Effect.flatMap((stt) =>
      Stream.runCollect(stt.transcribe(Stream.isStream(frames) ? frames : Stream.fromIterable(frames), options))
    ),
    Effect.provide(sockets)
  )

const failure = (
  settings: DeepgramSpeechToText.DeepgramConfig,
  frames: Stream.Stream<PcmFrame> | ReadonlyArray<PcmFrame>,
  sockets?: Layer.Layer<Socket.WebSocketConstructor>
) =>
  transcribe(settings, frames, {}, sockets).pipe(
    Effect.flip,
    Effect.tap((error) =>
      Effect.sync(() => {
        assert.instanceOf(error, SpeechError)
        assert.notInclude(error.message, KEY)
        assert.notInclude(JSON.stringify(error), KEY)
        assert.notInclude(String(error), KEY)
      })
    )
  )

const fake = (options: Partial<DeepgramFake.DeepgramFakeOptions> = {}): Effect.Effect<
  DeepgramFake.DeepgramFake,
  never,
  Scope.Scope
> => DeepgramFake.make({ apiKey: KEY, ...options })

const first = <A>(items: ReadonlyArray<A>): A => {
  assert.isAtLeast(items.length, 1)
  return items[0]!
}

/** A port nothing listens on. */
const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const speech = audio([
  { silenceMs: 300 },
  { say: "hello there" },
  { silenceMs: 500 },
  { say: "my name is Alex Morgan" },
  { silenceMs: 400 }
], 7000)

describe("DeepgramSpeechToText", () => {
  describe("listenUrl", () => {
    it("asks for 8 kHz linear16 with the options, keyterms for Nova-3 and keywords before", () => {
      const url = new URL(
        DeepgramSpeechToText.listenUrl(
          { apiKey: Redacted.make(KEY), language: "en-GB" },
          { language: "en-US", interimResults: true, keywords: ["Alex Morgan", " ", "Acme"] }
        )
      )
      assert.strictEqual(url.origin + url.pathname, "wss://api.deepgram.com/v1/listen")
      assert.deepStrictEqual([...url.searchParams], [
        ["encoding", "linear16"],
        ["sample_rate", "8000"],
        ["channels", "1"],
        ["model", "nova-3"],
        ["language", "en-US"],
        ["interim_results", "true"],
        ["punctuate", "true"],
        ["smart_format", "true"],
        ["endpointing", "300"],
        ["vad_events", "false"],
        ["keyterm", "Alex Morgan"],
        ["keyterm", "Acme"]
      ])
      assert.notInclude(url.toString(), KEY)

      const older = new URL(DeepgramSpeechToText.listenUrl(
        {
          apiKey: Redacted.make(KEY),
          baseUrl: "https://dg.internal:8080/speech/",
          model: "nova-2-phonecall",
          endpointingMs: false,
          vadEvents: true
        },
        { keywords: ["Acme"] }
      ))
      assert.strictEqual(older.origin + older.pathname, "wss://dg.internal:8080/speech/v1/listen")
      assert.strictEqual(older.searchParams.get("language"), null)
      assert.strictEqual(older.searchParams.get("endpointing"), "false")
      assert.strictEqual(older.searchParams.get("vad_events"), "true")
      assert.strictEqual(older.searchParams.get("interim_results"), "false")
      assert.deepStrictEqual(older.searchParams.getAll("keywords"), ["Acme"])
      assert.deepStrictEqual(older.searchParams.getAll("keyterm"), [])
    })
  })

  describe("transcribe", () => {
    it.live("simulated speech becomes final transcripts with their times on the call's clock", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const transcripts = yield* transcribe(config(server), speech.frames)
        assert.deepStrictEqual(transcripts, finals(speech.spoken))
        const connection = first(server.connections)
        assert.strictEqual(connection.bytes, speech.samples * 2)
        assert.strictEqual(connection.end, "closed")
      }))

    it.live("opens the stream with the query and the Authorization: Token header", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const transcripts = yield* transcribe(
          config(server, { language: "es", model: "nova-3-general" }),
          [],
          { language: "en-US", keywords: ["Alex Morgan", "Acme"] }
        )
        assert.deepStrictEqual(transcripts, [])
        const connection = first(server.connections)
        assert.strictEqual(connection.path, "/v1/listen")
        assert.strictEqual(connection.headers.authorization, `Token ${KEY}`)
        const query = connection.query
        assert.strictEqual(query.get("encoding"), "linear16")
        assert.strictEqual(query.get("sample_rate"), "8000")
        assert.strictEqual(query.get("channels"), "1")
        assert.strictEqual(query.get("model"), "nova-3-general")
        assert.strictEqual(query.get("language"), "en-US")
        assert.strictEqual(query.get("interim_results"), "false")
        assert.strictEqual(query.get("punctuate"), "true")
        assert.strictEqual(query.get("smart_format"), "true")
        assert.strictEqual(query.get("endpointing"), "300")
        assert.deepStrictEqual(query.getAll("keyterm"), ["Alex Morgan", "Acme"])
        // no audio at all: CloseStream at once, then Deepgram's close
        assert.deepStrictEqual(connection.texts.map((text) => JSON.parse(text)), [{ type: "CloseStream" }])
        assert.strictEqual(connection.end, "closed")
      }))

    it.live("sends CloseStream when the audio ends and still delivers the results that come after it", () =>
      Effect.gen(function*() {
        const server = yield* fake({ latencyMs: 150 })
        const tight = audio([{ say: "one two three" }, { silenceMs: 100 }, { say: "four five" }], 0)
        const transcripts = yield* transcribe(config(server), tight.frames)
        assert.deepStrictEqual(transcripts, finals(tight.spoken))
        const connection = first(server.connections)
        assert.isTrue(connection.closeStream)
        assert.strictEqual(connection.resultsBeforeCloseStream, 0)
        assert.strictEqual(connection.results, 2)
      }))

    it.live("sends KeepAlive while no audio flows, so Deepgram keeps the stream open", () =>
      Effect.gen(function*() {
        const server = yield* fake({ idleTimeoutMs: 300 })
        const [before, after] = [speech.frames.slice(0, 150), speech.frames.slice(150)]
        const paused = Stream.concat(
          Stream.fromIterable(before),
          Stream.concat(Stream.fromEffect(Effect.sleep("800 millis")).pipe(Stream.drain), Stream.fromIterable(after))
        )
        const transcripts = yield* transcribe(config(server, { keepAliveIntervalMs: 100 }), paused)
        assert.deepStrictEqual(transcripts, finals(speech.spoken))
        assert.isAtLeast(first(server.connections).keepAlives, 4)
      }))

    it.live("without KeepAlive Deepgram closes a quiet stream (1011 NET-0001): unavailable", () =>
      Effect.gen(function*() {
        const server = yield* fake({ idleTimeoutMs: 200 })
        const paused = Stream.concat(
          Stream.fromIterable(speech.frames.slice(0, 10)),
          Stream.fromEffect(Effect.sleep("600 millis")).pipe(Stream.drain)
        )
        const error = yield* failure(config(server, { keepAliveIntervalMs: 5000 }), paused)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "1011 NET-0001")
        assert.strictEqual(first(server.connections).keepAlives, 0)
      }))

    it.live("a gap in the timestamps is sent as silence (up to maxGapFillMs) and times stay the call's", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const parts = audio([
          { say: "first words" },
          { silenceMs: 600 },
          { say: "second words" },
          { silenceMs: 4000 },
          { say: "third words" },
          { silenceMs: 200 }
        ], 1000)
        // drop 300 ms inside the first silence (filled in full) and 3 s inside the second
        // (only 500 ms are sent): the carrier never delivered that audio
        const [one, two] = [parts.spoken[0]!, parts.spoken[1]!]
        const frames = parts.frames.filter(({ timestampMs: t }) =>
          !(t >= one.endMs + 100 && t < one.endMs + 400) && !(t >= two.endMs + 500 && t < two.endMs + 3500)
        )
        const transcripts = yield* transcribe(config(server, { maxGapFillMs: 500 }), frames)
        assert.deepStrictEqual(transcripts, finals(parts.spoken))
        assert.strictEqual(first(server.connections).bytes, (parts.samples - 2500 * 8) * 2)
      }))

    it.live("interim results only when asked", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const transcripts = yield* transcribe(config(server), speech.frames, { interimResults: true })
        assert.strictEqual(first(server.connections).query.get("interim_results"), "true")
        const final = finals(speech.spoken)
        // each interim hypothesis (the first half of the words) comes before its final
        assert.deepStrictEqual(transcripts.map((t) => [t.text, t.startMs, t.final]), [
          ["hello", final[0]!.startMs, false],
          ["hello there", final[0]!.startMs, true],
          ["my name is", final[1]!.startMs, false],
          ["my name is Alex Morgan", final[1]!.startMs, true]
        ])
        assert.deepStrictEqual(transcripts.filter((t) => t.final), final)
      }))

    it.live("times from start and duration when a result has no words", () =>
      Effect.gen(function*() {
        const server = yield* fake({ words: false })
        assert.deepStrictEqual(yield* transcribe(config(server), speech.frames), finals(speech.spoken))
      }))

    it.live("interrupting the transcripts closes the socket and stops reading the audio", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        let pulled = 0
        const silence = new Int16Array(FRAME)
        const end = speech.frames.at(-1)!.timestampMs + 20
        const endless = Stream.concat(
          Stream.fromIterable(speech.frames),
          Stream.iterate(0, (i) => i + 1).pipe(Stream.map((i) => ({ samples: silence, timestampMs: end + 20 * i })))
        ).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
        const stt = yield* DeepgramSpeechToText.make(config(server)).pipe(
          Effect.provide(NodeWS.layerWebSocketConstructor)
        )
        const heard = yield* Stream.runCollect(Stream.take(stt.transcribe(endless), 1))
        assert.deepStrictEqual(heard.map((t) => t.text), ["hello there"])
        const connection = first(server.connections)
        assert.strictEqual(yield* Effect.promise(() => connection.closed), 1000)
        assert.isFalse(connection.closeStream)
        const stopped = pulled
        yield* Effect.sleep("100 millis")
        assert.strictEqual(pulled, stopped)
      }))

    it.live("holds a faster producer at the socket's pace: the audio read ahead stays bounded", () =>
      Effect.gen(function*() {
        const server = yield* fake({ stallReading: true })
        let pulled = 0
        // one second of silence a frame, produced as fast as it is pulled, to a server that stopped reading
        const second = new Int16Array(8000)
        const endless = Stream.iterate(0, (i) => i + 1).pipe(
          Stream.map((i) => ({ samples: second, timestampMs: 1000 * i })),
          Stream.tap(() => Effect.sync(() => pulled++))
        )
        const running = yield* Effect.forkChild(
          transcribe(config(server, { sendBufferBytes: 64_000, queueFrames: 4 }), endless)
        )
        yield* Effect.sleep("1 second")
        const held = pulled
        yield* Effect.sleep("500 millis")
        assert.strictEqual(pulled, held)
        assert.isBelow(held * 16_000, 64 * 1024 * 1024)
        yield* Fiber.interrupt(running)
      }))

    it.live("works over Node's global WebSocket too (headers in the handshake)", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const transcripts = yield* transcribe(config(server), speech.frames, {}, NodeSocket.layerWebSocketConstructor)
        assert.deepStrictEqual(transcripts, finals(speech.spoken))
      }))
  })

  describe("errors", () => {
    it.live("a refused key is unauthorized, with Deepgram's dg-error", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const error = yield* failure({ ...config(server), apiKey: Redacted.make("not-the-key") }, speech.frames)
        assert.strictEqual(error.reason, "unauthorized")
        assert.include(error.message, "HTTP 401: Invalid credentials.")
        assert.include(error.message, first(server.connections).requestId)
        assert.isFalse(error.isRetryable)
      }))

    it.live("handshake statuses map to reasons", () =>
      Effect.gen(function*() {
        const cases = [
          [403, "unauthorized"],
          [400, "rejected"],
          [429, "rate-limited"],
          [500, "unavailable"],
          [503, "unavailable"]
        ] as const
        for (const [status, reason] of cases) {
          const server = yield* fake({ refuse: { status, message: `refused with ${status}` } })
          const error = yield* failure(config(server), speech.frames)
          assert.strictEqual(error.reason, reason, `HTTP ${status}`)
          assert.include(error.message, `HTTP ${status}: refused with ${status}`)
        }
      }))

    it.live("a query the server cannot take is rejected with its reason", () =>
      Effect.gen(function*() {
        const server = yield* fake({ refuse: { status: 400, message: "Invalid query string: model nova-9" } })
        const error = yield* failure(config(server, { model: "nova-9" }), speech.frames)
        assert.strictEqual(error.reason, "rejected")
        assert.include(error.message, "model nova-9")
      }))

    it.live("nothing listening is unavailable", () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        const error = yield* failure({ apiKey: Redacted.make(KEY), baseUrl: `ws://127.0.0.1:${port}` }, speech.frames)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "ECONNREFUSED")
      }))

    it.live("no handshake within timeoutMs is a timeout", () =>
      Effect.gen(function*() {
        const server = yield* fake({ hang: true })
        const error = yield* failure(config(server, { timeoutMs: 300 }), speech.frames)
        assert.strictEqual(error.reason, "timeout")
        assert.isTrue(error.isRetryable)
      }))

    it.live("a connection dropped mid-stream fails with unavailable after the results before it", () =>
      Effect.gen(function*() {
        const server = yield* fake({ dropAfterResults: 1 })
        const seen: Array<string> = []
        const stt = yield* DeepgramSpeechToText.make(config(server)).pipe(
          Effect.provide(NodeWS.layerWebSocketConstructor)
        )
        const error = yield* stt.transcribe(Stream.fromIterable(speech.frames)).pipe(
          Stream.runForEach((transcript) => Effect.sync(() => seen.push(transcript.text))),
          Effect.flip
        )
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "1006")
        assert.deepStrictEqual(seen, ["hello there"])
      }))

    it.live("a close with 1011 before CloseStream is unavailable, even with the audio still coming", () =>
      Effect.gen(function*() {
        const server = yield* fake({ dropAfterResults: 1, dropCode: 1011, dropReason: "NET-0000" })
        const endless = Stream.concat(Stream.fromIterable(speech.frames), Stream.never)
        const error = yield* failure(config(server), endless)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "before the audio ended (1011 NET-0000)")
      }))

    it.live("no close after CloseStream within closeTimeoutMs is a timeout", () =>
      Effect.gen(function*() {
        const server = yield* fake({ ignoreCloseStream: true })
        const error = yield* failure(config(server, { closeTimeoutMs: 300 }), speech.frames)
        assert.strictEqual(error.reason, "timeout")
        assert.isTrue(first(server.connections).closeStream)
      }))

    it.live("with Node's global WebSocket a refusal shows no status: unavailable", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const error = yield* failure(
          { ...config(server), apiKey: Redacted.make("not-the-key") },
          speech.frames,
          NodeSocket.layerWebSocketConstructor
        )
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "no HTTP status known")
      }))
  })
})
