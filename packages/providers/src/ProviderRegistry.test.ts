import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { chatProvider } from "./ProviderRegistry.ts"

describe("chatProvider", () => {
  it("is the first openai-chat entry of llm in the file's order, skipping realtime ones", () => {
    const chosen = chatProvider({
      llm: {
        realtime: { type: "openai-realtime", model: "gpt-realtime" },
        local: { type: "openai-chat", base_url: "http://127.0.0.1:11434/v1", model: "llama3.1" },
        gpt: { type: "openai-chat", model: "gpt-4o-mini" }
      }
    })
    assert.deepStrictEqual(Option.map(chosen, ([name]) => name), Option.some("local"))
  })

  it("is none without an openai-chat entry", () => {
    assert.isTrue(Option.isNone(chatProvider({})))
    assert.isTrue(Option.isNone(chatProvider({ llm: { rt: { type: "openai-realtime", model: "m" } } })))
  })
})
