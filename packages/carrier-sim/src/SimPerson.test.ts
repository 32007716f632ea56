import { assert, describe, it } from "@effect/vitest"
import type { FieldItem } from "@voice-agent/core/AgentTask"
import * as SimPerson from "./SimPerson.ts"

const fields: ReadonlyArray<FieldItem> = [
  { item_type: "field", key: "full_name", field_type: "text", question: "What is your full name?" },
  { item_type: "field", key: "party_size", field_type: "integer", description: "how many people are coming" },
  {
    item_type: "field",
    key: "channel",
    field_type: "multiple_choice",
    question: "How should we contact you?",
    choices: ["phone", "email"]
  },
  { item_type: "field", key: "member_id", field_type: "digit_sequence" },
  { item_type: "field", key: "security_code", field_type: "cvv", question: "What is the code on the back?" }
]

describe("SimPerson.briefedAnswerFor", () => {
  const briefing: SimPerson.Briefing = { fields, answers: { full_name: "Jane Q Public" } }

  it("answers the field a question asks by its question, description or key", () => {
    assert.strictEqual(SimPerson.briefedAnswerFor("Thanks. What is your full name?", briefing), "Jane Q Public")
    assert.strictEqual(
      SimPerson.briefedAnswerFor("Could you tell me how many people are coming?", briefing),
      "forty two"
    )
    assert.strictEqual(
      SimPerson.briefedAnswerFor("How should we contact you? Is it phone or email?", briefing),
      "phone"
    )
    assert.strictEqual(SimPerson.briefedAnswerFor("Could you tell me your member id?", briefing), "one two three four")
    assert.strictEqual(SimPerson.briefedAnswerFor("What is the code on the back?", briefing), "one two three")
  })

  it("takes the question asked last when a line names two fields", () => {
    assert.strictEqual(
      SimPerson.briefedAnswerFor("Got your member id, thanks. What is your full name?", briefing),
      "Jane Q Public"
    )
  })

  it("falls back to the unbriefed rules for a question about no field", () => {
    assert.strictEqual(SimPerson.briefedAnswerFor("Do you have a moment?", briefing), "Yes, I have a moment.")
    assert.strictEqual(SimPerson.briefedAnswerFor("What is your full name?", SimPerson.unbriefed), "Alex Morgan")
  })
})
