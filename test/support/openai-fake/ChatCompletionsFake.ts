/**
 * A local fake of OpenAI's chat completions endpoint for tests: a client pointed at `fake.url`
 * (the `/v1` base URL) should not be able to tell it from OpenAI. Written from OpenAI's API
 * reference and recorded streams, independently of our adapter. Longer than 600 lines because
 * it is one server: the request checks, the wire format and the faults belong together.
 *
 * `POST /v1/chat/completions`, `Authorization: Bearer <key>` (or Azure's `api-key` header when
 * made with `keyHeader: "api-key"`); a missing or wrong key is answered 401 (unless made with
 * `apiKey: null`, a server without keys), any other path 404. Every error is OpenAI's JSON,
 * `{"error":{"message","type","param","code"}}`, with OpenAI's wording. The body is checked as
 * OpenAI checks it (400): JSON; `model` present; no unknown parameter; `messages` a non-empty
 * array of messages with a known role and their required fields; an assistant's `tool_calls`
 * each `{id, type: "function", function: {name, arguments: string}}` and answered, each, by a
 * `tool` message with its `tool_call_id` before the next other message; a `tool` message only
 * after such an assistant message; `tools` a non-empty array of
 * `{type: "function", function: {name: ^[a-zA-Z0-9_-]{1,64}$, description?, parameters?}}`;
 * `temperature` 0 to 2; `max_tokens`/`max_completion_tokens` integers from 1, not both; and
 * the reasoning models' rules (a model named `o1`…, `o3`…, `o4`…, `gpt-5`… refuses `max_tokens`
 * and any temperature but 1). With `models`, an unknown model is 404 `model_not_found`.
 *
 * The answer comes from `script(request, n)` (n counts requests from 1). A streamed answer
 * (`stream: true`) is `text/event-stream`: `data: {chunk}` events, each chunk
 * `{id, object: "chat.completion.chunk", created, model, service_tier, system_fingerprint,
 * choices: [{index: 0, delta, logprobs: null, finish_reason}], obfuscation}` (and
 * `usage: null` when `stream_options.include_usage` asks for the final usage chunk), split as
 * OpenAI splits them: first `{role: "assistant", content: "" (null before a tool call),
 * refusal: null}`, then the text in word-sized pieces, a tool call as one fragment with `index`,
 * `id`, `type` and `function: {name, arguments: ""}` followed by its arguments a few characters
 * at a time (`{index, function: {arguments}}`), parallel calls one after the other with the next
 * index (an answer may hold text and calls both: the text first, as OpenAI's models write a
 * line and the calls of one response); then `{delta: {}, finish_reason}` (`tool_calls` when
 * there were calls, else `stop`),
 * the usage chunk if asked, and `data: [DONE]`. Without `stream`, one `chat.completion` JSON.
 *
 * Knobs: `latency` (before the first event, and between events; wall-clock, as a remote
 * server's, whatever clock the test runs on); `wire` (CRLF line ends, a `: keep-alive` comment
 * before each event, each event's JSON spread over several `data:` lines, the body written in
 * pieces of given byte sizes so events and UTF-8 sequences are cut); and, in the script's
 * answer, `wait` (hold the stream until an effect completes), `hang` (say nothing more, ever),
 * `drop` (close the connection), `streamError` (an error event, then the end), `raw` (bytes as
 * given: how another compatible server streams), `omitFinish` and `omitDone`, or instead of an
 * answer an `error` (429 with `retry-after`, 500, 503, any; another server's error body),
 * `hang` before the headers, or `drop` before them; `ignoresStream` makes a server that answers
 * a whole completion to `stream: true`. Records every request (`requests`) with what happened
 * to it, and `waitFor` waits on them.
 *
 * @since 0.1.0
 */
import { Clock, Effect, FiberSet } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

// --- what the script sees ------------------------------------------------------------------

/**
 * A tool call as a request carries it (in an assistant message).
 *
 * @category models
 */
export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * A message as a request carries it (after the fake checked it).
 *
 * @category models
 */
export interface WireMessage {
  readonly role: "system" | "developer" | "user" | "assistant" | "tool" | "function"
  readonly content?: string | ReadonlyArray<unknown> | null
  readonly tool_calls?: ReadonlyArray<WireToolCall>
  readonly tool_call_id?: string
  readonly name?: string
}

/**
 * @category models
 */
export interface WireTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description?: string
    readonly parameters?: { readonly [key: string]: unknown }
  }
}

/**
 * A checked request body; `body` is all of it.
 *
 * @category models
 */
export interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<WireMessage>
  readonly tools: ReadonlyArray<WireTool> | undefined
  readonly stream: boolean
  readonly body: { readonly [key: string]: unknown }
}

// --- what the script answers ---------------------------------------------------------------

