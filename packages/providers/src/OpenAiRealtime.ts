// One concept over 500 lines: a call's state and the four fibers sharing it (events, playing, tools, audio).
/**
 * The OpenAI Realtime API as a `SpeechToSpeech` model: one WebSocket per call to
 * `{baseUrl}/realtime?model=<model>` (`Authorization: Bearer <key>`), G.711 μ-law both ways, so
 * the carrier's bytes go to the model and the model's bytes go to the carrier untouched.
 *
 * Protocol: the GA Realtime API (`session.update` with `session.type: "realtime"` and
 * `audio.input/output.format: {type: "audio/pcmu"}`, `response.output_audio.delta`), which is
 * what OpenAI documents and serves. The beta shapes (`input_audio_format: "g711_ulaw"`) are not
 * sent: a GA server rejects them. On receipt, the beta names of the three audio events used
 * (`response.audio.delta`, `response.audio.done`, `response.audio_transcript.done`) are read as
 * their GA names: a compatible server still on beta names sends them with the same fields (its
 * `session.update` would still have to take the GA shape).
 *
 * One call:
 * 1. Connect; wait for `session.created` (the handshake and it within `timeoutMs`, else
 *    `timeout`), send `session.update` (instructions, voice, μ-law in and out, server VAD with
 *    `create_response: true` and `interrupt_response: false`, input transcription in the
 *    session's language when it is a BCP 47 tag, the function tools) and wait for
 *    `session.updated` (an `error` instead: `rejected`). Audio is appended only after it: the
 *    buffer reads earlier bytes as 24 kHz PCM. With an `opening`, a `response.create` whose
 *    instructions (the session's, and the opening) ask the model to say it first.
 * 2. Each `Audio` input is appended (`input_audio_buffer.append`, base64, one event per batch
 *    of frames the input stream hands over; a `pcm16` frame is μ-law encoded). A gap in the
 *    frames' timestamps is filled with μ-law silence (up to `MAX_GAP_FILL_MS`), so a position in
 *    the buffer maps to the call's clock by the first frame's timestamp (plus any gap too long
 *    to fill). `Dtmf`, `SpeechStarted`, `SpeechStopped` and `BargeIn` are not forwarded: the
 *    server's VAD hears the same audio and is the one judge of turns and barge-in.
 * 3. Each assistant audio item is played by one `call.say`, fed by a queue of 20 ms frames cut
 *    from its deltas (views of a copy of the decoded bytes, timestamps counted from the item's
 *    start) and ended at `response.output_audio.done` (or `response.done`). Items play one
 *    after the other.
 * 4. `input_audio_buffer.speech_started`: when anything is unplayed, `call.interrupt`; when a
 *    response is still generating, `response.cancel`, and its later deltas are dropped.
 *    Cancelling is the adapter's alone: `interrupt_response` is off (with it on, the server
 *    cancels at its VAD's start, and a client cancel after it fails). Each item cut short is
 *    truncated (`conversation.item.truncate`) at what the person heard: the `Interrupted`
 *    playback's `playedMs`, at most the audio received (the server refuses a point past its
 *    audio), or 0 for an item not yet started; an item that had `Played` is left whole. When
 *    the person's turn ends (`speech_stopped`) before the cancel landed, the server could not
 *    start a response for it (one was active): the adapter asks for it (`response.create`) once
 *    the cancelled response is done. In real time the cancel lands first (speech lasts longer
 *    than a round trip plus the VAD's silence); audio sent faster than real time can end a turn
 *    first.
 * 5. Turns: `conversation.item.input_audio_transcription.completed` is a HUMAN turn at the
 *    `audio_start_ms` of its `speech_started` (so it includes the server's prefix padding), on
 *    the call's clock. An assistant item's transcript is an AGENT turn at its playback start,
 *    once it has played; cut short, its first words in proportion to the audio heard (an
 *    estimate: the Realtime API gives no word timings).
 * 6. Function calls (`response.function_call_arguments.done`, or a `function_call` output item
 *    of `response.done` not seen before) run after their `response.done`, in order, through
 *    `session.onToolCall`; each output goes back as a `function_call_output` item. A response
 *    holds the model's speech and its calls together, so a turn is one response: a
 *    `response.create` follows the outputs only when a call was `refused` (the model puts it
 *    right at once) or the response had no audio (the model waits for the results to speak).
 *    Once a call is refused, the later calls of its response are not run (their output says
 *    so). A result with `afterSpeech` (a transfer) waits for the audio already received to play
 *    out, and its effect's result stands for it. A result with `end` stops there: the audio
 *    already received plays out, then the session ends `Ended`. A cancelled response's calls run only when complete, and no
 *    `response.create` follows them (the person's new turn brings the next response).
 * 7. The input stream ending (the person hung up) ends the session `HungUp`.
 * 8. Turn latency (`call.emitLatency`, and the turn-latency histogram): one record per reply to
 *    the person (the opening is not one), once it has played or was cut short after some of it
 *    was heard. The speech it answers ended at `speech_stopped`'s `audio_end_ms` less the VAD's
 *    `silence_duration_ms` (from `session.updated`), on the call's clock as the HUMAN turns; the
 *    reply started at its playback's `startMs`. Stages: `llm_first_token_ms` (the end of the
 *    speech reaching the adapter to the reply's first audio delta) and `engine_ms` (the rest);
 *    `OpenAiRealtimeLatency` says which speech a reply answers and why these clocks.
 *
 * Errors. The handshake's HTTP status is read from the socket's open error: the `ws` client
 * (`@effect/platform-node/NodeWS`) reports "Unexpected server response: 401"; Node's built-in
 * WebSocket reports no status, so with it every refusal is `unavailable`. 401/403
 * `unauthorized`, 429 `rate-limited`, other 4xx `rejected`, 5xx, a refused connection or no
 * answer `unavailable`. In the call, the socket closing or dropping, or a fatal `error` event
 * (any type but `invalid_request_error`, or `session_expired`), fails the session at once with
 * `unavailable`; other `error` events (a cancel that crossed the response's end, say) are logged
 * and the call goes on. A response that `failed` is logged too. The key is only in the
 * handshake header: no message or log carries it.
 *
 * Bounds: each item's queue holds `maxQueuedAudioMs` of audio (the model sends audio faster
 * than real time, the carrier plays it in real time; past it, frames are dropped and logged); at
 * most `MAX_WAITING_ITEMS` items wait to play and `MAX_TOOL_BATCHES` batches of tool calls to
 * run; with the `ws` client the socket is paused while its 64 KiB buffer is full.
 *
 * The events read and sent are in `OpenAiRealtimeEvents`.
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import type { AgentCall, AudioFrame, Playback } from "@voice-agent/core/ports/Agent"
import type { ToolCall } from "@voice-agent/core/ports/ChatModel"
import type { SessionEnd, SpeechSession } from "@voice-agent/core/ports/SpeechToSpeech"
import { SpeechToSpeech } from "@voice-agent/core/ports/SpeechToSpeech"
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Cause, Deferred, Effect, Layer, Option, Queue, Redacted, Stream } from "effect"
import * as Socket from "effect/socket/Socket"
import * as Events from "./OpenAiRealtimeEvents.ts"
import * as Latency from "./OpenAiRealtimeLatency.ts"

/**
 * @category models
 */
