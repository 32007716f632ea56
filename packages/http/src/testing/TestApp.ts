/**
 * The whole HTTP app on an in-process test server over a test database, for handler tests:
 * the admin token `adminToken` (or none), the carrier and recordings as stand-ins that fail if
 * called, and the optional services a test gives (`DirectCalls`, `Providers`, `ModelProxy`, …).
 * `call` sends one request, with the admin token unless told otherwise.
 *
 * @since 0.1.0
 */
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import type * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import type { HttpMethod } from "effect/http"
import { AdminToken } from "../handlers/Admin.ts"
import * as HttpApp from "../HttpApp.ts"
import * as TestServer from "./TestServer.ts"

/**
 * @category constants
 */
export const adminToken = "test-admin-token"

/**
 * The app over `database`, with `services` provided.
 *
 * @category layers
 */
export const serve = <A = never>(
  database: TestDatabase.Backend["layer"],
  options: { readonly token?: Option.Option<string>; readonly services?: Layer.Layer<A> } = {}
) =>
  HttpRouter.serve(HttpApp.layer, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(TestServer.layer),
    Layer.provide([
      AdminToken.layer(Option.map(options.token ?? Option.some(adminToken), Redacted.make)),
      Layer.mock(Carrier, {}),
      Layer.mock(RecordingStore, {}),
      options.services ?? Layer.empty
    ]),
    Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(database)))
  )

/**
 * @category models
 */
export interface Reply {
  readonly status: number
  // Parsed JSON, read field by field in the assertions.
  readonly body: any
}

/**
 * One request; `token` `null` sends none, absent sends the admin token.
 *
 * @category constructors
 */
export const call = (
  method: HttpMethod.HttpMethod,
  url: string,
  options: { readonly token?: string | null; readonly body?: unknown } = {}
): Effect.Effect<Reply, unknown, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(url)
    const token = options.token === undefined ? adminToken : options.token
    if (token !== null) request = HttpClientRequest.bearerToken(request, token)
    if (options.body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, options.body)
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  })
