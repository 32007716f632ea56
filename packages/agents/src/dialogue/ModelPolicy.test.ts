import { assert, describe, it } from "@effect/vitest"
import type { Task } from "@voice-agent/core/AgentTask"
import type { Action, Event, State } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"
import * as FieldExtraction from "./FieldExtraction.ts"
import * as ModelPolicy from "./ModelPolicy.ts"
import * as ModelPrompt from "./ModelPrompt.ts"

const task: Task = {
  objective: "Book a table",
  completion_criteria: "The party size and date are known",
  action_items: [
    { item_type: "field", key: "party_size", field_type: "integer", question: "How many people?" },
    { item_type: "field", key: "card_cvv", field_type: "cvv", question: "And the card's security code?" },
    { item_type: "field", key: "note", field_type: "text", required: false }
  ]
}

const policy = ModelPolicy.make({
  extractor: (field, utterance, context) => FieldExtraction.extract(field, utterance, { today: context.today }),
  silenceMs: 5_000
})

const started: Event = {
  _tag: "CallStarted",
  direction: "outbound",
  from: "+12025550100",
  to: "+12025550101",
  variables: { name: "Ada", sim_answers: { party_size: "two" } },
  answeredBy: "human",
  today: { year: 2026, month: 11, day: 23 }
}

const run = (events: ReadonlyArray<Event>, from: State = Dialogue.make({ task })) => {
  let state = from
  const actions: Array<Action> = []
  for (const event of events) {
    const stepped = Dialogue.step(state, event, policy)
    state = stepped.state
    actions.push(...stepped.actions)
  }
  return { state, actions }
}

const tool = (id: string, name: string, args: unknown): Event => ({
  _tag: "ModelToolCall",
  id,
  name,
  arguments: JSON.stringify(args)
})

