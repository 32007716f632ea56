/**
 * The adapter against the local fake of OpenAI's chat completions (a real HTTP server on a
 * loopback port, over undici): text streamed as it comes, tool calls put together from their
 * fragments, the request body, each failure, the timeouts (on the TestClock), cancellation.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import type { ChatDelta, ChatError, ChatRequest } from "@voice-agent/core/ports/ChatModel"
import { Deferred, Effect, Fiber, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import * as Fake from "../../../test/support/openai-fake/ChatCompletionsFake.ts"
import * as OpenAiChat from "./OpenAiChat.ts"

const KEY = "sk-test-Zq8Wm2Lr5Tx1Nc7Vb4Hd0Jf"
const TIMEOUT_MS = 5_000

const hello: ChatRequest = { messages: [{ role: "user", content: "Hello?" }] }

const chatOn = (fake: Fake.ChatCompletionsFake, config: Partial<OpenAiChat.Config> = {}) =>
  OpenAiChat.make({
    baseUrl: fake.url,
    apiKey: fake.apiKey === undefined ? undefined : Redacted.make(fake.apiKey),
    model: "gpt-4o-mini",
    timeoutMs: TIMEOUT_MS,
    ...config
  })

/** A fake with key `KEY` answering with `script`. */
const fakeWith = (script: Fake.Script, options: Fake.Options = {}) => Fake.make({ apiKey: KEY, script, ...options })

const collect = (stream: Stream.Stream<ChatDelta, ChatError>) => Stream.runCollect(stream)

const texts = (deltas: ReadonlyArray<ChatDelta>) => deltas.flatMap((delta) => delta._tag === "Text" ? [delta.text] : [])

const failure = (stream: Stream.Stream<ChatDelta, ChatError>) => Effect.flip(Stream.runCollect(stream))