/**
 * A part of an answer, in order.
 *
 * - `Text`: the model's text, one content delta per piece.
 * - `ToolCall`: a call; `pieces` are its arguments' fragments after the first (empty) one.
 * - `Wait`: nothing is sent until `until` completes.
 * - `Raw`: `data` written as it is (another compatible server's own events, for instance).
 * - `StreamError`: an error event (`data: {"error": {...}}`), then the end of the body.
 * - `Hang`: nothing more is sent, ever (the connection stays open).
 * - `Drop`: the connection is closed, mid-body.
 *
 * @category models
 */
export type Piece =
  | { readonly _tag: "Text"; readonly pieces: ReadonlyArray<string> }
  | {
    readonly _tag: "ToolCall"
    readonly id: string | undefined
    readonly name: string
    readonly pieces: ReadonlyArray<string>
  }
  | { readonly _tag: "Wait"; readonly until: Effect.Effect<void> }
  | { readonly _tag: "Raw"; readonly data: string }
  | { readonly _tag: "StreamError"; readonly error: ErrorFields }
  | Hang
  | Drop

/**
 * @category models
 */
export interface Hang {
  readonly _tag: "Hang"
}

/**
 * @category models
 */
export interface Drop {
  readonly _tag: "Drop"
}

/**
 * OpenAI's error object.
 *
 * @category models
 */
export interface ErrorFields {
  readonly message: string
  readonly type: string
  readonly param: string | null
  readonly code: string | null
}

/**
 * What a request gets: an answer, an error answer, no answer (`Hang`), or the connection
 * closed before any answer (`Drop`).
 *
 * @category models
 */
export type Reply =
  | {
    readonly _tag: "Answer"
    readonly pieces: ReadonlyArray<Piece>
    /** Default `tool_calls` when the answer has calls, else `stop`. */
    readonly finishReason: string | undefined
    /** No chunk with a `finish_reason`. */
    readonly omitFinish: boolean
    /** No `data: [DONE]`. */
    readonly omitDone: boolean
  }
  | {
    readonly _tag: "Error"
    readonly status: number
    readonly error: ErrorFields
    /** Seconds, sent as `retry-after`. */
    readonly retryAfter: number | undefined
    /** Sent instead of `{error}` (another server's error body). */
    readonly body: unknown
  }
  | Hang
  | Drop

/**
 * @category models
 */
export type Script = (request: ChatRequest, n: number) => Reply

/** Pre-tokenization close to OpenAI's (words with their leading space, numbers, punctuation). */
const TOKEN = /'(?:s|t|re|ve|m|ll|d)| ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu

/**
 * Text, sent in word-sized pieces (or exactly the pieces given).
 *
 * @category constructors
 */
export const text = (content: string | ReadonlyArray<string>): Piece => ({
  _tag: "Text",
  pieces: typeof content === "string" ? content.match(TOKEN) ?? [] : content
})

/** Arguments cut every 4, 5 or 6 characters, as OpenAI streams them (never inside a character). */
const argumentPieces = (args: string): ReadonlyArray<string> => {
  const characters = Array.from(args)
  const pieces: Array<string> = []
  for (let at = 0, n = 0; at < characters.length; n++) {
    const size = 4 + (n % 3)
    pieces.push(characters.slice(at, at + size).join(""))
    at += size
  }
  return pieces
}

/**
 * A tool call with `args` (JSON text), its arguments sent in pieces of a few characters (or
 * exactly `options.pieces`, which should join to `args`). `id` defaults to `call_<n>`.
 *
 * @category constructors
 */
export const toolCall = (
  name: string,
  args: string,
  options: { readonly id?: string; readonly pieces?: ReadonlyArray<string> } = {}
): Piece => ({ _tag: "ToolCall", id: options.id, name, pieces: options.pieces ?? argumentPieces(args) })

/**
 * @category constructors
 */
export const wait = (until: Effect.Effect<void>): Piece => ({ _tag: "Wait", until })

/**
 * Bytes of the body as they are: `raw("data: {...}\n\n")`.
 *
 * @category constructors
 */
export const raw = (data: string): Piece => ({ _tag: "Raw", data })

/**
 * An error event mid-stream (default: OpenAI's server error).
 *
 * @category constructors
 */
export const streamError = (fields: Partial<ErrorFields> = {}): Piece => ({
  _tag: "StreamError",
  error: {
    message: fields.message ?? "The server had an error while processing your request. Sorry about that!",
    type: fields.type ?? "server_error",
    param: fields.param ?? null,
    code: fields.code ?? null
  }
})

/**
 * @category constructors
 */
export const hang = (): Hang => ({ _tag: "Hang" })

/**
 * @category constructors
 */
export const drop = (): Drop => ({ _tag: "Drop" })

/**
 * @category constructors
 */
