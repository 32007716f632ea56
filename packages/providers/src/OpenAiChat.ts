/**
 * The `ChatModel` port over the OpenAI-compatible chat completions protocol, streamed: OpenAI,
 * Azure OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio. One `POST {baseUrl}/chat/completions`
 * per request, with `stream: true`, on the `HttpClient` in context; the answer is read as it
 * arrives (Server-Sent Events), never buffered whole.
 *
 * Request: `model`, `messages` (an assistant's tool calls as
 * `tool_calls: [{id, type: "function", function: {name, arguments}}]`, a tool's answer as
 * `{role: "tool", tool_call_id, content}`, an assistant message without tool calls and without
 * text as `content: ""`, which every server accepts), `tools` as
 * `[{type: "function", function: {name, description, parameters}}]` (left out when there are
 * none: OpenAI refuses an empty array), `temperature`, and the output limit. The limit goes out
 * as `max_tokens` by default: every compatible server reads it (Ollama and llama.cpp read only
 * that one; Azure's older API versions too), and so do OpenAI's chat models. OpenAI's reasoning
 * models (o-series, gpt-5) refuse it ("Use 'max_completion_tokens' instead"), so
 * `maxTokensField: "max_completion_tokens"` sends the newer name for them.
 *
 * Key: `Authorization: Bearer <key>` by default; none at all when `apiKey` is undefined (local
 * servers). Azure OpenAI is the same protocol with its key in an `api-key` header: set
 * `apiKeyHeader: "api-key"` and either its v1 base URL
 * (`https://<resource>.openai.azure.com/openai/v1`, `model` = the deployment name) or the
 * classic per-deployment one (`https://<resource>.openai.azure.com/openai/deployments/<deployment>`
 * with `urlParams: { "api-version": "2024-10-21" }`). `headers` adds anything else a gateway
 * wants (OpenAI-Organization, OpenRouter's HTTP-Referer); they are not secret.
 *
 * Answer: `data: {chunk}` events, then `data: [DONE]`. Parsed with Effect's WHATWG SSE parser
 * (lines split across TCP chunks, `\r\n` or `\r` line ends, `: keep-alive` comments, multi-line
 * `data:`), UTF-8 decoded across chunk boundaries. Only `choices[0]` is read. One answer may
 * hold text and tool calls both (the model says its line and records a field in one response;
 * OpenAI's models write the text first, then the calls, and finish with `tool_calls`): they go
 * out in the order they arrive. Each non-empty `delta.content` becomes a `Text` at once, so the
 * speech can start before the calls are written. `delta.tool_calls` fragments are gathered by
 * `index` (the first carries `id` and `function.name`, later ones append `function.arguments`);
 * a call goes out when its arguments are complete: when a fragment of another index arrives and
 * its arguments already parse as JSON (OpenAI streams calls one after the other; some servers
 * interleave them, and the JSON check keeps a call from leaving truncated), or at the end. A
 * fragment without `index` belongs to the call with its `id`, else to the last call. A call
 * without an `id` gets `call_<n>_<index>`; empty arguments become `{}`. `finish_reason` sends
 * the remaining calls, in index order, then `Finished` with the server's reason; `[DONE]`
 * without one finishes with `tool_calls` or `stop`. After that the body is drained (so the
 * connection can be reused) and anything in it ignored. `delta.refusal` and reasoning text are
 * not spoken, so not emitted.
 *
 * Failures, all `ChatError`:
 *
 * - `unauthorized`: HTTP 401, 403.
 * - `rejected` (not retryable): HTTP 400, 404, 422 and any other 4xx, or a 3xx (with its
 *   `Location`), with the server's `error.message` (and `code`); a 2xx that is a whole JSON
 *   completion instead of a stream (the server ignored `stream: true`); a URL that cannot be
 *   built.
 * - `rate-limited`: HTTP 429, with `retry-after` in the message when the server sent one;
 *   except OpenAI's `insufficient_quota` (the account is out of credit, which waiting does not
 *   cure): `rejected`.
 * - `unavailable`: HTTP 5xx; no connection; the connection dropped, or the body ended, before
 *   `finish_reason` or `[DONE]`; an error event in the stream (`data: {"error": {...}}`, or an
 *   `event: error`; classified by its `type`/`code` like a status when it says more); a chunk
 *   that is not the documented JSON (a broken proxy, most often).
 * - `timeout`: HTTP 408; no answer (status line and headers) within `timeoutMs`, or no bytes
 *   for `timeoutMs` while the body streams (a `: keep-alive` comment counts as bytes). 30 s by
 *   default: Ollama loads a model on its first request. The idle clock runs only while the
 *   consumer pulls, so a slow consumer is not taken for a silent server.
 *
 * The key never reaches a message: messages are built from the status, the server's own error
 * text and the transport failure's kind, and the key's text is cut out of all of them (OpenAI
 * echoes a masked key in its 401 text; a proxy might echo it whole). The `HttpClientError`,
 * which carries the request and its headers, never leaves this module.
 *
 * @since 0.1.0
 */
