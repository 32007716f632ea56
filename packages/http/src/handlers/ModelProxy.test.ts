/**
 * The `openai/v1/*` route over the whole app with a stand-in `ModelProxy` (the OpenAI adapter is
 * tested in providers/OpenAiProxy.test.ts): the engine's key is checked and never passed on,
 * the request reaches the proxy below the root, the answer comes back as given; 501 without a
 * provider, 502/504 when it cannot be reached.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { LanguageModelNotConfigured } from "@voice-agent/core/Errors"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ProxyRequest } from "@voice-agent/core/ports/ModelProxy"
import { ModelProxy, ModelProxyError } from "@voice-agent/core/ports/ModelProxy"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import type { HttpMethod } from "effect/http"
import * as HttpApp from "../HttpApp.ts"
import { AdminToken } from "./Admin.ts"
import { requestHeaders } from "./ModelProxy.ts"

const adminToken = "test-admin-token"

const forwarded: Array<ProxyRequest> = []
const standIn = Layer.succeed(
  ModelProxy,
  ModelProxy.of({
    forward: (request) => {
      forwarded.push(request)
      switch (request.path) {
        case "/unconfigured":
          return Effect.fail(new LanguageModelNotConfigured())
        case "/slow":
          return Effect.fail(new ModelProxyError({ reason: "timeout", message: "Chat server x did not answer" }))
        case "/down":
          return Effect.fail(new ModelProxyError({ reason: "unreachable", message: "Chat server x unreachable" }))
        default:
          return Effect.succeed({
            status: request.path === "/missing" ? 404 : 200,
            headers: { "content-type": "text/event-stream", "x-request-id": "req_7" },
            body: Stream.make("data: {\"a\":1}\n\n", "data: [DONE]\n\n").pipe(Stream.encodeText)
          })
      }
    }
  })
)

const server = (database: TestDatabase.Backend["layer"], proxy: Layer.Layer<never> | Layer.Layer<ModelProxy>) =>
  HttpRouter.serve(HttpApp.layer, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provide([
      AdminToken.layer(Option.some(Redacted.make(adminToken))),
      Layer.mock(Carrier, {}),
      Layer.mock(RecordingStore, {}),
      proxy
    ]),
    Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(database)))
  )

interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

const call = (
  method: HttpMethod.HttpMethod,
  url: string,
  options: { readonly token?: string | null; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
): Effect.Effect<Reply, unknown, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(url).pipe(HttpClientRequest.setHeaders(options.headers ?? {}))
    const token = options.token === undefined ? adminToken : options.token
    if (token !== null) request = HttpClientRequest.bearerToken(request, token)
    if (options.body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, options.body)
    const response = yield* client.execute(request)
    return { status: response.status, headers: response.headers, text: yield* response.text }
  })

const apiKey = Effect.gen(function*() {
  const created = yield* call("POST", "/admin/v1/organizations", {
    body: { name: `org-${Math.random().toString(36).slice(2)}` }
  })
  const key = yield* call("POST", `/admin/v1/organizations/${JSON.parse(created.text).id}/api-keys`)
  return JSON.parse(key.text).api_key as string
})

describe("requestHeaders", () => {
  it("passes content type, accept, openai-beta, idempotency-key and x-stainless-*; never credentials", () => {
    assert.deepStrictEqual(
      requestHeaders({
        "content-type": "application/json",
        Accept: "text/event-stream",
        authorization: "Bearer va_x",
        "api-key": "k",
        cookie: "a=b",
        "openai-beta": "assistants=v2",
        "idempotency-key": "i1",
        "x-stainless-lang": "python",
        host: "daemon",
        "x-guava-sdk": "python-sdk"
      }),
      {
        "content-type": "application/json",
        accept: "text/event-stream",
        "openai-beta": "assistants=v2",
        "idempotency-key": "i1",
        "x-stainless-lang": "python"
      }
    )
  })
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`openai/v1 proxy on ${backend.name}`, () => {
    layer(server(backend.layer, standIn), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("passes an authenticated request on below the root and streams the answer back", () =>
        Effect.gen(function*() {
          const key = yield* apiKey
          const body = { model: "gpt-5-mini", messages: [{ role: "user", content: "hi" }], stream: true }
          const reply = yield* call("POST", "/openai/v1/chat/completions?trace=1", {
            token: key,
            body,
            headers: { "openai-beta": "x" }
          })
          assert.strictEqual(reply.status, 200)
          assert.match(reply.headers["content-type"] ?? "", /^text\/event-stream/)
          assert.strictEqual(reply.headers["x-request-id"], "req_7")
          assert.strictEqual(reply.text, "data: {\"a\":1}\n\ndata: [DONE]\n\n")
          const request = forwarded.at(-1)!
          assert.strictEqual(request.method, "POST")
          assert.strictEqual(request.path, "/chat/completions")
          assert.strictEqual(request.search, "trace=1")
          assert.strictEqual(request.headers["openai-beta"], "x")
          assert.isUndefined(request.headers["authorization"])
          assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(request.body)), body)
          const listed = yield* call("GET", "/openai/v1/models", { token: key })
          assert.strictEqual(listed.status, 200)
          assert.strictEqual(forwarded.at(-1)!.path, "/models")
          assert.isUndefined(forwarded.at(-1)!.body)
        }))

      it.effect("the provider's error statuses come back as they are", () =>
        Effect.gen(function*() {
          const reply = yield* call("POST", "/openai/v1/missing", { token: yield* apiKey, body: {} })
          assert.strictEqual(reply.status, 404)
          assert.strictEqual(reply.text, "data: {\"a\":1}\n\ndata: [DONE]\n\n")
        }))

      it.effect("401 without the engine's key; nothing is passed on", () =>
        Effect.gen(function*() {
          const before = forwarded.length
          for (const token of [null, "va_wrong"]) {
            const reply = yield* call("POST", "/openai/v1/chat/completions", { token, body: {} })
            assert.strictEqual(reply.status, 401)
            assert.deepStrictEqual(JSON.parse(reply.text), { detail: "Invalid or missing API key" })
          }
          assert.strictEqual(forwarded.length, before)
        }))

      it.effect("501 without a provider, 504 when it does not answer in time, 502 when it cannot be reached", () =>
        Effect.gen(function*() {
          const key = yield* apiKey
          const unconfigured = yield* call("POST", "/openai/v1/unconfigured", { token: key, body: {} })
          assert.strictEqual(unconfigured.status, 501)
          assert.include(JSON.parse(unconfigured.text).detail, "VOICE_AGENT_PROVIDERS")
          const slow = yield* call("POST", "/openai/v1/slow", { token: key, body: {} })
          assert.strictEqual(slow.status, 504)
          const down = yield* call("POST", "/openai/v1/down", { token: key, body: {} })
          assert.strictEqual(down.status, 502)
          assert.include(JSON.parse(down.text).detail, "unreachable")
        }))
    })

    layer(server(backend.layer, Layer.empty), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("501 on a server without the proxy", () =>
        Effect.gen(function*() {
          const reply = yield* call("POST", "/openai/v1/chat/completions", { token: yield* apiKey, body: {} })
          assert.strictEqual(reply.status, 501)
        }))
    })
  })
}
