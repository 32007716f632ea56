import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import type { ChatDelta, ChatModel, ChatRequest } from "./ports/ChatModel.ts"
import { ChatError } from "./ports/ChatModel.ts"
import type { LanguageProvider, Providers } from "./ports/Providers.ts"
import * as TextGeneration from "./TextGeneration.ts"

const text = (t: string): ChatDelta => ({ _tag: "Text", text: t })
const call = (name: string, args: string): ChatDelta => ({
  _tag: "ToolCall",
  call: { id: "call_1", name, arguments: args }
})
const finished: ChatDelta = { _tag: "Finished", reason: "stop" }

const scripted = (deltas: ReadonlyArray<ChatDelta>, seen: Array<ChatRequest> = []): ChatModel["Service"] => ({
  stream: (request) => {
    seen.push(request)
    return Stream.fromIterable(deltas)
  }
})

const registry = (entries: ReadonlyArray<readonly [string, LanguageProvider]>): Providers["Service"] => ({
  llm: (name) => Option.fromNullishOr(entries.find(([n]) => n === name)?.[1]),
  stt: () => Option.none(),
  tts: () => Option.none(),
  names: { llm: entries.map(([name]) => name), stt: [], tts: [] }
})

const choice = {
  type: "object",
  properties: { possible_matches: { type: "array", items: { enum: ["billing", "support"] } } },
  required: ["possible_matches"],
  additionalProperties: false,
  title: "ChoiceModel"
}

describe("TextGeneration", () => {
  describe("defaultChatModel", () => {
    it("is the first chat provider in the configured order, skipping speech-to-speech ones", () => {
      const first = scripted([])
      const second = scripted([])
      const realtime: LanguageProvider = {
        _tag: "SpeechToSpeech",
        model: { encoding: "mulaw", converse: () => Effect.die("unused") }
      }
      const chosen = TextGeneration.defaultChatModel(registry([
        ["realtime", realtime],
        ["local", { _tag: "Chat", model: first }],
        ["gpt", { _tag: "Chat", model: second }]
      ]))
      assert.strictEqual(Option.getOrThrow(chosen).name, "local")
      assert.strictEqual(Option.getOrThrow(chosen).model, first)
    })

    it("is none without a chat provider", () => {
      assert.isTrue(Option.isNone(TextGeneration.defaultChatModel(registry([]))))
    })
  })

  describe("chatRequest", () => {
    it("sends the prompt alone when no schema is asked for", () => {
      assert.deepStrictEqual(TextGeneration.chatRequest({ prompt: "Say hi" }), {
        messages: [{ role: "user", content: "Say hi" }]
      })
    })

    it("gives an object schema to the answer tool as its parameters, and asks for the call", () => {
      const request = TextGeneration.chatRequest({ prompt: "Classify", jsonSchema: choice })
      assert.deepStrictEqual(request.tools?.map((tool) => [tool.name, tool.parameters]), [["respond", choice]])
      assert.strictEqual(request.messages[0]?.role, "system")
      assert.include(request.messages[0]?.content ?? "", "respond")
      assert.deepStrictEqual(request.messages[1], { role: "user", content: "Classify" })
    })

    it("wraps any other schema as the property `value` of an object", () => {
      const request = TextGeneration.chatRequest({ prompt: "A list", jsonSchema: { type: "array" } })
      assert.deepStrictEqual(request.tools?.[0]?.parameters, {
        type: "object",
        properties: { value: { type: "array" } },
        required: ["value"]
      })
    })
  })

  describe("answerText", () => {
    it("joins the text when no schema was asked for", () => {
      assert.strictEqual(TextGeneration.answerText({ prompt: "p" }, [text("Hel"), text("lo"), finished]), "Hello")
    })

    it("answers the answer tool's arguments, unwrapped when the schema was wrapped", () => {
      const args = `{"possible_matches":["billing"]}`
      assert.strictEqual(
        TextGeneration.answerText({ prompt: "p", jsonSchema: choice }, [text("ok"), call("respond", args)]),
        args
      )
      assert.strictEqual(
        TextGeneration.answerText({ prompt: "p", jsonSchema: { type: "array" } }, [call("respond", `{"value":[1,2]}`)]),
        "[1,2]"
      )
      assert.strictEqual(
        TextGeneration.answerText({ prompt: "p", jsonSchema: { type: "array" } }, [call("respond", "not json")]),
        "not json"
      )
    })

    it("falls back to the text, without a code fence, when the model did not call the tool", () => {
      const fenced = [text("```json\n"), text(`{"possible_matches":[]}`), text("\n```")]
      assert.strictEqual(
        TextGeneration.answerText({ prompt: "p", jsonSchema: choice }, fenced),
        `{"possible_matches":[]}`
      )
      assert.strictEqual(
        TextGeneration.answerText({ prompt: "p", jsonSchema: choice }, [call("other", "{}"), text(" [] ")]),
        "[]"
      )
    })
  })

  describe("generate", () => {
    it.effect("runs the request on the model and answers its text", () =>
      Effect.gen(function*() {
        const seen: Array<ChatRequest> = []
        const model = scripted([call("respond", `{"possible_matches":["support"]}`), finished], seen)
        const answer = yield* TextGeneration.generate(model, { prompt: "Help", jsonSchema: choice })
        assert.strictEqual(answer, `{"possible_matches":["support"]}`)
        assert.strictEqual(seen.length, 1)
        assert.strictEqual(seen[0]?.tools?.[0]?.name, "respond")
      }))

    it.effect("fails with the model's error", () =>
      Effect.gen(function*() {
        const failing: ChatModel["Service"] = {
          stream: () => Stream.fail(new ChatError({ reason: "unavailable", message: "down" }))
        }
        const error = yield* Effect.flip(TextGeneration.generate(failing, { prompt: "Hi" }))
        assert.strictEqual(error.reason, "unavailable")
      }))
  })
})
