/**
 * The proxy against the local fake of OpenAI's chat completions (a real HTTP server on a
 * loopback port, over undici): a streamed answer passes through event by event, a whole one
 * as it is, errors with their status and body; the provider's key replaces the caller's; the
 * failures to reach it (and the timeout, on the TestClock) never show the key.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import type { ProxyRequest } from "@voice-agent/core/ports/ModelProxy"
import { ModelProxy } from "@voice-agent/core/ports/ModelProxy"
import { Deferred, Effect, Fiber, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "../../../test/support/openai-fake/ChatCompletionsFake.ts"
import * as OpenAiProxy from "./OpenAiProxy.ts"

const KEY = "sk-test-Proxy5Lr2Tx1Nc7Vb4Hd0Jf"

const chat = (body: unknown, headers: Record<string, string> = {}): ProxyRequest => ({
  method: "POST",
  path: "/chat/completions",
  search: "",
  headers: { "content-type": "application/json", ...headers },
  body: new TextEncoder().encode(JSON.stringify(body))
})

const hello = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello?" }] }

const proxyTo = (baseUrl: string, config: Partial<OpenAiProxy.Config> = {}) =>
  OpenAiProxy.make({ baseUrl, apiKey: Redacted.make(KEY), ...config })

const bodyText = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.map(Stream.runCollect(Stream.decodeText(stream)), (parts) => parts.join(""))

describe("responseHeaders", () => {
  it("drops connection-level headers, cookies, date and server; keeps the rest", () => {
    assert.deepStrictEqual(
      OpenAiProxy.responseHeaders({
        "content-type": "text/event-stream",
        "transfer-encoding": "chunked",
        "content-length": "12",
        "Content-Encoding": "gzip",
        connection: "keep-alive",
        "proxy-authenticate": "Basic",
        "set-cookie": "a=b",
        date: "Mon",
        server: "x",
        "x-request-id": "req_1",
        "openai-processing-ms": "5",
        "retry-after": "20"
      }),
      {
        "content-type": "text/event-stream",
        "x-request-id": "req_1",
        "openai-processing-ms": "5",
        "retry-after": "20"
      }
    )
  })
})

layer(NodeHttpClient.layerUndici)("OpenAiProxy", (it) => {
  it.effect("passes a streamed answer through as it comes, with the provider's key instead of the caller's", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const fake = yield* Fake.make({
        apiKey: KEY,
        script: () => Fake.answer([Fake.text("Hello"), Fake.wait(Deferred.await(gate)), Fake.text(" there")])
      })
      const proxy = yield* proxyTo(fake.url)
      const answer = yield* proxy.forward(
        chat({ ...hello, stream: true }, { authorization: "Bearer va_caller", "openai-beta": "assistants=v2" })
      )
      assert.strictEqual(answer.status, 200)
      assert.match(answer.headers["content-type"] ?? "", /^text\/event-stream/)
      // The first events arrive while the fake still holds the rest back.
      const first = yield* Deferred.make<string>()
      const fiber = yield* answer.body.pipe(
        Stream.decodeText(),
        Stream.tap((text) => text.includes("Hello") ? Deferred.succeed(first, text) : Effect.void),
        Stream.runCollect,
        Effect.forkChild
      )
      assert.include(yield* Deferred.await(first), `"content":"Hello"`)
      assert.isFalse(fake.requests[0]!.completed)
      yield* Deferred.succeed(gate, undefined)
      const all = (yield* Fiber.join(fiber)).join("")
      assert.include(all, `"content":" there"`)
      assert.isTrue(all.trimEnd().endsWith("data: [DONE]"))
      const received = fake.requests[0]!
      assert.strictEqual(received.headers.authorization, `Bearer ${KEY}`)
      assert.strictEqual(received.headers["openai-beta"], "assistants=v2")
      assert.strictEqual(received.headers["accept-encoding"], "identity")
      assert.deepStrictEqual(received.body, { ...hello, stream: true })
    }))

  it.effect("passes a whole answer, the query and the configured parameters; Azure's api-key header", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY, keyHeader: "api-key" })
      const proxy = yield* proxyTo(fake.url, { apiKeyHeader: "api-key", urlParams: { "api-version": "2024-10-21" } })
      const answer = yield* proxy.forward({ ...chat(hello), search: "api-version=old&trace=1" })
      assert.strictEqual(answer.status, 200)
      const completion = JSON.parse(yield* bodyText(answer.body))
      assert.strictEqual(completion.object, "chat.completion")
      const received = fake.requests[0]!
      assert.strictEqual(received.headers["api-key"], KEY)
      assert.isUndefined(received.headers.authorization)
      assert.strictEqual(received.query.get("api-version"), "2024-10-21")
      assert.strictEqual(received.query.get("trace"), "1")
    }))

  it.effect("passes the provider's errors through with their status and body", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY, script: () => Fake.error(429, { retryAfter: 20 }) })
      const refused = yield* (yield* proxyTo(fake.url)).forward(chat(hello))
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers["retry-after"], "20")
      assert.strictEqual(JSON.parse(yield* bodyText(refused.body)).error.code, "rate_limit_exceeded")
      const unknownPath = yield* (yield* proxyTo(fake.url)).forward({ ...chat(hello), path: "/responses" })
      assert.strictEqual(unknownPath.status, 404)
      yield* bodyText(unknownPath.body)
      const wrongKey = yield* (yield* proxyTo(fake.url, { apiKey: Redacted.make("sk-wrong") })).forward(chat(hello))
      assert.strictEqual(wrongKey.status, 401)
      yield* bodyText(wrongKey.body)
    }))

  it.effect("a server that cannot be reached: unreachable, naming the server, never the key", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* proxyTo("http://127.0.0.1:9/v1")).forward(chat(hello)))
      assert.strictEqual(error._tag === "ModelProxyError" && error.reason, "unreachable")
      assert.include(error.message, "http://127.0.0.1:9/v1")
      assert.notInclude(error.message, KEY)
    }))

  it.effect("no answer within timeoutMs: timeout", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY, script: () => Fake.hang() })
      const proxy = yield* proxyTo(fake.url, { timeoutMs: 5_000 })
      const fiber = yield* Effect.flip(proxy.forward(chat(hello))).pipe(Effect.forkChild)
      yield* fake.waitFor((requests) => requests[0])
      yield* TestClock.adjust(5_000)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "ModelProxyError")
      if (error._tag === "ModelProxyError") assert.strictEqual(error.reason, "timeout")
    }))

  it.effect("layerNone answers every request LanguageModelNotConfigured", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.flatMap(ModelProxy, (proxy) => proxy.forward(chat(hello))).pipe(
          Effect.provide(OpenAiProxy.layerNone)
        )
      )
      assert.strictEqual(error._tag, "LanguageModelNotConfigured")
    }))
})
