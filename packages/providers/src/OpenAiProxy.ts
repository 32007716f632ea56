/**
 * The `ModelProxy` port over an OpenAI-compatible server: a request below the proxy's
 * `openai/v1` root goes to the same path below the server's API root (`{baseUrl}{path}`, e.g.
 * `https://api.openai.com/v1/chat/completions`), with the method, query, body and the headers
 * the caller chose as they came, plus the server's key (`Authorization: Bearer`, or Azure's
 * `api-key`), the configured query parameters (Azure's `api-version`) and
 * `accept-encoding: identity` (so the body passes through as it is sent, never decoded and
 * re-encoded). The answer comes back as the server gives it, any status: its body streams
 * (Server-Sent Events reach the client event by event), and its headers are passed back but
 * for the connection-level ones (`connection`, `keep-alive`, `transfer-encoding`,
 * `content-length`, `content-encoding`, `te`, `trailer`, `upgrade`, `proxy-*`), cookies,
 * `date` and `server`.
 *
 * The request is passed on unchanged, `model` included: the SDK's helpers name OpenAI models
 * (`gpt-5-mini`), which a self-hosted server may not have; it then answers its own 404.
 *
 * Failures (`ModelProxyError`): `unreachable`, no connection or a URL that cannot be built;
 * `timeout`, no status line and headers within `timeoutMs` (default 120 s: a reasoning model
 * may think that long before a non-streamed answer). A body that drops mid-stream ends the
 * client's answer the same way. Messages name the server and never hold the key.
 *
 * @since 0.1.0
 */
import { LanguageModelNotConfigured } from "@voice-agent/core/Errors"
import type { ProxyRequest, ProxyResponse } from "@voice-agent/core/ports/ModelProxy"
import { ModelProxy, ModelProxyError } from "@voice-agent/core/ports/ModelProxy"
import type { Redacted } from "effect"
import { Duration, Effect, Layer, Stream } from "effect"
import { HttpClient, HttpClientRequest, HttpMethod } from "effect/http"
import * as Http from "./internal/Http.ts"

/**
 * @category models
 */
export interface Config {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`. */
  readonly baseUrl: string
  /** Undefined for local servers that take none. */
  readonly apiKey: Redacted.Redacted | undefined
  /** Where the key goes: `Authorization: Bearer` (default), or Azure OpenAI's `api-key` header. */
  readonly apiKeyHeader?: "authorization" | "api-key" | undefined
  /** Query parameters on every request (Azure's classic `api-version`); they win over the caller's. */
  readonly urlParams?: { readonly [name: string]: string } | undefined
  /** Time to the answer's status line and headers. Default 120 s. */
  readonly timeoutMs?: number | undefined
}

const defaultTimeoutMs = 120_000

const dropped = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "te",
  "trailer",
  "upgrade",
  "set-cookie",
  "date",
  "server"
])

/**
 * The answer's headers worth passing back (see the module header).
 *
 * @category encoding
 */
export const responseHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).filter(([name]) => {
      const lower = name.toLowerCase()
      return !dropped.has(lower) && !lower.startsWith("proxy-")
    })
  )

/**
 * The proxy for `config`; needs an `HttpClient`.
 *
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<ModelProxy["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const root = config.baseUrl.replace(/\/+$/, "")
    const server = `Chat server ${root.replace(/\/\/[^/@]*@/, "//")}`
    const timeout = Duration.millis(config.timeoutMs ?? defaultTimeoutMs)

    const fail = (reason: ModelProxyError["reason"], message: string) =>
      new ModelProxyError({ reason, message: Http.withoutKey(config.apiKey, `${server} ${message}`) })

    const authorize = Http.authorize(config)

    const forward = Effect.fn("OpenAiProxy.forward")(function*(request: ProxyRequest) {
      const method = request.method.toUpperCase()
      if (!HttpMethod.isHttpMethod(method)) return yield* fail("unreachable", `cannot be sent a ${method} request`)
      const { authorization: _authorization, "api-key": _apiKey, ...headers } = request.headers
      let outgoing = HttpClientRequest.make(method)(`${root}${request.path}`).pipe(
        HttpClientRequest.setUrlParams(new URLSearchParams(request.search)),
        HttpClientRequest.setUrlParams(config.urlParams ?? {}),
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.setHeader("accept-encoding", "identity"),
        authorize
      )
      if (request.body !== undefined && request.body.length > 0) {
        outgoing = HttpClientRequest.bodyUint8Array(outgoing, request.body, headers["content-type"])
      }
      const response = yield* client.execute(outgoing).pipe(
        Effect.mapError((error) => fail("unreachable", `unreachable: ${Http.describeTransport(error)}`)),
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(fail("timeout", `did not answer within ${Duration.format(timeout)}`))
        })
      )
      return {
        status: response.status,
        headers: responseHeaders(response.headers),
        body: response.stream.pipe(
          Stream.mapError((error) => fail("unreachable", `dropped the connection: ${Http.describeTransport(error)}`))
        )
      } satisfies ProxyResponse
    })

    return ModelProxy.of({ forward })
  })

/**
 * `ModelProxy` for `config`.
 *
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<ModelProxy, never, HttpClient.HttpClient> =>
  Layer.effect(ModelProxy, make(config))

/**
 * `ModelProxy` on a server with no OpenAI-compatible chat provider: every request is
 * `LanguageModelNotConfigured`.
 *
 * @category layers
 */
export const layerNone: Layer.Layer<ModelProxy> = Layer.succeed(
  ModelProxy,
  ModelProxy.of({ forward: () => Effect.fail(new LanguageModelNotConfigured()) })
)