layer(NodeHttpClient.layerUndici)("OpenAiChat", (it) => {
  describe("text", () => {
    it.effect("streams each piece as it arrives, in order, then Finished", () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const fake = yield* fakeWith(() =>
          Fake.answer([Fake.text("Hello"), Fake.wait(Deferred.await(gate)), Fake.text(" there, how can I help?")])
        )
        const chat = yield* chatOn(fake)
        const first = yield* Deferred.make<string>()
        const fiber = yield* chat.stream(hello).pipe(
          Stream.tap((delta) => delta._tag === "Text" ? Deferred.succeed(first, delta.text) : Effect.void),
          Stream.runCollect,
          Effect.forkChild
        )
        // The first piece is here while the fake still holds back the rest of the answer.
        assert.strictEqual(yield* Deferred.await(first), "Hello")
        assert.isFalse(fake.requests[0]!.completed)
        yield* Deferred.succeed(gate, undefined)
        const deltas = yield* Fiber.join(fiber)
        assert.deepStrictEqual(texts(deltas), ["Hello", " there", ",", " how", " can", " I", " help", "?"])
        assert.deepStrictEqual(deltas.at(-1), { _tag: "Finished", reason: "stop" })
      }))

    it.effect("parses any wire form of the events: CRLF, keep-alive comments, multi-line data, bytes cut anywhere", () =>
      Effect.gen(function*() {
        const script = () =>
          Fake.answer([
            Fake.text("Grüße aus Zürich 🌧️, 東京 too."),
            Fake.toolCall("note", "{\"text\":\"naïve café ☕\"}")
          ])
        const expected = yield* collect((yield* chatOn(yield* fakeWith(script))).stream(hello))
        const wires: ReadonlyArray<Fake.Wire> = [
          { lineEnding: "\r\n" },
          { keepAlive: true },
          { multiLineData: true },
          { writeBytes: [1] },
          { writeBytes: [7, 3, 1, 13, 2] },
          { lineEnding: "\r\n", keepAlive: true, multiLineData: true, writeBytes: [5, 1, 2] }
        ]
        for (const wire of wires) {
          const fake = yield* fakeWith(script, { wire })
          const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
          assert.deepStrictEqual(deltas, expected, JSON.stringify(wire))
        }
        assert.strictEqual(texts(expected).join(""), "Grüße aus Zürich 🌧️, 東京 too.")
        assert.deepStrictEqual(expected.at(-2), {
          _tag: "ToolCall",
          call: { id: "call_1x0fake000000000000", name: "note", arguments: "{\"text\":\"naïve café ☕\"}" }
        })
      }))

    it.effect("a [DONE] without a finish_reason finishes with stop; a finish_reason without [DONE] is complete", () =>
      Effect.gen(function*() {
        const noFinish = yield* fakeWith(() => Fake.answer([Fake.text("Hi.")], { omitFinish: true }))
        const deltas = yield* collect((yield* chatOn(noFinish)).stream(hello))
        assert.deepStrictEqual(deltas, [{ _tag: "Text", text: "Hi" }, { _tag: "Text", text: "." }, {
          _tag: "Finished",
          reason: "stop"
        }])
        const noDone = yield* fakeWith(() =>
          Fake.answer([Fake.text("Hi.")], { omitDone: true, finishReason: "length" })
        )
        const more = yield* collect((yield* chatOn(noDone)).stream(hello))
        assert.deepStrictEqual(more.at(-1), { _tag: "Finished", reason: "length" })
      }))
  })

  describe("tool calls", () => {
    it.effect("puts two parallel calls together from fragments cut mid-JSON and mid-character", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() =>
          Fake.answer([
            Fake.text("Let me look that up."),
            Fake.toolCall("get_weather", "", {
              id: "call_weather",
              pieces: ["{\"ci", "ty\": \"Zü", "rich", "\", \"u", "nit\": \"°", "C\", \"note\": \"🌧", "\"}"]
            }),
            Fake.toolCall("get_time", "{\"zone\":\"Europe/Zurich\"}", { id: "call_time" })
          ]), { wire: { writeBytes: [3, 1, 2, 7, 1] } })
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
        assert.deepStrictEqual(deltas.filter((delta) => delta._tag !== "Text"), [
          {
            _tag: "ToolCall",
            call: {
              id: "call_weather",
              name: "get_weather",
              arguments: "{\"city\": \"Zürich\", \"unit\": \"°C\", \"note\": \"🌧\"}"
            }
          },
          { _tag: "ToolCall", call: { id: "call_time", name: "get_time", arguments: "{\"zone\":\"Europe/Zurich\"}" } },
          { _tag: "Finished", reason: "tool_calls" }
        ])
        assert.strictEqual(texts(deltas).join(""), "Let me look that up.")
      }))

    it.effect("sends a call once the next one starts, before the answer ends", () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const fake = yield* fakeWith(() =>
          Fake.answer([
            Fake.toolCall("first", "{\"a\":1}", { id: "call_1" }),
            Fake.toolCall("second", "{\"b\":2}", { id: "call_2" }),
            Fake.wait(Deferred.await(gate))
          ])
        )
        const chat = yield* chatOn(fake)
        const firstCall = yield* Deferred.make<string>()
        const fiber = yield* chat.stream(hello).pipe(
          Stream.tap((delta) => delta._tag === "ToolCall" ? Deferred.succeed(firstCall, delta.call.id) : Effect.void),
          Stream.runCollect,
          Effect.forkChild
        )
        assert.strictEqual(yield* Deferred.await(firstCall), "call_1")
        yield* Deferred.succeed(gate, undefined)
        const deltas = yield* Fiber.join(fiber)
        assert.deepStrictEqual(deltas.map((delta) => delta._tag === "ToolCall" ? delta.call.id : delta._tag), [
          "call_1",
          "call_2",
          "Finished"
        ])
      }))

    it.effect("text and a call in one answer: the text comes out before the call is written", () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const fake = yield* fakeWith(() =>
          Fake.answer([
            Fake.text("Thank you. How many people are coming?"),
            Fake.wait(Deferred.await(gate)),
            Fake.toolCall("record_field", "{\"key\":\"full_name\",\"value\":\"Jane\"}", { id: "call_rf" })
          ])
        )
        const chat = yield* chatOn(fake)
        const sentence = yield* Deferred.make<void>()
        let said = ""
        const fiber = yield* chat.stream(hello).pipe(
          Stream.tap((delta) =>
            delta._tag === "Text" && (said += delta.text).endsWith("?")
              ? Deferred.succeed(sentence, undefined)
              : Effect.void
          ),
          Stream.runCollect,
          Effect.forkChild
        )
        // The whole text is here while the fake still holds back the call.
        yield* Deferred.await(sentence)
        assert.strictEqual(said, "Thank you. How many people are coming?")
        yield* Deferred.succeed(gate, undefined)
        const deltas = yield* Fiber.join(fiber)
        assert.deepStrictEqual(deltas.slice(-2), [
          {
            _tag: "ToolCall",
            call: { id: "call_rf", name: "record_field", arguments: "{\"key\":\"full_name\",\"value\":\"Jane\"}" }
          },
          { _tag: "Finished", reason: "tool_calls" }
        ])
      }))

    it.effect("a call without arguments has {}", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.toolCall("hang_up", "", { id: "call_end", pieces: [] })]))
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
        assert.deepStrictEqual(deltas[0], {
          _tag: "ToolCall",
          call: { id: "call_end", name: "hang_up", arguments: "{}" }
        })
      }))
  })

  describe("request", () => {
    it.effect("sends the documented body and headers", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.text("Booked.")]))
        const chat = yield* chatOn(fake, { headers: { "OpenAI-Organization": "org-test" } })
        const parameters = { type: "object", properties: { day: { type: "string" } }, required: ["day"] }
        yield* collect(chat.stream({
          messages: [
            { role: "system", content: "You book appointments." },
            { role: "user", content: "Tuesday, please." },
            {
              role: "assistant",
              content: null,
              toolCalls: [
                { id: "call_a", name: "check_day", arguments: "{\"day\":\"tuesday\"}" },
                { id: "call_b", name: "check_day", arguments: "{\"day\":\"wednesday\"}" }
              ]
            },
            { role: "tool", toolCallId: "call_a", content: "free" },
            { role: "tool", toolCallId: "call_b", content: "busy" },
            { role: "assistant", content: "Tuesday is free." },
            { role: "assistant", content: null },
            { role: "user", content: "Book it." }
          ],
          tools: [{ name: "check_day", description: "Whether a day has a free slot", parameters }],
          temperature: 0.3,
          maxTokens: 200
        }))
        const request = fake.requests[0]!
        assert.strictEqual(request.status, 200)
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, "/v1/chat/completions")
        assert.strictEqual(request.headers.authorization, `Bearer ${KEY}`)
        assert.strictEqual(request.headers.accept, "text/event-stream")
        assert.match(request.headers["content-type"] ?? "", /^application\/json/)
        assert.strictEqual(request.headers["openai-organization"], "org-test")
        assert.deepStrictEqual(request.body, {
          model: "gpt-4o-mini",
          messages: [
            { role: "system", content: "You book appointments." },
            { role: "user", content: "Tuesday, please." },
            {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "call_a", type: "function", function: { name: "check_day", arguments: "{\"day\":\"tuesday\"}" } },
                {
                  id: "call_b",
                  type: "function",
                  function: { name: "check_day", arguments: "{\"day\":\"wednesday\"}" }
                }
              ]
            },
            { role: "tool", tool_call_id: "call_a", content: "free" },
            { role: "tool", tool_call_id: "call_b", content: "busy" },
            { role: "assistant", content: "Tuesday is free." },
            { role: "assistant", content: "" },
            { role: "user", content: "Book it." }
          ],
          stream: true,
          tools: [{
            type: "function",
            function: { name: "check_day", description: "Whether a day has a free slot", parameters }
          }],
          temperature: 0.3,
          max_tokens: 200
        })
      }))

    it.effect("leaves out tools, temperature and the limit when not given", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.text("Hi.")]))
        yield* collect((yield* chatOn(fake)).stream({ ...hello, tools: [] }))
        assert.deepStrictEqual(fake.requests[0]!.body, {
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "Hello?" }],
          stream: true
        })
      }))

    it.effect("sends the limit as max_completion_tokens when asked (reasoning models refuse max_tokens)", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.text("Hi.")]))
        const refused = yield* failure((yield* chatOn(fake, { model: "o3-mini" })).stream({ ...hello, maxTokens: 50 }))
        assert.strictEqual(refused.reason, "rejected")
        assert.include(refused.message, "Use 'max_completion_tokens' instead")
        const chat = yield* chatOn(fake, { model: "o3-mini", maxTokensField: "max_completion_tokens" })
        yield* collect(chat.stream({ ...hello, maxTokens: 50 }))
        assert.strictEqual(fake.requests[1]!.status, 200)
        assert.strictEqual((fake.requests[1]!.body as { max_completion_tokens: number }).max_completion_tokens, 50)
      }))

    it.effect("Azure OpenAI: the key in an api-key header, api-version in the query", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.text("Hi.")]), { keyHeader: "api-key" })
        const chat = yield* chatOn(fake, { apiKeyHeader: "api-key", urlParams: { "api-version": "2024-10-21" } })
        const deltas = yield* collect(chat.stream(hello))
        assert.deepStrictEqual(deltas.at(-1), { _tag: "Finished", reason: "stop" })
        const request = fake.requests[0]!
        assert.strictEqual(request.headers["api-key"], KEY)
        assert.isUndefined(request.headers.authorization)
        assert.strictEqual(request.query.get("api-version"), "2024-10-21")
      }))

    it.effect("a local server without keys gets no Authorization header", () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({ apiKey: null })
        const deltas = yield* collect((yield* chatOn(fake, { baseUrl: `${fake.url}/` })).stream(hello))
        assert.strictEqual(texts(deltas).join(""), "Hello! How can I help you today?")
        assert.isUndefined(fake.requests[0]!.headers.authorization)
      }))
  })

  describe("failures", () => {
    const cases: ReadonlyArray<{
      readonly name: string
      readonly reply: Fake.Reply
      readonly reason: ChatError["reason"]
      readonly says: string
    }> = [
      {
        name: "400 with the server's message",
        reply: Fake.error(400, {
          message: "Invalid 'messages[0].content': string too long.",
          code: "string_above_max_length"
        }),
        reason: "rejected",
        says: "(HTTP 400): (string_above_max_length) Invalid 'messages[0].content': string too long."
      },
      {
        name: "422",
        reply: Fake.error(422, { message: "Unprocessable: bad tool schema" }),
        reason: "rejected",
        says: "Unprocessable: bad tool schema"
      },
      {
        name: "403",
        reply: Fake.error(403, {
          message: "Country, region, or territory not supported",
          code: "unsupported_country_region_territory"
        }),
        reason: "unauthorized",
        says: "Country, region, or territory not supported"
      },
      {
        name: "429 with retry-after",
        reply: Fake.error(429, { retryAfter: 7 }),
        reason: "rate-limited",
        says: "(HTTP 429) (retry after 7 s): (rate_limit_exceeded) Rate limit reached"
      },
      {
        name: "429 for an account out of credit",
        reply: Fake.error(429, {
          message: "You exceeded your current quota, please check your plan and billing details.",
          type: "insufficient_quota",
          code: "insufficient_quota"
        }),
        reason: "rejected",
        says: "(HTTP 429): (insufficient_quota) You exceeded your current quota"
      },
      { name: "500", reply: Fake.error(500), reason: "unavailable", says: "The server had an error" },
      { name: "503", reply: Fake.error(503), reason: "unavailable", says: "currently overloaded" },
      {
        name: "a dropped connection before any answer",
        reply: Fake.drop(),
        reason: "unavailable",
        says: "unreachable"
      },
      {
        name: "an error event mid-stream, after some text",
        reply: Fake.answer([Fake.text("Sure,"), Fake.streamError()]),
        reason: "unavailable",
        says: "sent an error mid-answer (server_error) The server had an error"
      },
      {
        name: "a rate-limit error event mid-stream",
        reply: Fake.answer([
          Fake.streamError({ message: "Too many tokens", type: "tokens", code: "rate_limit_exceeded" })
        ]),
        reason: "rate-limited",
        says: "Too many tokens"
      },
      {
        name: "a connection dropped mid-answer",
        reply: Fake.answer([Fake.text("Sure, one moment"), Fake.drop()]),
        reason: "unavailable",
        says: "dropped the connection mid-answer"
      },
      {
        name: "a body that ends without finish_reason and [DONE]",
        reply: Fake.answer([Fake.text("Sure, one moment")], { omitFinish: true, omitDone: true }),
        reason: "unavailable",
        says: "ended the answer before its finish_reason and [DONE]"
      }
    ]
    for (const { name, reason, reply, says } of cases) {
      it.effect(`${name}: ${reason}`, () =>
        Effect.gen(function*() {
          const fake = yield* fakeWith(() => reply)
          const error = yield* failure((yield* chatOn(fake)).stream(hello))
          assert.strictEqual(error.reason, reason)
          assert.include(error.message, says)
          assert.include(error.message, fake.url)
          assert.notInclude(error.message, KEY)
        }))
    }

    it.effect("the text before a drop is delivered first", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.answer([Fake.text("Sure, one moment"), Fake.drop()]))
        const seen: Array<string> = []
        const error = yield* (yield* chatOn(fake)).stream(hello).pipe(
          Stream.runForEach((delta) => Effect.sync(() => delta._tag === "Text" && seen.push(delta.text))),
          Effect.flip
        )
        assert.strictEqual(error.reason, "unavailable")
        assert.deepStrictEqual(seen, ["Sure", ",", " one", " moment"])
      }))

    it.effect("a wrong key: unauthorized, and the key is in no message", () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({ apiKey: "sk-the-right-one-000000000000" })
        const error = yield* failure((yield* chatOn(fake, { apiKey: Redacted.make(KEY) })).stream(hello))
        assert.strictEqual(error.reason, "unauthorized")
        assert.include(error.message, "Incorrect API key provided")
        assert.isFalse(error.isRetryable)
        for (const text of [error.message, String(error), JSON.stringify(error), error.stack ?? ""]) {
          assert.notInclude(text, KEY)
        }
        const none = yield* failure((yield* chatOn(fake, { apiKey: undefined })).stream(hello))
        assert.strictEqual(none.reason, "unauthorized")
        assert.include(none.message, "You didn't provide an API key")
      }))

    it.effect("a server that echoes the key has it cut out", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.error(400, { message: `Bad header: Authorization: Bearer ${KEY}` }))
        const error = yield* failure((yield* chatOn(fake)).stream(hello))
        assert.include(error.message, "Bearer ***")
        assert.notInclude(error.message, KEY)
      }))

    it.effect("the server's own checks: an unknown model is 404, a bad tool name 400", () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({ apiKey: KEY, models: ["gpt-4o-mini"] })
        const unknown = yield* failure((yield* chatOn(fake, { model: "gpt-9" })).stream(hello))
        assert.strictEqual(unknown.reason, "rejected")
        assert.include(unknown.message, "(HTTP 404): (model_not_found) The model `gpt-9` does not exist")
        const badTool = yield* failure((yield* chatOn(fake)).stream({
          ...hello,
          tools: [{ name: "check day", description: "", parameters: {} }]
        }))
        assert.strictEqual(badTool.reason, "rejected")
        assert.include(badTool.message, "Invalid 'tools[0].function.name'")
      }))

    it.effect("nobody listening: unavailable", () =>
      Effect.gen(function*() {
        const url = yield* Effect.scoped(Effect.map(Fake.make(), (fake) => fake.url))
        const chat = yield* OpenAiChat.make({ baseUrl: url, apiKey: Redacted.make(KEY), model: "m" })
        const error = yield* failure(chat.stream(hello))
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "unreachable: TransportError")
        assert.isTrue(error.isRetryable)
      }))
  })

  describe("other compatible servers", () => {
    /** An answer made only of `events` (each a chunk's JSON, or a string sent as it is). */
    const events = (...items: ReadonlyArray<unknown>) =>
      Fake.answer(
        items.map((item) => Fake.raw(typeof item === "string" ? item : `data: ${JSON.stringify(item)}\n\n`)),
        { omitFinish: true, omitDone: true }
      )
    const chunk = (delta: unknown, finishReason: string | null = null) => ({
      choices: [{ index: 0, delta, finish_reason: finishReason }]
    })
    const fragment = (fields: object) => chunk({ tool_calls: [fields] })
    const done = "data: [DONE]\n\n"

    it.effect("interleaved fragments of two calls: each call whole", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() =>
          events(
            fragment({
              index: 0,
              id: "call_a",
              type: "function",
              function: { name: "shell", arguments: "{\"command\":" }
            }),
            fragment({
              index: 1,
              id: "call_b",
              type: "function",
              function: { name: "shell", arguments: "{\"command\":" }
            }),
            fragment({ index: 0, function: { arguments: "\"ls -la\"}" } }),
            fragment({ index: 1, function: { arguments: "\"pwd\"}" } }),
            chunk({}, "tool_calls"),
            done
          )
        )
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
        assert.deepStrictEqual(deltas, [
          { _tag: "ToolCall", call: { id: "call_a", name: "shell", arguments: "{\"command\":\"ls -la\"}" } },
          { _tag: "ToolCall", call: { id: "call_b", name: "shell", arguments: "{\"command\":\"pwd\"}" } },
          { _tag: "Finished", reason: "tool_calls" }
        ])
      }))

    it.effect("fragments without an index go by id; id and name repeated in every fragment count once", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() =>
          events(
            fragment({ id: "call_a", function: { name: "first", arguments: "{\"x\":" } }),
            fragment({ id: "call_a", function: { name: "first", arguments: "1}" } }),
            fragment({ id: "call_b", function: { name: "second", arguments: "{}" } }),
            chunk({}, "tool_calls"),
            done
          )
        )
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
        assert.deepStrictEqual(deltas, [
          { _tag: "ToolCall", call: { id: "call_a", name: "first", arguments: "{\"x\":1}" } },
          { _tag: "ToolCall", call: { id: "call_b", name: "second", arguments: "{}" } },
          { _tag: "Finished", reason: "tool_calls" }
        ])
      }))

    it.effect("a call without an id gets one, different in each answer", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() =>
          events(fragment({ index: 0, function: { name: "f", arguments: "{}" } }), chunk({}, "tool_calls"), done)
        )
        const chat = yield* chatOn(fake)
        const ids = [yield* collect(chat.stream(hello)), yield* collect(chat.stream(hello))].map((deltas) =>
          deltas[0]?._tag === "ToolCall" ? deltas[0].call.id : undefined
        )
        assert.deepStrictEqual(ids, ["call_1_0", "call_2_0"])
      }))

    it.effect("the last text in the same chunk as the finish_reason", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => events(chunk({ role: "assistant", content: "Bye." }, "stop"), done))
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
        assert.deepStrictEqual(deltas, [{ _tag: "Text", text: "Bye." }, { _tag: "Finished", reason: "stop" }])
      }))

    it.effect("a fragment for a call already sent: unavailable", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() =>
          events(
            fragment({ index: 0, id: "call_a", function: { name: "a", arguments: "{}" } }),
            fragment({ index: 1, id: "call_b", function: { name: "b", arguments: "{}" } }),
            fragment({ index: 0, function: { arguments: "{\"late\":true}" } }),
            chunk({}, "tool_calls"),
            done
          )
        )
        const error = yield* failure((yield* chatOn(fake)).stream(hello))
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "streamed more of tool call 0 after it was complete")
      }))

    it.effect("a chunk that is not JSON: unavailable", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => events(chunk({ content: "Hi" }), "data: {\"choices\": [\n\n", done))
        const error = yield* failure((yield* chatOn(fake)).stream(hello))
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "not the documented JSON")
      }))

    it.effect("errors in vLLM's and llama.cpp's shapes", () =>
      Effect.gen(function*() {
        const tooLong = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
        const vllm = yield* fakeWith(() =>
          Fake.error(400, {
            body: { object: "error", message: tooLong, type: "BadRequestError", param: null, code: 400 }
          })
        )
        const rejected = yield* failure((yield* chatOn(vllm)).stream(hello))
        assert.strictEqual(rejected.reason, "rejected")
        assert.include(rejected.message, `(HTTP 400): (400) ${tooLong}`)
        const busy = yield* fakeWith(() =>
          events(chunk({ content: "Hm" }), {
            error: { code: 503, message: "Loading model", type: "unavailable_error" }
          })
        )
        assert.strictEqual((yield* failure((yield* chatOn(busy)).stream(hello))).reason, "unavailable")
        const limited = yield* fakeWith(() =>
          events(`event: error\ndata: ${JSON.stringify({ error: { code: 429, message: "Too many requests" } })}\n\n`)
        )
        const error = yield* failure((yield* chatOn(limited)).stream(hello))
        assert.strictEqual(error.reason, "rate-limited")
        assert.include(error.message, "Too many requests")
      }))

    it.effect("a server that answers a whole completion instead of a stream: rejected", () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({ apiKey: KEY, ignoresStream: true })
        const error = yield* failure((yield* chatOn(fake)).stream(hello))
        assert.strictEqual(error.reason, "rejected")
        assert.include(error.message, "does it support stream: true?")
      }))
  })

  describe("timeouts and cancellation", () => {
    it.effect("no answer within timeoutMs: timeout, and the request is abandoned", () =>
      Effect.gen(function*() {
        const fake = yield* fakeWith(() => Fake.hang())
        const fiber = yield* failure((yield* chatOn(fake)).stream(hello)).pipe(Effect.forkChild)
        yield* fake.waitFor((requests) => requests[0])
        yield* TestClock.adjust(TIMEOUT_MS)
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error.reason, "timeout")
        assert.include(error.message, "did not answer within 5s")
        yield* fake.waitFor((requests) => requests[0]!.abandoned || undefined)
      }))

    it.effect("silence mid-answer for timeoutMs: timeout, and the connection is closed", () =>
      Effect.gen(function*() {
        // One event of text, then nothing: once it is here, the adapter waits on the socket.
        const fake = yield* fakeWith(() => Fake.answer([Fake.text(["Let me think"]), Fake.hang()]))
        const first = yield* Deferred.make<void>()
        const fiber = yield* (yield* chatOn(fake)).stream(hello).pipe(
          Stream.tap(() => Deferred.succeed(first, undefined)),
          Stream.runCollect,
          Effect.flip,
          Effect.forkChild
        )
        yield* Deferred.await(first)
        yield* TestClock.adjust(TIMEOUT_MS - 1)
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust(1)
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error.reason, "timeout")
        assert.include(error.message, "went silent for 5s mid-answer")
        yield* fake.waitFor((requests) => requests[0]!.abandoned || undefined)
      }))

    it.effect("a consumer that stops early closes the connection", () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const fake = yield* fakeWith(() =>
          Fake.answer([Fake.text("One"), Fake.wait(Deferred.await(gate)), Fake.text(" two")])
        )
        const deltas = yield* collect((yield* chatOn(fake)).stream(hello).pipe(Stream.take(1)))
        assert.deepStrictEqual(deltas, [{ _tag: "Text", text: "One" }])
        yield* fake.waitFor((requests) => requests[0]!.abandoned || undefined)
      }))
  })
})

describe("OpenAiChat on FetchHttpClient", () => {
  it.effect("streams text and tool calls the same", () =>
    Effect.gen(function*() {
      const fake = yield* fakeWith(
        () => Fake.answer([Fake.text("On it."), Fake.toolCall("lookup", "{\"q\":\"Zürich\"}", { id: "call_q" })]),
        {
          wire: { writeBytes: [3, 1, 4] }
        }
      )
      const deltas = yield* collect((yield* chatOn(fake)).stream(hello))
      assert.deepStrictEqual(deltas, [
        { _tag: "Text", text: "On" },
        { _tag: "Text", text: " it" },
        { _tag: "Text", text: "." },
        { _tag: "ToolCall", call: { id: "call_q", name: "lookup", arguments: "{\"q\":\"Zürich\"}" } },
        { _tag: "Finished", reason: "tool_calls" }
      ])
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
