/**
 * A local fake of OpenAI's two audio endpoints for tests: a client pointed at `fake.url` (the
 * `/v1` base URL) should not be able to tell it from OpenAI, or from a self-hosted server that
 * speaks the same protocol (faster-whisper-server/speaches, Kokoro-FastAPI). Written from
 * OpenAI's API reference, independently of our adapters: it has its own multipart parser and
 * its own 8 kHz to 24 kHz interpolator.
 *
 * Both endpoints take `Authorization: Bearer <key>` and answer a missing or wrong key with 401
 * (unless the fake was made with `apiKey: null`, a server without keys). Every error is
 * OpenAI's JSON, `{"error":{"message","type","param","code"}}`.
 *
 * `POST /v1/audio/transcriptions` takes `multipart/form-data` (the boundary from the
 * Content-Type header): `file` (required, a file part whose name ends in one of OpenAI's audio
 * extensions), `model` (required), `language` (ISO-639-1, two lowercase letters), `prompt`,
 * `response_format` (`json`, the default, or `text`), `temperature`. The fake really listens:
 * it reads the uploaded WAV (16-bit PCM, mono, 8 kHz; any other audio is refused with a message
 * saying the fake cannot decode it) and decodes the simulated speech in it
 * (`SimSpeech.decode`); the answer's `text` is the utterances found, joined by a space (empty
 * when none was). `json` answers `{"text", "usage": {"type": "duration", "seconds"}}` as
 * whisper-1 does. A body past `maxUploadBytes` (OpenAI: 25 MB) is answered 413.
 *
 * `POST /v1/audio/speech` takes JSON `{model, input, voice, response_format?, speed?,
 * instructions?}`: `input` at most 4096 characters, `voice` one of `voices`, `speed` 0.25 to 4,
 * `response_format` `pcm` (raw 16-bit little-endian mono at 24 kHz, no header) or `wav` (the
 * same with a WAV header); the fake cannot make mp3, opus, aac or flac and says so (400). The
 * audio is `SimVoice.speak(input)` brought to 24 kHz by a windowed-sinc interpolator (zero
 * phase: every third output sample is an input sample, the two between are interpolated with
 * a Kaiser window, β 8, 16 lobes a side), streamed with chunked transfer encoding in pieces of
 * `chunkBytes` bytes (cycled; odd sizes by default, so samples are split across pieces), each
 * written after the previous one was flushed.
 *
 * Knobs: `latencyMs` before every answer (for speech, counted from the request: the synthesis
 * is part of it); `fail(endpoint, ...faults)` queues what the next
 * requests to an endpoint get, in order (after the key was checked): an error answer, no
 * answer at all (`hang`), the connection closed (`drop`), or the normal answer later than
 * the others (`slow`, to make answers cross); for speech, `hang` and `drop` may come after
 * some bytes of audio were sent. Records every request (`transcriptions`, `speeches`) with
 * what it answered and, for transcriptions, in which order the answers went; `speechClosed`
 * waits until a speech answer's connection has closed (`abandoned` when the client closed it
 * before the end).
 *
 * @since 0.1.0
 */
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Result } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * @category models
 */
export type Endpoint = "transcriptions" | "speech"

/**
 * What the next request to an endpoint gets instead of a normal answer.
 *
 * - `Error`: that status and OpenAI's error JSON.
 * - `Hang`: nothing more (the connection stays open); for speech, after `afterBytes` of audio
 *   (0: not even the headers).
 * - `Drop`: the connection is closed; for speech, after `afterBytes` of audio (0: before the
 *   headers).
 * - `Slow`: the normal answer, `delayMs` later than the others.
 *
 * @category models
 */
export type Fault =
  | {
    readonly _tag: "Error"
    readonly status: number
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
  }
  | { readonly _tag: "Hang"; readonly afterBytes: number }
  | { readonly _tag: "Drop"; readonly afterBytes: number }
  | { readonly _tag: "Slow"; readonly delayMs: number }

/**
 * An error answer, with OpenAI's `type` for its status unless given.
 *
 * @category constructors
 */
