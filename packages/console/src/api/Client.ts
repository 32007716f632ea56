/**
 * The console's only way to the daemon: effect's HttpApiClient derived from the API definition
 * (`@voice-agent/http/api/Api`), the same one the server is built from, so every path, body and
 * answer is typed from that one source. One client per credential (the API key, the admin
 * token), made once and reused.
 *
 * `run` turns a call into a Promise for the UI and its failure into a `Failure`
 * (api/Failure.ts); a 401 forgets the credential, which brings its prompt back.
 */
import { Api } from "@voice-agent/http/api/Api"
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { classify } from "./Failure.ts"
import type { Failure } from "./Failure.ts"
import * as Session from "./Session.ts"
import type { Credential } from "./Session.ts"

/**
 * @category models
 */
export type ApiClient = HttpApiClient.ForApi<typeof Api>

const clients = new Map<string, ApiClient>()

/**
 * The client of one credential. Each group's client is made on its first use (HttpApiClient.group
 * over the same definition), so a page builds the encoders and decoders of the groups it calls,
 * not those of every endpoint of the API before its first request.
 */
const clientFor = (token: string): ApiClient => {
  const cached = clients.get(token)
  if (cached !== undefined) return cached
  const httpClient = Effect.runSync(
    Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.bearerToken(token))).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
  )
  const groups = new Map<string, unknown>()
  const client = new Proxy({}, {
    get: (_, group) => {
      if (typeof group !== "string") return undefined
      let made = groups.get(group)
      if (made === undefined) {
        made = Effect.runSync(
          HttpApiClient.group(Api, { group: group as never, httpClient, baseUrl: location.origin }) as Effect.Effect<
            unknown
          >
        )
        groups.set(group, made)
      }
      return made
    }
  }) as ApiClient
  clients.clear()
  clients.set(token, client)
  return client
}

/**
 * A failed call: what went wrong, as the UI shows it.
 *
 * @category errors
 */
export class CallFailed extends Error {
  readonly failure: Failure
  constructor(failure: Failure) {
    super(failure.message)
    this.failure = failure
  }
}

/**
 * Runs `call` with the client of `credential` (the API key unless told otherwise). Rejects with
 * `CallFailed`; a 401 also forgets the credential.
 *
 * @category constructors
 */
export const run = <A, E>(
  call: (client: ApiClient) => Effect.Effect<A, E>,
  credential: Credential = "apiKey"
): Promise<A> => {
  const token = Session.get(credential)
  if (token === null) return Promise.reject(new CallFailed({ _tag: "Unauthorized", credential, message: "Signed out" }))
  return Effect.runPromiseExit(call(clientFor(token))).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = classify(Cause.squash(exit.cause), credential)
    if (failure._tag === "Unauthorized" && Session.get(credential) === token) Session.forget(credential)
    throw new CallFailed(failure)
  })
}

/**
 * The same, with the admin token.
 *
 * @category constructors
 */
export const admin = <A, E>(call: (client: ApiClient) => Effect.Effect<A, E>): Promise<A> => run(call, "adminToken")