export interface OpenAiRealtimeConfig {
  readonly apiKey: Redacted.Redacted
  /** The Realtime model, e.g. `gpt-realtime`. */
  readonly model: string
  /** Default `wss://api.openai.com/v1`; the socket opens `{baseUrl}/realtime?model=<model>`. */
  readonly baseUrl?: string | undefined
  /** The voice when the session names none; absent: the server's default. */
  readonly voice?: string | undefined
  /** The model transcribing the person's speech. Default `gpt-4o-mini-transcribe`. */
  readonly transcriptionModel?: string | undefined
  /** The handshake and `session.created`, then `session.updated`, each within it. Default 10 s. */
  readonly timeoutMs?: number | undefined
  /** Audio of one item waiting to play, at most. Default 5 minutes (2.4 MB). */
  readonly maxQueuedAudioMs?: number | undefined
}

const DEFAULT_BASE_URL = "wss://api.openai.com/v1"
const DEFAULT_TRANSCRIPTION_MODEL = "gpt-4o-mini-transcribe"
const FRAME_BYTES = 160
const BYTES_PER_MS = 8
/** A gap in the input longer than this is not filled with silence (the clock mapping absorbs it). */
const MAX_GAP_FILL_MS = 1000
const MAX_WAITING_ITEMS = 16
const MAX_TOOL_BATCHES = 16
const MAX_SPEECH_STARTS = 64

