/**
 * A local fake of the OpenAI Realtime API (GA) over WebSocket, for tests: a client pointed at
 * `fake.url` (the `/v1` base URL; the socket is `{url}/realtime?model=<model>`) should not be
 * able to tell it from OpenAI. Written from OpenAI's API reference (the `openai` SDK's
 * `resources/realtime/realtime.ts` types), independently of our adapter.
 *
 * Handshake: `Authorization: Bearer <apiKey>` (401 with OpenAI's error JSON otherwise), a
 * `model` query parameter (400 otherwise), the path `/v1/realtime` (404 otherwise). Every
 * server event carries `event_id` and `type`; `session.created` comes first, with the GA
 * defaults (24 kHz PCM both ways, server VAD, no transcription, voice `alloy`).
 *
 * Client events: `session.update` (checked: `session.type` `realtime`, formats `audio/pcm`,
 * `audio/pcmu` or `audio/pcma`, turn detection `server_vad`, `semantic_vad` or null, function
 * tools with a name, transcription with a model, the voice unchanged once the model has spoken;
 * merged, then `session.updated` with the whole effective session), `input_audio_buffer.append`,
 * `response.create`, `response.cancel`, `conversation.item.create` (a `function_call_output`
 * must answer a function call of the conversation), `conversation.item.truncate` (an assistant
 * audio item, `audio_end_ms` within its audio). A bad event gets an `error` event
 * `{type, code, message, param, event_id}`, as OpenAI's do; the session goes on.
 *
 * It really listens. Appended audio in the session's input format (μ-law; 24 kHz PCM is
 * decimated to 8 kHz; A-law is not decoded) runs through an energy VAD (a sample of ±32 or more
 * is sound, as for `SimSpeech`) and `SimSpeech.Decoder`. Sound starts a speech item
 * (`input_audio_buffer.speech_started`, `audio_start_ms` = its start less `prefix_padding_ms`,
 * from the first appended sample); `silence_duration_ms` of quiet ends it
 * (`speech_stopped`, `committed`, the user item's `conversation.item.added`/`done`, and with
 * transcription on, `conversation.item.input_audio_transcription.delta`/`completed` with the
 * utterances decoded in it, joined by a space). With `create_response`, the end of speech starts
 * a response; with `interrupt_response`, the start of speech cancels the active one
 * (`turn_detected`).
 *
 * Responses follow the test's `script`: given what was heard (or the `response.create`'s
 * instructions) and the conversation so far, it answers what to say and which functions to
 * call. A response is `response.created`; per spoken text an assistant message item
 * (`response.output_item.added`, `conversation.item.added`, `response.content_part.added`, the
 * transcript as `response.output_audio_transcript.delta`, the audio as
 * `response.output_audio.delta`s of `audioChunkMs`, base64 of `SimVoice.speak(text)` in the
 * output format: μ-law, or 24 kHz PCM by repeating each sample three times; then the `.done`
 * events and `conversation.item.done`); per call a function call item
 * (`response.function_call_arguments.delta`/`done`); then `response.done` with the items as
 * `response.output`. A reply with `hold` stays generating after its audio until it is
 * cancelled (`response.done` `cancelled`, the item `incomplete`). All of a response is sent at
 * once, faster than real time, as OpenAI does.
 *
 * Knobs: `latencyMs` before each server event; `refuse` answers the next handshakes with an
 * HTTP status; `withholdSessionCreated` never sends `session.created`; `drop` cuts every
 * connection (no close frame); `sendError` sends an `error` event (with `close`, then closes the
 * socket with 1011, a server ending the session). Records every handshake, every client event
 * received and every server event sent, the audio appended, the audio spoken and the responses
 * started (with the person's speech each answers), per connection; `waitFor` waits on any of it.
 *
 * Length: past 600 lines because one connection's state machine (the session, the input
 * buffer and its VAD, responses, the conversation) is one class, and the wire format is
 * written out event by event.
 *
 * @since 0.1.0
 */
