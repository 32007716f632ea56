import { assert, describe, it } from "@effect/vitest"
import type { Task } from "@voice-agent/core/AgentTask"
import * as DeterministicPolicy from "./DeterministicPolicy.ts"
import type { Action, Command, Event, State } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"
import * as FieldExtraction from "./FieldExtraction.ts"

// A conversation an SDK agent drives (the reference SDK's commands), under the deterministic
// policy: what the agent is told and what the caller hears, command by command.

const policy = DeterministicPolicy.make({
  extractor: (field, utterance, context) => FieldExtraction.extract(field, utterance, { today: context.today }),
  silenceMs: 5_000
})

const started: Event = {
  _tag: "CallStarted",
  direction: "outbound",
  from: "+15550000001",
  to: "+15550000002",
  variables: {},
  answeredBy: "human",
  today: { year: 2026, month: 11, day: 23 }
}

const task: Task = {
  task_id: "intake",
  objective: "Collect the caller's details",
  action_items: [
    { item_type: "say", key: "intro", statement: "This call is recorded." },
    { item_type: "field", key: "name", field_type: "text", question: "What is your name?" },
    { item_type: "field", key: "guests", field_type: "integer", question: "How many guests?" }
  ]
}

const run = (state: State, events: ReadonlyArray<Event>) => {
  let current = state
  const actions: Array<Action> = []
  for (const event of events) {
    const stepped = Dialogue.step(current, event, policy)
    current = stepped.state
    actions.push(...stepped.actions)
  }
  return { state: current, actions }
}

const command = (command: Command): Event => ({ _tag: "Command", command })
const controlled = Dialogue.make({ controller: { answersQuestions: false, handlesRequests: false } })
/** Plays every speech queued so far. */
const playAll = (state: State): ReadonlyArray<Event> =>
  state.speaking.map((speech) => ({ _tag: "SpeechPlayed", id: speech.id, offsetMs: 0 }))

