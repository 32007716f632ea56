/**
 * The campaign commands' connection to a running daemon (docs/CLI.md): the `--url` and `--key`
 * flags (a flag wins over `VOICE_AGENT_URL` / `VOICE_AGENT_API_KEY`), the client derived from
 * the API definition (`@voice-agent/http/api/Api`, as examples/http-client does), and the
 * sentence a user reads when the API refuses or cannot be reached.
 *
 * @since 0.1.0
 */
import { Api } from "@voice-agent/http/api/Api"
import { Config, Effect, Redacted } from "effect"
import { Flag } from "effect/cli"
import type { CliError } from "effect/cli"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import * as Failures from "./Failures.ts"

/**
 * The daemon's address when neither `--url` nor `VOICE_AGENT_URL` is given.
 *
 * @category constructors
 */
export const defaultUrl = "http://127.0.0.1:8080"

/**
 * `--url` and `--key`, shared by every command that calls the API.
 *
 * @category constructors
 */
export const connectionFlags = {
  url: Flag.String("url").pipe(
    Flag.withDescription(`The daemon's base URL (else VOICE_AGENT_URL, else ${defaultUrl})`),
    Flag.withFallbackConfig(Config.String("VOICE_AGENT_URL")),
    Flag.withDefault(defaultUrl)
  ),
  key: Flag.Redacted("key").pipe(
    Flag.withDescription("The organization's API key (else VOICE_AGENT_API_KEY)"),
    Flag.withFallbackConfig(Config.Redacted("VOICE_AGENT_API_KEY"))
  )
}

/**
 * `--json`: the API's JSON on standard output and nothing else there.
 *
 * @category constructors
 */
export const jsonFlag = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the API's JSON on standard output (and nothing else there)"),
  Flag.withDefault(false)
)

/**
 * @category models
 */
export interface Connection {
  readonly url: string
  readonly key: Redacted.Redacted
}

/**
 * The typed client and what it is built on: a URL builder for the same endpoints and the
 * authenticated HTTP client, for answers read as streams (recordings).
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(connection: Connection) {
  const baseUrl = connection.url.replace(/\/+$/, "")
  const http = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(connection.key)))
  )
  const client = yield* HttpApiClient.make(Api, {
    baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(connection.key)))
  })
  return { client, http, urls: HttpApiClient.urlBuilder(Api, { baseUrl }), baseUrl }
})

/**
 * @category models
 */
export type ApiClient = Effect.Success<ReturnType<typeof make>>

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The `detail` of an error body: the sentence, or FastAPI's list of `{loc, msg}` as one line. */
const detailOf = (body: unknown): string | undefined => {
  if (!isRecord(body)) return undefined
  const detail = body["detail"]
  if (typeof detail === "string") return detail
  if (Array.isArray(detail)) {
    return detail.map((item) =>
      isRecord(item) && Array.isArray(item["loc"]) ? `${item["loc"].join(".")}: ${String(item["msg"])}` : String(item)
    ).join("; ")
  }
  return undefined
}

/** The message of the deepest `cause` (fetch's "fetch failed" wraps "connect ECONNREFUSED ..."). */
const innermost = (error: unknown): string | undefined => {
  let message: string | undefined
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) message = e.message
  return message
}

/**
 * The sentence for a failed call: the API's `detail` when it answered one, otherwise what
 * went wrong on the way (the daemon unreachable, an answer that is not the API's).
 *
 * @category encoding
 */
export const describeFailure = (baseUrl: string, error: unknown): Effect.Effect<string> => {
  const detail = detailOf(error)
  if (detail !== undefined) return Effect.succeed(detail)
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    if (reason._tag === "TransportError" || reason._tag === "InvalidUrlError") {
      return Effect.succeed(
        `Cannot reach the voice-agent API at ${baseUrl} (${innermost(reason.cause) ?? reason._tag}); ` +
          "is `voice-agent serve` running there? Set --url or VOICE_AGENT_URL"
      )
    }
    const response = error.response
    if (response !== undefined) {
      return response.json.pipe(
        Effect.map((body) => detailOf(body) ?? `The API answered HTTP ${response.status}`),
        Effect.orElseSucceed(() => `The API answered HTTP ${response.status}`)
      )
    }
  }
  return Effect.succeed(`Unexpected answer from the voice-agent API at ${baseUrl}: ${String(error)}`)
}

/**
 * Runs `use` with a client for `connection`; a failure of the API (or of reaching it) becomes
 * its sentence on standard error and exit 1. Failures that are already the user's (a
 * `CliError.UserError`) pass unchanged.
 *
 * @category constructors
 */
export const withClient = <A, E, R>(
  connection: Connection,
  use: (api: ApiClient) => Effect.Effect<A, E, R>
): Effect.Effect<A, CliError.UserError, Exclude<R, HttpClient.HttpClient>> =>
  Effect.gen(function*() {
    const api = yield* make(connection)
    return yield* use(api)
  }).pipe(
    Effect.catch((error) =>
      Failures.isUserError(error)
        ? Effect.fail(error)
        : Effect.flatMap(describeFailure(connection.url, error), (message) => Effect.fail(Failures.userError(message)))
    ),
    Effect.provide(FetchHttpClient.layer)
  )