import type { ChatDelta, ChatMessage, ChatRequest, ToolCall } from "@voice-agent/core/ports/ChatModel"
import { ChatError, ChatModel } from "@voice-agent/core/ports/ChatModel"
import type { Redacted } from "effect"
import { Duration, Effect, Layer, Option, Result, Schema, Stream } from "effect"
import * as Sse from "effect/encoding/Sse"
import type { HttpClientResponse } from "effect/http"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Http from "./internal/Http.ts"

/**
 * @category models
 */
export interface Config {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string
  /** Undefined for local servers that take none. */
  readonly apiKey: Redacted.Redacted | undefined
  readonly model: string
  /** Time to the answer's headers, and the longest silence while the body streams. Default 30 s. */
  readonly timeoutMs?: number | undefined
  /** Where the key goes: `Authorization: Bearer` (default), or Azure OpenAI's `api-key` header. */
  readonly apiKeyHeader?: "authorization" | "api-key" | undefined
  /** Extra headers on every request (not secret: they are not redacted). */
  readonly headers?: { readonly [name: string]: string } | undefined
  /** Query parameters on every request (Azure's classic `api-version`). */
  readonly urlParams?: { readonly [name: string]: string } | undefined
  /** The output limit's name; default `max_tokens` (see the module header). */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined
}

const defaultTimeoutMs = 30_000

// --- wire shapes ---------------------------------------------------------------------------

const NullableString = Schema.optionalKey(Schema.NullOr(Schema.String))

const ToolCallFragment = Schema.Struct({
  index: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  id: NullableString,
  function: Schema.optionalKey(Schema.NullOr(Schema.Struct({ name: NullableString, arguments: NullableString })))
})
type ToolCallFragment = typeof ToolCallFragment.Type

/** A stream chunk, as far as it is read; other fields (usage, logprobs, …) are ignored. */
const Chunk = Schema.Struct({
  choices: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.Struct({
    index: Schema.optionalKey(Schema.NullOr(Schema.Number)),
    delta: Schema.optionalKey(Schema.NullOr(Schema.Struct({
      content: NullableString,
      tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCallFragment)))
    }))),
    finish_reason: NullableString
  })))),
  error: Schema.optionalKey(Schema.Unknown)
})
const decodeChunk = Schema.decodeUnknownResult(Schema.fromJsonString(Chunk))

/**
 * An error body: OpenAI's `{error: {message, type, code}}`, an older vLLM's `{message, type,
 * code}` at the top, `{error: "text"}`, or FastAPI's `{detail: "text"}`.
 */
const ErrorFields = Schema.Struct({
  message: NullableString,
  type: NullableString,
  code: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Number])))
})
const ErrorBody = Schema.Struct({
  ...ErrorFields.fields,
  error: Schema.optionalKey(Schema.Union([Schema.String, ErrorFields])),
  detail: Schema.optionalKey(Schema.Unknown)
})
const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)
const decodeErrorJson = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorBody))

interface ServerError {
  readonly message: string | undefined
  readonly type: string | undefined
  readonly code: string | number | undefined
}