import { WebSocketServer } from "@effect/platform-node/NodeWS"
import type { WebSocket } from "@effect/platform-node/NodeWS"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Effect } from "effect"
import type { Scope } from "effect"
import { createServer, STATUS_CODES } from "node:http"
import type { IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"

/**
 * A JSON object as it crossed the wire.
 *
 * @category models
 */
export type Json = { readonly [key: string]: unknown }

/**
 * One entry of the conversation as the script sees it.
 *
 * @category models
 */
export type Entry =
  | { readonly kind: "user"; readonly itemId: string; readonly text: string }
  | { readonly kind: "assistant"; readonly itemId: string; readonly text: string; readonly truncatedAtMs?: number }
  | {
    readonly kind: "function_call"
    readonly itemId: string
    readonly callId: string
    readonly name: string
    readonly arguments: string
  }
  | { readonly kind: "function_call_output"; readonly itemId: string; readonly callId: string; readonly output: string }
  | { readonly kind: "message"; readonly itemId: string; readonly role: string; readonly text: string }

/**
 * What starts a response: the end of the person's speech (`heard` is its transcript), or the
 * client's `response.create` (`instructions` are its own, if any).
 *
 * @category models
 */
export interface Turn {
  readonly trigger: "speech" | "response.create"
  readonly heard: string
  readonly instructions: string | undefined
  readonly conversation: ReadonlyArray<Entry>
  /** The session as it stands (instructions, tools, audio settings). */
  readonly session: Json
}

/**
 * What the model does: say `say` (an assistant audio item), call `calls` (function call items,
 * arguments as JSON text or a value to stringify). `hold`: after its audio the response stays
 * generating until cancelled.
 *
 * @category models
 */
export interface Reply {
  readonly say?: string | undefined
  readonly calls?: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }> | undefined
  readonly hold?: boolean | undefined
}

/**
 * @category models
 */
export type Script = (turn: Turn) => Reply | undefined

/**
 * @category models
 */
export interface Options {
  /** Default `"sk-realtime-fake"`. */
  readonly apiKey?: string | undefined
  /** Default: says nothing. */
  readonly script?: Script | undefined
  /** Before each server event. Default 0. */
  readonly latencyMs?: number | undefined
  /** Audio per `response.output_audio.delta`. Default 100 ms. */
  readonly audioChunkMs?: number | undefined
}

/**
 * A handshake the fake answered.
 *
 * @category models
 */
export interface Handshake {
  readonly path: string
  readonly model: string | null
  readonly authorization: string | undefined
  readonly status: number
}

/**
 * An assistant audio item the fake sent.
 *
 * @category models
 */
export interface Spoken {
  readonly responseId: string
  readonly itemId: string
  readonly text: string
  /** The bytes of its audio deltas, concatenated, in the output format. */
  readonly audio: Uint8Array
}

/**
 * A response the fake started: what started it, and the person's speech it answers (the last
 * user item of the conversation then; none before the person has spoken), so a test can count
 * the responses of each turn.
 *
 * @category models
 */
export interface Response {
  readonly responseId: string
  readonly trigger: Turn["trigger"]
  readonly userItemId: string | undefined
}

/**
 * One connection as the fake sees it (a live view).
 *
 * @category models
 */
export interface Connection {
  readonly index: number
  readonly model: string
  /** Client events, in order, as parsed. */
  readonly received: ReadonlyArray<Json>
  /** Server events, in order, as sent (or about to be, with latency). */
  readonly sent: ReadonlyArray<Json>
  /** The effective session. */
  readonly session: Json
  readonly conversation: ReadonlyArray<Entry>
  readonly spoken: ReadonlyArray<Spoken>
  /** Every response started, in order. */
  readonly responses: ReadonlyArray<Response>
  /** All appended audio, as appended (decoded from base64). */
  readonly appended: () => Uint8Array
  readonly closed: boolean
}

/**
 * @category models
 */
export interface RealtimeFake {
  /** The base URL, `ws://127.0.0.1:<port>/v1`. */
  readonly url: string
  readonly apiKey: string
  readonly handshakes: ReadonlyArray<Handshake>
  readonly connections: ReadonlyArray<Connection>
  readonly setScript: (script: Script) => Effect.Effect<void>
  /** The next handshakes are answered with `status` (undefined: accepted again). */
  readonly refuse: (status: number | undefined) => Effect.Effect<void>
  /** New connections get no `session.created`. */
  readonly withholdSessionCreated: (withhold: boolean) => Effect.Effect<void>
  /** Cuts every open connection at once (no close frame). */
  readonly drop: Effect.Effect<void>
  /** Sends an `error` event on every open connection; `close`: then closes it with 1011. */
  readonly sendError: (
    error: { readonly type: string; readonly code: string | null; readonly message: string },
    options?: { readonly close?: boolean }
  ) => Effect.Effect<void>
  /** Waits until `look` answers something (checked now and after every change). */
  readonly waitFor: <A>(look: () => A | undefined) => Effect.Effect<A>
}