describe("a conversation an SDK agent drives", () => {
  it("takes the agent's persona and first task before the call starts, and asks the task's fields", () => {
    const { actions, state } = run(controlled, [
      command({ _tag: "SetPersona", persona: { agent_name: "Grace", organization_name: "Acme" } }),
      command({ _tag: "SetTask", task }),
      started
    ])
    const spoken = actions.flatMap((action) => action._tag === "Say" || action._tag === "Ask" ? [action.text] : [])
    assert.deepStrictEqual(spoken, ["Hello, this is Grace from Acme.", "This call is recorded.", "What is your name?"])
    assert.strictEqual(state.awaiting, "name")
  })

  it("completes the task after the last field, then waits for the agent instead of hanging up", () => {
    let { state } = run(controlled, [command({ _tag: "SetTask", task }), started])
    state = run(state, playAll(state)).state
    const answered = run(state, [
      { _tag: "Utterance", text: "Alex Morgan", offsetMs: 1_000 },
      ...playAll(state),
      { _tag: "Utterance", text: "four", offsetMs: 3_000 }
    ])
    const tags = answered.actions.map((action) => action._tag)
    assert.deepStrictEqual(tags.filter((tag) => tag === "RecordField" || tag === "CompleteTask" || tag === "EndCall"), [
      "RecordField",
      "RecordField",
      "CompleteTask"
    ])
    // Values are recorded before the task is reported complete (the SDK reads them in its hook).
    assert.isTrue(tags.lastIndexOf("RecordField") < tags.indexOf("CompleteTask"))
    assert.isUndefined(answered.state.ended)
    assert.isTrue(answered.state.completed)

    // The SDK's hangup instruction ends the call, completed.
    const hangUp = run(answered.state, [
      command({ _tag: "Instruct", text: "Naturally end the conversation and hang up the call." })
    ])
    assert.deepStrictEqual(hangUp.state.ended, { outcome: "completed", endedBy: "agent" })
  })

  it("a new task replaces the old one; read-script is said verbatim; a transfer moved ends the call", () => {
    const { state } = run(controlled, [started])
    const next = run(state, [
      command({ _tag: "ReadScript", text: "Please listen carefully." }),
      command({
        _tag: "SetTask",
        task: { objective: "", action_items: [{ item_type: "field", key: "zip", field_type: "text" }] }
      })
    ])
    const spoken = next.actions.flatMap((action) => action._tag === "Say" || action._tag === "Ask" ? [action.text] : [])
    assert.deepStrictEqual(spoken, ["Please listen carefully.", "Could you tell me your zip?"])
    const transferred = run(next.state, [
      command({ _tag: "Transfer", to: "+15550000009", message: "Transferring you now.", soft: false }),
      { _tag: "Transferred" }
    ])
    assert.deepStrictEqual(transferred.state.ended, {
      outcome: "transfer",
      endedBy: "agent",
      transferTo: "+15550000009"
    })
  })

  it("a transfer the carrier refused: the caller is told, and the awaited question asked again", () => {
    const { state } = run(controlled, [started])
    const asking = run(state, [
      command({
        _tag: "SetTask",
        task: { objective: "", action_items: [{ item_type: "field", key: "zip", field_type: "text" }] }
      })
    ])
    const refused = run(asking.state, [
      command({ _tag: "Transfer", to: "+15550000009", message: "Transferring you now.", soft: false }),
      { _tag: "TransferRefused", reason: "busy" }
    ])
    assert.isUndefined(refused.state.ended)
    const spoken = refused.actions.flatMap((action) =>
      action._tag === "Say" || action._tag === "Ask" ? [action.text] : []
    )
    assert.deepStrictEqual(spoken, [
      "Transferring you now.",
      "I'm sorry, I could not transfer your call.",
      "Could you tell me your zip?"
    ])
  })

  it("hands the caller's questions to an agent that answers them, and says its answer", () => {
    let { state } = run(controlled, [
      command({ _tag: "SetHooks", answersQuestions: true, handlesRequests: false }),
      command({ _tag: "SetTask", task }),
      started
    ])
    state = run(state, playAll(state)).state
    const asked = run(state, [{ _tag: "Utterance", text: "What are your opening hours?", offsetMs: 2_000 }])
    const question = asked.actions.find((action) => action._tag === "Question")
    assert.deepStrictEqual(question && { ...question, id: "" }, {
      _tag: "Question",
      id: "",
      text: "What are your opening hours?"
    })
    const answered = run(asked.state, [
      command({ _tag: "AnswerQuestion", questionId: question!.id, answer: "We open at nine." })
    ])
    const spoken = answered.actions.flatMap((action) =>
      action._tag === "Say" || action._tag === "Ask" ? [action.text] : []
    )
    assert.deepStrictEqual(spoken, ["We open at nine.", "What is your name?"])
  })

  it("hands a request outside the task to an agent that handles them; an answer the field takes stays an answer", () => {
    const numbers: Task = {
      task_id: "count",
      objective: "",
      action_items: [{ item_type: "field", key: "guests", field_type: "integer", question: "How many guests?" }]
    }
    let { state } = run(controlled, [
      command({ _tag: "SetHooks", answersQuestions: false, handlesRequests: true }),
      command({ _tag: "SetTask", task: numbers }),
      started
    ])
    state = run(state, playAll(state)).state
    const requested = run(state, [{ _tag: "Utterance", text: "I'd like to cancel my booking", offsetMs: 1_000 }])
    const request = requested.actions.find((action) => action._tag === "ActionRequest")
    assert.strictEqual(request?._tag === "ActionRequest" ? request.text : undefined, "I'd like to cancel my booking")
    assert.isFalse(requested.actions.some((action) => action._tag === "Ask"), "not asked again meanwhile")
    // "I need to bring four" answers the field: no request.
    const answered = run(requested.state, [{ _tag: "Utterance", text: "I need to bring four", offsetMs: 2_000 }])
    assert.isFalse(answered.actions.some((action) => action._tag === "ActionRequest"))
    assert.deepStrictEqual(Dialogue.values(answered.state), { guests: 4 })
    // An agent without the hook: the request is a failed answer, asked again.
    const { state: plain } = run(controlled, [command({ _tag: "SetTask", task: numbers }), started])
    const reasked = run(run(plain, playAll(plain)).state, [
      { _tag: "Utterance", text: "I'd like to cancel my booking", offsetMs: 1_000 }
    ])
    assert.isFalse(reasked.actions.some((action) => action._tag === "ActionRequest"))
    assert.isTrue(reasked.actions.some((action) => action._tag === "Ask"))
  })

  it("a script the agent queues behind a question: an answer over it counts, and silence is timed from its end", () => {
    let { state } = run(controlled, [command({ _tag: "SetTask", task }), started])
    state = run(state, playAll(state)).state // greeting, statement and the question, heard
    const scripted = run(state, [command({ _tag: "ReadScript", text: "Calls are recorded for quality." })])
    const [script] = scripted.state.speaking
    assert.strictEqual(script?.text, "Calls are recorded for quality.")
    // The person answers while the script still plays.
    const answered = run(scripted.state, [{ _tag: "Utterance", text: "Alex Morgan", offsetMs: 4_000 }])
    assert.deepStrictEqual(Dialogue.values(answered.state), { name: "Alex Morgan" })

    // Nobody answers: once the script has played, the silence timer runs and asks again.
    const played = run(scripted.state, [{ _tag: "SpeechPlayed", id: script!.id, offsetMs: 5_000 }])
    const timer = played.actions.find((action): action is Extract<Action, { _tag: "StartSilenceTimer" }> =>
      action._tag === "StartSilenceTimer"
    )
    assert.isDefined(timer)
    const stillThere = run(played.state, [{ _tag: "SilenceTimeout", id: timer.id, offsetMs: 10_000 }])
    assert.deepStrictEqual(
      stillThere.actions.flatMap((action) => action._tag === "Ask" ? [action.text] : []),
      ["Are you still there? What is your name?"]
    )
  })

  it("asks the agent which choices of a search field match, and records the first match", () => {
    const search: Task = {
      objective: "",
      action_items: [{ item_type: "field", key: "doctor", field_type: "multiple_choice", is_search_field: true }]
    }
    let { state } = run(controlled, [command({ _tag: "SetTask", task: search }), started])
    state = run(state, playAll(state)).state
    const queried = run(state, [{ _tag: "Utterance", text: "doctor smith please", offsetMs: 1_000 }])
    const query = queried.actions.find((action) => action._tag === "ChoiceQuery")
    assert.strictEqual(query?._tag === "ChoiceQuery" ? query.query : undefined, "doctor smith please")
    const matched = run(queried.state, [
      command({ _tag: "ChoiceResult", key: "doctor", queryId: "1", matched: ["Dr. Jane Smith"] })
    ])
    assert.deepStrictEqual(Dialogue.values(matched.state), { doctor: "Dr. Jane Smith" })
  })

  it("tells the agent when the caller asks for a human; a call the agent leaves idle ends", () => {
    const { state } = run(controlled, [started])
    const asked = run(state, [{ _tag: "Utterance", text: "Can I speak to a real person", offsetMs: 500 }])
    assert.isTrue(asked.actions.some((action) => action._tag === "Escalate"))
    const timer = asked.actions.find((action): action is Extract<Action, { _tag: "StartSilenceTimer" }> =>
      action._tag === "StartSilenceTimer"
    )
    assert.isDefined(timer)
    const idle = run(asked.state, [{
      _tag: "SilenceTimeout",
      id: timer?.id ?? 0,
      offsetMs: 6_000
    }])
    assert.deepStrictEqual(idle.state.ended, { outcome: "cut-short", endedBy: "agent" })
  })
})
