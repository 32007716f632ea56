/**
 * Deepgram's streaming speech-to-text (`wss://api.deepgram.com/v1/listen`) behind the
 * `SpeechToText` port. Owns the listen URL, the handshake, the audio and control messages sent,
 * the `Results` read back (the wire itself: `DeepgramWire`), and how they map to the port's
 * transcripts and errors. Does not own
 * the socket implementation (a `Socket.WebSocketConstructor` from the composition) or turn
 * taking (the agent's: a final transcript is not a turn).
 *
 * Wire. One WebSocket per `transcribe`, to `<baseUrl>/v1/listen` (`baseUrl` defaults to
 * `wss://api.deepgram.com`; a self-hosted Deepgram or a fake speaking the same protocol works
 * unchanged) with `encoding=linear16&sample_rate=8000&channels=1&model&language&interim_results
 * &punctuate=true&smart_format=true&endpointing&vad_events` and the caller's keywords as
 * repeated `keyterm` (Nova-3) or `keywords` (older models) parameters (`listenUrl`), and an
 * `Authorization: Token <key>` handshake header. The key is `Redacted`: it goes into that
 * header and nowhere else (no log, no error message, no URL). Audio goes as binary messages of
 * little-endian 16-bit PCM, one per frame, as the frames come; `{"type":"KeepAlive"}` (a text
 * message) after `keepAliveIntervalMs` without audio, since Deepgram closes a stream that
 * received nothing for 10 s (NET-0001); `{"type":"CloseStream"}` once the audio stream ends.
 * Deepgram then sends its last results and a `Metadata` message and closes with 1000: the
 * transcript stream ends there, so results that arrive after CloseStream are delivered.
 *
 * Results. `Results` messages become transcripts: the text of `channel.alternatives[0]`,
 * `final` from `is_final`; interim ones (`is_final: false`) only when `options.interimResults`
 * (otherwise `interim_results=false` is asked and any that come are dropped); empty texts are
 * skipped. `speech_final`, `UtteranceEnd` and `SpeechStarted` (with `vadEvents`) are ignored:
 * the port carries no end-of-turn or speech-start signal, deciding that the person has finished
 * is the agent's, and a final result is settled whether or not endpointing closed it.
 * `Metadata` and unknown types are ignored. Times: the span of the words (`words[0].start` to
 * the last word's `end`) when words are present, as Deepgram's `start`/`duration` cover the
 * whole chunk of audio the result was cut from (leading silence included); `start` to
 * `start + duration` otherwise.
 *
 * Time base. Deepgram counts seconds from the first byte of the stream; the first frame's
 * `timestampMs` is that origin on the call's clock. Frames are contiguous 20 ms; a frame that
 * starts later than the audio sent so far ends left a gap (audio the carrier never delivered):
 * the gap is sent as that much digital silence, so Deepgram hears the pause where it was (its
 * endpointing sees it) and its times stay the call's. Only the first `maxGapFillMs` of a gap
 * are sent (a long hold should not be billed nor streamed); the rest is skipped and remembered
 * as an anchor (stream position, call time), and stream times after it map through that
 * anchor. A frame that starts before the audio sent so far ends (overlapping timestamps) has its
 * first samples dropped; differences under a millisecond are timestamp rounding and ignored.
 * Times are rounded to the millisecond.
 *
 * Errors (`SpeechError`). A refused handshake: HTTP 401 and 403 `unauthorized`, 429
 * `rate-limited`, 408 `timeout`, other 4xx (400: bad parameters) `rejected`, 5xx `unavailable`;
 * the message carries Deepgram's `dg-error` header and `dg-request-id` when known. Reading the
 * status needs the `ws` package's client (`NodeWS.layerWebSocketConstructor` from
 * `@effect/platform-node`): Node's global WebSocket (`NodeSocket.layerWebSocketConstructor`)
 * reports no status for a refused handshake, so every refusal is `unavailable` with it. No
 * answer to the handshake within `timeoutMs`: `timeout`; connection refused or reset:
 * `unavailable`. Once open: a close before our CloseStream, or a close with any code but 1000
 * (1011 NET-0000/NET-0001, Deepgram's 4xxx codes, 1006 for a dropped TCP connection), or an
 * `{"type":"Error"}` message: `unavailable`; a close for undecodable audio (1002/1003/1007/1008
 * with a `DATA-` reason): `rejected`. No close within `closeTimeoutMs` after CloseStream:
 * `timeout` (the last results may be missing). The stream never waits on a dead connection.
 *
 * Backpressure and bounds. The audio stream is read into a bounded queue (`queueFrames`,
 * 50 frames: one second) that the sender drains toward the socket, and the sender waits while
 * the socket's own send buffer (`bufferedAmount`) holds more than `sendBufferBytes` (64 KiB,
 * four seconds of audio), checking every 10 ms (WebSocket clients expose no drain event). A
 * real-time call never fills either; a faster producer (a recording transcribed as fast as it
 * reads) is held at the socket's pace. Incoming messages are read as the transcripts are pulled
 * (the socket's reader pauses the `ws` client past its high-water mark). Interrupting the
 * transcript stream closes the socket and stops reading the audio.
 *
 * @since 0.1.0
 */