export const error = (
  status: number,
  message: string,
  fields: { readonly type?: string; readonly param?: string | null; readonly code?: string | null } = {}
): Fault => ({
  _tag: "Error",
  status,
  message,
  type: fields.type ?? (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error"),
  param: fields.param ?? null,
  code: fields.code ?? (status === 429 ? "rate_limit_exceeded" : null)
})

/**
 * @category constructors
 */
export const hang = (afterBytes = 0): Fault => ({ _tag: "Hang", afterBytes })

/**
 * @category constructors
 */
export const drop = (afterBytes = 0): Fault => ({ _tag: "Drop", afterBytes })

/**
 * @category constructors
 */
export const slow = (delayMs: number): Fault => ({ _tag: "Slow", delayMs })

/**
 * @category models
 */
export interface Options {
  /** The key requests must carry; `null`: no key is asked for. Default `sk-fake-audio-0123456789abcdef`. */
  readonly apiKey?: string | null | undefined
  /** Before every answer. Default 0. */
  readonly latencyMs?: number | undefined
  /** Sizes of the pieces of a speech answer, cycled. Default 4801, 1023, 2999, 1. */
  readonly chunkBytes?: ReadonlyArray<number> | undefined
  /** The voices the speech endpoint knows. Default OpenAI's built-in ones. */
  readonly voices?: ReadonlyArray<string> | undefined
  /** The largest upload accepted. Default 25 MiB (OpenAI's limit). */
  readonly maxUploadBytes?: number | undefined
}

/**
 * OpenAI's built-in voices.
 *
 * @category models
 */
export const openAiVoices: ReadonlyArray<string> = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "nova",
  "onyx",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar"
]

/**
 * A file part of a multipart body.
 *
 * @category models
 */
export interface UploadedFile {
  readonly filename: string
  readonly contentType: string | undefined
  readonly bytes: Uint8Array
}

/**
 * A transcription request and what the fake answered.
 *
 * @category models
 */
export interface TranscriptionRequest {
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The text fields of the form. */
  readonly fields: Readonly<Record<string, string>>
  readonly file: UploadedFile | undefined
  /** Undefined while unanswered, and when the fake hung or dropped. */
  readonly status: number | undefined
  readonly response: unknown
  /** When it was answered: 0 for the fake's first transcription answer, 1 for the next… */
  readonly answered: number | undefined
}

/**
 * A speech request and what the fake answered.
 *
 * @category models
 */
export interface SpeechRequest {
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The JSON body (undefined when it did not parse). */
  readonly body: unknown
  readonly status: number | undefined
  /** Bytes of audio written. */
  readonly bytesSent: number
  /** The whole answer was written. */
  readonly completed: boolean
  /** The client closed the connection before the whole answer was written. */
  readonly abandoned: boolean
}

/**
 * @category models
 */
export interface AudioFake {
  /** The base URL, `http://127.0.0.1:<port>/v1`. */
  readonly url: string
  /** The key it asks for (undefined: none). */
  readonly apiKey: string | undefined
  readonly transcriptions: ReadonlyArray<TranscriptionRequest>
  readonly speeches: ReadonlyArray<SpeechRequest>
  /** The next requests to `endpoint` get `faults`, one each, in order. */
  readonly fail: (endpoint: Endpoint, ...faults: ReadonlyArray<Fault>) => void
  /** Waits until the `index`-th speech request's connection has closed (answered, dropped or abandoned). */
  readonly speechClosed: (index: number) => Effect.Effect<SpeechRequest>
}

/** Sample rate of the `pcm` answer. */
export const SPEECH_SAMPLE_RATE = 24000

const AUDIO_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"]

type Answer = { readonly status: number; readonly json: unknown } | { readonly status: number; readonly text: string }

const errorBody = (fault: Extract<Fault, { _tag: "Error" }>) => ({
  error: { message: fault.message, type: fault.type, param: fault.param, code: fault.code }
})

const invalid = (message: string, param: string | null = null, code: string | null = null): Answer => ({
  status: 400,
  json: errorBody({ _tag: "Error", status: 400, message, type: "invalid_request_error", param, code })
})

/** `sk-fa****...cdef`: how OpenAI echoes a wrong key. */
const masked = (key: string) =>
  key.length <= 8 ? "*".repeat(key.length) : `${key.slice(0, 3)}${"*".repeat(key.length - 7)}${key.slice(-4)}`