const serverError = (body: typeof ErrorBody.Type): ServerError => {
  const inner = typeof body.error === "object" ? body.error : undefined
  const message = inner?.message ?? (typeof body.error === "string" ? body.error : undefined) ?? body.message ??
    (typeof body.detail === "string" ? body.detail : undefined)
  return {
    message: message ?? undefined,
    type: inner?.type ?? body.type ?? undefined,
    code: inner?.code ?? body.code ?? undefined
  }
}

/** The request body for `request`. */
const requestBody = (config: Config, request: ChatRequest) => ({
  model: config.model,
  messages: request.messages.map(wireMessage),
  stream: true,
  ...(request.tools === undefined || request.tools.length === 0 ? {} : {
    tools: request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters }
    }))
  }),
  ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  ...(request.maxTokens === undefined ? {} : { [config.maxTokensField ?? "max_tokens"]: request.maxTokens })
})

const wireMessage = (message: ChatMessage) => {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content }
    case "assistant": {
      const calls = message.toolCalls ?? []
      if (calls.length === 0) return { role: "assistant", content: message.content ?? "" }
      return {
        role: "assistant",
        content: message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments }
        }))
      }
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
  }
}

// --- failures ------------------------------------------------------------------------------

type Reason = ChatError["reason"]

/** What an error event in the stream means, from what it says about itself. */
const reasonOfServerError = (error: ServerError): Reason => {
  const said = `${error.type ?? ""} ${error.code ?? ""}`
  if (typeof error.code === "number" && error.code >= 400 && error.code <= 599) return Http.reasonOfStatus(error.code)
  if (said.includes("insufficient_quota")) return "rejected"
  if (said.includes("rate_limit")) return "rate-limited"
  if (said.includes("invalid_request_error")) return "rejected"
  if (said.includes("authentication") || said.includes("invalid_api_key")) return "unauthorized"
  return "unavailable"
}

const describeServerError = (error: ServerError): string => {
  const code = error.code ?? error.type
  const text = error.message?.trim().replace(/\s+/g, " ").slice(0, 400)
  return [code === undefined ? undefined : `(${code})`, text].filter((part) => part !== undefined && part !== "")
    .join(" ")
}

// --- the stream decoder --------------------------------------------------------------------

interface Fed {
  readonly deltas: ReadonlyArray<ChatDelta>
  readonly failure: ChatError | undefined
}

interface PendingCall {
  readonly index: number
  id: string | undefined
  name: string | undefined
  arguments: string
}

