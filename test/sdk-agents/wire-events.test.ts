/**
 * Every event the engine sends on a call socket (`Wire`) as the Python SDK 0.35's strict models
 * read it (the replay's `decode_event_dict`): each note kind, every field type's value, the
 * session's end and failures. An event the SDK cannot parse kills a real agent.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Note } from "@voice-agent/agents/ConversationAgent"
import * as Wire from "@voice-agent/sdk-agents/Wire"
import { decodeEventDict } from "../support/guava-sdk/Events.ts"

const notes: ReadonlyArray<Note> = [
  { _tag: "CallerSpeech", text: "Hello?", offsetMs: 1200 },
  { _tag: "AgentSpeech", text: "Hi, this is Grace.", interrupted: false },
  { _tag: "FieldRecorded", key: "name", value: "Alex Morgan" },
  { _tag: "FieldRecorded", key: "guests", value: 42 },
  { _tag: "FieldRecorded", key: "born", value: { year: 2027, month: 3, day: 3 } },
  { _tag: "FieldRecorded", key: "slot", value: "2026-11-24T10:00" },
  { _tag: "TaskCompleted", taskId: "intake" },
  { _tag: "TaskCompleted", taskId: undefined },
  { _tag: "Question", id: "7", text: "What are your hours?" },
  { _tag: "ActionRequest", id: "8", text: "I'd like to cancel my booking" },
  { _tag: "ChoiceQuery", id: "9", key: "doctor", query: "doctor smith" },
  { _tag: "Escalate" },
  { _tag: "Dtmf", digit: "5" },
  { _tag: "TransferFailed", to: "+12025550171", reason: "destination +12025550171 is unreachable" }
]

describe("the call socket's events, as the Python SDK reads them", () => {
  it("every note passes the SDK's model for its event type, with no value converted", () => {
    for (const note of notes) {
      const payload = Wire.noteEvent(note, "45")
      const converted: Array<string> = []
      const event = decodeEventDict({ ...payload }, converted)
      assert.isNotNull(event, JSON.stringify(payload))
      assert.deepStrictEqual(converted, [], JSON.stringify(payload))
      assert.strictEqual(event?.event_type, payload["event_type"])
    }
  })

  it("an action request reaches the SDK as action-request with its id and summary", () => {
    const event = decodeEventDict({ ...Wire.noteEvent({ _tag: "ActionRequest", id: "8", text: "cancel" }, "") })
    assert.deepStrictEqual(event && { ...event }, {
      sequence: null,
      event_type: "action-request",
      intent_id: "8",
      intent_summary: "cancel"
    } as never)
  })

  it("a refused transfer reaches the SDK as a warning (the protocol has no event for it)", () => {
    const event = decodeEventDict({
      ...Wire.noteEvent({ _tag: "TransferFailed", to: "+12025550171", reason: "destination unreachable" }, "")
    })
    assert.deepStrictEqual(event && { ...event }, {
      sequence: null,
      event_type: "warning",
      content: "transfer-call to +12025550171 failed: destination unreachable; the call goes on"
    } as never)
  })

  it("warnings, actions to run and the end of the session pass too", () => {
    for (
      const payload of [
        Wire.warning("Unknown command_type \"x\": ignored."),
        Wire.executeAction("cancel_booking"),
        Wire.botSessionEnded("bot-failure", false),
        Wire.outboundCallFailed("busy")
      ]
    ) {
      const converted: Array<string> = []
      assert.isNotNull(decodeEventDict({ ...payload }, converted), JSON.stringify(payload))
      assert.deepStrictEqual(converted, [], JSON.stringify(payload))
    }
  })
})