/** The 401 for a request without the right key, or undefined when it has it. */
const unauthorized = (apiKey: string | undefined, header: string | undefined): Answer | undefined => {
  if (apiKey === undefined) return undefined
  const bearer = header === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim()
  if (bearer === apiKey) return undefined
  const message = bearer === undefined
    ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    : `Incorrect API key provided: ${
      masked(bearer)
    }. You can find your API key at https://platform.openai.com/account/api-keys.`
  return {
    status: 401,
    json: errorBody({
      _tag: "Error",
      status: 401,
      message,
      type: "invalid_request_error",
      param: null,
      code: bearer === undefined ? null : "invalid_api_key"
    })
  }
}

// ---------------------------------------------------------------------------------------------
// multipart/form-data (RFC 7578)

interface Part {
  readonly name: string
  readonly filename: string | undefined
  readonly contentType: string | undefined
  readonly bytes: Uint8Array
}

const boundaryOf = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

const dispositionParam = (disposition: string, name: string): string | undefined => {
  const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(disposition)
  return match?.[1]?.replace(/\\(.)/g, "$1")
}

/** The parts of a multipart body, or undefined when it is malformed. */
const parseMultipart = (body: Buffer, boundary: string): ReadonlyArray<Part> | undefined => {
  const delimiter = Buffer.from(`\r\n--${boundary}`)
  // the first delimiter may open the body without the CRLF before it
  const data = Buffer.concat([Buffer.from("\r\n"), body])
  let at = data.indexOf(delimiter)
  if (at < 0) return undefined
  const parts: Array<Part> = []
  for (;;) {
    at += delimiter.length
    if (data.subarray(at, at + 2).toString("latin1") === "--") return parts
    const lineEnd = data.indexOf("\r\n", at)
    if (lineEnd < 0) return undefined
    const headersEnd = data.indexOf("\r\n\r\n", lineEnd)
    if (headersEnd < 0) return undefined
    const next = data.indexOf(delimiter, headersEnd + 4)
    if (next < 0) return undefined
    const headers = new Map<string, string>()
    for (const line of data.subarray(lineEnd + 2, headersEnd).toString("utf8").split("\r\n")) {
      const colon = line.indexOf(":")
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
    }
    const disposition = headers.get("content-disposition")
    if (disposition === undefined || !/^form-data\s*;/i.test(disposition)) return undefined
    const name = dispositionParam(disposition, "name")
    if (name === undefined) return undefined
    parts.push({
      name,
      filename: dispositionParam(disposition, "filename"),
      contentType: headers.get("content-type"),
      bytes: new Uint8Array(data.subarray(headersEnd + 4, next))
    })
    at = next
  }
}

// ---------------------------------------------------------------------------------------------
// audio

const besselI0 = (x: number): number => {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x * x) / 4 / (k * k)
    sum += term
  }
  return sum
}

const LOBES = 16
const BETA = 8
/** The interpolation kernel at the two fractional positions 1/3 and 2/3 of a sample. */
const kernels = [1 / 3, 2 / 3].map((fraction) =>
  Float64Array.from({ length: 2 * LOBES }, (_, j) => {
    const t = fraction - (j - LOBES + 1)
    const sinc = Math.sin(Math.PI * t) / (Math.PI * t)
    const r = t / LOBES
    return (sinc * besselI0(BETA * Math.sqrt(Math.max(0, 1 - r * r)))) / besselI0(BETA)
  })
)

/** 8 kHz to 24 kHz, zero phase: out[3m] = x[m], out[3m+1] and out[3m+2] interpolated. */
export const upsample3 = (x: Int16Array): Int16Array => {
  const out = new Int16Array(x.length * 3)
  for (let m = 0; m < x.length; m++) {
    out[3 * m] = x[m]!
    for (let p = 0; p < 2; p++) {
      const kernel = kernels[p]!
      let sum = 0
      for (let j = 0; j < 2 * LOBES; j++) {
        const i = m + j - LOBES + 1
        if (i >= 0 && i < x.length) sum += kernel[j]! * x[i]!
      }
      out[3 * m + 1 + p] = Math.max(-32768, Math.min(32767, Math.round(sum)))
    }
  }
  return out
}

