import { describe, expect, it } from "vitest"
import { decodeEvent } from "./Events.ts"

describe("decodeEvent", () => {
  it("decodes each event type into its camelCase form", () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [{ event_type: "caller-speech", utterance: "hi", utterance_id: "u1", sequence: 4 }, {
        type: "caller-speech",
        utterance: "hi",
        utteranceId: "u1"
      }],
      [{ event_type: "agent-speech", utterance: "hello" }, {
        type: "agent-speech",
        utterance: "hello",
        interrupted: false
      }],
      [{ event_type: "action-item-done", key: "dob", payload: { year: 1990, month: 4, day: 2 } }, {
        type: "action-item-done",
        key: "dob",
        value: { year: 1990, month: 4, day: 2 }
      }],
      [{ event_type: "action-item-done", key: "age", payload: 42 }, {
        type: "action-item-done",
        key: "age",
        value: 42
      }],
      [{ event_type: "task-done", task_id: "t" }, { type: "task-done", taskId: "t" }],
      [{ event_type: "agent-question", question_id: "q", question: "?" }, {
        type: "agent-question",
        questionId: "q",
        question: "?"
      }],
      [{ event_type: "choice-query", field_key: "f", query: "q", query_id: "i" }, {
        type: "choice-query",
        fieldKey: "f",
        query: "q",
        queryId: "i"
      }],
      [{ event_type: "action-request", intent_id: "i", intent_summary: "s" }, {
        type: "action-request",
        intentId: "i",
        intentSummary: "s"
      }],
      [{ event_type: "execute-action", action_key: "refund" }, { type: "execute-action", actionKey: "refund" }],
      [{ event_type: "escalate" }, { type: "escalate", requestedBy: "human" }],
      [{ event_type: "dtmf", digit: "#", recent_digits: "12#" }, { type: "dtmf", digit: "#", recentDigits: "12#" }],
      [{ event_type: "outbound-call-connected" }, { type: "outbound-call-connected" }],
      [{ event_type: "outbound-call-failed", error_code: 486, error_reason: "busy" }, {
        type: "outbound-call-failed",
        errorCode: 486,
        errorReason: "busy"
      }],
      [{ event_type: "bot-session-ended", termination_reason: "user-hangup" }, {
        type: "bot-session-ended",
        terminationReason: "user-hangup",
        dnc: false
      }],
      [{ event_type: "warning", content: "slow" }, { type: "warning", content: "slow" }]
    ]
    for (const [payload, event] of cases) {
      expect(decodeEvent(payload as never)).toEqual({ _tag: "event", event })
    }
  })

  it("skips unknown types and reports invalid known ones", () => {
    expect(decodeEvent({ event_type: "session-started", session_id: "x" })).toEqual({
      _tag: "unknown",
      eventType: "session-started"
    })
    expect(decodeEvent({ utterance: "x" })._tag).toBe("invalid")
    expect(decodeEvent({ event_type: "bot-session-ended", termination_reason: "bored" })._tag).toBe("invalid")
    expect(decodeEvent({ event_type: "outbound-call-failed", error_code: "486", error_reason: "busy" })._tag).toBe(
      "invalid"
    )
    expect(decodeEvent({ event_type: "toString" })._tag).toBe("unknown")
  })
})
