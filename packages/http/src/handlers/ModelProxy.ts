/**
 * The reference SDK's OpenAI-compatible proxy (`<base>/openai/v1/*`, what its deprecated
 * `create_openai_client()` points an OpenAI client at, with the engine's API key): a plain route,
 * any method, outside the HttpApi description (it passes OpenAI's whole API through). The
 * request, authenticated with the engine's key (401 otherwise), goes to the `ModelProxy`
 * service (the configured chat provider, with its own key) and its answer streams back as the
 * provider sends it, any status. A server without a provider answers 501; a provider that
 * cannot be reached 502, or 504 when it does not answer in time. See docs/SDK_HTTP.md.
 *
 * @since 0.1.0
 */
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { ModelProxy } from "@voice-agent/core/ports/ModelProxy"
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { noLanguageModel } from "./Sdk.ts"

/**
 * The root of the proxy's paths.
 *
 * @category constructors
 */
export const root = "/openai/v1"

/** Request headers passed on (lower-case); everything else stays here, credentials first. */
const passedOn = new Set(["content-type", "accept", "openai-beta", "idempotency-key"])

/**
 * The request headers worth passing to the provider: content type, accept, `openai-beta`,
 * `idempotency-key`, and the OpenAI client's `x-stainless-*` descriptions; never a key.
 *
 * @category encoding
 */
export const requestHeaders = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) => {
      const lower = name.toLowerCase()
      return value !== undefined && (passedOn.has(lower) || lower.startsWith("x-stainless-")) ? [[lower, value]] : []
    })
  )

const failure = (status: number, detail: string) => HttpServerResponse.jsonUnsafe({ detail }, { status })

const bodiless = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * The route.
 *
 * @category layers
 */
export const route = HttpRouter.add(
  "*",
  `${root}/*`,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
    const organization = match === null ? Option.none() : yield* (yield* ApiKeyRepository).authenticate(match[1]!)
    if (Option.isNone(organization)) return failure(401, "Invalid or missing API key")
    const proxy = yield* Effect.serviceOption(ModelProxy)
    if (Option.isNone(proxy)) return failure(501, noLanguageModel)
    // Dot segments (plain or percent-encoded) are resolved here, so nothing leaves the root.
    const url = new URL(request.url, "http://proxy.invalid")
    if (!url.pathname.startsWith(`${root}/`)) return failure(404, "Not Found")
    const body = bodiless.has(request.method) ? undefined : new Uint8Array(yield* request.arrayBuffer)
    const answered = yield* proxy.value.forward({
      method: request.method,
      path: url.pathname.slice(root.length),
      search: url.search.replace(/^\?/, ""),
      headers: requestHeaders(request.headers),
      body
    }).pipe(Effect.result)
    if (answered._tag === "Failure") {
      const error = answered.failure
      if (error._tag === "LanguageModelNotConfigured") return failure(501, noLanguageModel)
      yield* Effect.logWarning(`OpenAI-compatible proxy: ${error.message}`)
      return failure(error.reason === "timeout" ? 504 : 502, `The language model provider failed: ${error.message}`)
    }
    const { body: stream, headers, status } = answered.success
    const { "content-type": contentType, ...rest } = headers
    yield* Effect.logDebug(`OpenAI-compatible proxy: ${request.method} ${url.pathname} answered ${status}`)
    return HttpServerResponse.stream(stream, { status, headers: rest, contentType })
  })
)
