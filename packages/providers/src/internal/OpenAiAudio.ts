/**
 * What OpenAiTranscription and OpenAiSpeech share: the base URL, the bearer key, and how an
 * answer or a failure of OpenAI's audio endpoints becomes core's `SpeechError`.
 *
 * Reasons, by what the caller should do (SpeechError's `isRetryable`):
 *
 * - `unauthorized`: 401 and 403 (no key, a wrong key, a key without access to the model).
 * - `rate-limited`: 429, except OpenAI's `insufficient_quota` (the account is out of credit),
 *   which waiting does not cure: `rejected`.
 * - `timeout`: 408, or no answer within the adapter's `timeoutMs`.
 * - `unavailable`: 5xx, a transport failure (refused, reset, closed mid-answer), or a 2xx that
 *   is not the documented answer.
 * - `rejected`: any other 4xx (400, 404 for an unknown model, 413, 415, 422), with the server's
 *   own message.
 *
 * The server's message is read from OpenAI's `{"error": {"message", "type", "param", "code"}}`
 * and from the FastAPI shapes self-hosted servers answer with (`{"detail": "…"}`,
 * `{"detail": {"message": "…"}}`, `{"detail": [{"msg": "…"}]}`). No secret reaches a message:
 * they are built from the operation, the base URL without any credentials in it, the status,
 * the server's message and the transport failure's kind, never from the request or its
 * headers; and the key itself is cut out of whatever the server said, should it echo it.
 *
 * @since 0.1.0
 */
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import { Duration, Option, Redacted, Schema } from "effect"
import type { HttpClientError } from "effect/http"
import { HttpClientRequest } from "effect/http"
import * as Http from "./Http.ts"

/**
 * OpenAI's API.
 *
 * @category constructors
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

/**
 * Where requests go and how they authenticate, resolved once.
 *
 * @category models
 */
export interface Endpoint {
  /** Without a trailing slash. */
  readonly baseUrl: string
  /** The base URL without credentials or query, for messages. */
  readonly where: string
  readonly apiKey: Redacted.Redacted | undefined
}

/**
 * @category constructors
 */
export const endpoint = (baseUrl: string | undefined, apiKey: Redacted.Redacted | undefined): Endpoint => {
  const base = (baseUrl ?? defaultBaseUrl).replace(/\/+$/, "")
  const url = URL.parse(base)
  const where = url === null ? "the configured base URL" : `${url.protocol}//${url.host}${url.pathname}`
  return { baseUrl: base, where, apiKey }
}

/**
 * The request with its bearer key, when there is one (self-hosted servers often take none).
 *
 * @category constructors
 */
export const authorize = (request: HttpClientRequest.HttpClientRequest, target: Endpoint) =>
  target.apiKey === undefined ? request : HttpClientRequest.bearerToken(request, target.apiKey)

const Message = Schema.Struct({ message: Schema.optionalKey(Schema.String) })
const ErrorBody = Schema.Struct({
  error: Schema.optionalKey(Schema.Struct({
    message: Schema.optionalKey(Schema.String),
    code: Schema.optionalKey(Schema.NullOr(Schema.String))
  })),
  detail: Schema.optionalKey(Schema.Union([
    Schema.String,
    Schema.Array(Schema.Struct({ msg: Schema.optionalKey(Schema.String) })),
    Message,
    Schema.Unknown
  ]))
})
const decodeErrorBody = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorBody))

/** The server's message and code from an error answer, when it has them. */
const serverSays = (text: string): { readonly message: string | undefined; readonly code: string | undefined } => {
  const body = Option.getOrUndefined(decodeErrorBody(text))
  if (body === undefined) return { message: undefined, code: undefined }
  const detail = body.detail
  const fromDetail = typeof detail === "string"
    ? detail
    : Array.isArray(detail)
    ? detail.map((item: { readonly msg?: string }) => item.msg).filter((msg) => msg !== undefined).join("; ")
    : Schema.is(Message)(detail)
    ? detail.message
    : undefined
  return {
    message: body.error?.message ?? (fromDetail === "" ? undefined : fromDetail),
    code: body.error?.code ?? undefined
  }
}

/**
 * `text` with every occurrence of the key replaced.
 *
 * @category constructors
 */
export const scrub = (text: string, target: Endpoint): string => {
  if (target.apiKey === undefined) return text
  const key = Redacted.value(target.apiKey)
  return key === "" ? text : text.split(key).join("[redacted]")
}

/** What the audio API did, by the reason of its refusal. */
const refusal: Record<Http.Reason, string> = {
  unauthorized: "refused the credentials for",
  "rate-limited": "is rate-limiting",
  timeout: "timed out",
  unavailable: "failed",
  rejected: "refused"
}

/**
 * The SpeechError for a non-2xx answer to `operation`.
 *
 * @category errors
 */
export const refused = (target: Endpoint, operation: string, status: number, text: string): SpeechError => {
  const { code, message } = serverSays(text)
  const detail = scrub(
    `(HTTP ${status}${code === undefined ? "" : `, ${code}`})${message === undefined ? "" : `: ${message}`}`,
    target
  )
  const reason = Http.reasonOfStatus(status, code)
  return new SpeechError({
    reason,
    message: `the audio API at ${target.where} ${refusal[reason]} ${operation} ${detail}`
  })
}

/**
 * The SpeechError for a request that got no (whole) answer: `unavailable`.
 *
 * @category errors
 */
export const unreachable = (
  target: Endpoint,
  operation: string,
  error: HttpClientError.HttpClientError
): SpeechError =>
  new SpeechError({
    reason: "unavailable",
    message: scrub(
      `the audio API at ${target.where} could not be reached for ${operation}: ${Http.describeTransport(error)}`,
      target
    )
  })

/**
 * The SpeechError for a request that got no answer in time: `timeout`.
 *
 * @category errors
 */
export const timedOut = (target: Endpoint, operation: string, timeout: Duration.Duration, what: string) =>
  new SpeechError({
    reason: "timeout",
    message: `the audio API at ${target.where} did not ${what} ${operation} within ${Duration.format(timeout)}`
  })