import type { PcmFrame, TranscribeOptions, Transcript } from "@voice-agent/core/ports/SpeechToText"
import { SpeechError, SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import * as Wav from "@voice-agent/media/Wav"
import { Cause, Duration, Effect, Layer, Option, Predicate, Queue, Redacted, Stream } from "effect"
import * as Pull from "effect/Pull"
import * as Socket from "effect/socket/Socket"
import * as Wire from "./DeepgramWire.ts"
import * as Http from "./internal/Http.ts"

/**
 * How to reach Deepgram and what to ask of it. Only `apiKey` is required.
 *
 * @category models
 */
export interface DeepgramConfig {
  readonly apiKey: Redacted.Redacted
  /** `wss://api.deepgram.com` by default; `ws(s)://host[:port][/prefix]` of another server. */
  readonly baseUrl?: string
  /** `nova-3` by default (`nova-3-general`, `nova-2-phonecall`, …). */
  readonly model?: string
  /** Used when `transcribe`'s options name none; absent: Deepgram's default (English). */
  readonly language?: string
  /** Silence in ms that ends a segment (`endpointing`), or `false` to disable; 300 by default. */
  readonly endpointingMs?: number | false
  /** Ask for `SpeechStarted` messages (`vad_events`); they are ignored. False by default. */
  readonly vadEvents?: boolean
  /** Query parameter for the keywords: `keyterm` for Nova-3 models, `keywords` for others. */
  readonly keywordsParameter?: "keyterm" | "keywords"
  /** Handshake time limit in ms; 5000 by default. */
  readonly timeoutMs?: number
  /** A KeepAlive after this many ms without audio; 3000 by default (Deepgram: every 3-5 s). */
  readonly keepAliveIntervalMs?: number
  /** How long to wait for the last results and the close after CloseStream, in ms; 10000. */
  readonly closeTimeoutMs?: number
  /** The longest part of a timestamp gap sent as silence, in ms; 1000 by default. */
  readonly maxGapFillMs?: number
  /** Frames read ahead of the socket; 50 by default. */
  readonly queueFrames?: number
  /** The socket's send buffer above which sending waits, in bytes; 65536 by default. */
  readonly sendBufferBytes?: number
}

const SAMPLES_PER_MS = Wire.SAMPLE_RATE / 1000
const DRAIN_POLL = Duration.millis(10)

/**
 * The listen URL for a stream (the key is not part of it).
 *
 * @category constructors
 */
export { listenUrl } from "./DeepgramWire.ts"

// ---------------------------------------------------------------------------------------------
// The call's clock

interface Anchor {
  /** Samples sent before this point of the stream. */
  readonly stream: number
  /** That point on the call's clock, in ms. */
  readonly callMs: number
}

/** What has been sent, and where the stream's points are on the call's clock. */
interface Timeline {
  sent: number
  readonly anchors: Array<Anchor>
}

/**
 * The bytes to send for a frame (the gap's silence, then its samples, little-endian), or
 * undefined when nothing is left of it. Moves the timeline on.
 */
const place = (timeline: Timeline, frame: PcmFrame, maxGapSamples: number): Uint8Array | undefined => {
  const samples = frame.samples
  const anchors = timeline.anchors
  if (anchors.length === 0) anchors.push({ stream: 0, callMs: frame.timestampMs })
  const last = anchors[anchors.length - 1]!
  const sentEndMs = last.callMs + (timeline.sent - last.stream) / SAMPLES_PER_MS
  const offset = Math.round((frame.timestampMs - sentEndMs) * SAMPLES_PER_MS)
  let silence = 0
  let skip = 0
  if (offset >= SAMPLES_PER_MS) {
    silence = Math.min(offset, maxGapSamples)
    if (silence < offset) anchors.push({ stream: timeline.sent + silence, callMs: frame.timestampMs })
  } else if (offset <= -SAMPLES_PER_MS) {
    skip = Math.min(-offset, samples.length)
  }
  const count = silence + samples.length - skip
  if (count === 0) return undefined
  timeline.sent += count
  const body = Wav.encodeSamples(samples.subarray(skip))
  if (silence === 0) return body
  const bytes = new Uint8Array(count * 2)
  bytes.set(body, silence * 2)
  return bytes
}

/** A time in seconds from the stream's start, on the call's clock (ms, rounded). */
const callMsOf = (timeline: Timeline, seconds: number): number => {
  const stream = seconds * Wire.SAMPLE_RATE
  const anchors = timeline.anchors
  let anchor: Anchor = anchors[0] ?? { stream: 0, callMs: 0 }
  for (let i = anchors.length - 1; i > 0; i--) {
    if (anchors[i]!.stream <= stream) {
      anchor = anchors[i]!
      break
    }
  }
  return Math.round(anchor.callMs + (stream - anchor.stream) / SAMPLES_PER_MS)
}

// ---------------------------------------------------------------------------------------------
// The handshake

/** What the `ws` client let us see of the handshake's HTTP answer. */
interface Handshake {
  status?: number | undefined
  dgError?: string | undefined
  requestId?: string | undefined
}

interface HttpAnswer {
  readonly statusCode?: number | undefined
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

/** The `ws` package's client: an EventEmitter that shows the handshake's answer. */
interface NodeWebSocket {
  once(event: "upgrade", listener: (response: HttpAnswer) => void): unknown
  once(
    event: "unexpected-response",
    listener: (request: { destroy(error?: Error): void }, response: HttpAnswer) => void
  ): unknown
}

const isNodeWebSocket = (socket: Socket.WebSocketLike): socket is Socket.WebSocketLike & NodeWebSocket =>
  Predicate.hasProperty(socket, "once") && Predicate.isFunction(socket.once)

const headerOf = (answer: HttpAnswer, name: string): string | undefined => {
  const value = answer.headers[name]
  const first = typeof value === "string" ? value : value?.[0]
  return first === undefined || first === "" ? undefined : first.slice(0, 300)
}

/**
 * Records the handshake's status and Deepgram's headers. On a refusal, ends the handshake as
 * `ws` does by itself when nobody listens (an `error`, then a `close`).
 */
const watchHandshake = (socket: Socket.WebSocketLike, handshake: Handshake): void => {
  if (!isNodeWebSocket(socket)) return
  socket.once("upgrade", (response) => {
    handshake.requestId = headerOf(response, "dg-request-id")
  })
  socket.once("unexpected-response", (request, response) => {
    handshake.status = response.statusCode
    handshake.dgError = headerOf(response, "dg-error")
    handshake.requestId = headerOf(response, "dg-request-id")
    request.destroy(new Error(`Unexpected server response: ${response.statusCode}`))
  })
}

const bufferedAmount = (socket: Socket.WebSocketLike | undefined): number =>
  Predicate.hasProperty(socket, "bufferedAmount") && Predicate.isNumber(socket.bufferedAmount)
    ? socket.bufferedAmount
    : 0

/** The `code` of the error behind a socket event (`ECONNREFUSED`), if any. */
const errorCodeOf = (cause: unknown): string | undefined => {
  const error = Predicate.hasProperty(cause, "error") ? cause.error : cause
  return Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : undefined
}

const requestNote = (handshake: Handshake): string =>
  handshake.requestId === undefined ? "" : ` (request ${handshake.requestId})`

// ---------------------------------------------------------------------------------------------
// The adapter

interface Settings {
  readonly apiKey: Redacted.Redacted
  readonly host: string
  readonly timeoutMs: number
  readonly keepAlive: Duration.Duration
  readonly closeTimeoutMs: number
  readonly maxGapSamples: number
  readonly queueFrames: number
  readonly sendBufferBytes: number
}

const refusal = (error: Socket.SocketError, handshake: Handshake, settings: Settings): SpeechError => {
  const reason = error.reason
  if (reason._tag === "SocketOpenError" && reason.kind === "Timeout") {
    return new SpeechError({
      reason: "timeout",
      message: `Deepgram (${settings.host}) did not complete the WebSocket handshake within ${settings.timeoutMs} ms`
    })
  }
  const status = handshake.status
  if (status !== undefined) {
    // an answer below 400 (a redirect the client did not follow) refuses nothing of ours
    const kind = status < 400 ? "unavailable" : Http.reasonOfStatus(status)
    const detail = handshake.dgError === undefined ? "" : `: ${handshake.dgError}`
    return new SpeechError({
      reason: kind,
      message: `Deepgram (${settings.host}) refused the stream with HTTP ${status}${detail}${requestNote(handshake)}`
    })
  }
  const code = reason._tag === "SocketOpenError" || reason._tag === "SocketReadError"
    ? errorCodeOf(reason.cause)
    : undefined
  return new SpeechError({
    reason: "unavailable",
    message: code === undefined
      ? `could not open a stream to Deepgram (${settings.host}): the WebSocket handshake failed (no HTTP status known)`
      : `could not connect to Deepgram (${settings.host}): ${code}`
  })
}

/** The end of the results (`Done`), or why the stream failed, once the socket stopped. */
const ended = (
  error: Socket.SocketError,
  closeSent: boolean,
  handshake: Handshake,
  settings: Settings
): Effect.Effect<never, SpeechError | Cause.Done> => {
  const reason = error.reason
  if (reason._tag !== "SocketCloseError") {
    return Effect.fail(
      new SpeechError({
        reason: "unavailable",
        message: `the connection to Deepgram (${settings.host}) failed${requestNote(handshake)}`
      })
    )
  }
  if (reason.code === 1000 && closeSent) return Cause.done()
  const said = reason.closeReason === undefined || reason.closeReason === "" ? "" : ` ${reason.closeReason}`
  const when = closeSent ? "before sending its last results" : "before the audio ended"
  const undecodable = [1002, 1003, 1007, 1008].includes(reason.code) && said.startsWith(" DATA-")
  return Effect.fail(
    new SpeechError({
      reason: undecodable ? "rejected" : "unavailable",
      message: `Deepgram (${settings.host}) closed the stream ${when} (${reason.code}${said})${requestNote(handshake)}`
    })
  )
}

const transcribe = (
  construct: Socket.WebSocketConstructor["Service"],
  settings: Settings,
  url: string,
  audio: Stream.Stream<PcmFrame>,
  options: TranscribeOptions
): Stream.Stream<Transcript, SpeechError> =>
  Stream.unwrap(Effect.gen(function*() {
    const handshake: Handshake = {}
    let current: Socket.WebSocketLike | undefined
    const acquire = Effect.acquireRelease(
      Effect.try({
        try: () => {
          const socket = construct(url, { headers: { Authorization: `Token ${Redacted.value(settings.apiKey)}` } })
          watchHandshake(socket, handshake)
          current = socket
          return socket
        },
        catch: (cause) => new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind: "Unknown", cause }) })
      }),
      (socket) => Effect.sync(() => socket.close(1000))
    )
    const socket = yield* Socket.fromWebSocket(acquire, { openTimeout: Duration.millis(settings.timeoutMs) })
    const reader = yield* socket.reader.pipe(Effect.mapError((error) => refusal(error, handshake, settings)))
    const writer = yield* socket.writer
    yield* Effect.logDebug(`Deepgram stream open${requestNote(handshake)}`)

    const timeline: Timeline = { sent: 0, anchors: [] }
    let closeSent = false
    const interim = options.interimResults === true

    const write = (data: string | Uint8Array) =>
      writer.write(data).pipe(Effect.mapError(() =>
        new SpeechError({
          reason: "unavailable",
          message: `could not send to Deepgram (${settings.host}): the connection is closed${requestNote(handshake)}`
        })
      ))

    const drained = Effect.gen(function*() {
      while (bufferedAmount(current) > settings.sendBufferBytes) yield* Effect.sleep(DRAIN_POLL)
    })

    const sender = Effect.gen(function*() {
      const queue = yield* Queue.bounded<PcmFrame, Cause.Done>(settings.queueFrames)
      yield* Effect.forkChild(Stream.runIntoQueue(audio, queue))
      while (true) {
        const next = yield* Queue.take(queue).pipe(
          Pull.catchDone(() => Effect.undefined),
          Effect.timeoutOption(settings.keepAlive)
        )
        if (Option.isNone(next)) {
          yield* write(Wire.keepAlive)
          continue
        }
        if (next.value === undefined) break
        const bytes = place(timeline, next.value, settings.maxGapSamples)
        if (bytes === undefined) continue
        yield* drained
        yield* write(bytes)
      }
      // set first: Deepgram's close may be read before this fiber runs again
      closeSent = true
      yield* write(Wire.closeStream)
      yield* Effect.sleep(Duration.millis(settings.closeTimeoutMs))
      return yield* new SpeechError({
        reason: "timeout",
        message:
          `Deepgram (${settings.host}) did not close the stream within ${settings.closeTimeoutMs} ms of the end of the audio${
            requestNote(handshake)
          }`
      })
    })

    const transcriptOf = (text: string): Effect.Effect<Transcript | undefined, SpeechError> => {
      const message = Wire.decodeMessage(text)
      if (Option.isNone(message)) {
        return Effect.as(Effect.logWarning("Deepgram sent a message that is not JSON; ignored"), undefined)
      }
      const value = message.value
      if ("channel" in value) {
        const final = value.is_final === true
        const best = value.channel.alternatives[0]
        const said = best?.transcript.trim() ?? ""
        if (said === "" || (!final && !interim)) return Effect.undefined
        const words = best?.words ?? []
        const first = words[0]
        const last = words[words.length - 1]
        const start = first !== undefined && last !== undefined ? first.start : value.start
        const end = first !== undefined && last !== undefined ? last.end : value.start + value.duration
        return Effect.succeed({
          text: said,
          startMs: callMsOf(timeline, start),
          endMs: callMsOf(timeline, end),
          final
        })
      }
      if (value.type === "Error") {
        const what = ("description" in value ? value.description : undefined) ??
          ("message" in value ? value.message : undefined)
        return Effect.fail(
          new SpeechError({
            reason: "unavailable",
            message: `Deepgram (${settings.host}) reported an error${
              what === undefined ? "" : `: ${what.slice(0, 300)}`
            }${requestNote(handshake)}`
          })
        )
      }
      if (value.type === "Results") {
        return Effect.as(Effect.logWarning("Deepgram sent a Results message of an unknown shape; ignored"), undefined)
      }
      return Effect.undefined
    }

    const batch = reader.pull.pipe(
      Effect.catch((error) => ended(error, closeSent, handshake, settings)),
      Effect.flatMap((messages) =>
        Effect.forEach(
          messages,
          (message) => typeof message === "string" ? transcriptOf(message) : Effect.undefined
        )
      ),
      Effect.map((transcripts) => transcripts.filter(Predicate.isNotUndefined))
    )

    return Stream.merge(
      Stream.flattenIterable(Stream.fromEffectRepeat(batch)),
      Stream.drain(Stream.fromEffect(sender)),
      { haltStrategy: "left" }
    )
  }))

