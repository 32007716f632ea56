/**
 * The fake's own wire format, read raw (no SSE library): the chunks as OpenAI's reference and
 * recorded streams show them, the non-streamed answer, the usage chunk, and OpenAI's checks of
 * a request with their error JSON.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Fake from "./ChatCompletionsFake.ts"

const KEY = "sk-fake-test-000000000000000000"

const post = (fake: Fake.ChatCompletionsFake, body: unknown, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(`${fake.url}/chat/completions`).pipe(
      HttpClientRequest.setHeaders({ authorization: `Bearer ${KEY}`, ...headers }),
      typeof body === "string"
        ? HttpClientRequest.bodyText(body, "application/json")
        : HttpClientRequest.bodyJsonUnsafe(body)
    )
    const response = yield* client.execute(request)
    return { status: response.status, contentType: response.headers["content-type"], text: yield* response.text }
  }).pipe(Effect.orDie, Effect.provide(FetchHttpClient.layer))

/** The `data:` payloads of a body, in order. */
const dataOf = (body: string): ReadonlyArray<string> =>
  body.split("\n\n").filter((event) => event !== "").map((event) => {
    assert.match(event, /^data: /)
    return event.slice("data: ".length)
  })

const chunksOf = (body: string) => {
  const data = dataOf(body)
  assert.strictEqual(data.at(-1), "[DONE]")
  return data.slice(0, -1).map((text) => JSON.parse(text) as Record<string, any>)
}

const user = { role: "user", content: "What's the weather in Paris?" }