const utf8 = new TextDecoder()

interface Settings {
  readonly url: string
  readonly apiKey: Redacted.Redacted
  readonly voice: string | undefined
  readonly transcriptionModel: string
  readonly timeoutMs: number
  readonly maxQueuedFrames: number
}

/** One assistant audio item: its frames on their way to `say`, and how its playback went. */
interface Item {
  readonly id: string
  readonly responseId: string
  readonly frames: Queue.Queue<AudioFrame, Cause.Done>
  readonly played: Deferred.Deferred<Playback>
  /** Milliseconds of audio received (and queued, unless dropped). */
  receivedMs: number
  playback: Playback | undefined
  transcript: string | undefined
  /** Cut short by the person: later deltas are dropped. */
  silenced: boolean
  dropped: number
  reported: boolean
  /** The person's speech it answers (the first item after it), for the turn latency. */
  readonly answers: Latency.Answered | undefined
}

interface ToolBatch {
  readonly calls: ReadonlyArray<ToolCall>
  /** The response was cancelled: no `response.create` after the outputs. */
  readonly cancelled: boolean
  /** The response had audio: the model said its line with its calls. */
  readonly spoke: boolean
}

/** The output of a call after a refused one in the same response. */
const NOT_CARRIED_OUT = "Error: not carried out, since a call before it in your response was refused."

/**
 * The `SpeechToSpeech` service over the given WebSocket constructor (the `ws` one,
 * `NodeWS.layerWebSocketConstructor`, tells handshake refusals apart; see the module header).
 *
 * @category constructors
 */
export const make = (
  config: OpenAiRealtimeConfig
): Effect.Effect<SpeechToSpeech["Service"], never, Socket.WebSocketConstructor> =>
  Effect.gen(function*() {
    const constructor = yield* Socket.WebSocketConstructor
    const settings: Settings = {
      url: `${(config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "")}/realtime?model=${
        encodeURIComponent(config.model)
      }`,
      apiKey: config.apiKey,
      voice: config.voice,
      transcriptionModel: config.transcriptionModel ?? DEFAULT_TRANSCRIPTION_MODEL,
      timeoutMs: config.timeoutMs ?? 10_000,
      maxQueuedFrames: Math.max(1, Math.ceil((config.maxQueuedAudioMs ?? 300_000) / 20))
    }
    const converse = Effect.fn("OpenAiRealtime.converse")(
      (call: AgentCall, session: SpeechSession): Effect.Effect<SessionEnd, SpeechError> =>
        Effect.scoped(run(call, session, settings)).pipe(
          Effect.provideService(Socket.WebSocketConstructor, constructor)
        )
    )
    return SpeechToSpeech.of({ encoding: "mulaw", converse })
  })

/**
 * @category layers
 */
export const layer = (config: OpenAiRealtimeConfig): Layer.Layer<SpeechToSpeech, never, Socket.WebSocketConstructor> =>
  Layer.effect(SpeechToSpeech, make(config))

const fail = (reason: SpeechError["reason"], message: string) =>
  new SpeechError({ reason, message: `OpenAI Realtime: ${message}` })

/** The HTTP status of a refused handshake, when the WebSocket client reports it. */
const statusOf = (cause: unknown): number | undefined => {
  const texts: Array<unknown> = []
  if (typeof cause === "object" && cause !== null) {
    const { message, error } = cause as { message?: unknown; error?: unknown }
    texts.push(message)
    if (typeof error === "object" && error !== null) texts.push((error as { message?: unknown }).message)
  }
  for (const text of texts) {
    const match = typeof text === "string" ? /server response: (\d{3})/.exec(text) : null
    if (match !== null) return Number(match[1])
  }
  return undefined
}

