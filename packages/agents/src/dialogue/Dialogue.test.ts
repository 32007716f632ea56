import { assert, describe, it } from "@effect/vitest"
import type { Task } from "@voice-agent/core/AgentTask"
import type { Action, Decision, Directive, Event, Input, Policy, State } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"

const task: Task = {
  task_id: "t-1",
  objective: "Collect payment details",
  action_items: [
    { item_type: "field", key: "name", field_type: "text", question: "What is your name?" },
    { item_type: "field", key: "cvv", field_type: "cvv", question: "What is the security code?" },
    { item_type: "field", key: "pin", field_type: "digit_sequence", sensitive: true }
  ]
}

const started: Event = {
  _tag: "CallStarted",
  direction: "outbound",
  from: "+15550001111",
  to: "+15550002222",
  variables: { first_name: "Ada" },
  answeredBy: "human",
  today: { year: 2027, month: 3, day: 3 }
}

/** A policy that answers each input with the directives `script` gives it, and records what it saw. */
const scripted = (script: (state: State, input: Input) => ReadonlyArray<Directive>) => {
  const seen: Array<Input> = []
  const policy: Policy = {
    decide: (state, input): Decision => {
      seen.push(input)
      return { state, actions: script(state, input) }
    }
  }
  return { policy, seen }
}

const texts = (actions: ReadonlyArray<Action>) =>
  actions.flatMap((action) =>
    action._tag === "Say" || action._tag === "Ask" || action._tag === "RecordTurn"
      ? [action.text]
      : action._tag === "Transfer"
      ? [action.message]
      : []
  )

describe("make", () => {
  it("starts with every item pending and nothing said", () => {
    const state = Dialogue.make({ task, persona: { agent_name: "Grace" }, variables: { plan: "gold" } })
    assert.deepStrictEqual(state.items.map((entry) => entry.status), ["pending", "pending", "pending"])
    assert.strictEqual(state.language, "english")
    assert.deepStrictEqual(state.variables, { plan: "gold" })
    assert.isUndefined(state.call)
    assert.isUndefined(state.ended)
  })
})