describe("ChatCompletionsFake", () => {
  it.effect("streams text as chat.completion.chunk events, role first, then the finish, then [DONE]", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY, script: () => Fake.answer([Fake.text("It is sunny, 21°C.")]) })
      const answer = yield* post(fake, { model: "gpt-4o-mini", messages: [user], stream: true })
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.contentType, "text/event-stream; charset=utf-8")
      const chunks = chunksOf(answer.text)
      for (const chunk of chunks) {
        assert.match(chunk.id, /^chatcmpl-/)
        assert.strictEqual(chunk.object, "chat.completion.chunk")
        assert.isNumber(chunk.created)
        assert.strictEqual(chunk.model, "gpt-4o-mini")
        assert.isString(chunk.system_fingerprint)
        assert.strictEqual(chunk.choices.length, 1)
        assert.strictEqual(chunk.choices[0].index, 0)
        assert.isNull(chunk.choices[0].logprobs)
        assert.notProperty(chunk, "usage")
      }
      assert.deepStrictEqual(chunks[0]!.choices[0].delta, { role: "assistant", content: "", refusal: null })
      const contents = chunks.slice(1, -1).map((chunk) => {
        assert.deepStrictEqual(Object.keys(chunk.choices[0].delta), ["content"])
        assert.isNull(chunk.choices[0].finish_reason)
        return chunk.choices[0].delta.content as string
      })
      assert.deepStrictEqual(contents, ["It", " is", " sunny", ",", " 21", "°", "C", "."])
      assert.deepStrictEqual(chunks.at(-1)!.choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "stop" })
    }))

  it.effect("streams tool calls: id, type and name once, then the arguments in pieces; the next call has the next index", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({
        apiKey: KEY,
        script: () =>
          Fake.answer([
            Fake.toolCall("get_weather", "{\"location\":\"Paris, France\"}", { id: "call_1" }),
            Fake.toolCall("get_weather", "{\"location\":\"Tokyo\"}", { id: "call_2" })
          ])
      })
      const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }]
      const chunks = chunksOf((yield* post(fake, { model: "gpt-4o", messages: [user], tools, stream: true })).text)
      assert.deepStrictEqual(chunks[0]!.choices[0].delta, { role: "assistant", content: null, refusal: null })
      const deltas = chunks.slice(1, -1).map((chunk) => chunk.choices[0].delta.tool_calls)
      assert.deepStrictEqual(deltas[0], [{
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: "" }
      }])
      const second = deltas.findIndex((calls) => calls[0].index === 1)
      assert.deepStrictEqual(deltas[second], [{
        index: 1,
        id: "call_2",
        type: "function",
        function: { name: "get_weather", arguments: "" }
      }])
      const argumentsOf = (from: number, to: number) =>
        deltas.slice(from, to).map((calls) => {
          assert.deepStrictEqual(Object.keys(calls[0]), ["index", "function"])
          return calls[0].function.arguments as string
        })
      const first = argumentsOf(1, second)
      assert.isAbove(first.length, 3)
      assert.strictEqual(first.join(""), "{\"location\":\"Paris, France\"}")
      assert.strictEqual(argumentsOf(second + 1, deltas.length).join(""), "{\"location\":\"Tokyo\"}")
      assert.strictEqual(chunks.at(-1)!.choices[0].finish_reason, "tool_calls")
    }))

  it.effect("with stream_options.include_usage: usage null on every chunk, then a usage chunk without choices", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY })
      const body = { model: "gpt-4o-mini", messages: [user], stream: true, stream_options: { include_usage: true } }
      const chunks = chunksOf((yield* post(fake, body)).text)
      for (const chunk of chunks.slice(0, -1)) assert.isNull(chunk.usage)
      const last = chunks.at(-1)!
      assert.deepStrictEqual(last.choices, [])
      assert.isAbove(last.usage.total_tokens, 0)
    }))

  it.effect("without stream: one chat.completion", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY })
      const answer = yield* post(fake, { model: "gpt-4o-mini", messages: [user] })
      assert.strictEqual(answer.contentType, "application/json; charset=utf-8")
      const completion = JSON.parse(answer.text)
      assert.strictEqual(completion.object, "chat.completion")
      assert.deepStrictEqual(completion.choices[0].message, {
        role: "assistant",
        content: "Hello! How can I help you today?",
        refusal: null,
        annotations: []
      })
      assert.strictEqual(completion.choices[0].finish_reason, "stop")
    }))

  it.live("waits latency.firstChunkMs before the first event", () =>
    Effect.gen(function*() {
      const fake = yield* Fake.make({ apiKey: KEY, latency: { firstChunkMs: 150 } })
      const start = yield* Clock.currentTimeMillis
      yield* post(fake, { model: "gpt-4o-mini", messages: [user], stream: true })
      assert.isAtLeast((yield* Clock.currentTimeMillis) - start, 150)
    }))

  describe("refuses as OpenAI does", () => {
    const tool = { type: "function", function: { name: "f" } }
    const call = { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }
    const cases: ReadonlyArray<{
      readonly name: string
      readonly body: unknown
      readonly headers?: Record<string, string>
      readonly status: number
      readonly message: string
      readonly code?: string | null
    }> = [
      {
        name: "no key",
        body: { model: "m", messages: [user] },
        headers: { authorization: "" },
        status: 401,
        message: "You didn't provide an API key.",
        code: null
      },
      {
        name: "a wrong key (echoed masked)",
        body: { model: "m", messages: [user] },
        headers: { authorization: "Bearer sk-wrong-key-123456789" },
        status: 401,
        message: "Incorrect API key provided: sk-***************6789.",
        code: "invalid_api_key"
      },
      {
        name: "a body that is not JSON",
        body: "{\"model\":",
        status: 400,
        message: "We could not parse the JSON body"
      },
      { name: "no model", body: { messages: [user] }, status: 400, message: "you must provide a model parameter" },
      {
        name: "an unknown parameter",
        body: { model: "m", messages: [user], max_output_tokens: 5 },
        status: 400,
        message: "Unrecognized request argument supplied: max_output_tokens"
      },
      {
        name: "no messages",
        body: { model: "m", messages: [] },
        status: 400,
        message: "Invalid 'messages': empty array.",
        code: "empty_array"
      },
      {
        name: "an unknown role",
        body: { model: "m", messages: [{ role: "bot", content: "hi" }] },
        status: 400,
        message: "Invalid value: 'bot'. Supported values are",
        code: "invalid_value"
      },
      {
        name: "a tool message after no tool call",
        body: { model: "m", messages: [user, { role: "tool", tool_call_id: "call_1", content: "x" }] },
        status: 400,
        message: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"
      },
      {
        name: "a tool call left unanswered",
        body: { model: "m", messages: [user, { role: "assistant", content: null, tool_calls: [call] }, user] },
        status: 400,
        message: "The following tool_call_ids did not have response messages: call_1"
      },
      {
        name: "a tool call without arguments",
        body: {
          model: "m",
          messages: [user, { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f" } }] }]
        },
        status: 400,
        message: "Missing required parameter: 'messages[1].tool_calls[0].function.arguments'."
      },
      {
        name: "an empty tools array",
        body: { model: "m", messages: [user], tools: [] },
        status: 400,
        message: "Invalid 'tools': empty array.",
        code: "empty_array"
      },
      {
        name: "a tool name with a space",
        body: { model: "m", messages: [user], tools: [{ ...tool, function: { name: "get weather" } }] },
        status: 400,
        message: "Invalid 'tools[0].function.name': string does not match pattern."
      },
      {
        name: "a temperature above 2",
        body: { model: "m", messages: [user], temperature: 2.5 },
        status: 400,
        message: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead.",
        code: "decimal_above_max_value"
      },
      {
        name: "max_tokens for a reasoning model",
        body: { model: "o4-mini", messages: [user], max_tokens: 10 },
        status: 400,
        message: "Use 'max_completion_tokens' instead.",
        code: "unsupported_parameter"
      }
    ]
    for (const { body, code, headers, message, name, status } of cases) {
      it.effect(name, () =>
        Effect.gen(function*() {
          const fake = yield* Fake.make({ apiKey: KEY })
          const answer = yield* post(fake, body, headers)
          assert.strictEqual(answer.status, status)
          const { error } = JSON.parse(answer.text)
          assert.deepStrictEqual(Object.keys(error), ["message", "type", "param", "code"])
          assert.strictEqual(error.type, "invalid_request_error")
          assert.include(error.message, message)
          if (code !== undefined) assert.strictEqual(error.code, code)
          assert.deepStrictEqual(fake.requests.map((request) => request.status), [status])
        }))
    }

    it.effect("an unknown path: 404 Invalid URL", () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({ apiKey: KEY })
        const client = yield* HttpClient.HttpClient
        const response = yield* client.execute(
          HttpClientRequest.post(`${fake.url}/completions`).pipe(HttpClientRequest.bearerToken(KEY))
        )
        assert.strictEqual(response.status, 404)
        assert.strictEqual(JSON.parse(yield* response.text).error.message, "Invalid URL (POST /v1/completions)")
      }).pipe(Effect.orDie, Effect.provide(FetchHttpClient.layer)))
  })
})
