/**
 * The reference SDK's `reach_person` step, for the deterministic policy: a multiple-choice
 * field `contact_availability` whose description opens with "The availability of {name}." and
 * whose choices are the outcomes (by default available, unavailable, voicemail, wrong_number and
 * do_not_contact; an agent may pass its own). A model reads the SDK's instructions; without one
 * the field is asked as a person would ask it ("May I speak with {name}?") and the reply is
 * read as one of the outcomes the field offers:
 *
 * - `do_not_contact`: the person asks not to be called ("don't call", "stop calling", "remove
 *   me", "take me off");
 * - `wrong_number`: "wrong number", "no one by that name", "doesn't live here", "you have the
 *   wrong person";
 * - `voicemail`: an answering machine ("leave a message", "voicemail", "after the beep",
 *   "not available to take your call");
 * - `unavailable`: the contact cannot come to the phone ("not here", "not available", "not
 *   home", "call back later", "busy", "out");
 * - `available`: yes, speaking, this is them, that's me, "it's {name}".
 *
 * The first that matches in that order wins; then an outcome said by its name ("available",
 * "wrong number", or one of the agent's own outcomes); anything else is no answer (asked again).
 *
 * @since 0.1.0
 */
import type { FieldItem } from "@voice-agent/core/AgentTask"

/**
 * The key of the SDK's reach-person field.
 *
 * @category models
 */
export const fieldKey = "contact_availability"

/**
 * The person to reach, when `field` is the SDK's reach-person field.
 *
 * @category getters
 */
export const contactOf = (field: FieldItem): string | undefined => {
  if (field.key !== fieldKey || field.field_type !== "multiple_choice") return undefined
  const name = /^The availability of (.+?)\.?(?:\n|$)/.exec(field.description ?? "")?.[1]?.trim()
  return name === undefined || name === "" ? undefined : name
}

/**
 * How the deterministic policy asks for the person.
 *
 * @category constructors
 */
export const question = (contact: string): string => `May I speak with ${contact}?`

const normalize = (text: string) =>
  text.toLowerCase().replace(/[’']/g, "'").replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim()

const outcomes: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "do_not_contact",
    /\b(do not|don't|dont|never) (call|contact)\b|\bstop (calling|contacting)\b|\bremove (me|this number)\b|\btake (me|this number) off\b/
  ],
  [
    "wrong_number",
    /\bwrong (number|person)\b|\bno one (here )?(by|with) that name\b|\bnobody (here )?(by|with) that name\b|\b(doesn't|does not|don't|do not) (live|work) here\b|\bnever heard of\b/
  ],
  [
    "voicemail",
    /\bleave (a|your) message\b|\bvoice ?mail\b|\bafter the (beep|tone)\b|\bnot available to take your call\b|\bmailbox\b/
  ],
  [
    "unavailable",
    /\b(isn't|is not|isnt|not) (here|home|in|available|around)\b|\bcall (back )?later\b|\bcall back\b|\b(he's|she's|they're|they are|he is|she is) (out|busy|away|at work)\b|\bcan't come to the phone\b|\bcannot come to the phone\b/
  ],
  [
    "available",
    /^(yes|yeah|yep|yup|speaking|sure|correct|right|that's me|that is me|it's me|it is me|this is (she|he|him|her|me))\b|\b(speaking|that's me|that is me|this is (she|he|him|her|me))\b/
  ]
]

/**
 * The outcome a reply names, among `choices` (as the field spells them), if any.
 *
 * @category decoding
 */
export const outcomeOf = (reply: string, contact: string, choices: ReadonlyArray<string>): string | undefined => {
  const heard = normalize(reply)
  const offered = (outcome: string) => choices.find((choice) => choice.toLowerCase() === outcome)
  for (const [outcome, pattern] of outcomes) {
    if (pattern.test(heard)) return offered(outcome)
  }
  const name = normalize(contact)
  if (name !== "" && new RegExp(`\\b(it's|it is|this is|i'm|i am) ${name}\\b`).test(heard)) return offered("available")
  // An outcome named as such ("available", "wrong number"), the field's own ones included.
  return choices.find((choice) => ` ${heard} `.includes(` ${normalize(choice.replace(/_/g, " "))} `))
}
