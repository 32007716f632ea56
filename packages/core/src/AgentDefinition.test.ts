import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  CreateAgentRequest,
  fromCreateRequest,
  fromUpdateRequest,
  isAgentId,
  unknownProvider
} from "./AgentDefinition.ts"

const decode = Schema.decodeUnknownExit(CreateAgentRequest)

const body = (task: unknown) => ({ name: "Front desk", persona: {}, task })

describe("AgentDefinition", () => {
  describe("unknownProvider", () => {
    const configured = { llm: ["gpt", "llama"], stt: ["deepgram"], tts: [] }

    it("accepts configured names and absent or null ones", () => {
      assert.isUndefined(unknownProvider(configured, { llm: "gpt", stt: "deepgram", tts: null }))
      assert.isUndefined(unknownProvider(configured, {}))
      assert.isUndefined(unknownProvider(undefined, { llm: null, stt: undefined }))
    })

    it("names the first unknown one and the configured names of its kind", () => {
      const error = unknownProvider(configured, { llm: "gpt", stt: "whisper" })
      assert.strictEqual(error?.kind, "stt")
      assert.strictEqual(error?.message, `Unknown stt provider "whisper" (configured: deepgram)`)
      assert.strictEqual(
        unknownProvider(configured, { tts: "voice" })?.message,
        `Unknown tts provider "voice" (no tts providers are configured)`
      )
    })

    it("without a Providers service nothing is configured", () => {
      assert.strictEqual(
        unknownProvider(undefined, { llm: "gpt" })?.message,
        `Unknown llm provider "gpt" (no llm providers are configured)`
      )
    })
  })

  describe("CreateAgentRequest", () => {
    it("takes the reference SDK's items and fills the stored persona", () => {
      const task = {
        objective: "Book",
        action_items: [
          { item_type: "say", key: "hi", statement: "Hello" },
          { item_type: "field", key: "name", field_type: "text", question: "Name?", choices: [], sensitive: false },
          { item_type: "field", key: "when", field_type: "multiple_choice", choices: ["am", "pm"], required: true },
          { item_type: "todo", key: "done", description: "Wrap up" }
        ]
      } as const
      const decoded = decode({ ...body(task), persona: { agent_name: "Riley" }, llm: null })
      assert.isTrue(decoded._tag === "Success")
      if (decoded._tag !== "Success") return
      assert.deepStrictEqual(fromCreateRequest(decoded.value), {
        name: "Front desk",
        persona: { agent_name: "Riley", organization_name: null, agent_purpose: null, voice: null },
        task,
        instructions: null,
        language: null,
        llm: null,
        stt: null,
        tts: null
      })
    })

    it("refuses duplicate keys, too few or misplaced choices, and too many items", () => {
      const field = (extra: object) => ({ item_type: "field", key: "f", field_type: "text", ...extra })
      const bad = [
        { objective: "x", action_items: [field({}), field({})] },
        { objective: "x", action_items: [field({ field_type: "multiple_choice", choices: ["one"] })] },
        { objective: "x", action_items: [field({ choices: ["a", "b"] })] },
        {
          objective: "x",
          action_items: Array.from({ length: 101 }, (_, i) => ({ item_type: "todo", key: `t${i}`, description: "" }))
        }
      ]
      for (const task of bad) assert.strictEqual(decode(body(task))._tag, "Failure", JSON.stringify(task).slice(0, 80))
    })
  })

  describe("fromUpdateRequest", () => {
    it("keeps only the supplied fields; null clears", () => {
      assert.deepStrictEqual(fromUpdateRequest({ instructions: null, llm: "gpt" }), { instructions: null, llm: "gpt" })
      assert.deepStrictEqual(fromUpdateRequest({}), {})
    })
  })

  describe("isAgentId", () => {
    it("is agt- and 20 lowercase hex digits", () => {
      assert.isTrue(isAgentId("agt-0123456789abcdef0123"))
      assert.isFalse(isAgentId("agt-0123456789ABCDEF0123"))
      assert.isFalse(isAgentId("gcmp-0123456789abcdef0123"))
      assert.isFalse(isAgentId("agt-0123"))
    })
  })
})
