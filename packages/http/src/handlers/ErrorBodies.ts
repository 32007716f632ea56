/**
 * Gives every error answer the API's `{"detail": "<sentence>"}` body (docs/DECISIONS.md, "Requests
 * and errors"), also those that Effect's router and HttpApi produce without one: unknown routes
 * (404), methods (405), unsupported content types (415), bodies over the size limit (413) and
 * internal errors (500). Answers that already carry JSON are left alone.
 *
 * Also sets the request body limit: 10,000 contacts with typical `data` are a few MB; 64 MB
 * leaves room for large `data` while bounding what one request can make the server read. A
 * request that declares a longer body (`Content-Length`) is answered 413 before any of it is
 * read, and the connection is closed (the server does not wait for, or drain, the rest); a
 * body without a length (chunked) is cut off with 413 as soon as it passes the limit. The
 * operations that take no key (`SdkApi.keylessPaths`: the reference SDK's telemetry and version
 * check) read at most 1 MB: anyone who reaches the server may send them, and what they carry
 * (a batch of telemetry events, discarded) is a few kilobytes.
 *
 * @since 0.1.0
 */
import { StorageOutage } from "@voice-agent/core/ports/StorageOutage"
import { ByteSize, Effect, Layer } from "effect"
import type { Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { keylessPaths } from "../api/SdkApi.ts"

/**
 * @category constructors
 */
export const maxBodySize = ByteSize.megabytes(64)

/**
 * @category constructors
 */
export const maxKeylessBodySize = ByteSize.megabytes(1)

/**
 * The body limit of a request to `url` (a path, with or without its query).
 *
 * @category constructors
 */
export const bodyLimitFor = (url: string): ByteSize.ByteSize => {
  const query = url.indexOf("?")
  return keylessPaths.has(query < 0 ? url : url.slice(0, query)) ? maxKeylessBodySize : maxBodySize
}

const reasons: Record<number, string> = {
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Request body too large",
  415: "Unsupported content type",
  500: "Internal Server Error",
  503: "Service Unavailable"
}

const textOf = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  if (body._tag !== "Uint8Array") return undefined
  if (body.contentType.includes("json")) return undefined
  return body.text ?? new TextDecoder().decode(body.body)
}

/**
 * The response with a `{detail}` JSON body when it is an error without JSON.
 *
 * @category encoding
 */
export const withDetailBody = (
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400) return response
  const body = response.body
  const isJson = body._tag === "Uint8Array" && body.contentType.includes("json")
  if (isJson || body._tag === "Stream") return response
  const detail = (textOf(response)?.trim() || undefined) ?? reasons[response.status] ?? "Error"
  // Keep the answer's other headers (Deprecation, Allow, …), not its old body's type and length.
  const { "content-length": _length, "content-type": _type, ...headers } = response.headers
  return HttpServerResponse.jsonUnsafe({ detail }, { status: response.status, headers })
}

/**
 * Whether a request's `Content-Length` declares a body over `limit` (an unreadable length is
 * left to the HTTP parser, which refuses it).
 *
 * @category guards
 */
export const declaresTooLarge = (
  headers: Readonly<Record<string, string | undefined>>,
  limit: ByteSize.ByteSize = maxBodySize
): boolean => {
  const length = headers["content-length"]
  return length !== undefined && /^\d+$/.test(length) && BigInt(length) > limit
}

const databaseUnavailable = HttpServerResponse.jsonUnsafe(
  { detail: "The database is unavailable; try again shortly" },
  { status: 503, headers: { "retry-after": "1" } }
)

const tooLarge = HttpServerResponse.jsonUnsafe({ detail: reasons[413] }, {
  status: 413,
  // The rest of the body is never read: the connection cannot carry another request.
  headers: { connection: "close" }
})

/**
 * Needs `StorageOutage` (the storage layer provides it) to tell a database out of reach (503)
 * from a failure (500).
 *
 * @category layers
 */
export const ErrorBodiesLive = HttpRouter.middleware(
  Effect.map(
    StorageOutage,
    (storage) => (httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const limit = bodyLimitFor(request.url)
        return declaresTooLarge(request.headers, limit)
          ? Effect.succeed(tooLarge)
          : Effect.provideService(httpEffect, HttpIncomingMessage.MaxBodySize, limit)
      }).pipe(
        // Failures that HttpApi leaves unanswered (a body over the limit, a defect) become
        // their response here, so they get a body; a 5xx keeps its cause in the log.
        Effect.catchCause((cause) =>
          // The database is down or restarting: the client may try again shortly (one warning
          // line, not a stack per request).
          storage.isUnavailableCause(cause)
            ? Effect.as(Effect.logWarning("request refused: the database is unavailable"), databaseUnavailable)
            : Effect.flatMap(HttpServerError.causeResponse(cause), ([response, rest]) =>
              response.status >= 500
                ? Effect.as(Effect.logError("request failed", rest), response)
                : Effect.succeed(response))
        ),
        Effect.map(withDetailBody)
      ) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
  ),
  { global: true }
)

/**
 * A lowest-priority route for paths no endpoint matches: FastAPI's `{"detail": "Not Found"}`.
 *
 * @category layers
 */
export const NotFoundLive = HttpRouter.add(
  "*",
  "/*",
  HttpServerResponse.jsonUnsafe({ detail: "Not Found" }, { status: 404 })
)

/**
 * @category layers
 */
export const layer = Layer.mergeAll(ErrorBodiesLive, NotFoundLive)