export const answer = (
  pieces: ReadonlyArray<Piece>,
  options: { readonly finishReason?: string; readonly omitFinish?: boolean; readonly omitDone?: boolean } = {}
): Reply => ({
  _tag: "Answer",
  pieces,
  finishReason: options.finishReason,
  omitFinish: options.omitFinish ?? false,
  omitDone: options.omitDone ?? false
})

const defaultError = (status: number): ErrorFields =>
  status === 429
    ? {
      message:
        "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.",
      type: "requests",
      param: null,
      code: "rate_limit_exceeded"
    }
    : status === 503
    ? {
      message: "The engine is currently overloaded, please try again later",
      type: "server_error",
      param: null,
      code: null
    }
    : status >= 500
    ? {
      message: "The server had an error while processing your request. Sorry about that!",
      type: "server_error",
      param: null,
      code: null
    }
    : { message: `Error ${status}`, type: "invalid_request_error", param: null, code: null }

/**
 * An error answer: OpenAI's text for 429, 500 and 503 unless given; `retryAfter` in seconds.
 *
 * @category constructors
 */
export const error = (
  status: number,
  fields: Partial<ErrorFields> & { readonly retryAfter?: number; readonly body?: unknown } = {}
): Reply => {
  const base = defaultError(status)
  return {
    _tag: "Error",
    status,
    error: {
      message: fields.message ?? base.message,
      type: fields.type ?? base.type,
      param: fields.param ?? base.param,
      code: fields.code ?? base.code
    },
    retryAfter: fields.retryAfter,
    body: fields.body
  }
}

// --- options and records -------------------------------------------------------------------

/**
 * How the bytes go out; the defaults are OpenAI's.
 *
 * @category models
 */
export interface Wire {
  /** Default `\n`. */
  readonly lineEnding?: "\n" | "\r\n" | undefined
  /** A `: keep-alive` comment before each event. */
  readonly keepAlive?: boolean | undefined
  /** Each event's JSON pretty-printed, one `data:` line per line. */
  readonly multiLineData?: boolean | undefined
  /**
   * The body written in pieces of these byte sizes (cycled), each after the previous one was
   * flushed; default one write per event.
   */
  readonly writeBytes?: ReadonlyArray<number> | undefined
}

/**
 * @category models
 */
export interface Options {
  /** The key requests must carry; `null`: none is asked for. Default `sk-fake-chat-0123456789abcdef`. */
  readonly apiKey?: string | null | undefined
  /** `authorization` (Bearer, OpenAI's; the default) or `api-key` (Azure OpenAI's). */
  readonly keyHeader?: "authorization" | "api-key" | undefined
  /** Default: a one-sentence text answer. */
  readonly script?: Script | undefined
  readonly latency?: { readonly firstChunkMs?: number | undefined; readonly betweenChunksMs?: number | undefined }
  readonly wire?: Wire | undefined
  /** The models it has; default any. */
  readonly models?: ReadonlyArray<string> | undefined
  /** Answers a whole `chat.completion` even to `stream: true` (a server that cannot stream). */
  readonly ignoresStream?: boolean | undefined
}

/**
 * A request the fake received and what became of it.
 *
 * @category models
 */
export interface Received {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  /** The parsed JSON body, or its text when it is not JSON. */
  readonly body: unknown
  /** The status sent, once the headers went out. */
  readonly status: number | undefined
  /** The error JSON sent, for an error answer. */
  readonly error: ErrorFields | undefined
  /** `data:` events written (the `[DONE]` one included). */
  readonly events: number
  /** The whole answer was written. */
  readonly completed: boolean
  /** The client closed the connection before the whole answer was written. */
  readonly abandoned: boolean
}

/**
 * @category models
 */
export interface ChatCompletionsFake {
  /** The base URL, `http://127.0.0.1:<port>/v1`. */
  readonly url: string
  /** The key it asks for (undefined: none). */
  readonly apiKey: string | undefined
  readonly requests: ReadonlyArray<Received>
  /** Waits until `look` answers something (checked after every change). */
  readonly waitFor: <A>(look: (requests: ReadonlyArray<Received>) => A | undefined) => Effect.Effect<A>
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

// --- request checks ------------------------------------------------------------------------

interface Refusal {
  readonly status: number
  readonly error: ErrorFields
}

const invalid = (message: string, param: string | null = null, code: string | null = null): Refusal => ({
  status: 400,
  error: { message, type: "invalid_request_error", param, code }
})

const typeName = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "string"
    ? "a string"
    : typeof value === "boolean"
    ? "a boolean"
    : typeof value === "number"
    ? Number.isInteger(value) ? "an integer" : "a decimal"
    : "an object"

/** A value as OpenAI quotes it in a message. */
const show = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value) ?? "undefined"

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const KNOWN_PARAMETERS = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "n",
  "stop",
  "max_tokens",
  "max_completion_tokens",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "user",
  "seed",
  "response_format",
  "service_tier",
  "store",
  "metadata",
  "modalities",
  "audio",
  "prediction",
  "reasoning_effort",
  "verbosity",
  "web_search_options",
  "safety_identifier",
  "prompt_cache_key",
  "functions",
  "function_call"
])

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"]