describe("step", () => {
  it("records the call and merges the contact's data over the variables", () => {
    const { policy, seen } = scripted(() => [])
    const state = Dialogue.make({ task, variables: { plan: "gold", first_name: "nobody" } })
    const next = Dialogue.step(state, started, policy).state
    assert.deepStrictEqual(next.variables, { plan: "gold", first_name: "Ada" })
    assert.strictEqual(next.call?.direction, "outbound")
    assert.deepStrictEqual(next.call?.today, { year: 2027, month: 3, day: 3 })
    assert.strictEqual(seen[0]?._tag, "CallStarted")
  })

  it("numbers speech and timers, and resolves playback reports to their speech", () => {
    const { policy, seen } = scripted((_, input) =>
      input._tag === "CallStarted"
        ? [{ _tag: "Say", text: "Hi.", sensitiveFree: true }, { _tag: "Ask", key: "name", text: "Name?" }, {
          _tag: "StartSilenceTimer",
          ms: 5000
        }]
        : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    assert.deepStrictEqual(first.actions, [
      { _tag: "Say", id: 1, text: "Hi.", sensitiveFree: true, key: undefined },
      { _tag: "Ask", id: 2, key: "name", text: "Name?" },
      { _tag: "StartSilenceTimer", id: 3, ms: 5000 }
    ])
    assert.strictEqual(first.state.awaiting, "name")
    assert.strictEqual(first.state.timer, 3)
    const played = Dialogue.step(first.state, { _tag: "SpeechPlayed", id: 1, offsetMs: 900 }, policy)
    const last = seen.at(-1)
    assert.strictEqual(last?._tag === "SpeechPlayed" ? last.speech.text : undefined, "Hi.")
    assert.deepStrictEqual(played.state.speaking.map((speech) => speech.id), [2])
    // Unknown speech: not passed on.
    const count = seen.length
    Dialogue.step(played.state, { _tag: "SpeechPlayed", id: 99, offsetMs: 950 }, policy)
    assert.strictEqual(seen.length, count)
  })

  it("drops every speech queued after an interrupted one", () => {
    const { policy, seen } = scripted((_, input) =>
      input._tag === "CallStarted"
        ? [
          { _tag: "Say", text: "One.", sensitiveFree: true },
          { _tag: "Say", text: "Two.", sensitiveFree: true, key: "s" },
          { _tag: "Ask", key: "name", text: "Three?" }
        ]
        : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    const cut = Dialogue.step(
      first.state,
      { _tag: "SpeechInterrupted", id: 2, offsetMs: 1500, playedMs: 300 },
      policy
    )
    assert.deepStrictEqual(cut.state.speaking.map((speech) => speech.text), ["One."])
    const input = seen.at(-1)
    assert.strictEqual(input?._tag, "SpeechInterrupted")
    if (input?._tag === "SpeechInterrupted") {
      assert.strictEqual(input.speech.kind, "statement")
      assert.deepStrictEqual(input.dropped.map((speech) => speech.kind), ["statement", "question"])
    }
  })

  it("drops a timeout of a timer that was replaced or cleared by the caller speaking", () => {
    const { policy, seen } = scripted((_, input) =>
      input._tag === "CallStarted" ? [{ _tag: "StartSilenceTimer", ms: 10 }] : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    const spoke = Dialogue.step(first.state, { _tag: "Utterance", text: "hello", offsetMs: 5 }, policy)
    assert.isUndefined(spoke.state.timer)
    const count = seen.length
    const stale = Dialogue.step(spoke.state, { _tag: "SilenceTimeout", id: 1, offsetMs: 20 }, policy)
    assert.strictEqual(seen.length, count)
    assert.deepStrictEqual(stale.actions, [])
  })

  it("stores a recorded field, marks it sensitive, and ignores keys outside the task", () => {
    const { policy } = scripted((_, input) =>
      input._tag === "Utterance"
        ? [{ _tag: "RecordField", key: "cvv", value: "123" }, { _tag: "RecordField", key: "nope", value: "x" }]
        : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    const next = Dialogue.step(first.state, { _tag: "Utterance", text: "one two three", offsetMs: 10 }, policy)
    assert.deepStrictEqual(next.actions.filter((action) => action._tag === "RecordField"), [
      { _tag: "RecordField", key: "cvv", value: "123", sensitive: true }
    ])
    assert.deepStrictEqual(Dialogue.values(next.state), { cvv: "123" })
    assert.strictEqual(next.state.items[1]?.status, "done")
  })

  it("records the caller's turn, redacted while a sensitive field is awaited", () => {
    const { policy } = scripted((_, input) =>
      input._tag === "CallStarted" ? [{ _tag: "Ask", key: "cvv", text: "What is the security code?" }] : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    const next = Dialogue.step(first.state, { _tag: "Utterance", text: "it's 4 5 6", offsetMs: 10 }, policy)
    assert.deepStrictEqual(next.actions, [{ _tag: "RecordTurn", speaker: "HUMAN", text: "[redacted]", offsetMs: 10 }])
    assert.deepStrictEqual(next.state.turns.at(-1), { speaker: "HUMAN", text: "[redacted]" })
    // Blank transcripts are not turns.
    assert.deepStrictEqual(
      Dialogue.step(first.state, { _tag: "Utterance", text: "  ", offsetMs: 11 }, policy).actions,
      []
    )
  })

  it("redacts a collected sensitive value wherever a policy would say it", () => {
    const { policy } = scripted((_, input) =>
      input._tag === "Utterance"
        ? [
          { _tag: "RecordField", key: "cvv", value: "123" },
          { _tag: "RecordField", key: "pin", value: "9876" },
          { _tag: "Say", text: "Your code is 123 and your pin is 9 8 7 6, got it.", sensitiveFree: true },
          { _tag: "Ask", key: "name", text: "Was it one-2-3? I mean 1-2-3." },
          { _tag: "Transfer", to: "+15550003333", message: "Transferring with code 123." }
        ]
        : []
    )
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    const next = Dialogue.step(first.state, { _tag: "Utterance", text: "ok", offsetMs: 10 }, policy)
    assert.deepStrictEqual(texts(next.actions), [
      "ok",
      "Your code is [redacted] and your pin is [redacted], got it.",
      "Was it one-2-3? I mean [redacted].",
      "Transferring with code [redacted]."
    ])
    // The caller repeating a collected value later is redacted in the transcript too.
    const { policy: quiet } = scripted(() => [])
    const again = Dialogue.step(next.state, { _tag: "Utterance", text: "I said 123", offsetMs: 20 }, quiet)
    assert.isTrue(again.state.transferring !== undefined) // the transfer is under way: nothing more happens
    assert.deepStrictEqual(again.actions, [])
  })

  it("writes a say that is not sensitive-free to the turns as redacted", () => {
    const { policy } = scripted((_, input) =>
      input._tag === "CallStarted" ? [{ _tag: "Say", text: "Reading back your details.", sensitiveFree: false }] : []
    )
    const next = Dialogue.step(Dialogue.make({ task }), started, policy)
    assert.deepStrictEqual(next.state.turns, [{ speaker: "AGENT", text: "[redacted]" }])
    assert.strictEqual(next.actions[0]?._tag === "Say" && next.actions[0].sensitiveFree, false)
  })

  it("ends on EndCall or Transfer: later directives and events are ignored", () => {
    const { policy } = scripted((_, input) =>
      input._tag === "CallStarted"
        ? [{ _tag: "Transfer", to: "+15550003333", message: "One moment." }, {
          _tag: "Say",
          text: "never",
          sensitiveFree: true
        }]
        : [{ _tag: "Say", text: "never", sensitiveFree: true }]
    )
    const next = Dialogue.step(Dialogue.make({ task }), started, policy)
    assert.deepStrictEqual(next.actions, [{ _tag: "Transfer", to: "+15550003333", message: "One moment." }])
    // Under way until the carrier answers: nothing else happens meanwhile.
    assert.deepStrictEqual(next.state.transferring, { to: "+15550003333", id: undefined })
    assert.isUndefined(next.state.ended)
    assert.deepStrictEqual(
      Dialogue.step(next.state, { _tag: "Utterance", text: "hello?", offsetMs: 10 }, policy).actions,
      []
    )
    const moved = Dialogue.step(next.state, { _tag: "Transferred" }, policy)
    assert.deepStrictEqual(moved.state.ended, { outcome: "transfer", endedBy: "agent", transferTo: "+15550003333" })
    assert.deepStrictEqual(
      Dialogue.step(moved.state, { _tag: "Utterance", text: "hello?", offsetMs: 10 }, policy).actions,
      []
    )
  })

  it("a refused transfer goes back to the policy, which takes the call up again", () => {
    const { policy, seen } = scripted((_, input) =>
      input._tag === "CallStarted"
        ? [{ _tag: "Transfer", to: "+15550003333", message: "", id: "call_1" }]
        : input._tag === "TransferRefused"
        ? [{ _tag: "Say", text: "Sorry, that did not work.", sensitiveFree: true }]
        : []
    )
    const next = Dialogue.step(Dialogue.make({ task }), started, policy)
    const refused = Dialogue.step(next.state, { _tag: "TransferRefused", reason: "busy" }, policy)
    assert.deepStrictEqual(seen.at(-1), { _tag: "TransferRefused", to: "+15550003333", id: "call_1", reason: "busy" })
    assert.isUndefined(refused.state.transferring)
    assert.isUndefined(refused.state.ended)
    assert.deepStrictEqual(texts(refused.actions), ["Sorry, that did not work."])
    // A report with no transfer under way changes nothing; the caller hanging up during one ends the call.
    assert.deepStrictEqual(Dialogue.step(refused.state, { _tag: "Transferred" }, policy).state, refused.state)
    assert.deepStrictEqual(Dialogue.step(next.state, { _tag: "HungUp", offsetMs: 9 }, policy).state.ended, {
      outcome: "cut-short",
      endedBy: "remote"
    })
  })

  it("ends by the caller hanging up: completed after the task, else cut-short", () => {
    const { policy } = scripted((_, input) => input._tag === "Utterance" ? [{ _tag: "CompleteTask" }] : [])
    const first = Dialogue.step(Dialogue.make({ task }), started, policy)
    assert.deepStrictEqual(Dialogue.step(first.state, { _tag: "HungUp", offsetMs: 5 }, policy).state.ended, {
      outcome: "cut-short",
      endedBy: "remote"
    })
    const done = Dialogue.step(first.state, { _tag: "Utterance", text: "done", offsetMs: 5 }, policy)
    assert.deepStrictEqual(done.actions.at(-1), { _tag: "CompleteTask", taskId: "t-1" })
    assert.deepStrictEqual(Dialogue.step(done.state, { _tag: "HungUp", offsetMs: 6 }, policy).state.ended, {
      outcome: "completed",
      endedBy: "remote"
    })
  })
})

describe("scrub", () => {
  it("leaves text alone until a sensitive value is collected, and never redacts other values", () => {
    const state = Dialogue.make({ task })
    assert.strictEqual(Dialogue.scrub(state, "code 123"), "code 123")
    const collected = Dialogue.recordField(Dialogue.recordField(state, "name", "Ada"), "cvv", "123")
    assert.strictEqual(Dialogue.scrub(collected, "Ada, code 123, not 1234"), "Ada, code [redacted], not 1234")
  })
})
