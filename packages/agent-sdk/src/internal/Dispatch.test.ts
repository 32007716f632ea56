import { describe, expect, it } from "vitest"
import { Call } from "../Call.ts"
import { Field } from "../Checklist.ts"
import type { Command } from "../Commands.ts"
import type { CallEvent } from "../Events.ts"
import type { Hooks } from "../Hooks.ts"
import { emptyHooks } from "../Hooks.ts"
import { silentLogger } from "../Logger.ts"
import { CallState } from "./CallState.ts"
import { dispatch } from "./Dispatch.ts"

const setup = (configure: (hooks: Hooks) => void = () => {}) => {
  const sent: Array<Command> = []
  const state = new CallState("c", (command) => sent.push(command), silentLogger)
  const call = new Call("c", { callType: "pstn", fromNumber: null, toNumber: "+15550123" }, state)
  const hooks = emptyHooks()
  configure(hooks)
  const run = (...events: Array<CallEvent>) =>
    events.reduce((previous, event) => previous.then(() => dispatch(hooks, call, state, event)), Promise.resolve())
  return { sent, state, call, hooks, run }
}

describe("dispatch", () => {
  it("records fields, then runs the task's own handler before the generic one", async () => {
    const seen: Array<string> = []
    const { run, call } = setup((hooks) => {
      hooks.taskComplete = (_call, taskId) => void seen.push(`generic ${taskId}`)
      hooks.taskCompleteById.set("intake", (c) => void seen.push(`intake ${c.getText("name") ?? ""}`))
    })
    call.setTask("intake", { checklist: ["x"] })
    await run(
      { type: "action-item-done", key: "name", value: "Ada" },
      { type: "task-done", taskId: "intake" },
      { type: "task-done", taskId: "other" }
    )
    expect(seen).toEqual(["intake Ada", "generic other"])
  })

  it("retries a task whose field fails validation, with the reasons", async () => {
    let completed = false
    const { run, call, sent } = setup((hooks) => {
      hooks.validate.set(
        "age",
        (_call, value) => typeof value === "number" && value >= 18 ? undefined : "Must be an adult."
      )
      hooks.taskCompleteById.set("t", () => {
        completed = true
      })
    })
    call.setTask("t", { checklist: [new Field({ key: "age", fieldType: "integer" })] })
    sent.length = 0
    await run({ type: "action-item-done", key: "age", value: 12 }, { type: "task-done", taskId: "t" })
    expect(sent).toEqual([{ command_type: "retry-task", reason: "Must be an adult." }])
    expect(completed).toBe(false)
    await run({ type: "action-item-done", key: "age", value: 30 }, { type: "task-done", taskId: "t" })
    expect(completed).toBe(true)
  })

  it("answers questions: the handler's answer, a fallback without handler, an apology on failure", async () => {
    const answered = setup((hooks) => {
      hooks.question = async (_call, question) => `echo ${question}`
    })
    await answered.run({ type: "agent-question", questionId: "q1", question: "hours?" })
    expect(answered.sent).toEqual([{ command_type: "answer-question", question_id: "q1", answer: "echo hours?" }])

    const none = setup()
    await none.run({ type: "agent-question", questionId: "q2", question: "?" })
    expect(none.sent).toEqual([{ command_type: "answer-question", question_id: "q2", answer: expect.any(String) }])

    const failing = setup((hooks) => {
      hooks.question = () => {
        throw new Error("db down")
      }
    })
    await failing.run({ type: "agent-question", questionId: "q3", question: "?" })
    expect(failing.sent[0]).toMatchObject({ command_type: "answer-question", question_id: "q3" })
  })

  it("action requests: one match, several, none", async () => {
    const { run, sent, hooks } = setup()
    hooks.actionRequest = (_call, request) =>
      request === "refund"
        ? { key: "refund", description: "Refund the order" }
        : request === "change"
        ? [{ key: "reschedule" }, { key: "cancel" }]
        : undefined
    await run(
      { type: "action-request", intentId: "i1", intentSummary: "refund" },
      { type: "action-request", intentId: "i2", intentSummary: "change" },
      { type: "action-request", intentId: "i3", intentSummary: "weather" }
    )
    expect(sent).toEqual([
      {
        command_type: "action-suggestion",
        intent_id: "i1",
        action_key: "refund",
        action_description: "Refund the order",
        actions: [{ key: "refund", description: "Refund the order" }]
      },
      {
        command_type: "action-suggestion",
        intent_id: "i2",
        action_key: null,
        action_description: "",
        actions: [{ key: "reschedule", description: "" }, { key: "cancel", description: "" }]
      },
      { command_type: "action-suggestion", intent_id: "i3", action_key: null, action_description: "", actions: [] }
    ])
  })

  it("runs actions (a string result becomes an instruction) and search queries", async () => {
    const { run, sent, hooks } = setup()
    hooks.actionByKey.set("refund", () => "Refund #12 issued.")
    hooks.searchQuery.set("slot", (_call, query) => ({ matched: [`${query} 9:00`], other: ["Friday 10:00"] }))
    await run(
      { type: "execute-action", actionKey: "refund" },
      { type: "choice-query", fieldKey: "slot", query: "Monday", queryId: "s1" },
      { type: "choice-query", fieldKey: "nope", query: "x", queryId: "s2" }
    )
    expect(sent).toEqual([
      { command_type: "send-instruction", instruction: expect.stringContaining("Refund #12 issued.") },
      {
        command_type: "choice-query-result",
        field_key: "slot",
        query_id: "s1",
        matched_choices: ["Monday 9:00"],
        other_choices: ["Friday 10:00"]
      },
      { command_type: "expert-error", message: expect.stringContaining("nope") }
    ])
  })

  it("escalation without a handler instructs the agent; a failing handler sends expert-error", async () => {
    const none = setup()
    await none.run({ type: "escalate", requestedBy: "agent" })
    expect(none.sent[0]).toMatchObject({ command_type: "send-instruction" })
    const failing = setup((hooks) => {
      hooks.escalate = () => Promise.reject(new Error("no"))
    })
    await failing.run({ type: "escalate", requestedBy: "human" })
    expect(failing.sent[0]).toMatchObject({ command_type: "expert-error" })
  })
})
