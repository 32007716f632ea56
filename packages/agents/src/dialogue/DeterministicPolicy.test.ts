import { assert, describe, it } from "@effect/vitest"
import type { FieldItem, FieldValue, Task } from "@voice-agent/core/AgentTask"
import { Result } from "effect"
import * as DeterministicPolicy from "./DeterministicPolicy.ts"
import type { Extractor } from "./DeterministicPolicy.ts"
import type { Action, Event, State } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"
import * as FieldExtraction from "./FieldExtraction.ts"

const words: { readonly [word: string]: string } = {
  zero: "0",
  oh: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9"
}
const months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october"]

/** A small extractor standing in for FieldExtraction: enough of each type for these conversations. */
const stub: Extractor = (field, utterance) => {
  const said = utterance.toLowerCase().trim()
  const digits = said.split(/[^a-z0-9]+/).map((word) => words[word] ?? word).filter((word) => /^\d+$/.test(word))
    .join("")
  const fail = Result.fail({ reason: "no-value" })
  switch (field.field_type) {
    case "text":
      return said === "" || said.includes("mumble") ? fail : Result.succeed(utterance.trim())
    case "integer": {
      const match = /-?\d+/.exec(said)
      return match === null
        ? (said.includes("forty two") ? Result.succeed(42) : fail)
        : Result.succeed(Number(match[0]))
    }
    case "multiple_choice": {
      const within = (field.choices ?? []).filter((choice) => said.includes(choice.toLowerCase()))
      // A choice inside a longer one that was also said is not meant ("not interested").
      const found = within.filter((choice) =>
        !within.some((other) => other !== choice && other.toLowerCase().includes(choice.toLowerCase()))
      )
      return found.length === 1 && found[0] !== undefined ? Result.succeed(found[0]) : fail
    }
    case "date": {
      const match = /(\w+) (\d+),? (\d{4})/.exec(said)
      const month = match === null ? -1 : months.indexOf(match[1] ?? "")
      return match === null || month < 0
        ? fail
        : Result.succeed({ year: Number(match[3]), month: month + 1, day: Number(match[2]) })
    }
    case "cvv":
      return digits.length === 3 || digits.length === 4 ? Result.succeed(digits) : fail
    case "digit_sequence":
      return digits === "" ? fail : Result.succeed(digits)
    case "calendar_slot":
      return fail
  }
}

const checkout: Task = {
  task_id: "checkout",
  objective: "Take a renewal order and the card's security code",
  action_items: [
    { item_type: "say", key: "disclosure", statement: "This call may be recorded." },
    { item_type: "todo", key: "look_up", description: "Look up the customer's account" },
    { item_type: "field", key: "full_name", field_type: "text", question: "May I have your full name?" },
    { item_type: "field", key: "seats", field_type: "integer", description: "How many seats you need" },
    {
      item_type: "field",
      key: "plan",
      field_type: "multiple_choice",
      question: "Which plan would you like?",
      choices: ["Basic", "Pro", "Enterprise"]
    },
    { item_type: "field", key: "start_date", field_type: "date", question: "When should it start?" },
    { item_type: "field", key: "card_cvv", field_type: "cvv", question: "What is the security code on your card?" }
  ]
}

const persona = { agent_name: "Grace", organization_name: "Acme", agent_purpose: "Renewals" }

const started = (answeredBy: "human" | "machine" = "human", direction: "inbound" | "outbound" = "outbound"): Event => ({
  _tag: "CallStarted",
  direction,
  from: "+15550001111",
  to: "+15550002222",
  variables: { first_name: "Ada" },
  answeredBy,
  today: { year: 2027, month: 3, day: 3 }
})

const policy = DeterministicPolicy.make({ extractor: stub, silenceMs: 6000 })