describe("ModelPolicy", () => {
  it("greets at once and asks the model; each utterance asks it again", () => {
    const { actions } = run([started, { _tag: "Utterance", text: "Hi", offsetMs: 900 }])
    assert.deepStrictEqual(actions.map((action) => action._tag), ["Say", "Generate", "RecordTurn", "Generate"])
  })

  it("speaks the model's sentences and records a field through the extractor", () => {
    const { state, actions } = run([
      started,
      { _tag: "ModelText", text: "How many people?" },
      tool("c1", "record_field", { key: "party_size", value: "four people" })
    ])
    assert.deepStrictEqual(Dialogue.values(state), { party_size: 4 })
    const said = actions.filter((action) => action._tag === "Say").map((action) => action.text)
    assert.include(said, "How many people?")
    assert.deepInclude(actions, { _tag: "ToolResult", id: "c1", output: "Recorded party_size." })
  })

  it("refuses what it cannot read, unknown fields and tools, and arguments that are not JSON", () => {
    const { state, actions } = run([
      started,
      tool("c1", "record_field", { key: "party_size", value: "a few" }),
      tool("c2", "record_field", { key: "shoe_size", value: "9" }),
      tool("c3", "launch_rocket", {}),
      { _tag: "ModelToolCall", id: "c4", name: "record_field", arguments: "{not json" }
    ])
    assert.deepStrictEqual(Dialogue.values(state), {})
    const results = actions.flatMap((action) => action._tag === "ToolResult" ? [action] : [])
    assert.deepStrictEqual(results.map((result) => result.id), ["c1", "c2", "c3", "c4"])
    for (const result of results) assert.match(result.output, /^Error: /)
  })

  it("marks every refusal refused (the runtime asks the model again only for those)", () => {
    const { actions } = run([
      started,
      tool("c1", "record_field", { key: "party_size", value: "a few" }),
      tool("c2", "complete_task", {}),
      tool("c3", "record_field", { key: "party_size", value: "2" }),
      tool("c4", "transfer", { to: "the manager" })
    ])
    const results = actions.flatMap((action) => action._tag === "ToolResult" ? [[action.id, action.refused]] : [])
    assert.deepStrictEqual(results, [["c1", true], ["c2", true], ["c3", undefined], ["c4", true]])
  })

  it("refuses to complete the task while a required field is missing, then completes and ends completed", () => {
    const early = run([started, tool("c1", "complete_task", {})])
    assert.isFalse(early.state.completed)
    assert.match(
      early.actions.flatMap((action) => action._tag === "ToolResult" ? [action.output] : []).join(""),
      /party_size, card_cvv/
    )
    const { state, actions } = run([
      started,
      tool("c1", "record_field", { key: "party_size", value: "2" }),
      tool("c2", "record_field", { key: "card_cvv", value: "one two three" }),
      tool("c3", "complete_task", {}),
      { _tag: "ModelText", text: "Thanks, goodbye." },
      tool("c4", "end_call", {})
    ])
    assert.isTrue(state.completed)
    assert.deepStrictEqual(state.ended, { outcome: "completed", endedBy: "agent" })
    assert.deepInclude(actions, { _tag: "EndCall", outcome: "completed" })
  })

  it("ends cut-short when the model hangs up before the task is complete", () => {
    const { state } = run([started, tool("c1", "end_call", { outcome: "completed" })])
    assert.deepStrictEqual(state.ended, { outcome: "cut-short", endedBy: "agent" })
  })

  it("transfers only to an E.164 number, saying the message first", () => {
    const bad = run([started, tool("c1", "transfer", { to: "the manager" })])
    assert.isUndefined(bad.state.ended)
    const { state, actions } = run([started, tool("c1", "transfer", { to: "+12025550188", message: "One moment." })])
    assert.deepStrictEqual(state.transferring, { to: "+12025550188", id: "c1" })
    assert.deepStrictEqual(actions.slice(-2).map((action) => action._tag), ["Say", "Transfer"])
    const moved = run([{ _tag: "Transferred" }], state)
    assert.deepStrictEqual(moved.state.ended, { outcome: "transfer", endedBy: "agent", transferTo: "+12025550188" })
  })

  it("a refused transfer is the transfer call's refused result: the model hears why, the call goes on", () => {
    const { state } = run([started, tool("c1", "transfer", { to: "+12025550188" })])
    const refused = run([{ _tag: "TransferRefused", reason: "the line is busy" }], state)
    assert.isUndefined(refused.state.ended)
    assert.deepStrictEqual(refused.actions, [{
      _tag: "ToolResult",
      id: "c1",
      output: "Error: the transfer to +12025550188 failed (the line is busy). " +
        "The caller is still on the line: tell them, and carry on.",
      refused: true
    }])
    // The call goes on: the caller's next words ask the model again.
    const after = run([{ _tag: "Utterance", text: "Hello?", offsetMs: 50 }], refused.state)
    assert.deepStrictEqual(after.actions.map((action) => action._tag), ["RecordTurn", "Generate"])
  })

  it("keeps a sensitive value out of the prompt, the tool results and later speech", () => {
    const { state, actions } = run([
      started,
      tool("c1", "record_field", { key: "card_cvv", value: "4 5 6" }),
      { _tag: "ModelText", text: "I have 456 as your code." }
    ])
    assert.strictEqual(Dialogue.values(state)["card_cvv"], "456")
    const prompt = ModelPrompt.systemPrompt(state)
    assert.notInclude(prompt, "456")
    assert.include(prompt, `field "card_cvv" (cvv)`)
    assert.include(prompt, "[redacted]")
    const said = actions.filter((action) => action._tag === "Say").map((action) => action.text)
    assert.include(said, "I have [redacted] as your code.")
    assert.deepInclude(actions, { _tag: "RecordField", key: "card_cvv", value: "456", sensitive: true })
  })

  it("asks again after a silence, then says goodbye and ends cut-short", () => {
    const first = run([started, { _tag: "SpeechPlayed", id: 1, offsetMs: 1_000 }])
    const timers = first.actions.flatMap((action) => action._tag === "StartSilenceTimer" ? [action.id] : [])
    assert.strictEqual(timers.length, 1)
    const id = timers[0]!
    const second = run([{ _tag: "SilenceTimeout", id, offsetMs: 6_000 }], first.state)
    assert.deepStrictEqual(second.actions.map((action) => action._tag), ["Generate"])
    const third = run([{ _tag: "SilenceTimeout", id, offsetMs: 12_000 }], {
      ...second.state,
      timer: id
    })
    assert.deepStrictEqual(third.state.ended, { outcome: "cut-short", endedBy: "agent" })
  })

  it("leaves an answering machine the voicemail line", () => {
    const { state, actions } = run([{ ...started, answeredBy: "machine" }])
    assert.deepStrictEqual(state.ended, { outcome: "voicemail", endedBy: "agent" })
    assert.strictEqual(actions[0]?._tag, "Say")
  })

  it("builds the prompt from persona, task, variables and turns (sim_answers are not the agent's)", () => {
    const { state } = run(
      [started, { _tag: "Utterance", text: "Hi there", offsetMs: 500 }],
      Dialogue.make({
        task,
        persona: { agent_name: "Sam", organization_name: "Bistro" },
        instructions: ["Be brief."]
      })
    )
    const messages = ModelPrompt.messages(state)
    assert.strictEqual(messages[0]?.role, "system")
    const system = messages[0]?.content as string
    for (const part of ["Sam", "Bistro", "Book a table", "How many people?", "name: Ada", "Be brief.", "2026-11-23"]) {
      assert.include(system, part)
    }
    assert.notInclude(system, "sim_answers")
    assert.deepStrictEqual(messages.slice(1).map((message) => message.role), ["user", "assistant", "user"])
    assert.deepStrictEqual(ModelPolicy.tools(state).map((definition) => definition.name), [
      "record_field",
      "complete_task",
      "end_call",
      "transfer"
    ])
  })
})