const FORMATS = ["audio/pcm", "audio/pcmu", "audio/pcma"]
const QUIET = 32

const defaultTurnDetection = {
  type: "server_vad",
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  idle_timeout_ms: null,
  create_response: true,
  interrupt_response: true
}

const defaultSession = (index: number, model: string): Record<string, unknown> => ({
  type: "realtime",
  object: "realtime.session",
  id: `sess_fake${index}`,
  model,
  output_modalities: ["audio"],
  instructions: "You are a helpful, witty, and friendly AI.",
  tools: [],
  tool_choice: "auto",
  max_output_tokens: "inf",
  tracing: null,
  prompt: null,
  truncation: "auto",
  expires_at: 0,
  include: null,
  audio: {
    input: {
      format: { type: "audio/pcm", rate: 24000 },
      transcription: null,
      noise_reduction: null,
      turn_detection: defaultTurnDetection
    },
    output: { format: { type: "audio/pcm", rate: 24000 }, voice: "alloy", speed: 1 }
  }
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const openAiError = (message: string, type: string, code: string | null) =>
  JSON.stringify({ error: { message, type, param: null, code } })

const refuseUpgrade = (socket: Duplex, status: number, body: string) => {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** An error event's body, and why. */
class ClientError {
  readonly code: string
  readonly message: string
  readonly param: string | null
  constructor(code: string, message: string, param: string | null = null) {
    this.code = code
    this.message = message
    this.param = param
  }
}

interface Shared {
  readonly apiKey: string
  script: Script
  readonly latencyMs: number
  readonly audioChunkMs: number
  refuse: number | undefined
  withhold: boolean
  readonly changed: () => void
}

interface OpenResponse {
  readonly id: string
  readonly base: Record<string, unknown>
  readonly output: Array<Record<string, unknown>>
  /** The held audio item, finished when the response is cancelled. */
  held: { readonly item: Record<string, unknown>; readonly outputIndex: number; readonly text: string } | undefined
}

/** One client connection: the session, the input buffer and its VAD, the conversation. */
class Session implements Connection {
  readonly received: Array<Json> = []
  readonly sent: Array<Json> = []
  readonly conversation: Array<Entry> = []
  readonly spoken: Array<Spoken> = []
  readonly responses: Array<Response> = []
  session: Record<string, unknown>
  closed = false
  private readonly chunks: Array<Uint8Array> = []
  private eventSeq = 0
  private idSeq = 0
  private spokeAudio = false
  // the input buffer: samples at 8 kHz, VAD state
  private samples = 0
  private speech: { readonly itemId: string; quiet: number; readonly texts: Array<string> } | undefined
  private readonly decoder = new SimSpeech.Decoder()
  private active: OpenResponse | undefined

  readonly index: number
  readonly model: string
  private readonly ws: WebSocket
  private readonly shared: Shared

  constructor(index: number, model: string, ws: WebSocket, shared: Shared) {
    this.index = index
    this.model = model
    this.ws = ws
    this.shared = shared
    this.session = defaultSession(index, model)
  }

  appended = (): Uint8Array => Buffer.concat(this.chunks)

  private id(prefix: string): string {
    return `${prefix}_fake${this.index}x${++this.idSeq}`
  }

  private emit(event: Record<string, unknown>): void {
    const full = { event_id: `event_fake${this.index}x${++this.eventSeq}`, ...event }
    this.sent.push(full)
    const text = JSON.stringify(full)
    const send = () => {
      if (this.ws.readyState === this.ws.OPEN) this.ws.send(text)
    }
    if (this.shared.latencyMs > 0) setTimeout(send, this.shared.latencyMs)
    else send()
    this.shared.changed()
  }

  private error(error: ClientError, eventId: unknown): void {
    this.emit({
      type: "error",
      error: {
        type: "invalid_request_error",
        code: error.code,
        message: error.message,
        param: error.param,
        event_id: typeof eventId === "string" ? eventId : null
      }
    })
  }

  start(withhold: boolean): void {
    if (!withhold) this.emit({ type: "session.created", session: this.session })
  }

  sendError(error: { readonly type: string; readonly code: string | null; readonly message: string }, close: boolean) {
    this.emit({ type: "error", error: { ...error, param: null, event_id: null } })
    if (close) setTimeout(() => this.ws.close(1011, error.message.slice(0, 100)), this.shared.latencyMs)
  }

  onMessage(text: string): void {
    let event: unknown
    try {
      event = JSON.parse(text)
    } catch {
      return this.error(new ClientError("invalid_json", "We could not parse the JSON body of your request."), null)
    }
    if (!isObject(event)) return this.error(new ClientError("invalid_value", "An event must be a JSON object."), null)
    this.received.push(event)
    this.shared.changed()
    try {
      this.dispatch(event)
    } catch (cause) {
      if (cause instanceof ClientError) return this.error(cause, event.event_id)
      throw cause
    }
    // what the event changed besides the events sent (the conversation, the audio spoken)
    this.shared.changed()
  }

  private dispatch(event: Record<string, unknown>): void {
    switch (event.type) {
      case "session.update":
        return this.update(event.session)
      case "input_audio_buffer.append":
        return this.append(event.audio)
      case "response.create": {
        const response = isObject(event.response) ? event.response : {}
        const instructions = typeof response.instructions === "string" ? response.instructions : undefined
        return this.respond("response.create", "", instructions)
      }
      case "response.cancel": {
        if (this.active === undefined) {
          throw new ClientError("response_cancel_not_active", "Cancellation failed: no active response found")
        }
        return this.cancel("client_cancelled")
      }
      case "conversation.item.create":
        return this.createItem(event.item)
      case "conversation.item.truncate":
        return this.truncate(event)
      default:
        throw new ClientError(
          "invalid_value",
          `Invalid value: '${
            String(event.type)
          }'. The fake supports session.update, input_audio_buffer.append, response.create, response.cancel, conversation.item.create and conversation.item.truncate.`,
          "type"
        )
    }
  }

  // --- session.update

  private update(update: unknown): void {
    if (!isObject(update)) {
      throw new ClientError("missing_required_parameter", "Missing required parameter: 'session'.", "session")
    }
    if (update.type !== "realtime") {
      throw new ClientError(
        "invalid_value",
        "Invalid value for 'session.type': expected 'realtime' (a transcription session is not this fake's).",
        "session.type"
      )
    }
    const next = structuredClone(this.session)
    for (const key of ["instructions", "output_modalities", "tool_choice", "max_output_tokens", "model"]) {
      if (key in update) next[key] = update[key]
    }
    if ("tools" in update) {
      if (!Array.isArray(update.tools)) {
        throw new ClientError("invalid_type", "'session.tools' must be an array.", "session.tools")
      }
      update.tools.forEach((tool, i) => {
        if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string" || tool.name === "") {
          throw new ClientError("invalid_value", "A tool must be a function with a name.", `session.tools[${i}]`)
        }
      })
      next.tools = update.tools
    }
    if ("audio" in update) {
      if (!isObject(update.audio)) {
        throw new ClientError("invalid_type", "'session.audio' must be an object.", "session.audio")
      }
      const audio = next.audio as { input: Record<string, unknown>; output: Record<string, unknown> }
      for (const side of ["input", "output"] as const) {
        const given = update.audio[side]
        if (given === undefined) continue
        if (!isObject(given)) throw new ClientError("invalid_type", `'session.audio.${side}' must be an object.`)
        if ("format" in given) {
          const format = given.format
          if (!isObject(format) || !FORMATS.includes(String(format.type))) {
            throw new ClientError(
              "invalid_value",
              `Invalid value for 'session.audio.${side}.format.type'. Supported values are: ${FORMATS.join(", ")}.`,
              `session.audio.${side}.format.type`
            )
          }
          audio[side].format = format.type === "audio/pcm" ? { type: "audio/pcm", rate: 24000 } : { type: format.type }
        }
        if (side === "input") {
          if ("turn_detection" in given) {
            const detection = given.turn_detection
            if (
              detection !== null &&
              (!isObject(detection) || !["server_vad", "semantic_vad"].includes(String(detection.type)))
            ) {
              throw new ClientError(
                "invalid_value",
                "Invalid value for 'session.audio.input.turn_detection.type'. Supported values are: server_vad, semantic_vad.",
                "session.audio.input.turn_detection.type"
              )
            }
            audio.input.turn_detection = detection === null ? null : { ...defaultTurnDetection, ...detection }
          }
          if ("transcription" in given) {
            const transcription = given.transcription
            if (transcription !== null && (!isObject(transcription) || typeof transcription.model !== "string")) {
              throw new ClientError(
                "missing_required_parameter",
                "Missing required parameter: 'session.audio.input.transcription.model'.",
                "session.audio.input.transcription.model"
              )
            }
            audio.input.transcription = transcription
          }
          if ("noise_reduction" in given) audio.input.noise_reduction = given.noise_reduction
        } else {
          if ("voice" in given) {
            if (this.spokeAudio && given.voice !== audio.output.voice) {
              throw new ClientError(
                "cannot_update_voice",
                "Cannot update a conversation's voice if assistant audio is present.",
                "session.audio.output.voice"
              )
            }
            audio.output.voice = given.voice
          }
          if ("speed" in given) audio.output.speed = given.speed
        }
      }
    }
    this.session = next
    this.emit({ type: "session.updated", session: this.session })
  }

  private get audio() {
    return this.session.audio as {
      input: {
        format: { type: string }
        transcription: Json | null
        turn_detection: typeof defaultTurnDetection | null
      }
      output: { format: { type: string }; voice: unknown }
    }
  }

  // --- the input buffer

  private append(audio: unknown): void {
    if (typeof audio !== "string" || !BASE64.test(audio)) {
      throw new ClientError("invalid_value", "Invalid 'audio'. Expected base64-encoded audio bytes.", "audio")
    }
    const bytes = new Uint8Array(Buffer.from(audio, "base64"))
    this.chunks.push(bytes)
    const format = this.audio.input.format.type
    let pcm: Int16Array | undefined
    if (format === "audio/pcmu") pcm = MuLaw.decode(bytes)
    else if (format === "audio/pcm") {
      const wide = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2))
      pcm = Int16Array.from({ length: Math.floor(wide.length / 3) }, (_, i) => wide[3 * i]!)
    }
    if (pcm === undefined) {
      this.samples += bytes.length
      return
    }
    this.listen(pcm)
  }

  /** The energy VAD and the decoder over 8 kHz samples. */
  private listen(pcm: Int16Array): void {
    const detection = this.audio.input.turn_detection
    // what ended in these samples belongs to the speech going on, or to the one they start
    let texts = this.decoder.push(pcm).map((utterance) => utterance.text)
    if (this.speech !== undefined) {
      this.speech.texts.push(...texts)
      texts = []
    }
    for (let i = 0; i < pcm.length; i++) {
      const at = this.samples++
      const loud = pcm[i]! >= QUIET || pcm[i]! <= -QUIET
      if (detection === null) continue
      if (this.speech === undefined) {
        if (!loud) continue
        this.speech = { itemId: this.id("item"), quiet: 0, texts }
        texts = []
        this.emit({
          type: "input_audio_buffer.speech_started",
          audio_start_ms: Math.max(0, Math.floor(at / 8) - detection.prefix_padding_ms),
          item_id: this.speech.itemId
        })
        if (detection.interrupt_response && this.active !== undefined) this.cancel("turn_detected")
        continue
      }
      this.speech.quiet = loud ? 0 : this.speech.quiet + 1
      if (this.speech.quiet >= detection.silence_duration_ms * 8) this.speechStopped(at + 1, detection)
    }
  }

  private speechStopped(at: number, detection: typeof defaultTurnDetection): void {
    const speech = this.speech!
    this.speech = undefined
    const previous = this.conversation.at(-1)?.itemId ?? null
    this.emit({ type: "input_audio_buffer.speech_stopped", audio_end_ms: Math.floor(at / 8), item_id: speech.itemId })
    this.emit({ type: "input_audio_buffer.committed", previous_item_id: previous, item_id: speech.itemId })
    const item = {
      id: speech.itemId,
      object: "realtime.item",
      type: "message",
      status: "completed",
      role: "user",
      content: [{ type: "input_audio", transcript: null }]
    }
    this.emit({ type: "conversation.item.added", previous_item_id: previous, item })
    this.emit({ type: "conversation.item.done", previous_item_id: previous, item })
    const text = speech.texts.join(" ")
    this.conversation.push({ kind: "user", itemId: speech.itemId, text })
    if (this.audio.input.transcription !== null) {
      if (text.length > 0) {
        this.emit({
          type: "conversation.item.input_audio_transcription.delta",
          item_id: speech.itemId,
          content_index: 0,
          delta: text
        })
      }
      this.emit({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: speech.itemId,
        content_index: 0,
        transcript: text,
        usage: { type: "duration", seconds: Math.ceil(at / 8000) }
      })
    }
    if (detection.create_response) this.respond("speech", text, undefined)
  }

  // --- responses

  private outputAudio(text: string): Uint8Array {
    const pcm = SimVoice.speak(text)
    if (this.audio.output.format.type !== "audio/pcm") return MuLaw.encode(pcm)
    const wide = new Int16Array(pcm.length * 3)
    for (let i = 0; i < wide.length; i++) wide[i] = pcm[Math.floor(i / 3)]!
    return new Uint8Array(wide.buffer)
  }

  private respond(trigger: Turn["trigger"], heard: string, instructions: string | undefined): void {
    if (this.active !== undefined) {
      throw new ClientError(
        "conversation_already_has_active_response",
        `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`
      )
    }
    const reply = this.shared.script({
      trigger,
      heard,
      instructions,
      conversation: [...this.conversation],
      session: this.session
    }) ?? {}
    const id = this.id("resp")
    const format = this.audio.output.format
    const base: Record<string, unknown> = {
      object: "realtime.response",
      id,
      status: "in_progress",
      status_details: null,
      output: [],
      conversation_id: `conv_fake${this.index}`,
      output_modalities: ["audio"],
      max_output_tokens: "inf",
      audio: { output: { format, voice: this.audio.output.voice } },
      usage: null,
      metadata: null
    }
    const response: OpenResponse = { id, base, output: [], held: undefined }
    this.active = response
    const userItemId = this.conversation.findLast((entry) => entry.kind === "user")?.itemId
    this.responses.push({ responseId: id, trigger, userItemId })
    this.emit({ type: "response.created", response: base })
    if (reply.say !== undefined) {
      const outputIndex = response.output.length
      const item: Record<string, unknown> = {
        id: this.id("item"),
        object: "realtime.item",
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: []
      }
      response.output.push(item)
      const common = { response_id: id, item_id: item.id, output_index: outputIndex, content_index: 0 }
      this.emit({ type: "response.output_item.added", response_id: id, output_index: outputIndex, item })
      this.emit({ type: "conversation.item.added", previous_item_id: this.conversation.at(-1)?.itemId ?? null, item })
      this.emit({ type: "response.content_part.added", ...common, part: { type: "audio", transcript: "" } })
      this.emit({ type: "response.output_audio_transcript.delta", ...common, delta: reply.say })
      const audio = this.outputAudio(reply.say)
      const chunk = Math.max(1, this.shared.audioChunkMs * (format.type === "audio/pcm" ? 48 : 8))
      for (let at = 0; at < audio.length; at += chunk) {
        this.emit({
          type: "response.output_audio.delta",
          ...common,
          delta: Buffer.from(audio.subarray(at, at + chunk)).toString("base64")
        })
      }
      this.spokeAudio = true
      this.spoken.push({ responseId: id, itemId: String(item.id), text: reply.say, audio })
      this.conversation.push({ kind: "assistant", itemId: String(item.id), text: reply.say })
      if (reply.hold === true) {
        response.held = { item, outputIndex, text: reply.say }
        return
      }
      this.finishAudio(response, item, outputIndex, reply.say, "completed")
    }
    for (const call of reply.calls ?? []) {
      const outputIndex = response.output.length
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)
      const callId = this.id("call")
      const item: Record<string, unknown> = {
        id: this.id("item"),
        object: "realtime.item",
        type: "function_call",
        status: "in_progress",
        name: call.name,
        call_id: callId,
        arguments: ""
      }
      response.output.push(item)
      const common = { response_id: id, item_id: item.id, output_index: outputIndex, call_id: callId }
      this.emit({ type: "response.output_item.added", response_id: id, output_index: outputIndex, item })
      this.emit({ type: "conversation.item.added", previous_item_id: this.conversation.at(-1)?.itemId ?? null, item })
      this.emit({ type: "response.function_call_arguments.delta", ...common, delta: args })
      this.emit({ type: "response.function_call_arguments.done", ...common, name: call.name, arguments: args })
      const done = { ...item, status: "completed", arguments: args }
      response.output[outputIndex] = done
      this.emit({ type: "response.output_item.done", response_id: id, output_index: outputIndex, item: done })
      this.emit({
        type: "conversation.item.done",
        previous_item_id: this.conversation.at(-1)?.itemId ?? null,
        item: done
      })
      this.conversation.push({
        kind: "function_call",
        itemId: String(item.id),
        callId,
        name: call.name,
        arguments: args
      })
    }
    this.finishResponse(response, "completed", null)
  }

  private finishAudio(
    response: OpenResponse,
    item: Record<string, unknown>,
    outputIndex: number,
    transcript: string,
    status: "completed" | "incomplete"
  ): void {
    const common = { response_id: response.id, item_id: item.id, output_index: outputIndex, content_index: 0 }
    this.emit({ type: "response.output_audio.done", ...common })
    this.emit({ type: "response.output_audio_transcript.done", ...common, transcript })
    this.emit({ type: "response.content_part.done", ...common, part: { type: "audio", transcript } })
    const done = { ...item, status, content: [{ type: "output_audio", transcript }] }
    response.output[outputIndex] = done
    this.emit({ type: "response.output_item.done", response_id: response.id, output_index: outputIndex, item: done })
    this.emit({ type: "conversation.item.done", previous_item_id: null, item: done })
  }

  private finishResponse(response: OpenResponse, status: string, details: Json | null): void {
    this.active = undefined
    this.emit({
      type: "response.done",
      response: {
        ...response.base,
        status,
        status_details: details,
        output: response.output,
        usage: {
          total_tokens: 0,
          input_tokens: 0,
          output_tokens: 0,
          input_token_details: { text_tokens: 0, audio_tokens: 0, cached_tokens: 0 },
          output_token_details: { text_tokens: 0, audio_tokens: 0 }
        }
      }
    })
  }

  private cancel(reason: "client_cancelled" | "turn_detected"): void {
    const response = this.active!
    if (response.held !== undefined) {
      const { item, outputIndex, text } = response.held
      response.held = undefined
      this.finishAudio(response, item, outputIndex, text, "incomplete")
    }
    this.finishResponse(response, "cancelled", { type: "cancelled", reason })
  }

  // --- conversation items

  private createItem(item: unknown): void {
    if (!isObject(item)) {
      throw new ClientError("missing_required_parameter", "Missing required parameter: 'item'.", "item")
    }
    const id = typeof item.id === "string" ? item.id : this.id("item")
    const previous = this.conversation.at(-1)?.itemId ?? null
    let created: Record<string, unknown>
    if (item.type === "function_call_output") {
      const callId = item.call_id
      if (typeof callId !== "string" || typeof item.output !== "string") {
        throw new ClientError(
          "missing_required_parameter",
          "A function_call_output needs 'call_id' and 'output'.",
          "item"
        )
      }
      if (!this.conversation.some((entry) => entry.kind === "function_call" && entry.callId === callId)) {
        throw new ClientError("invalid_value", `Tool call ${callId} not found in conversation.`, "item.call_id")
      }
      created = {
        id,
        object: "realtime.item",
        type: "function_call_output",
        status: "completed",
        call_id: callId,
        output: item.output
      }
      this.conversation.push({ kind: "function_call_output", itemId: id, callId, output: item.output })
    } else if (item.type === "message" && Array.isArray(item.content)) {
      const text = item.content.map((part) => isObject(part) && typeof part.text === "string" ? part.text : "").join(
        " "
      )
      created = { ...item, id, object: "realtime.item", status: "completed" }
      this.conversation.push({ kind: "message", itemId: id, role: String(item.role), text })
    } else {
      throw new ClientError(
        "invalid_value",
        "The fake creates function_call_output and message items only.",
        "item.type"
      )
    }
    this.emit({ type: "conversation.item.added", previous_item_id: previous, item: created })
    this.emit({ type: "conversation.item.done", previous_item_id: previous, item: created })
  }

  private truncate(event: Record<string, unknown>): void {
    const { item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs } = event
    const index = this.conversation.findIndex((entry) => entry.itemId === itemId)
    const entry = this.conversation[index]
    if (entry === undefined) {
      throw new ClientError("invalid_value", `Item with item_id not found: ${String(itemId)}`, "item_id")
    }
    if (entry.kind !== "assistant") {
      throw new ClientError("invalid_value", "Only assistant messages can be truncated.", "item_id")
    }
    if (contentIndex !== 0) throw new ClientError("invalid_value", "content_index must be 0.", "content_index")
    const spoken = this.spoken.find((item) => item.itemId === itemId)!
    const audioMs = spoken.audio.length / (this.audio.output.format.type === "audio/pcm" ? 48 : 8)
    if (typeof audioEndMs !== "number" || !Number.isInteger(audioEndMs) || audioEndMs < 0 || audioEndMs > audioMs) {
      throw new ClientError(
        "invalid_value",
        `Audio content of ${audioMs}ms is shorter than requested audio_end_ms of ${String(audioEndMs)}ms`,
        "audio_end_ms"
      )
    }
    this.conversation[index] = { kind: "assistant", itemId: entry.itemId, text: "", truncatedAtMs: audioEndMs }
    this.emit({ type: "conversation.item.truncated", item_id: itemId, content_index: 0, audio_end_ms: audioEndMs })
  }
}