const isReasoningModel = (model: string) => /^(o\d|gpt-5)/.test(model)

/** The fields of one message, checked; a refusal, or undefined. */
const checkMessage = (message: unknown, i: number): Refusal | undefined => {
  const at = `messages[${i}]`
  if (!isObject(message)) {
    return invalid(
      `Invalid type for '${at}': expected an object, but got ${typeName(message)} instead.`,
      at,
      "invalid_type"
    )
  }
  const role = message.role
  if (role === undefined) {
    return invalid(`Missing required parameter: '${at}.role'.`, `${at}.role`, "missing_required_parameter")
  }
  if (typeof role !== "string" || !ROLES.includes(role)) {
    return invalid(
      `Invalid value: '${
        show(role)
      }'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `${at}.role`,
      "invalid_value"
    )
  }
  const content = message.content
  const contentOk = typeof content === "string" || Array.isArray(content)
  if (role !== "assistant") {
    if (content === undefined) {
      return invalid(`Missing required parameter: '${at}.content'.`, `${at}.content`, "missing_required_parameter")
    }
    if (!contentOk) {
      return invalid(
        `Invalid type for '${at}.content': expected one of a string or array of objects, but got ${
          typeName(content)
        } instead.`,
        `${at}.content`,
        "invalid_type"
      )
    }
  }
  if (role === "tool" && typeof message.tool_call_id !== "string") {
    return invalid(
      `Missing required parameter: '${at}.tool_call_id'.`,
      `${at}.tool_call_id`,
      "missing_required_parameter"
    )
  }
  if (role !== "assistant") return undefined
  if (content !== undefined && content !== null && !contentOk) {
    return invalid(
      `Invalid type for '${at}.content': expected one of a string or array of objects, but got ${
        typeName(content)
      } instead.`,
      `${at}.content`,
      "invalid_type"
    )
  }
  const calls = message.tool_calls
  if (calls === undefined || calls === null) {
    if (content === undefined || content === null) {
      return invalid("Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`)
    }
    return undefined
  }
  if (!Array.isArray(calls)) {
    return invalid(
      `Invalid type for '${at}.tool_calls': expected an array of objects, but got ${typeName(calls)} instead.`,
      `${at}.tool_calls`,
      "invalid_type"
    )
  }
  if (calls.length === 0) {
    return invalid(
      `Invalid '${at}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      `${at}.tool_calls`,
      "empty_array"
    )
  }
  for (const [j, call] of calls.entries()) {
    const callAt = `${at}.tool_calls[${j}]`
    if (!isObject(call)) {
      return invalid(
        `Invalid type for '${callAt}': expected an object, but got ${typeName(call)} instead.`,
        callAt,
        "invalid_type"
      )
    }
    for (const field of ["id", "type", "function"]) {
      if (call[field] === undefined) {
        return invalid(
          `Missing required parameter: '${callAt}.${field}'.`,
          `${callAt}.${field}`,
          "missing_required_parameter"
        )
      }
    }
    if (call.type !== "function") {
      return invalid(
        `Invalid value: '${show(call.type)}'. Supported values are: 'function'.`,
        `${callAt}.type`,
        "invalid_value"
      )
    }
    const fn = call.function
    if (!isObject(fn)) {
      return invalid(
        `Invalid type for '${callAt}.function': expected an object, but got ${typeName(fn)} instead.`,
        `${callAt}.function`,
        "invalid_type"
      )
    }
    for (const field of ["name", "arguments"]) {
      if (fn[field] === undefined) {
        return invalid(
          `Missing required parameter: '${callAt}.function.${field}'.`,
          `${callAt}.function.${field}`,
          "missing_required_parameter"
        )
      }
      if (typeof fn[field] !== "string") {
        return invalid(
          `Invalid type for '${callAt}.function.${field}': expected a string, but got ${typeName(fn[field])} instead.`,
          `${callAt}.function.${field}`,
          "invalid_type"
        )
      }
    }
  }
  return undefined
}

/** Tool messages answer the calls of the assistant message just before them, each call once. */
const checkConversation = (messages: ReadonlyArray<WireMessage>): Refusal | undefined => {
  let open: { readonly at: number; readonly ids: Set<string> } | undefined
  const unanswered = (): Refusal | undefined =>
    open !== undefined && open.ids.size > 0
      ? invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${
          [...open.ids].join(", ")
        }`,
        `messages.[${open.at}].role`
      )
      : undefined
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      if (open === undefined) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`
        )
      }
      const id = message.tool_call_id ?? ""
      if (!open.ids.delete(id)) {
        return invalid(
          `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`
        )
      }
      continue
    }
    const refusal = unanswered()
    if (refusal !== undefined) return refusal
    open = message.role === "assistant" && message.tool_calls !== undefined
      ? { at: i, ids: new Set(message.tool_calls.map((call) => call.id)) }
      : undefined
  }
  return unanswered()
}

const checkTools = (tools: unknown): Refusal | undefined => {
  if (!Array.isArray(tools)) {
    return invalid(
      `Invalid type for 'tools': expected an array of objects, but got ${typeName(tools)} instead.`,
      "tools",
      "invalid_type"
    )
  }
  if (tools.length === 0) {
    return invalid(
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "tools",
      "empty_array"
    )
  }
  for (const [i, tool] of tools.entries()) {
    const at = `tools[${i}]`
    if (!isObject(tool)) {
      return invalid(
        `Invalid type for '${at}': expected an object, but got ${typeName(tool)} instead.`,
        at,
        "invalid_type"
      )
    }
    if (tool.type === undefined) {
      return invalid(`Missing required parameter: '${at}.type'.`, `${at}.type`, "missing_required_parameter")
    }
    if (tool.type !== "function") {
      return invalid(
        `Invalid value: '${show(tool.type)}'. Supported values are: 'function' and 'custom'.`,
        `${at}.type`,
        "invalid_value"
      )
    }
    const fn = tool.function
    if (fn === undefined) {
      return invalid(`Missing required parameter: '${at}.function'.`, `${at}.function`, "missing_required_parameter")
    }
    if (!isObject(fn)) {
      return invalid(
        `Invalid type for '${at}.function': expected an object, but got ${typeName(fn)} instead.`,
        `${at}.function`,
        "invalid_type"
      )
    }
    if (fn.name === undefined) {
      return invalid(
        `Missing required parameter: '${at}.function.name'.`,
        `${at}.function.name`,
        "missing_required_parameter"
      )
    }
    if (typeof fn.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
      return invalid(
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${at}.function.name`,
        "invalid_value"
      )
    }
    if (fn.description !== undefined && typeof fn.description !== "string") {
      return invalid(
        `Invalid type for '${at}.function.description': expected a string, but got ${
          typeName(fn.description)
        } instead.`,
        `${at}.function.description`,
        "invalid_type"
      )
    }
    if (fn.parameters !== undefined && !isObject(fn.parameters)) {
      return invalid(
        `Invalid type for '${at}.function.parameters': expected an object, but got ${typeName(fn.parameters)} instead.`,
        `${at}.function.parameters`,
        "invalid_type"
      )
    }
  }
  return undefined
}