/** The text of the simulated speech in a WAV upload, or the 400 for a file the fake cannot read. */
const listen = (file: UploadedFile): Result.Result<{ readonly text: string; readonly seconds: number }, Answer> => {
  const header = Wav.parseHeader(file.bytes)
  if (Result.isFailure(header)) {
    return Result.fail(invalid("Audio file might be corrupted or unsupported", "file", "invalid_value"))
  }
  const { formatTag, channels, sampleRate, bitsPerSample, dataOffset, dataSize } = header.success
  if (formatTag !== 1 || channels !== 1 || bitsPerSample !== 16 || sampleRate !== SimSpeech.SAMPLE_RATE) {
    return Result.fail(
      invalid(
        `The fake decodes 16-bit PCM mono WAV at 8000 Hz only; got format ${formatTag}, ${channels} channel(s), ${bitsPerSample} bits, ${sampleRate} Hz`,
        "file",
        "invalid_value"
      )
    )
  }
  const end = Math.min(file.bytes.length, dataOffset + dataSize)
  const samples = Wav.decodeSamples(file.bytes.subarray(dataOffset, end))
  const text = SimSpeech.decode(samples).map((utterance) => utterance.text).join(" ")
  return Result.succeed({ text, seconds: samples.length / SimSpeech.SAMPLE_RATE })
}

// ---------------------------------------------------------------------------------------------
// the server

type MutableTranscription = { -readonly [K in keyof TranscriptionRequest]: TranscriptionRequest[K] }

interface MutableSpeech {
  authorization: string | undefined
  contentType: string | undefined
  body: unknown
  status: number | undefined
  bytesSent: number
  completed: boolean
  abandoned: boolean
  closed: boolean
  readonly onClose: Array<() => void>
}

const send = (res: ServerResponse, answer: Answer) => {
  const json = "json" in answer
  res.writeHead(answer.status, { "content-type": json ? "application/json" : "text/plain; charset=utf-8" })
  res.end(json ? JSON.stringify(answer.json) : answer.text)
}

const readBody = (req: IncomingMessage, limit: number, done: (body: Buffer | "too-large") => void) => {
  const chunks: Array<Buffer> = []
  let size = 0
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= limit) chunks.push(chunk)
  })
  req.on("end", () => done(size > limit ? "too-large" : Buffer.concat(chunks)))
}