/**
 * The adapter, with the composition's WebSocket client (`NodeWS.layerWebSocketConstructor` to
 * tell handshake refusals apart). Dies on a `baseUrl` that is not a URL (a configuration bug).
 *
 * @category constructors
 */
export const make = (
  config: DeepgramConfig
): Effect.Effect<SpeechToText["Service"], never, Socket.WebSocketConstructor> =>
  Effect.gen(function*() {
    const construct = yield* Socket.WebSocketConstructor
    const probe = yield* Effect.try({
      try: () => new URL(Wire.listenUrl(config)),
      catch: () => new Error(`DeepgramSpeechToText: baseUrl is not a URL: ${config.baseUrl}`)
    }).pipe(Effect.orDie)
    const settings: Settings = {
      apiKey: config.apiKey,
      host: probe.host,
      timeoutMs: config.timeoutMs ?? 5000,
      keepAlive: Duration.millis(Math.max(10, config.keepAliveIntervalMs ?? 3000)),
      closeTimeoutMs: config.closeTimeoutMs ?? 10_000,
      maxGapSamples: Math.max(0, Math.round((config.maxGapFillMs ?? 1000) * SAMPLES_PER_MS)),
      queueFrames: Math.max(1, config.queueFrames ?? 50),
      sendBufferBytes: config.sendBufferBytes ?? 65_536
    }
    return SpeechToText.of({
      transcribe: (audio, options = {}) =>
        transcribe(construct, settings, Wire.listenUrl(config, options), audio, options)
    })
  })

/**
 * @category layers
 */
export const layer = (config: DeepgramConfig): Layer.Layer<SpeechToText, never, Socket.WebSocketConstructor> =>
  Layer.effect(SpeechToText, make(config))