const isJson = (text: string): boolean => {
  if (text.trim() === "") return true
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * Turns the body's text, piece by piece, into deltas. `fail` builds the error (it knows the
 * server's name and hides the key); `callPrefix` names calls that came without an id.
 */
const makeDecoder = (fail: (reason: Reason, message: string) => ChatError, callPrefix: string) => {
  let finished = false
  let failure: ChatError | undefined
  let out: Array<ChatDelta> = []
  const pending = new Map<number, PendingCall>()
  const sent = new Set<number>()
  let lastIndex = -1

  const send = (call: PendingCall) => {
    pending.delete(call.index)
    sent.add(call.index)
    if (call.name === undefined || call.name === "") {
      failure ??= fail("unavailable", `streamed a tool call (index ${call.index}) without a function name`)
      return
    }
    const toolCall: ToolCall = {
      id: call.id ?? `${callPrefix}_${call.index}`,
      name: call.name,
      arguments: call.arguments.trim() === "" ? "{}" : call.arguments
    }
    out.push({ _tag: "ToolCall", call: toolCall })
  }
  const sendAll = (only: (call: PendingCall) => boolean) => {
    const ready = [...pending.values()].filter(only).sort((a, b) => a.index - b.index)
    for (const call of ready) send(call)
  }

  const finish = (reason: string) => {
    sendAll(() => true)
    if (failure === undefined) out.push({ _tag: "Finished", reason })
    finished = true
  }

  const indexOf = (fragment: ToolCallFragment): number => {
    if (typeof fragment.index === "number") return fragment.index
    if (typeof fragment.id === "string" && fragment.id !== "") {
      for (const call of pending.values()) if (call.id === fragment.id) return call.index
      return lastIndex + 1
    }
    return Math.max(lastIndex, 0)
  }

  const gather = (fragment: ToolCallFragment) => {
    const index = indexOf(fragment)
    const name = fragment.function?.name ?? undefined
    const args = fragment.function?.arguments ?? ""
    let call = pending.get(index)
    if (call === undefined) {
      if (sent.has(index)) {
        if (args.trim() !== "" || (name !== undefined && name !== "")) {
          failure ??= fail("unavailable", `streamed more of tool call ${index} after it was complete`)
        }
        return
      }
      // Another call starts: the ones whose arguments are complete JSON are done.
      sendAll((other) => isJson(other.arguments))
      call = { index, id: undefined, name: undefined, arguments: "" }
      pending.set(index, call)
    }
    lastIndex = Math.max(lastIndex, index)
    if (call.id === undefined && typeof fragment.id === "string" && fragment.id !== "") call.id = fragment.id
    if ((call.name === undefined || call.name === "") && name !== undefined) call.name = name
    call.arguments += args
  }

  const onData = (event: string, data: string) => {
    if (data.trim() === "[DONE]") {
      if (!finished) finish(sent.size + pending.size > 0 ? "tool_calls" : "stop")
      return
    }
    if (finished) return
    const decoded = decodeChunk(data)
    if (Result.isFailure(decoded)) {
      failure = fail("unavailable", `streamed a chunk that is not the documented JSON: ${data.slice(0, 120)}`)
      return
    }
    const chunk = decoded.success
    if (event === "error" || (chunk.error !== undefined && chunk.error !== null)) {
      const error = Option.match(decodeErrorBody(chunk), {
        onNone: () => ({ message: undefined, type: undefined, code: undefined }),
        onSome: serverError
      })
      failure = fail(reasonOfServerError(error), `sent an error mid-answer ${describeServerError(error)}`.trim())
      return
    }
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0)
    if (choice === undefined) return
    const content = choice.delta?.content
    if (typeof content === "string" && content !== "") out.push({ _tag: "Text", text: content })
    for (const fragment of choice.delta?.tool_calls ?? []) gather(fragment)
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") finish(choice.finish_reason)
  }

  const parser = Sse.makeParser((event) => {
    if (event._tag === "Event" && failure === undefined) onData(event.event, event.data)
  })

  const take = (): Fed => {
    const deltas = out
    out = []
    return { deltas, failure }
  }

  return {
    /** Whether the answer is complete (finished, or failed): what follows may be ignored. */
    complete: (): boolean => finished || failure !== undefined,
    feed: (text: string): Fed => {
      if (failure !== undefined) return take()
      const error = parser.feed(text)
      if (error !== undefined) failure ??= fail("unavailable", `streamed an oversized event: ${error.message}`)
      return take()
    },
    end: (): Fed => {
      if (!finished && failure === undefined) {
        failure = fail("unavailable", "ended the answer before its finish_reason and [DONE]")
      }
      return take()
    }
  }
}

const emit = (fed: Fed): Stream.Stream<ChatDelta, ChatError> => {
  const deltas = Stream.fromIterable(fed.deltas)
  return fed.failure === undefined ? deltas : Stream.concat(deltas, Stream.fail(fed.failure))
}

// --- the adapter ---------------------------------------------------------------------------

