import { assert, describe, it } from "@effect/vitest"
import type { FieldItem } from "@voice-agent/core/AgentTask"
import * as ReachPerson from "./ReachPerson.ts"

const outcomes = ["available", "unavailable", "voicemail", "wrong_number", "do_not_contact"]

/** The field `Call.reach_person("Ann Lee")` of the reference SDK sends, description as it writes it. */
const reachField: FieldItem = {
  item_type: "field",
  key: "contact_availability",
  description:
    "The availability of Ann Lee.\nDetailed descriptions of each choice:\n - available: The intended contact is confirmed on the line.",
  field_type: "multiple_choice",
  choices: outcomes,
  required: true
}

describe("ReachPerson", () => {
  it("recognizes the SDK's reach-person field and the contact it names", () => {
    assert.strictEqual(ReachPerson.contactOf(reachField), "Ann Lee")
    assert.strictEqual(
      ReachPerson.contactOf({ ...reachField, description: "The availability of Dr. Bo Ng." }),
      "Dr. Bo Ng"
    )
    assert.isUndefined(ReachPerson.contactOf({ ...reachField, key: "availability" }))
    assert.isUndefined(ReachPerson.contactOf({ ...reachField, field_type: "text" }))
    assert.isUndefined(ReachPerson.contactOf({ ...reachField, description: "Whether Ann can talk." }))
  })

  it("reads each outcome from what a person or a machine says", () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ["Yes, I have a moment.", "available"],
      ["Speaking.", "available"],
      ["Yeah that's me", "available"],
      ["This is she.", "available"],
      ["It's Ann Lee, who is this?", "available"],
      ["Sorry, she's not here right now.", "unavailable"],
      ["Yes but he is busy, call back later", "unavailable"],
      ["She isn't available", "unavailable"],
      ["You have reached the voicemail of this number. Please leave a message after the beep.", "voicemail"],
      ["I think you have the wrong number", "wrong_number"],
      ["There's no one here by that name", "wrong_number"],
      ["Please don't call this number again", "do_not_contact"],
      ["Stop calling me", "do_not_contact"],
      ["available", "available"],
      ["Wrong number.", "wrong_number"],
      ["Hmm, what?", undefined],
      ["", undefined]
    ]
    for (const [reply, expected] of cases) {
      assert.strictEqual(ReachPerson.outcomeOf(reply, "Ann Lee", outcomes), expected, reply)
    }
  })

  it("only answers with an outcome the field offers, spelled as the field spells it", () => {
    assert.strictEqual(ReachPerson.outcomeOf("Speaking", "Ann", ["Available", "Unavailable"]), "Available")
    assert.isUndefined(ReachPerson.outcomeOf("wrong number", "Ann", ["available", "unavailable"]))
    assert.strictEqual(ReachPerson.outcomeOf("gatekeeper", "Ann", ["available", "gatekeeper"]), "gatekeeper")
  })
})