const checkNumbers = (body: { readonly [key: string]: unknown }, model: string): Refusal | undefined => {
  const temperature = body.temperature
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number") {
      return invalid(
        `Invalid type for 'temperature': expected a decimal, but got ${typeName(temperature)} instead.`,
        "temperature",
        "invalid_type"
      )
    }
    if (temperature < 0 || temperature > 2) {
      const [side, bound] = temperature < 0 ? ["below minimum", ">= 0"] : ["above maximum", "<= 2"]
      return invalid(
        `Invalid 'temperature': decimal ${side} value. Expected a value ${bound}, but got ${temperature} instead.`,
        "temperature",
        temperature < 0 ? "decimal_below_min_value" : "decimal_above_max_value"
      )
    }
    if (isReasoningModel(model) && temperature !== 1) {
      return invalid(
        `Unsupported value: 'temperature' does not support ${temperature} with this model. Only the default (1) value is supported.`,
        "temperature",
        "unsupported_value"
      )
    }
  }
  for (const field of ["max_tokens", "max_completion_tokens"]) {
    const value = body[field]
    if (value === undefined || value === null) continue
    if (typeof value !== "number" || !Number.isInteger(value)) {
      return invalid(
        `Invalid type for '${field}': expected an integer, but got ${typeName(value)} instead.`,
        field,
        "invalid_type"
      )
    }
    if (value < 1) {
      return invalid(
        `Invalid '${field}': integer below minimum value. Expected a value >= 1, but got ${value} instead.`,
        field,
        "integer_below_min_value"
      )
    }
  }
  if (body.max_tokens != null && body.max_completion_tokens != null) {
    return invalid("max_tokens and max_completion_tokens cannot both be set", "max_tokens", "invalid_request_error")
  }
  if (body.max_tokens != null && isReasoningModel(model)) {
    return invalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter"
    )
  }
  return undefined
}