/** A call: feeds events, keeps every action, and plays speech as the runtime would report it. */
const call = (definition: Dialogue.Definition, options?: DeterministicPolicy.Options) => {
  const chosen = options === undefined ? policy : DeterministicPolicy.make(options)
  let state: State = Dialogue.make(definition)
  const all: Array<Action> = []
  let clock = 0
  const send = (event: Event): ReadonlyArray<Action> => {
    const next = Dialogue.step(state, event, chosen)
    state = next.state
    all.push(...next.actions)
    return next.actions
  }
  const at = () => (clock += 100)
  return {
    get state() {
      return state
    },
    all,
    send,
    start: (answeredBy: "human" | "machine" = "human", direction: "inbound" | "outbound" = "outbound") =>
      send(started(answeredBy, direction)),
    /** Reports every queued speech played, in order. */
    playAll: () => {
      const out: Array<Action> = []
      for (const speech of state.speaking) out.push(...send({ _tag: "SpeechPlayed", id: speech.id, offsetMs: at() }))
      return out
    },
    hear: (text: string) => send({ _tag: "Utterance", text, offsetMs: at() }),
    /** Plays what is queued, then the caller says `text`: what follows what they said. */
    answer: (text: string) => {
      for (const speech of state.speaking) send({ _tag: "SpeechPlayed", id: speech.id, offsetMs: at() })
      return send({ _tag: "Utterance", text, offsetMs: at() })
    },
    timeout: () => {
      const id = state.timer
      assert.isDefined(id, "a silence timer is running")
      return send({ _tag: "SilenceTimeout", id: id ?? -1, offsetMs: at() })
    },
    key: (digits: string) => {
      const out: Array<Action> = []
      for (const digit of digits) out.push(...send({ _tag: "Dtmf", digit, offsetMs: at() }))
      return out
    }
  }
}

/** What the agent says (say and ask), in order. */
const spoken = (actions: ReadonlyArray<Action>) =>
  actions.flatMap((action) => action._tag === "Say" || action._tag === "Ask" ? [action.text] : [])

const tags = (actions: ReadonlyArray<Action>) => actions.map((action) => action._tag)

describe("questionFor", () => {
  const field = (extra: Partial<FieldItem>): FieldItem => ({
    item_type: "field",
    key: "date_of_birth",
    field_type: "text",
    ...extra
  })
  it("uses the question, else the description, else the key", () => {
    assert.strictEqual(
      DeterministicPolicy.questionFor(field({ question: "When were you born?" })),
      "When were you born?"
    )
    assert.strictEqual(
      DeterministicPolicy.questionFor(field({ description: "Your date of birth." })),
      "Could you tell me your date of birth?"
    )
    assert.strictEqual(DeterministicPolicy.questionFor(field({})), "Could you tell me your date of birth?")
    assert.strictEqual(
      DeterministicPolicy.questionFor(
        field({ key: "contactChannel", field_type: "multiple_choice", choices: ["email", "phone", "post"] })
      ),
      "Could you tell me your contact channel? Is it email, phone or post?"
    )
  })

  it("puts a description written as an instruction to a model to the caller", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [
        "Ask the patient whether they confirm their appointment or need to reschedule. Acceptable responses: 'confirm' or 'reschedule'.",
        "Could you tell me whether you confirm your appointment or need to reschedule?"
      ],
      [
        "If the patient wants to reschedule, ask for their preferred day and time for the new appointment.",
        "Could you tell me your preferred day and time for the new appointment?"
      ],
      ["Ask for the caller's date of birth", "Could you tell me your date of birth?"],
      ["Ask them to rate the visit from one to five.", "Could you rate the visit from one to five?"],
      ["The policy number on their card.", "Could you tell me the policy number on their card?"]
    ]
    for (const [description, question] of cases) {
      assert.strictEqual(DeterministicPolicy.questionFor(field({ description })), question, description)
    }
  })

  it("asks for the person the SDK's reach_person step wants", () => {
    assert.strictEqual(
      DeterministicPolicy.questionFor(field({
        key: "contact_availability",
        field_type: "multiple_choice",
        description: "The availability of Ann Lee.\nDetailed descriptions of each choice:\n - available: on the line.",
        choices: ["available", "unavailable", "voicemail", "wrong_number", "do_not_contact"]
      })),
      "May I speak with Ann Lee?"
    )
  })
})

describe("stopPhrase", () => {
  it("finds a request to stop", () => {
    for (
      const text of [
        "Please stop calling me.",
        "I'm NOT interested",
        "Goodbye!",
        "ok bye",
        "Don't call me again",
        "remove me from your list"
      ]
    ) {
      assert.isDefined(DeterministicPolicy.stopPhrase(text), text)
    }
    for (const text of ["Pro please", "I'm interested in the pro plan", "stop by on Friday", "byers street"]) {
      assert.isUndefined(DeterministicPolicy.stopPhrase(text), text)
    }
  })
})