/** Why the connection failed (a system error code such as ECONNREFUSED), when known. */
const errnoOf = (cause: unknown): string | undefined => {
  const error = typeof cause === "object" && cause !== null ? (cause as { error?: unknown }).error : undefined
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

const handshakeError = (error: Socket.SocketError, timeoutMs: number): SpeechError => {
  const reason = error.reason
  if (reason._tag === "SocketOpenError" && reason.kind === "Timeout") {
    return fail("timeout", `no connection within ${timeoutMs} ms`)
  }
  const cause = reason._tag === "SocketOpenError" ? reason.cause : undefined
  const status = statusOf(cause)
  if (status === 401 || status === 403) return fail("unauthorized", `the API key was refused (HTTP ${status})`)
  if (status === 429) return fail("rate-limited", "too many requests (HTTP 429)")
  if (status !== undefined && status < 500) return fail("rejected", `the connection was refused (HTTP ${status})`)
  if (status !== undefined) return fail("unavailable", `the server failed (HTTP ${status})`)
  if (reason._tag === "SocketCloseError") return fail("unavailable", `the connection closed (code ${reason.code})`)
  return fail("unavailable", `could not connect (${errnoOf(cause) ?? "no answer"})`)
}

const lostError = (error: Socket.SocketError): SpeechError =>
  error.reason._tag === "SocketCloseError"
    ? fail("unavailable", `the connection closed (code ${error.reason.code})`)
    : fail("unavailable", "the connection was lost")

/** The first `share` of the text's words (what the person heard of an item cut short). */
const heardText = (text: string, share: number): string => {
  const words = text.trim().split(/\s+/).filter((word) => word.length > 0)
  return words.slice(0, Math.round(words.length * Math.min(1, Math.max(0, share)))).join(" ")
}

const run = Effect.fnUntraced(function*(call: AgentCall, session: SpeechSession, settings: Settings) {
  const scope = yield* Effect.scope
  const timeout = <A, R>(what: string) => (effect: Effect.Effect<A, SpeechError, R>) =>
    Effect.timeoutOrElse(effect, {
      duration: settings.timeoutMs,
      orElse: () => Effect.fail(fail("timeout", `no ${what} within ${settings.timeoutMs} ms`))
    })

  // The socket and its events, in order; frames read but not yet handled wait in `pending`.
  const socket = yield* Socket.makeWebSocket(settings.url, {
    headers: { Authorization: `Bearer ${Redacted.value(settings.apiKey)}` },
    openTimeout: settings.timeoutMs
  })
  const pending: Array<string | Uint8Array> = []
  const nextEvent = (reader: Socket.Reader): Effect.Effect<Events.ServerEvent, Socket.SocketError> =>
    Effect.suspend(function loop(): Effect.Effect<Events.ServerEvent, Socket.SocketError> {
      while (pending.length > 0) {
        const frame = pending.shift()!
        const event = Events.decode(typeof frame === "string" ? frame : utf8.decode(frame))
        if (Option.isSome(event)) return Effect.succeed(event.value)
      }
      return Effect.flatMap(reader.pull, (frames) => {
        pending.push(...frames)
        return Effect.suspend(loop)
      })
    })
  /** Reads events until one of type `type` (an `error` fails the setup). */
  const awaitSetup = (reader: Socket.Reader, type: "session.created" | "session.updated") =>
    Effect.gen(function*() {
      while (true) {
        const event = yield* nextEvent(reader).pipe(Effect.mapError(lostError))
        if (event.type === type) return event
        if (event.type === "error") {
          return yield* fail(
            Events.setupReason(event.error),
            `${event.error.code ?? event.error.type}: ${event.error.message}`
          )
        }
      }
    })

  const reader = yield* Effect.gen(function*() {
    const reader = yield* socket.reader.pipe(Effect.mapError((error) => handshakeError(error, settings.timeoutMs)))
    yield* awaitSetup(reader, "session.created")
    return reader
  }).pipe(timeout("session.created"))
  const writer = yield* socket.writer
  const send = (event: object) => writer.write(JSON.stringify(event)).pipe(Effect.mapError(lostError))

  yield* send(Events.sessionUpdate(session, settings))
  const updated = yield* awaitSetup(reader, "session.updated").pipe(timeout("session.updated"))
  /** The server VAD's silence before it ends a speech (its `audio_end_ms` includes it). */
  const silenceMs = Events.silenceMs("session" in updated ? updated.session : undefined)
  if (session.opening !== undefined) {
    yield* send(Events.openingResponse(session, session.opening))
  }

  const done = yield* Deferred.make<SessionEnd, SpeechError>()
  /** Runs `effect` for the session; its failure (not its interruption) ends the session. */
  const background = <E extends SpeechError>(effect: Effect.Effect<unknown, E>) =>
    Effect.forkIn(
      Effect.catchCause(effect, (cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.void : Deferred.failCause(done, cause)),
      scope
    )

  // Assistant audio items by id, until played and reported; the order they play in.
  const items = new Map<string, Item>()
  const waiting = yield* Queue.dropping<Item>(MAX_WAITING_ITEMS)
  const toolBatches = yield* Queue.dropping<ToolBatch>(MAX_TOOL_BATCHES)
  let activeResponse: string | undefined
  /** Responses the person cut short: their later deltas are dropped. */
  const silenced = new Set<string>()
  /** The person's turn ended before our cancel landed: the server made no response for it. */
  let owedResponse = false
  const toolCalls = new Map<string, Array<ToolCall>>()
  /** Responses that sent audio. */
  const voiced = new Set<string>()
  /** Where the person's speech items started, on the call's clock. */
  const speechStarts = new Map<string, number>()

  // The input buffer's clock: buffer ms + `base` = call ms.
  let base: number | undefined
  let bufferedMs = 0
  const turnClock = Latency.make()

  const report = Effect.fnUntraced(function*(item: Item) {
    const playback = item.playback
    if (item.reported || playback === undefined || item.transcript === undefined) return
    item.reported = true
    items.delete(item.id)
    const text = playback._tag === "Played"
      ? item.transcript.trim()
      : heardText(item.transcript, item.receivedMs > 0 ? playback.playedMs / item.receivedMs : 0)
    if (text.length > 0) yield* call.emitTurn({ speaker: "AGENT", text, offsetMs: playback.startMs })
  })

  const player = Effect.gen(function*() {
    const item = yield* Queue.take(waiting)
    let playback: Playback
    if (item.silenced) {
      playback = { _tag: "Interrupted", startMs: yield* call.elapsedMs, playedMs: 0 }
    } else {
      playback = yield* call.say(Stream.fromQueue(item.frames))
      const latency = item.answers === undefined ? undefined : Latency.record(item.answers, playback)
      if (latency !== undefined) {
        Metrics.observeTurnUnsafe(latency.userStoppedMs, latency.agentStartedMs)
        yield* call.emitLatency(latency)
      }
    }
    item.playback = playback
    yield* Deferred.succeed(item.played, playback)
    if (item.silenced && playback._tag === "Interrupted") {
      const audioEndMs = Math.max(0, Math.floor(Math.min(playback.playedMs, item.receivedMs)))
      yield* send(Events.itemTruncate(item.id, audioEndMs))
    }
    yield* report(item)
  }).pipe(Effect.forever)

  /** Waits until every item received so far has played (or was cut short). */
  const drained = Effect.suspend(() =>
    Effect.forEach([...items.values()], (item) => Deferred.await(item.played), { discard: true })
  )

  const tools = Effect.gen(function*() {
    const batch = yield* Queue.take(toolBatches)
    const outputs: Array<{ readonly callId: string; readonly output: string }> = []
    let refused = false
    for (const toolCall of batch.calls) {
      if (refused) {
        outputs.push({ callId: toolCall.id, output: NOT_CARRIED_OUT })
        continue
      }
      const made = yield* session.onToolCall(toolCall)
      let result = made
      if (made.afterSpeech !== undefined) {
        yield* drained
        result = yield* made.afterSpeech
      }
      if (result.end !== undefined) {
        yield* drained
        yield* Deferred.succeed(done, { _tag: "Ended", end: result.end })
        return yield* Effect.never
      }
      refused = result.refused === true
      outputs.push({ callId: toolCall.id, output: result.output })
    }
    for (const { callId, output } of outputs) {
      yield* send(Events.functionCallOutput(callId, output))
    }
    if (!batch.cancelled && (refused || !batch.spoke)) yield* send(Events.responseCreate)
  }).pipe(Effect.forever)

  const forward = Stream.runForEachArray(call.input, (inputs) =>
    Effect.gen(function*() {
      const parts: Array<Uint8Array> = []
      for (const input of inputs) {
        if (input._tag !== "Audio") continue
        const frame = input.frame
        const bytes = frame.encoding === "mulaw" ? frame.bytes : MuLaw.encode(frame.samples)
        base ??= frame.timestampMs
        const gap = frame.timestampMs - (base + bufferedMs)
        if (gap >= 1) {
          const fill = Math.min(Math.floor(gap), MAX_GAP_FILL_MS)
          parts.push(new Uint8Array(fill * BYTES_PER_MS).fill(MuLaw.SILENCE))
          bufferedMs += fill
          base += gap - fill
        }
        parts.push(bytes)
        bufferedMs += bytes.length / BYTES_PER_MS
      }
      if (parts.length === 0) return
      yield* send(Events.audioAppend(Buffer.concat(parts)))
      turnClock.sent(base! + bufferedMs, yield* call.elapsedMs)
    })).pipe(Effect.andThen(Deferred.succeed(done, { _tag: "HungUp" })))

  /** The person speaks: stop what is playing, cancel what is generating. */
  const bargeIn = Effect.gen(function*() {
    const unplayed = [...items.values()].filter((item) => item.playback === undefined && !item.silenced)
    if (unplayed.length > 0) yield* call.interrupt
    if (activeResponse !== undefined && !silenced.has(activeResponse)) {
      silenced.add(activeResponse)
      yield* send(Events.responseCancel(activeResponse))
    }
    for (const item of unplayed) {
      item.silenced = true
      yield* Queue.clear(item.frames)
      yield* Queue.end(item.frames)
    }
  })

  const audioDelta = Effect.fnUntraced(function*(responseId: string, itemId: string, delta: string) {
    if (silenced.has(responseId)) return
    voiced.add(responseId)
    let item = items.get(itemId)
    if (item === undefined) {
      item = {
        id: itemId,
        responseId,
        frames: yield* Queue.dropping<AudioFrame, Cause.Done>(settings.maxQueuedFrames),
        played: yield* Deferred.make<Playback>(),
        receivedMs: 0,
        playback: undefined,
        transcript: undefined,
        silenced: false,
        dropped: 0,
        reported: false,
        answers: turnClock.replyStarted(yield* call.elapsedMs)
      }
      items.set(itemId, item)
      if (!(yield* Queue.offer(waiting, item))) {
        item.silenced = true
        item.playback = { _tag: "Interrupted", startMs: yield* call.elapsedMs, playedMs: 0 }
        yield* Deferred.succeed(item.played, item.playback)
        yield* Effect.logWarning(`OpenAI Realtime: audio item ${itemId} dropped (${MAX_WAITING_ITEMS} items waiting)`)
      }
    }
    if (item.silenced) return
    // a copy of its own (a small Buffer.from is a view into Node's shared pool)
    const bytes = new Uint8Array(Buffer.from(delta, "base64"))
    for (let at = 0; at < bytes.length; at += FRAME_BYTES) {
      const frame: AudioFrame = {
        encoding: "mulaw",
        bytes: bytes.subarray(at, at + FRAME_BYTES),
        timestampMs: item.receivedMs + at / BYTES_PER_MS
      }
      if (!(yield* Queue.offer(item.frames, frame)) && item.dropped++ === 0) {
        yield* Effect.logWarning(`OpenAI Realtime: audio of item ${itemId} dropped (more than the queue holds)`)
      }
    }
    item.receivedMs += bytes.length / BYTES_PER_MS
  })

  const responseDone = Effect.fnUntraced(
    function*(response: Extract<Events.ServerEvent, { type: "response.done" }>["response"]) {
      if (activeResponse === response.id) activeResponse = undefined
      if (owedResponse && activeResponse === undefined) {
        owedResponse = false
        yield* send(Events.responseCreate)
      }
      const cancelled = response.status === "cancelled" || silenced.has(response.id)
      silenced.delete(response.id)
      const output = response.output ?? []
      for (const item of items.values()) {
        if (item.responseId !== response.id) continue
        yield* Queue.end(item.frames)
        if (item.transcript === undefined) {
          const found = output.find((entry) => entry.id === item.id)
          item.transcript = found?.content?.map((part) => part.transcript ?? "").join(" ") ?? ""
        }
        yield* report(item)
      }
      const calls = toolCalls.get(response.id) ?? []
      toolCalls.delete(response.id)
      const spoke = voiced.delete(response.id)
      for (const entry of output) {
        if (entry.type !== "function_call" || entry.call_id === undefined || entry.name === undefined) continue
        if (calls.some((known) => known.id === entry.call_id)) continue
        calls.push({ id: entry.call_id, name: entry.name, arguments: entry.arguments ?? "" })
      }
      // A cancelled response's calls run only when the model finished writing them.
      const complete = cancelled
        ? calls.filter((known) => output.some((entry) => entry.call_id === known.id && entry.status === "completed"))
        : calls
      if (complete.length > 0 && !(yield* Queue.offer(toolBatches, { calls: complete, cancelled, spoke }))) {
        yield* Effect.logError(
          `OpenAI Realtime: tool calls of ${response.id} dropped (${MAX_TOOL_BATCHES} batches waiting)`
        )
      }
      if (response.status === "failed") {
        const code = response.status_details?.error?.code ?? "unknown"
        yield* Effect.logWarning(`OpenAI Realtime: response ${response.id} failed (${code})`)
      }
    }
  )

  const handle = Effect.fnUntraced(function*(event: Events.ServerEvent) {
    switch (event.type) {
      case "input_audio_buffer.speech_started": {
        if (speechStarts.size >= MAX_SPEECH_STARTS) speechStarts.delete(speechStarts.keys().next().value!)
        speechStarts.set(event.item_id, (base ?? 0) + event.audio_start_ms)
        turnClock.speechStarted()
        return yield* bargeIn
      }
      case "input_audio_buffer.speech_stopped": {
        if (activeResponse !== undefined && silenced.has(activeResponse)) owedResponse = true
        if (event.audio_end_ms !== undefined) {
          const started = event.item_id === undefined ? undefined : speechStarts.get(event.item_id)
          turnClock.speechStopped(Latency.speechEndMs((base ?? 0) + event.audio_end_ms, silenceMs, started))
        }
        return
      }
      case "conversation.item.input_audio_transcription.completed": {
        const offsetMs = speechStarts.get(event.item_id) ?? (yield* call.elapsedMs)
        speechStarts.delete(event.item_id)
        const text = event.transcript.trim()
        if (text.length > 0) yield* call.emitTurn({ speaker: "HUMAN", text, offsetMs })
        return
      }
      case "response.created": {
        activeResponse = event.response.id
        return
      }
      case "response.output_audio.delta":
      case "response.audio.delta":
        return yield* audioDelta(event.response_id, event.item_id, event.delta)
      case "response.output_audio.done":
      case "response.audio.done": {
        const item = items.get(event.item_id)
        if (item !== undefined) yield* Queue.end(item.frames)
        return
      }
      case "response.output_audio_transcript.done":
      case "response.audio_transcript.done": {
        const item = items.get(event.item_id)
        if (item === undefined) return
        item.transcript = event.transcript
        return yield* report(item)
      }
      case "response.function_call_arguments.done": {
        const calls = toolCalls.get(event.response_id) ?? []
        if (!calls.some((known) => known.id === event.call_id)) {
          calls.push({ id: event.call_id, name: event.name, arguments: event.arguments })
        }
        toolCalls.set(event.response_id, calls)
        return
      }
      case "response.done":
        return yield* responseDone(event.response)
      case "error": {
        const { code, message, type } = event.error
        if (Events.isFatal(event.error)) return yield* fail("unavailable", `${code ?? type}: ${message}`)
        return yield* Effect.logWarning(`OpenAI Realtime: ${code ?? type}: ${message}`)
      }
      case "session.created":
      case "session.updated":
        return
    }
  })

  const listen = Effect.forever(
    Effect.flatMap(nextEvent(reader).pipe(Effect.mapError(lostError)), handle)
  )

  yield* background(listen)
  yield* background(player)
  yield* background(tools)
  yield* background(forward)
  return yield* Deferred.await(done)
})