const listenOn = (options: Options) =>
  Effect.callback<{ readonly server: Server; readonly fake: AudioFake }>((resume) => {
    const apiKey = options.apiKey === null ? undefined : options.apiKey ?? "sk-fake-audio-0123456789abcdef"
    const latencyMs = options.latencyMs ?? 0
    const chunkBytes = options.chunkBytes ?? [4801, 1023, 2999, 1]
    const voices = options.voices ?? openAiVoices
    const maxUploadBytes = options.maxUploadBytes ?? 25 * 1024 * 1024
    const transcriptions: Array<MutableTranscription> = []
    let answers = 0
    const speeches: Array<MutableSpeech> = []
    const faults: Record<Endpoint, Array<Fault>> = { transcriptions: [], speech: [] }

    const later = (f: () => void, extraMs = 0) =>
      latencyMs + extraMs > 0 ? setTimeout(f, latencyMs + extraMs) : setImmediate(f)

    const transcribe = (req: IncomingMessage, res: ServerResponse, body: Buffer | "too-large") => {
      const contentType = req.headers["content-type"]
      const authorization = req.headers.authorization
      let extraMs = 0
      const record = (fields: Record<string, string>, file: UploadedFile | undefined, answer: Answer | undefined) => {
        const request: MutableTranscription = {
          authorization,
          contentType,
          fields,
          file,
          status: undefined,
          response: undefined,
          answered: undefined
        }
        transcriptions.push(request)
        if (answer === undefined) return
        later(() => {
          request.status = answer.status
          request.response = "json" in answer ? answer.json : answer.text
          request.answered = answers++
          send(res, answer)
        }, extraMs)
      }
      const refused = unauthorized(apiKey, authorization)
      if (refused !== undefined) return record({}, undefined, refused)
      if (body === "too-large") {
        return record({}, undefined, {
          status: 413,
          json: errorBody({
            _tag: "Error",
            status: 413,
            message: `Maximum content size limit (${maxUploadBytes}) exceeded`,
            type: "server_error",
            param: null,
            code: null
          })
        })
      }
      const boundary = boundaryOf(contentType)
      if (boundary === undefined) {
        return record(
          {},
          undefined,
          invalid(
            `Invalid Content-Type header (${contentType ?? "none"}), expected multipart/form-data with a boundary.`
          )
        )
      }
      const parts = parseMultipart(body, boundary)
      if (parts === undefined) return record({}, undefined, invalid("Could not parse multipart form"))
      const fields: Record<string, string> = {}
      let file: UploadedFile | undefined
      for (const part of parts) {
        if (part.filename !== undefined) {
          if (part.name === "file") file = { filename: part.filename, contentType: part.contentType, bytes: part.bytes }
        } else {
          fields[part.name] = new TextDecoder().decode(part.bytes)
        }
      }
      const fault = faults.transcriptions.shift()
      if (fault?._tag === "Slow") extraMs = fault.delayMs
      else if (fault !== undefined) {
        record(fields, file, fault._tag === "Error" ? { status: fault.status, json: errorBody(fault) } : undefined)
        if (fault._tag === "Drop") later(() => req.socket.destroy())
        return
      }
      if (file === undefined) return record(fields, file, invalid("Missing required parameter: 'file'.", "file"))
      if (fields.model === undefined || fields.model === "") {
        return record(fields, file, invalid("Missing required parameter: 'model'.", "model"))
      }
      const extension = /\.([a-z0-9]+)$/i.exec(file.filename)?.[1]?.toLowerCase()
      if (extension === undefined || !AUDIO_EXTENSIONS.includes(extension)) {
        return record(
          fields,
          file,
          invalid(
            `Invalid file format. Supported formats: ${JSON.stringify(AUDIO_EXTENSIONS)}`,
            "file",
            "invalid_value"
          )
        )
      }
      if (fields.language !== undefined && !/^[a-z]{2}$/.test(fields.language)) {
        return record(
          fields,
          file,
          invalid(
            `Invalid language '${fields.language}'. Language parameter must be specified in ISO-639-1 format.`,
            "language"
          )
        )
      }
      const format = fields.response_format ?? "json"
      if (format !== "json" && format !== "text") {
        return record(
          fields,
          file,
          invalid(`The fake answers response_format json and text only, not '${format}'`, "response_format")
        )
      }
      const heard = listen(file)
      if (Result.isFailure(heard)) return record(fields, file, heard.failure)
      const { seconds, text } = heard.success
      record(
        fields,
        file,
        format === "text"
          ? { status: 200, text: `${text}\n` }
          : { status: 200, json: { text, usage: { type: "duration", seconds: Math.ceil(seconds) } } }
      )
    }

    const speak = (req: IncomingMessage, res: ServerResponse, body: Buffer | "too-large") => {
      const speech: MutableSpeech = {
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        body: undefined,
        status: undefined,
        bytesSent: 0,
        completed: false,
        abandoned: false,
        closed: false,
        onClose: []
      }
      speeches.push(speech)
      const arrived = performance.now()
      res.on("close", () => {
        speech.closed = true
        for (const f of speech.onClose.splice(0)) f()
      })
      let extraMs = 0
      const answer = (a: Answer) => {
        speech.status = a.status
        later(() => send(res, a), extraMs)
      }
      const refused = unauthorized(apiKey, speech.authorization)
      if (refused !== undefined) return answer(refused)
      if (body === "too-large") return answer(invalid("Request too large"))
      const parsed = Result.try(() => JSON.parse(body.toString("utf8")) as unknown)
      if (Result.isFailure(parsed) || typeof parsed.success !== "object" || parsed.success === null) {
        return answer(
          invalid(
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
          )
        )
      }
      const request = parsed.success as Record<string, unknown>
      speech.body = request
      const fault = faults.speech.shift()
      if (fault?._tag === "Error") return answer({ status: fault.status, json: errorBody(fault) })
      if (fault?._tag === "Slow") extraMs = fault.delayMs
      const { input, model, voice } = request
      const format = request.response_format ?? "mp3"
      const speed = request.speed ?? 1
      if (typeof model !== "string" || model === "") {
        return answer(invalid("Missing required parameter: 'model'.", "model"))
      }
      if (typeof input !== "string") return answer(invalid("Missing required parameter: 'input'.", "input"))
      if (Array.from(input).length > 4096) {
        return answer(
          invalid(
            "[{'type': 'string_too_long', 'loc': ('body', 'input'), 'msg': 'String should have at most 4096 characters'}]",
            "input",
            "string_above_max_length"
          )
        )
      }
      if (typeof voice !== "string" || !voices.includes(voice)) {
        return answer(
          invalid(`Invalid value for 'voice': '${String(voice)}'. Supported voices are ${voices.join(", ")}.`, "voice")
        )
      }
      if (typeof speed !== "number" || speed < 0.25 || speed > 4) {
        return answer(invalid("Invalid value for 'speed': it must be between 0.25 and 4.0.", "speed"))
      }
      if (format !== "pcm" && format !== "wav") {
        return answer(
          invalid(`The fake answers response_format pcm and wav only, not ${JSON.stringify(format)}`, "response_format")
        )
      }
      if (new TextEncoder().encode(input).length > SimSpeech.MAX_BYTES) {
        return answer(invalid(`The fake speaks at most ${SimSpeech.MAX_BYTES} UTF-8 bytes`, "input"))
      }
      // The latency counts from the request: the synthesis is part of it, as a provider's is.
      const samples = upsample3(SimVoice.speak(input))
      const pcm = Wav.encodeSamples(samples)
      const audio = format === "wav"
        ? Buffer.concat([Wav.header(pcm.length, { sampleRate: SPEECH_SAMPLE_RATE }), pcm])
        : Buffer.from(pcm)
      const cut = fault?._tag === "Hang" || fault?._tag === "Drop"
        ? Math.min(fault.afterBytes, audio.length)
        : undefined
      speech.status = 200
      // before the listener that wakes `speechClosed`'s waiters
      res.prependListener("close", () => {
        if (!speech.completed && cut === undefined) speech.abandoned = true
      })
      later(() => {
        if (fault?._tag === "Hang" && cut === 0) return
        if (fault?._tag === "Drop" && cut === 0) {
          req.socket.destroy()
          return
        }
        res.writeHead(200, { "content-type": format === "wav" ? "audio/wav" : "audio/pcm" })
        let piece = 0
        const writeNext = (): void => {
          if (res.destroyed) return
          const limit = cut ?? audio.length
          if (speech.bytesSent >= limit) {
            if (cut === undefined) {
              speech.completed = true
              res.end()
            } else if (fault?._tag === "Drop") {
              req.socket.destroy()
            }
            return
          }
          const size = Math.min(chunkBytes[piece++ % chunkBytes.length]!, limit - speech.bytesSent)
          const chunk = audio.subarray(speech.bytesSent, speech.bytesSent + size)
          speech.bytesSent += size
          res.write(chunk, () => setImmediate(writeNext))
        }
        writeNext()
      }, extraMs - (performance.now() - arrived))
    }

    const server = createServer((req, res) => {
      const path = (req.url ?? "").split("?")[0]
      const route = req.method === "POST" && path === "/v1/audio/transcriptions"
        ? transcribe
        : req.method === "POST" && path === "/v1/audio/speech"
        ? speak
        : undefined
      readBody(req, maxUploadBytes, (body) => {
        if (route === undefined) {
          return send(res, {
            status: 404,
            json: errorBody({
              _tag: "Error",
              status: 404,
              message: `Invalid URL (${req.method} ${path})`,
              type: "invalid_request_error",
              param: null,
              code: null
            })
          })
        }
        route(req, res, body)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({
        server,
        fake: {
          url: `http://127.0.0.1:${port}/v1`,
          apiKey,
          transcriptions,
          speeches,
          fail: (endpoint, ...more) => {
            faults[endpoint].push(...more)
          },
          speechClosed: (index) =>
            Effect.callback<SpeechRequest>((resume) => {
              const view = (speech: MutableSpeech): SpeechRequest => ({
                authorization: speech.authorization,
                contentType: speech.contentType,
                body: speech.body,
                status: speech.status,
                bytesSent: speech.bytesSent,
                completed: speech.completed,
                abandoned: speech.abandoned
              })
              const check = () => {
                const speech = speeches[index]
                if (speech === undefined) return void setTimeout(check, 10)
                if (speech.closed) return resume(Effect.succeed(view(speech)))
                speech.onClose.push(() => resume(Effect.succeed(view(speech))))
              }
              check()
            })
        }
      }))
    })
  })

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })

/**
 * A fake listening on a free loopback port, closed with the scope.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<AudioFake, never, Scope.Scope> =>
  Effect.acquireRelease(listenOn(options), ({ server }) => close(server)).pipe(Effect.map(({ fake }) => fake))