describe("defaultLines.greeting", () => {
  const greeting = DeterministicPolicy.defaultLines.greeting
  it("introduces the persona with fallbacks", () => {
    assert.strictEqual(greeting(persona, "outbound"), "Hello, this is Grace from Acme.")
    assert.strictEqual(greeting({ agent_name: "Grace" }, "outbound"), "Hello, this is Grace.")
    assert.strictEqual(greeting({ organization_name: "Acme", agent_name: " " }, "outbound"), "Hello, this is Acme.")
    assert.strictEqual(greeting({ agent_name: null }, "outbound"), "Hello.")
    assert.strictEqual(greeting(persona, "inbound"), "Hello, this is Grace from Acme. Thank you for calling.")
  })
})

describe("make", () => {
  it("holds a full conversation: say, todo, text, integer, multiple choice, date and cvv", () => {
    const c = call({ persona, task: checkout })
    const opening = c.start()
    assert.deepStrictEqual(spoken(opening), [
      "Hello, this is Grace from Acme.",
      "This call may be recorded.",
      "May I have your full name?"
    ])
    assert.notInclude(spoken(opening).join(" "), checkout.objective)
    assert.strictEqual(c.state.items[1]?.status, "done") // the todo
    // The silence timer starts once the question has been heard.
    assert.deepStrictEqual(tags(c.playAll()), ["StartSilenceTimer"])
    assert.deepStrictEqual(spoken(c.hear("Ada Lovelace")), ["Could you tell me how many seats you need?"])
    assert.deepStrictEqual(spoken(c.answer("forty two")), ["Which plan would you like?"])
    assert.deepStrictEqual(spoken(c.answer("the pro one please")), ["When should it start?"])
    assert.deepStrictEqual(spoken(c.answer("April 1, 2027")), ["What is the security code on your card?"])
    const last = c.answer("one two three")
    assert.deepStrictEqual(tags(last), ["RecordTurn", "RecordField", "CompleteTask", "Say", "EndCall"])
    assert.deepStrictEqual(last[0]?._tag === "RecordTurn" ? last[0].text : undefined, "[redacted]")
    assert.deepStrictEqual(last[1], { _tag: "RecordField", key: "card_cvv", value: "123", sensitive: true })
    assert.deepStrictEqual(spoken(last), ["Thank you, that is everything I needed. Goodbye."])
    assert.deepStrictEqual(last.at(-1), { _tag: "EndCall", outcome: "completed" })
    assert.deepStrictEqual(Dialogue.values(c.state), {
      full_name: "Ada Lovelace",
      seats: 42,
      plan: "Pro",
      start_date: { year: 2027, month: 4, day: 1 },
      card_cvv: "123"
    })
    assert.deepStrictEqual(c.state.ended, { outcome: "completed", endedBy: "agent" })
    assert.isTrue(c.state.completed)
    const recorded: Array<readonly [string, FieldValue, boolean]> = c.all.flatMap((action) =>
      action._tag === "RecordField" ? [[action.key, action.value, action.sensitive] as const] : []
    )
    assert.deepStrictEqual(recorded.map(([key, , sensitive]) => [key, sensitive]), [
      ["full_name", false],
      ["seats", false],
      ["plan", false],
      ["start_date", false],
      ["card_cvv", true]
    ])
    // Nothing after the end.
    assert.deepStrictEqual(c.hear("wait"), [])
  })

  it("completes a task with no fields, and a conversation with no task, right after the greeting", () => {
    const c = call({
      persona,
      task: { objective: "Inform", action_items: [{ item_type: "say", key: "s", statement: "Your order shipped." }] }
    })
    const opening = c.start()
    assert.deepStrictEqual(spoken(opening), [
      "Hello, this is Grace from Acme.",
      "Your order shipped.",
      "Thank you, that is everything I needed. Goodbye."
    ])
    assert.deepStrictEqual(tags(opening), ["Say", "Say", "CompleteTask", "Say", "EndCall"])
    const bare = call({})
    assert.deepStrictEqual(tags(bare.start()), ["Say", "Say", "EndCall"])
    assert.isFalse(bare.state.completed)
    assert.strictEqual(bare.state.ended?.outcome, "completed")
  })

  it("accepts keyed digits ended by #, * to start over", () => {
    const c = call({ task: { objective: "x", action_items: [checkout.action_items[6]!] } })
    c.start()
    c.playAll()
    assert.deepStrictEqual(tags(c.key("98")), ["StartSilenceTimer", "StartSilenceTimer"])
    c.key("*")
    const done = c.key("456#")
    assert.deepStrictEqual(done.find((action) => action._tag === "RecordField"), {
      _tag: "RecordField",
      key: "card_cvv",
      value: "456",
      sensitive: true
    })
    assert.strictEqual(c.state.ended?.outcome, "completed")
  })

  it("submits keyed digits left without # when the silence timer runs out", () => {
    const c = call({ task: { objective: "x", action_items: [checkout.action_items[6]!] } })
    c.start()
    c.playAll()
    c.key("789")
    const out = c.timeout()
    assert.deepStrictEqual(out.find((action) => action._tag === "RecordField"), {
      _tag: "RecordField",
      key: "card_cvv",
      value: "789",
      sensitive: true
    })
  })

  describe("re-asks", () => {
    const required: Task = {
      objective: "x",
      action_items: [
        { item_type: "field", key: "seats", field_type: "integer", question: "How many seats?" },
        {
          item_type: "field",
          key: "plan",
          field_type: "multiple_choice",
          question: "Which plan?",
          choices: ["Basic", "Pro"]
        }
      ]
    }

    it("re-asks with a rephrase at most twice, then ends a required field cut-short", () => {
      const c = call({ task: required })
      c.start()
      assert.deepStrictEqual(spoken(c.answer("dunno")), ["Sorry, I didn't catch that. How many seats?"])
      assert.deepStrictEqual(spoken(c.answer("hmm")), ["Sorry, I didn't catch that. Could you say just the number?"])
      assert.strictEqual(c.state.reasks, 2)
      const last = c.answer("no idea")
      assert.deepStrictEqual(spoken(last), [
        "I'm sorry, I could not get that. Someone will follow up with you. Goodbye."
      ])
      assert.deepStrictEqual(last.at(-1), { _tag: "EndCall", outcome: "cut-short" })
      assert.isFalse(c.state.completed)
    })

    it("lists the choices when re-asking a multiple choice, and resets the count on the next field", () => {
      const c = call({ task: required })
      c.start()
      c.answer("hmm")
      c.answer("3")
      assert.strictEqual(c.state.reasks, 0)
      c.answer("gold")
      assert.deepStrictEqual(spoken(c.answer("silver")), [
        "Sorry, I didn't catch that. Please choose one of: Basic or Pro."
      ])
    })

    it("skips an optional field after its re-asks", () => {
      const optional: Task = {
        objective: "x",
        action_items: [
          { item_type: "field", key: "nickname", field_type: "text", question: "Any nickname?", required: false },
          { item_type: "field", key: "seats", field_type: "integer", question: "How many seats?" }
        ]
      }
      const c = call({ task: optional })
      c.start()
      c.answer("mumble")
      c.answer("mumble")
      assert.deepStrictEqual(spoken(c.answer("mumble")), ["How many seats?"])
      assert.strictEqual(c.state.items[0]?.status, "skipped")
      c.answer("2")
      assert.deepStrictEqual(Dialogue.values(c.state), { seats: 2 })
      assert.strictEqual(c.state.ended?.outcome, "completed")
    })

    it("honours maxReasks", () => {
      const c = call({ task: required }, { extractor: stub, maxReasks: 0 })
      c.start()
      assert.deepStrictEqual(c.answer("dunno").at(-1), { _tag: "EndCall", outcome: "cut-short" })
    })
  })

  describe("silence", () => {
    it("asks again once, then ends the call cut-short", () => {
      const c = call({ persona, task: checkout })
      c.start()
      c.playAll()
      assert.deepStrictEqual(spoken(c.timeout()), ["Are you still there? May I have your full name?"])
      assert.deepStrictEqual(tags(c.playAll()), ["StartSilenceTimer"])
      const last = c.timeout()
      assert.deepStrictEqual(spoken(last), ["I have not heard from you, so I will end the call here. Goodbye."])
      assert.deepStrictEqual(last.at(-1), { _tag: "EndCall", outcome: "cut-short" })
    })

    it("counts silences again from zero after the caller speaks", () => {
      const c = call({ persona, task: checkout })
      c.start()
      c.playAll()
      c.timeout()
      c.answer("Ada")
      c.playAll()
      assert.deepStrictEqual(spoken(c.timeout()), ["Are you still there? Could you tell me how many seats you need?"])
    })
  })

  describe("answering machine", () => {
    it("leaves one voicemail message and ends voicemail", () => {
      const c = call({ persona, task: checkout })
      const out = c.start("machine")
      assert.deepStrictEqual(spoken(out), [
        "Hello, this is Grace from Acme. Sorry we missed you. We will try again later. Goodbye."
      ])
      assert.deepStrictEqual(out.at(-1), { _tag: "EndCall", outcome: "voicemail" })
      assert.deepStrictEqual(c.hear("beep"), [])
    })
  })

  describe("stop phrases", () => {
    it("ends politely and cut-short when the caller asks to stop", () => {
      for (const text of ["Stop calling me", "I'm not interested", "goodbye"]) {
        const c = call({ persona, task: checkout })
        c.start()
        const out = c.answer(text)
        assert.deepStrictEqual(spoken(out), ["I understand. Thank you for your time. Goodbye."], text)
        assert.deepStrictEqual(out.at(-1), { _tag: "EndCall", outcome: "cut-short" })
        assert.deepStrictEqual(Dialogue.values(c.state), {})
      }
    })

    it("takes a stop phrase that is one of the awaited choices as the answer", () => {
      const c = call({
        task: {
          objective: "x",
          action_items: [{
            item_type: "field",
            key: "interest",
            field_type: "multiple_choice",
            question: "Are you interested?",
            choices: ["Interested", "Not interested"]
          }]
        }
      })
      c.start()
      const out = c.answer("not interested")
      assert.deepStrictEqual(out.find((action) => action._tag === "RecordField"), {
        _tag: "RecordField",
        key: "interest",
        value: "Not interested",
        sensitive: false
      })
      assert.strictEqual(c.state.ended?.outcome, "completed")
    })
  })

  describe("the SDK's reach_person step", () => {
    const reach: Task = {
      objective: "Reach Ann Lee",
      action_items: [{
        item_type: "field",
        key: "contact_availability",
        description: "The availability of Ann Lee.",
        field_type: "multiple_choice",
        choices: ["available", "unavailable", "voicemail", "wrong_number", "do_not_contact"]
      }]
    }
    it("records the outcome the person's reply names, a request not to call included", () => {
      for (
        const [reply, outcome] of [
          ["Yes, speaking.", "available"],
          ["She's not home, call back later", "unavailable"],
          ["Don't call this number again", "do_not_contact"]
        ] as const
      ) {
        const c = call({ persona, task: reach })
        assert.deepStrictEqual(spoken(c.start()), ["Hello, this is Grace from Acme.", "May I speak with Ann Lee?"])
        const out = c.answer(reply)
        assert.deepStrictEqual(out.find((action) => action._tag === "RecordField"), {
          _tag: "RecordField",
          key: "contact_availability",
          value: outcome,
          sensitive: false
        }, reply)
        assert.strictEqual(c.state.ended?.outcome, "completed", reply)
      }
    })

    it("asks again when the reply names no outcome", () => {
      const c = call({ persona, task: reach })
      c.start()
      assert.deepStrictEqual(spoken(c.answer("Hmm?")), ["Sorry, I didn't catch that. May I speak with Ann Lee?"])
    })
  })

  describe("barge-in", () => {
    it("says a statement the caller cut off again in full, then asks the question", () => {
      const c = call({ persona, task: checkout })
      const opening = c.start()
      const ids = opening.flatMap((action) => action._tag === "Say" || action._tag === "Ask" ? [action.id] : [])
      c.send({ _tag: "SpeechPlayed", id: ids[0]!, offsetMs: 1000 })
      const cut = c.send({ _tag: "SpeechInterrupted", id: ids[1]!, offsetMs: 1400, playedMs: 400 })
      assert.deepStrictEqual(tags(cut), ["StartSilenceTimer"])
      assert.strictEqual(c.state.items[0]?.status, "pending")
      assert.isUndefined(c.state.awaiting)
      // What they said over the statement is not the answer to the question they never heard.
      const resumed = c.hear("sorry, what?")
      assert.deepStrictEqual(spoken(resumed), ["This call may be recorded.", "May I have your full name?"])
      assert.deepStrictEqual(Dialogue.values(c.state), {})
    })

    it("takes what the caller says over the question as its answer", () => {
      const c = call({ persona, task: checkout })
      const opening = c.start()
      c.send({ _tag: "SpeechPlayed", id: 1, offsetMs: 1000 })
      c.send({ _tag: "SpeechPlayed", id: 2, offsetMs: 2000 })
      const ask = opening.find((action) => action._tag === "Ask")
      c.send({ _tag: "SpeechInterrupted", id: ask?._tag === "Ask" ? ask.id : -1, offsetMs: 2300, playedMs: 300 })
      assert.strictEqual(c.state.awaiting, "full_name")
      assert.deepStrictEqual(spoken(c.hear("Ada Lovelace")), ["Could you tell me how many seats you need?"])
      assert.deepStrictEqual(Dialogue.values(c.state), { full_name: "Ada Lovelace" })
    })

    it("asks the question again in full when the barge-in was noise (no turn before the timeout)", () => {
      const c = call({ persona, task: checkout })
      c.start()
      c.playAll()
      c.answer("Ada")
      const ask = c.state.speaking[0]
      c.send({ _tag: "SpeechInterrupted", id: ask?.id ?? -1, offsetMs: 5000, playedMs: 200 })
      assert.deepStrictEqual(spoken(c.timeout()), ["Could you tell me how many seats you need?"])
      assert.strictEqual(c.state.silences, 0)
    })

    it("does not take a word said over the greeting (no barge-in) as the answer", () => {
      const c = call({ persona, task: checkout })
      c.start()
      assert.deepStrictEqual(c.hear("hello?").filter((action) => action._tag !== "RecordTurn"), [])
      assert.deepStrictEqual(Dialogue.values(c.state), {})
      assert.deepStrictEqual(tags(c.answer("Ada")), ["RecordTurn", "RecordField", "Ask"])
    })
  })

  describe("sensitive values", () => {
    it("never appear in the text of any action, re-asks and failures included", () => {
      const secret: Task = {
        objective: "x",
        action_items: [
          { item_type: "field", key: "card_cvv", field_type: "cvv", question: "What is the security code?" },
          { item_type: "field", key: "member_id", field_type: "digit_sequence", sensitive: true },
          { item_type: "say", key: "thanks", statement: "Thanks, we have your details." }
        ]
      }
      const c = call({ persona, task: secret })
      c.start()
      c.answer("it is 98765") // five digits: re-asked
      c.answer("4 4 1")
      c.answer("my member number is 5 5 5 0 1 9")
      const text = c.all.flatMap((action) =>
        action._tag === "Say" || action._tag === "Ask" || action._tag === "RecordTurn"
          ? [action.text]
          : action._tag === "Transfer"
          ? [action.message]
          : []
      ).join(" | ")
      for (const value of ["98765", "441", "4 4 1", "555019", "5 5 5 0 1 9"]) assert.notInclude(text, value)
      assert.deepStrictEqual(Dialogue.values(c.state), { card_cvv: "441", member_id: "555019" })
      assert.isTrue(
        c.all.every((action) => action._tag !== "Say" || action.sensitiveFree),
        "every say of the deterministic policy is sensitive-free"
      )
      assert.isTrue(c.state.turns.every((turn) => !/\d/.test(turn.text)))
    })
  })

  describe("with FieldExtraction", () => {
    it("plugs in as the extractor and collects typed values from words", () => {
      const extractor: Extractor = FieldExtraction.extract
      const c = call({ persona, task: checkout }, { extractor })
      c.start()
      c.answer("um, my name is Ada Lovelace")
      c.answer("forty two")
      c.answer("the pro plan please")
      c.answer("April first twenty twenty seven")
      assert.deepStrictEqual(spoken(c.answer("one two")), [
        "Sorry, I didn't catch that. What is the security code on your card?"
      ])
      const last = c.answer("one two three")
      assert.deepStrictEqual(last.at(-1), { _tag: "EndCall", outcome: "completed" })
      assert.deepStrictEqual(Dialogue.values(c.state), {
        full_name: "Ada Lovelace",
        seats: 42,
        plan: "Pro",
        start_date: { year: 2027, month: 4, day: 1 },
        card_cvv: "123"
      })
      const text = c.all.flatMap((action) => action._tag === "Say" || action._tag === "Ask" ? [action.text] : [])
      assert.isTrue(text.every((line) => !/\b(one two|12|123)\b/.test(line)))
    })
  })
})