/**
 * Starts the fake on a free local port, for the scope.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<RealtimeFake, never, Scope.Scope> =>
  Effect.gen(function*() {
    const listeners = new Set<() => void>()
    const shared: Shared = {
      apiKey: options.apiKey ?? "sk-realtime-fake",
      script: options.script ?? (() => undefined),
      latencyMs: options.latencyMs ?? 0,
      audioChunkMs: options.audioChunkMs ?? 100,
      refuse: undefined,
      withhold: false,
      changed: () => {
        for (const listener of listeners) listener()
      }
    }
    const handshakes: Array<Handshake> = []
    const sessions: Array<Session> = []
    const wss = new WebSocketServer({ noServer: true })
    const server = createServer((_request, response) => {
      response.writeHead(404, { "Content-Type": "application/json" })
      response.end(openAiError("Not found.", "invalid_request_error", null))
    })
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(request.url ?? "/", "http://fake")
      const authorization = request.headers.authorization
      const model = url.searchParams.get("model")
      const answer = (status: number, body?: string) => {
        handshakes.push({ path: url.pathname, model, authorization, status })
        shared.changed()
        if (body !== undefined) refuseUpgrade(socket, status, body)
      }
      if (url.pathname !== "/v1/realtime") return answer(404, openAiError("Not found.", "invalid_request_error", null))
      if (authorization !== `Bearer ${shared.apiKey}`) {
        return answer(
          401,
          openAiError("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        )
      }
      if (shared.refuse !== undefined) {
        const status = shared.refuse
        return answer(
          status,
          openAiError(STATUS_CODES[status] ?? "Error", status >= 500 ? "server_error" : "invalid_request_error", null)
        )
      }
      if (model === null || model === "") {
        return answer(
          400,
          openAiError("Missing required parameter: 'model'.", "invalid_request_error", "missing_required_parameter")
        )
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        answer(101)
        const session = new Session(sessions.length, model, ws, shared)
        sessions.push(session)
        ws.on("message", (data, isBinary) => {
          if (isBinary) return
          const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
          session.onMessage(bytes.toString("utf8"))
        })
        ws.on("close", () => {
          session.closed = true
          shared.changed()
        })
        ws.on("error", () => {})
        session.start(shared.withhold)
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const client of wss.clients) client.terminate()
          wss.close()
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const { port } = server.address() as AddressInfo
    const openSockets = () => [...wss.clients]

    const waitFor = <A>(look: () => A | undefined): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        const check = () => {
          const found = look()
          if (found === undefined) return
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
        listeners.add(check)
        check()
        return Effect.sync(() => listeners.delete(check))
      })

    return {
      url: `ws://127.0.0.1:${port}/v1`,
      apiKey: shared.apiKey,
      handshakes,
      connections: sessions,
      setScript: (script) => Effect.sync(() => void (shared.script = script)),
      refuse: (status) => Effect.sync(() => void (shared.refuse = status)),
      withholdSessionCreated: (withhold) => Effect.sync(() => void (shared.withhold = withhold)),
      drop: Effect.sync(() => {
        for (const client of openSockets()) client.terminate()
      }),
      sendError: (error, errorOptions) =>
        Effect.sync(() => {
          for (const session of sessions) if (!session.closed) session.sendError(error, errorOptions?.close === true)
        }),
      waitFor
    } satisfies RealtimeFake
  })