/** The checked request, or the refusal OpenAI would send. */
const check = (
  text: string,
  models: ReadonlyArray<string> | undefined
): { readonly request: ChatRequest } | { readonly refusal: Refusal; readonly body: unknown } => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return {
      body: text,
      refusal: invalid(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)"
      )
    }
  }
  const refuse = (refusal: Refusal) => ({ body, refusal })
  if (!isObject(body)) {
    return refuse(
      invalid(`Invalid type for body: expected an object, but got ${typeName(body)} instead.`, null, "invalid_type")
    )
  }
  if (typeof body.model !== "string" || body.model === "") return refuse(invalid("you must provide a model parameter"))
  const model = body.model
  for (const key of Object.keys(body)) {
    if (!KNOWN_PARAMETERS.has(key)) return refuse(invalid(`Unrecognized request argument supplied: ${key}`))
  }
  const messages = body.messages
  if (messages === undefined) {
    return refuse(invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter"))
  }
  if (!Array.isArray(messages)) {
    return refuse(
      invalid(
        `Invalid type for 'messages': expected an array of objects, but got ${typeName(messages)} instead.`,
        "messages",
        "invalid_type"
      )
    )
  }
  if (messages.length === 0) {
    return refuse(
      invalid(
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        "messages",
        "empty_array"
      )
    )
  }
  for (const [i, message] of messages.entries()) {
    const refusal = checkMessage(message, i)
    if (refusal !== undefined) return refuse(refusal)
  }
  // checkMessage accepted every message: they have the WireMessage shape.
  const wireMessages = messages as ReadonlyArray<WireMessage>
  const order = checkConversation(wireMessages)
  if (order !== undefined) return refuse(order)
  if (body.tools !== undefined) {
    const refusal = checkTools(body.tools)
    if (refusal !== undefined) return refuse(refusal)
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") {
    return refuse(
      invalid(
        `Invalid type for 'stream': expected a boolean, but got ${typeName(body.stream)} instead.`,
        "stream",
        "invalid_type"
      )
    )
  }
  const numbers = checkNumbers(body, model)
  if (numbers !== undefined) return refuse(numbers)
  if (models !== undefined && !models.includes(model)) {
    return refuse({
      status: 404,
      error: {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found"
      }
    })
  }
  return {
    request: {
      model,
      messages: wireMessages,
      // checkTools accepted them.
      tools: body.tools as ReadonlyArray<WireTool> | undefined,
      stream: body.stream === true,
      body
    }
  }
}

/** `sk-fa****cdef`: how OpenAI echoes a wrong key. */
const masked = (key: string) =>
  key.length <= 8 ? "*".repeat(key.length) : `${key.slice(0, 3)}${"*".repeat(key.length - 7)}${key.slice(-4)}`

