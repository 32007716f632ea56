/**
 * What the HTTP adapters (OpenAiChat, OpenAiTranscription, OpenAiSpeech) and Deepgram's
 * handshake share: which reason a refusal's status is, and how a transport failure is told in
 * a message (never the request or its headers, which carry the key).
 *
 * @since 0.1.0
 */
import type { HttpClientError } from "effect/http"

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
