/**
 * Why a webhook attempt's request failed, as an operator reads it in the delivery list
 * (docs/WEBHOOKS.md): an {@link AttemptErrorType} and a short message, taken from the error
 * codes Node and undici put on the innermost cause (`ECONNREFUSED`, `ENOTFOUND`,
 * `UND_ERR_SOCKET`, `ERR_SSL_…`, …). The message never carries the request's URL (which may
 * hold a token): only the cause's own text, as `connect ECONNREFUSED 127.0.0.1:9` or
 * `getaddrinfo ENOTFOUND hooks.example.com`.
 *
 * @since 0.1.0
 */
import type { AttemptErrorType } from "@voice-agent/core/Webhook"
import type { HttpClientError } from "effect/http"

/**
 * @category models
 */
export interface Failure {
  readonly type: AttemptErrorType
  readonly message: string
}

const byCode: Readonly<Record<string, AttemptErrorType>> = {
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_NONAME: "dns",
  EAI_FAIL: "dns",
  EAI_NODATA: "dns",
  ECONNREFUSED: "connection_refused",
  ECONNRESET: "connection_closed",
  EPIPE: "connection_closed",
  UND_ERR_SOCKET: "connection_closed",
  UND_ERR_CLOSED: "connection_closed",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  EHOSTUNREACH: "network",
  ENETUNREACH: "network",
  ENETDOWN: "network",
  EHOSTDOWN: "network"
}

/** Certificate and handshake failures: `ERR_SSL_…`, `ERR_TLS_…`, `CERT_HAS_EXPIRED`, `…_CERT…`. */
const isTlsCode = (code: string): boolean => /^ERR_(SSL|TLS)_/.test(code) || code.includes("CERT")

/** The causes of an error, outermost first. */
const causes = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  let current = error
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current)
    current = current instanceof Error ? current.cause : undefined
  }
  return chain
}

const codeOf = (error: unknown): string | undefined => {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/** OpenSSL's messages name the source file; its reason alone is the readable part. */
const shorten = (message: string): string => {
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(message)
  const text = openssl === null ? message : `SSL: ${openssl[1]}`
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

/**
 * The type and message of a request's transport failure (`cause`: the error the HTTP client
 * gave), from the innermost cause that carries a code.
 *
 * @category constructors
 */
export const fromTransport = (cause: unknown, description?: string): Failure => {
  const chain = causes(cause)
  const coded = chain.findLast((error) => codeOf(error) !== undefined)
  const innermost = coded ?? chain.at(-1)
  const message = innermost instanceof Error
    ? innermost.message
    : typeof innermost === "string"
    ? innermost
    : description ?? "transport error"
  const code = codeOf(coded)
  const type = code === undefined ? "network" : byCode[code] ?? (isTlsCode(code) ? "tls" : "network")
  return { type, message: shorten(message) }
}

/**
 * The type and message of a failed request.
 *
 * @category constructors
 */
export const fromHttpClientError = (error: HttpClientError.HttpClientError): Failure => {
  const reason = error.reason
  if (reason._tag === "TransportError") return fromTransport(reason.cause, reason.description)
  return { type: "other", message: reason._tag === "InvalidUrlError" ? "invalid URL" : reason._tag }
}

/**
 * No complete answer within the timeout.
 *
 * @category constructors
 */
export const timedOut = (timeoutMs: number): Failure => ({
  type: "timeout",
  message: `no answer within ${timeoutMs / 1000} s`
})

/**
 * An answer other than 2xx.
 *
 * @category constructors
 */
export const httpStatus = (status: number): Failure => ({ type: "http_status", message: `HTTP ${status}` })