const unauthorized = (
  apiKey: string | undefined,
  keyHeader: "authorization" | "api-key",
  headers: IncomingHttpHeaders
): Refusal | undefined => {
  if (apiKey === undefined) return undefined
  if (keyHeader === "api-key") {
    if (headers["api-key"] === apiKey) return undefined
    return {
      status: 401,
      error: {
        message:
          "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        type: "invalid_request_error",
        param: null,
        code: "401"
      }
    }
  }
  const header = headers.authorization
  const bearer = header === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim()
  if (bearer === apiKey) return undefined
  return {
    status: 401,
    error: {
      message: bearer === undefined
        ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."
        : `Incorrect API key provided: ${
          masked(bearer)
        }. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: "invalid_request_error",
      param: null,
      code: bearer === undefined ? null : "invalid_api_key"
    }
  }
}

// --- answers -------------------------------------------------------------------------------

/** What the chunks of one answer say, before the envelope. */
type Step =
  | { readonly _tag: "Delta"; readonly delta: unknown; readonly finishReason: string | null }
  | { readonly _tag: "Usage" }
  | Exclude<Piece, { readonly _tag: "Text" | "ToolCall" }>

/** The answer as the events OpenAI would send. */
const steps = (reply: Extract<Reply, { _tag: "Answer" }>, n: number): ReadonlyArray<Step> => {
  const out: Array<Step> = []
  const first = reply.pieces.find((piece) => piece._tag === "Text" || piece._tag === "ToolCall")
  out.push({
    _tag: "Delta",
    delta: { role: "assistant", content: first?._tag === "ToolCall" ? null : "", refusal: null },
    finishReason: null
  })
  let calls = 0
  for (const piece of reply.pieces) {
    switch (piece._tag) {
      case "Text":
        for (const content of piece.pieces) out.push({ _tag: "Delta", delta: { content }, finishReason: null })
        break
      case "ToolCall": {
        const index = calls++
        out.push({
          _tag: "Delta",
          delta: {
            tool_calls: [{
              index,
              id: piece.id ?? `call_${n}x${index}fake${"0".repeat(12)}`,
              type: "function",
              function: { name: piece.name, arguments: "" }
            }]
          },
          finishReason: null
        })
        for (const args of piece.pieces) {
          out.push({
            _tag: "Delta",
            delta: { tool_calls: [{ index, function: { arguments: args } }] },
            finishReason: null
          })
        }
        break
      }
      case "Wait":
      case "Raw":
        out.push(piece)
        break
      case "StreamError":
      case "Hang":
      case "Drop":
        // Nothing follows these.
        out.push(piece)
        return out
    }
  }
  if (!reply.omitFinish) {
    out.push({ _tag: "Delta", delta: {}, finishReason: reply.finishReason ?? (calls > 0 ? "tool_calls" : "stop") })
  }
  out.push({ _tag: "Usage" })
  return out
}

/** The non-streamed answer's message. */
const wholeMessage = (reply: Extract<Reply, { _tag: "Answer" }>, n: number) => {
  const texts = reply.pieces.flatMap((piece) => piece._tag === "Text" ? [piece.pieces.join("")] : [])
  const calls = reply.pieces.flatMap((piece) => piece._tag === "ToolCall" ? [piece] : []).map((piece, index) => ({
    id: piece.id ?? `call_${n}x${index}fake${"0".repeat(12)}`,
    type: "function",
    function: { name: piece.name, arguments: piece.pieces.join("") }
  }))
  return {
    message: {
      role: "assistant",
      content: texts.length === 0 ? null : texts.join(""),
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
      refusal: null,
      annotations: []
    },
    finishReason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")
  }
}

const estimateTokens = (value: unknown) => Math.max(1, Math.ceil(JSON.stringify(value).length / 4))

const usage = (request: ChatRequest, completion: number) => {
  const prompt = estimateTokens(request.messages)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0
    }
  }
}

const defaultScript: Script = () => answer([text("Hello! How can I help you today?")])

/**
 * A fake listening on a free loopback port, closed (with every answer in flight) with the scope.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<ChatCompletionsFake, never, Scope.Scope> =>
  Effect.gen(function*() {
    const apiKey = options.apiKey === null ? undefined : options.apiKey ?? "sk-fake-chat-0123456789abcdef"
    const keyHeader = options.keyHeader ?? "authorization"
    const script = options.script ?? defaultScript
    const firstChunkMs = options.latency?.firstChunkMs ?? 0
    const betweenChunksMs = options.latency?.betweenChunksMs ?? 0
    const wire = options.wire ?? {}
    const eol = wire.lineEnding ?? "\n"
    const requests: Array<Mutable<Received>> = []
    // Answers run on the default services (a real clock), not the test's: they stand for a server.
    const answers = yield* FiberSet.make()

    const listeners = new Set<() => void>()
    const changed = () => {
      for (const listener of listeners) listener()
    }
    const waitFor = <A>(look: (requests: ReadonlyArray<Received>) => A | undefined): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        const check = () => {
          const found = look(requests)
          if (found === undefined) return
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
        listeners.add(check)
        check()
        return Effect.sync(() => void listeners.delete(check))
      })

    const sendJson = (res: ServerResponse, record: Mutable<Received>, status: number, json: unknown, headers = {}) => {
      res.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "x-request-id": `req_${requests.length}`,
        ...headers
      })
      res.end(JSON.stringify(json), () => {
        record.completed = true
        changed()
      })
      record.status = status
      changed()
    }
    const refuse = (
      res: ServerResponse,
      record: Mutable<Received>,
      refusal: Refusal,
      headers = {},
      body: unknown = { error: refusal.error }
    ) => {
      record.error = refusal.error
      sendJson(res, record, refusal.status, body, headers)
    }

    /** Writes `data`, in the configured pieces, each once the previous one was flushed. */
    let sizeAt = 0
    const write = (res: ServerResponse, data: string): Effect.Effect<void> => {
      const bytes = Buffer.from(data, "utf8")
      const sizes = wire.writeBytes
      const pieces: Array<Buffer> = []
      if (sizes === undefined || sizes.length === 0) {
        pieces.push(bytes)
      } else {
        for (let at = 0; at < bytes.length;) {
          const size = Math.max(1, sizes[sizeAt++ % sizes.length]!)
          pieces.push(bytes.subarray(at, at + size))
          at += size
        }
      }
      return Effect.forEach(pieces, (piece) =>
        Effect.callback<void>((resume) => {
          if (res.destroyed) return resume(Effect.void)
          res.write(piece, () => setImmediate(() => resume(Effect.void)))
        }), { discard: true })
    }

    const event = (res: ServerResponse, record: Mutable<Received>, json: unknown) => {
      const data = json === "[DONE]"
        ? "[DONE]"
        : wire.multiLineData === true
        ? JSON.stringify(json, null, 1)
        : JSON.stringify(json)
      const lines = data.split("\n").map((line) => `data: ${line}`).join(eol)
      const keepAlive = wire.keepAlive === true ? `: keep-alive${eol}${eol}` : ""
      return Effect.map(write(res, `${keepAlive}${lines}${eol}${eol}`), () => {
        record.events++
        changed()
      })
    }

    const stream = (
      res: ServerResponse,
      record: Mutable<Received>,
      request: ChatRequest,
      reply: Extract<Reply, { _tag: "Answer" }>,
      n: number
    ) =>
      Effect.gen(function*() {
        const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const includeUsage = isObject(request.body.stream_options) && request.body.stream_options.include_usage === true
        const envelope = (choices: unknown, extra: object = {}) => ({
          id: `chatcmpl-fake${n}`,
          object: "chat.completion.chunk",
          created,
          model: request.model,
          service_tier: "default",
          system_fingerprint: "fp_fake000001",
          choices,
          ...(includeUsage ? { usage: null } : {}),
          ...extra,
          obfuscation: "x".repeat(1 + (record.events % 7))
        })
        res.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "x-request-id": `req_${n}`,
          "openai-processing-ms": "42",
          "openai-version": "2020-10-01"
        })
        res.flushHeaders()
        record.status = 200
        changed()
        if (firstChunkMs > 0) yield* Effect.sleep(firstChunkMs)
        let deltas = 0
        for (const step of steps(reply, n)) {
          switch (step._tag) {
            case "Delta":
              if (deltas++ > 0 && betweenChunksMs > 0) yield* Effect.sleep(betweenChunksMs)
              yield* event(
                res,
                record,
                envelope([{ index: 0, delta: step.delta, logprobs: null, finish_reason: step.finishReason }])
              )
              break
            case "Usage":
              if (includeUsage) yield* event(res, record, envelope([], { usage: usage(request, deltas) }))
              break
            case "Wait":
              yield* step.until
              break
            case "Raw":
              yield* write(res, step.data)
              break
            case "StreamError":
              yield* event(res, record, { error: step.error })
              res.end(() => {
                record.completed = true
                changed()
              })
              return
            case "Hang":
              return yield* Effect.never
            case "Drop":
              res.destroy()
              return
          }
        }
        if (!reply.omitDone) yield* event(res, record, "[DONE]")
        res.end(() => {
          record.completed = true
          changed()
        })
      })

    const whole = (
      res: ServerResponse,
      record: Mutable<Received>,
      request: ChatRequest,
      reply: Extract<Reply, { _tag: "Answer" }>,
      n: number
    ) =>
      Effect.gen(function*() {
        const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (firstChunkMs > 0) yield* Effect.sleep(firstChunkMs)
        const { finishReason, message } = wholeMessage(reply, n)
        sendJson(res, record, 200, {
          id: `chatcmpl-fake${n}`,
          object: "chat.completion",
          created,
          model: request.model,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
          usage: usage(request, estimateTokens(message)),
          service_tier: "default",
          system_fingerprint: "fp_fake000001"
        })
      })

    const respond = (req: IncomingMessage, res: ServerResponse, text: string) => {
      const url = new URL(req.url ?? "/", "http://fake")
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // recorded as text
      }
      const record: Mutable<Received> = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        status: undefined,
        error: undefined,
        events: 0,
        completed: false,
        abandoned: false
      }
      requests.push(record)
      const n = requests.length
      res.on("close", () => {
        if (!record.completed && !res.writableFinished) record.abandoned = true
        changed()
      })
      changed()
      const refusal = unauthorized(apiKey, keyHeader, req.headers)
      if (refusal !== undefined) return refuse(res, record, refusal)
      if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
        return refuse(res, record, {
          status: 404,
          error: {
            message: `Invalid URL (${req.method ?? ""} ${url.pathname})`,
            type: "invalid_request_error",
            param: null,
            code: null
          }
        })
      }
      const checked = check(text, options.models)
      if ("refusal" in checked) return refuse(res, record, checked.refusal)
      const reply = script(checked.request, n)
      switch (reply._tag) {
        case "Error":
          return refuse(
            res,
            record,
            { status: reply.status, error: reply.error },
            reply.retryAfter === undefined
              ? {}
              : { "retry-after": String(reply.retryAfter), "x-ratelimit-reset-requests": `${reply.retryAfter}s` },
            reply.body
          )
        case "Hang":
          return
        case "Drop":
          return res.destroy()
        case "Answer": {
          const program = checked.request.stream && options.ignoresStream !== true
            ? stream(res, record, checked.request, reply, n)
            : whole(res, record, checked.request, reply, n)
          FiberSet.addUnsafe(answers, Effect.runFork(program))
        }
      }
    }

    const server = yield* Effect.acquireRelease(
      Effect.callback<Server>((resume) => {
        const server = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => respond(req, res, Buffer.concat(chunks).toString("utf8")))
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo

    return {
      url: `http://127.0.0.1:${port}/v1`,
      apiKey,
      requests,
      waitFor
    }
  })
