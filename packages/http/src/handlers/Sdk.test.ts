/**
 * The reference SDK's housekeeping endpoints and `llm/generate` over the whole app: the
 * deprecation check and telemetry without a key, generation on a stand-in chat model (the
 * first chat provider), 501 without one, 502 when it fails.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { ChatModel, ChatRequest } from "@voice-agent/core/ports/ChatModel"
import { ChatError } from "@voice-agent/core/ports/ChatModel"
import { Providers } from "@voice-agent/core/ports/Providers"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Stream } from "effect"
import { call, serve } from "../testing/TestApp.ts"

/** The requests the stand-in model got; it fails on a prompt that says "fail". */
const seen: Array<ChatRequest> = []
const model: ChatModel["Service"] = {
  stream: (request) => {
    seen.push(request)
    const prompt = request.messages.at(-1)?.content ?? ""
    if (prompt === "fail") return Stream.fail(new ChatError({ reason: "unavailable", message: "Chat server down" }))
    return request.tools === undefined
      ? Stream.make({ _tag: "Text", text: `echo: ${prompt}` }, { _tag: "Finished", reason: "stop" })
      : Stream.make(
        { _tag: "ToolCall", call: { id: "call_1", name: "respond", arguments: `{"possible_matches":["billing"]}` } },
        { _tag: "Finished", reason: "tool_calls" }
      )
  }
}
const providers = Layer.succeed(
  Providers,
  Providers.of({
    llm: (name) => (name === "local" ? Option.some({ _tag: "Chat", model }) : Option.none()),
    stt: () => Option.none(),
    tts: () => Option.none(),
    names: { llm: ["local"], stt: [], tts: [] }
  })
)

const server = (database: TestDatabase.Backend["layer"], extra: Layer.Layer<never> | Layer.Layer<Providers>) =>
  serve(database, { services: extra })

const apiKey = Effect.gen(function*() {
  const created = yield* call("POST", "/admin/v1/organizations", {
    body: { name: `org-${Math.random().toString(36).slice(2)}` }
  })
  return (yield* call("POST", `/admin/v1/organizations/${created.body.id}/api-keys`)).body.api_key as string
})

const schema = {
  type: "object",
  properties: { possible_matches: { type: "array", items: { enum: ["billing", "support"] } } },
  required: ["possible_matches"]
}

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SDK endpoints on ${backend.name}`, () => {
    layer(server(backend.layer, providers), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("check-sdk-deprecation answers supported to GET and POST, without a key", () =>
        Effect.gen(function*() {
          for (const method of ["GET", "POST"] as const) {
            for (const query of ["?sdk_name=python-sdk&sdk_version=0.35.0", ""]) {
              const reply = yield* call(method, `/v1/check-sdk-deprecation${query}`, { token: null })
              assert.strictEqual(reply.status, 200, `${method} ${query}`)
              assert.deepStrictEqual(reply.body, { deprecation_status: "supported" })
            }
          }
          // A key, even a wrong one, changes nothing.
          const keyed = yield* call("POST", "/v1/check-sdk-deprecation?sdk_name=x", { token: "va_wrong" })
          assert.strictEqual(keyed.status, 200)
        }))

      it.effect("upload-telemetry accepts the SDK's batch with or without a key, and discards it", () =>
        Effect.gen(function*() {
          const batch = {
            events: [
              {
                timestamp_ms: 1_764_000_000_000,
                event_type: "method-call",
                data: { function_name: "Client.__init__" }
              },
              {
                timestamp_ms: 1_764_000_000_001,
                event_type: "exception-raised",
                data: { function_name: "Agent.call_phone", exception: "ValueError('x')" }
              }
            ]
          }
          const anonymous = yield* call("POST", "/v1/upload-telemetry", { token: null, body: batch })
          assert.strictEqual(anonymous.status, 202)
          assert.deepStrictEqual(anonymous.body, { accepted: 2 })
          const keyed = yield* call("POST", "/v1/upload-telemetry", { token: yield* apiKey, body: { events: [] } })
          assert.deepStrictEqual([keyed.status, keyed.body], [202, { accepted: 0 }])
          const malformed = yield* call("POST", "/v1/upload-telemetry", { token: null, body: { events: 3 } })
          assert.strictEqual(malformed.status, 422)
        }))

      it.effect("llm/generate answers the chat model's text, and JSON through the answer tool with a schema", () =>
        Effect.gen(function*() {
          const key = yield* apiKey
          const plain = yield* call("POST", "/v1/llm/generate", { token: key, body: { prompt: "Say hi" } })
          assert.strictEqual(plain.status, 200, JSON.stringify(plain.body))
          assert.deepStrictEqual(plain.body, { text: "echo: Say hi" })
          const nulled = yield* call("POST", "/v1/llm/generate", {
            token: key,
            body: { prompt: "Again", json_schema: null }
          })
          assert.deepStrictEqual(nulled.body, { text: "echo: Again" })
          const structured = yield* call("POST", "/v1/llm/generate", {
            token: key,
            body: { prompt: "Classify: my bill is wrong", json_schema: schema }
          })
          assert.strictEqual(structured.status, 200)
          assert.deepStrictEqual(JSON.parse(structured.body.text), { possible_matches: ["billing"] })
          assert.deepStrictEqual(seen.at(-1)?.tools?.[0]?.parameters, schema)
        }))

      it.effect("llm/generate: 401 without a key, 422 without a prompt, 502 when the model fails", () =>
        Effect.gen(function*() {
          const anonymous = yield* call("POST", "/v1/llm/generate", { token: null, body: { prompt: "hi" } })
          assert.strictEqual(anonymous.status, 401)
          const key = yield* apiKey
          const missing = yield* call("POST", "/v1/llm/generate", { token: key, body: {} })
          assert.strictEqual(missing.status, 422)
          assert.deepStrictEqual(missing.body.detail[0].loc, ["body", "prompt"])
          const failed = yield* call("POST", "/v1/llm/generate", { token: key, body: { prompt: "fail" } })
          assert.strictEqual(failed.status, 502)
          assert.strictEqual(failed.body.detail, `The language model "local" failed (unavailable): Chat server down`)
        }))
    })

    layer(server(backend.layer, Layer.empty), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("llm/generate answers 501, naming how to configure a model, without one", () =>
        Effect.gen(function*() {
          const reply = yield* call("POST", "/v1/llm/generate", { token: yield* apiKey, body: { prompt: "hi" } })
          assert.strictEqual(reply.status, 501)
          assert.include(reply.body.detail, "VOICE_AGENT_PROVIDERS")
          assert.include(reply.body.detail, "openai-chat")
        }))
    })
  })
}
