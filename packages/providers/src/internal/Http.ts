/**
 * What the HTTP adapters (OpenAiChat, OpenAiProxy, OpenAiTranscription, OpenAiSpeech) and
 * Deepgram's handshake share: which reason a refusal's status is, how a transport failure is
 * told in a message (never the request or its headers, which carry the key), how a chat
 * server's key is sent, and how a message is kept free of it.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import type { HttpClientError } from "effect/http"
import { HttpClientRequest } from "effect/http"

/**
 * How an OpenAI-compatible chat server takes its key: a bearer token, or Azure's `api-key`.
 *
 * @category models
 */
export interface ChatServerKey {
  readonly apiKey?: Redacted.Redacted | undefined
  readonly apiKeyHeader?: "authorization" | "api-key" | undefined
}

/**
 * Adds the key to a request, in the header the server takes it in.
 *
 * @category combinators
 */
export const authorize = (config: ChatServerKey) => (request: HttpClientRequest.HttpClientRequest) =>
  config.apiKey === undefined
    ? request
    : config.apiKeyHeader === "api-key"
    ? HttpClientRequest.setHeader(request, "api-key", Redacted.value(config.apiKey))
    : HttpClientRequest.bearerToken(request, config.apiKey)

/**
 * `text` with every occurrence of the key masked (`***`), for an error message.
 *
 * @category combinators
 */
export const withoutKey = (key: Redacted.Redacted | undefined, text: string): string => {
  const value = key === undefined ? "" : Redacted.value(key)
  return value === "" ? text : text.replaceAll(value, "***")
}

/**
 * The reasons of core's `ChatError` and `SpeechError`.
 *
 * @category models
 */
export type Reason = "unauthorized" | "rejected" | "rate-limited" | "unavailable" | "timeout"

/**
 * The reason for an answer of `status`: 401 and 403 `unauthorized`; 429 `rate-limited`, except
 * OpenAI's `insufficient_quota` `code` (the account is out of credit, which waiting does not
 * cure): `rejected`; 408 `timeout`; 5xx `unavailable`; anything else `rejected`.
 *
 * @category errors
 */
export const reasonOfStatus = (status: number, code?: string | number): Reason =>
  status === 401 || status === 403
    ? "unauthorized"
    : status === 429
    ? code === "insufficient_quota" ? "rejected" : "rate-limited"
    : status === 408
    ? "timeout"
    : status >= 500
    ? "unavailable"
    : "rejected"

/** An error's message, with the system error code beneath it (`connect ECONNREFUSED … (ECONNREFUSED)`). */
const causeText = (cause: unknown): string | undefined => {
  if (!(cause instanceof Error)) return undefined
  const inner: unknown = cause.cause
  const code = typeof inner === "object" && inner !== null && "code" in inner
    ? String(inner.code)
    : "code" in cause
    ? String(cause.code)
    : undefined
  return code === undefined ? cause.message : `${cause.message} (${code})`
}

/**
 * A transport failure's kind, description and cause, joined by `: `.
 *
 * @category errors
 */
export const describeTransport = (error: HttpClientError.HttpClientError): string => {
  const { reason } = error
  return [reason._tag, reason.description, causeText(reason.cause)].filter((part) => part !== undefined && part !== "")
    .join(": ")
}