/**
 * The chat model for `config`, on the `HttpClient` in context.
 *
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<ChatModel["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const baseUrl = config.baseUrl.replace(/\/+$/, "")
    const url = `${baseUrl}/chat/completions`
    const server = `Chat server ${baseUrl.replace(/\/\/[^/@]*@/, "//")}`
    const timeout = Duration.millis(config.timeoutMs ?? defaultTimeoutMs)
    let requests = 0

    /** A ChatError whose message names the server and never holds the key. */
    const fail = (reason: Reason, message: string): ChatError =>
      new ChatError({ reason, message: Http.withoutKey(config.apiKey, `${server} ${message}`) })

    const authorize = Http.authorize(config)

    /** The failure for a non-streaming answer, from its status, headers and body. */
    const refused = (response: HttpClientResponse.HttpClientResponse, text: string): ChatError => {
      const error = Option.match(decodeErrorJson(text), {
        onNone: () => ({ message: text.split("\n")[0], type: undefined, code: undefined }),
        onSome: serverError
      })
      const status = response.status
      const detail = describeServerError(error)
      const retryAfter = response.headers["retry-after"]
      const location = response.headers.location
      const hint = status === 429 && retryAfter !== undefined
        ? ` (retry after ${/^\d+$/.test(retryAfter) ? `${retryAfter} s` : retryAfter})`
        : status >= 300 && status < 400 && location !== undefined
        ? ` (redirected to ${location})`
        : ""
      const what = status === 401 || status === 403
        ? "refused the API key"
        : status === 429
        ? "is rate-limiting"
        : status >= 500
        ? "failed"
        : "refused the request"
      return fail(
        Http.reasonOfStatus(status, error.code),
        `${what} (HTTP ${status})${hint}${detail === "" ? "" : `: ${detail}`}`
      )
    }

    /** Sends the request; succeeds with a response whose body is the event stream. */
    const open = Effect.fn("OpenAiChat.open")(function*(request: ChatRequest) {
      const response = yield* HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(config.headers ?? {}),
        HttpClientRequest.setUrlParams(config.urlParams ?? {}),
        HttpClientRequest.setHeader("accept", "text/event-stream"),
        HttpClientRequest.bodyJsonUnsafe(requestBody(config, request)),
        authorize,
        client.execute,
        Effect.mapError((error) =>
          fail(
            error.reason._tag === "InvalidUrlError" || error.reason._tag === "EncodeError" ? "rejected" : "unavailable",
            `unreachable: ${Http.describeTransport(error)}`
          )
        )
      )
      const contentType = response.headers["content-type"] ?? ""
      if (response.status >= 200 && response.status < 300 && !contentType.includes("application/json")) {
        return response
      }
      const text = yield* Effect.mapError(
        response.text,
        (error) => fail("unavailable", `dropped the connection in its answer: ${Http.describeTransport(error)}`)
      )
      if (response.status < 200 || response.status >= 300) return yield* Effect.fail(refused(response, text))
      const error = Option.getOrUndefined(Option.map(decodeErrorJson(text), serverError))
      if (error?.message !== undefined) {
        return yield* Effect.fail(fail(reasonOfServerError(error), `answered an error: ${describeServerError(error)}`))
      }
      return yield* Effect.fail(
        fail("rejected", "answered a whole JSON completion, not an event stream: does it support stream: true?")
      )
    }, (effect) =>
      Effect.timeoutOrElse(effect, {
        duration: timeout,
        orElse: () => Effect.fail(fail("timeout", `did not answer within ${Duration.format(timeout)}`))
      }))

    /** The deltas of one answer's event stream. */
    const deltas = (response: HttpClientResponse.HttpClientResponse, callPrefix: string) =>
      Stream.suspend(() => {
        const decoder = makeDecoder(fail, callPrefix)
        return response.stream.pipe(
          Stream.mapError((error) =>
            fail("unavailable", `dropped the connection mid-answer: ${Http.describeTransport(error)}`)
          ),
          Stream.timeoutOrElse({
            duration: timeout,
            orElse: () => Stream.fail(fail("timeout", `went silent for ${Duration.format(timeout)} mid-answer`))
          }),
          // Once the answer is complete, a drop or a silence before the body's end is no failure.
          Stream.catch((error) => decoder.complete() ? Stream.empty : Stream.fail(error)),
          Stream.decodeText(),
          Stream.flatMap((text) => emit(decoder.feed(text))),
          Stream.concat(Stream.suspend(() => emit(decoder.end())))
        )
      })

    const stream = (request: ChatRequest): Stream.Stream<ChatDelta, ChatError> =>
      Stream.unwrap(Effect.suspend(() => {
        const callPrefix = `call_${++requests}`
        return Effect.map(open(request), (response) => deltas(response, callPrefix))
      }))

    return ChatModel.of({ stream })
  })

/**
 * `ChatModel` for `config`; needs an `HttpClient` (the daemon provides one for all providers).
 *
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<ChatModel, never, HttpClient.HttpClient> =>
  Layer.effect(ChatModel, make(config))
