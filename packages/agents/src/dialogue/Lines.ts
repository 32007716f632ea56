/**
 * What the deterministic policy says: its fixed lines (greeting, voicemail, closing, the lines of
 * a stop, a give-up, a silence, a re-ask) and the question a field is asked by (its `question`,
 * else one built from its `description` or its key). The model policy takes its fixed lines too.
 *
 * @since 0.1.0
 */
import type { FieldItem, Persona } from "@voice-agent/core/AgentTask"
import * as ReachPerson from "./ReachPerson.ts"

/**
 * The policy's fixed lines.
 *
 * @category models
 */
export interface Lines {
  readonly greeting: (persona: Persona, direction: "inbound" | "outbound") => string
  readonly voicemail: (persona: Persona) => string
  readonly closing: string
  /** Said when the caller asks to stop. */
  readonly stopped: string
  /** Said when a required field could not be understood. */
  readonly giveUp: string
  /** Said when the caller stays silent after being asked again. */
  readonly silenceGoodbye: string
  /** Before a question asked again after a silence. */
  readonly stillThere: string
  /** Said when the carrier refused a transfer the agent asked for: the call goes on. */
  readonly transferFailed: string
  /** A re-ask after a failed answer: the `attempt`th (1-based). */
  readonly reask: (field: FieldItem, question: string, attempt: number) => string
}

const present = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

const introduction = (persona: Persona): string | undefined => {
  const name = present(persona.agent_name)
  const organization = present(persona.organization_name)
  if (name !== undefined && organization !== undefined) return `this is ${name} from ${organization}`
  if (name !== undefined) return `this is ${name}`
  if (organization !== undefined) return `this is ${organization}`
  return undefined
}

const humanize = (key: string) => key.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().trim()

const listOf = (choices: ReadonlyArray<string>) =>
  choices.length <= 1 ? choices.join("") : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`

/**
 * The question a field is asked by: its `question`, else one built from its `description`
 * or its key.
 *
 * @category getters
 */
export const questionFor = (field: FieldItem): string => {
  const question = present(field.question)
  if (question !== undefined) return question
  const contact = ReachPerson.contactOf(field)
  if (contact !== undefined) return ReachPerson.question(contact)
  const choices = field.field_type === "multiple_choice" && field.choices !== undefined && field.choices.length > 0
    ? ` Is it ${listOf(field.choices)}?`
    : ""
  const description = firstSentence(field.description)
  if (description === undefined) return `Could you tell me your ${humanize(field.key)}?${choices}`
  const asked = askedIn(description)
  if (asked !== undefined) return `${asked}${choices}`
  return `Could you tell me ${description.charAt(0).toLowerCase() + description.slice(1)}?${choices}`
}

/** A description's first sentence of its first line, without its closing punctuation. */
const firstSentence = (description: string | undefined): string | undefined =>
  present(present(description)?.split("\n")[0]?.split(/(?<=[.?!])\s+/)[0]?.replace(/[.?!:]+$/, ""))

const toCaller: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /\bthe (?:patient|caller|customer|contact|person|user|client|member|guest|resident|student|applicant)'s\b/gi,
    "your"
  ],
  [/\bthey're\b/gi, "you're"],
  [/\bthey've\b/gi, "you've"],
  [/\bthemselves\b/gi, "yourself"],
  [/\btheirs\b/gi, "yours"],
  [/\btheir\b/gi, "your"],
  [/\bthey\b/gi, "you"],
  [/\bthem\b/gi, "you"]
]

/**
 * The question in a description written as an instruction to a model ("Ask the patient whether
 * they confirm…", "If they want to reschedule, ask for their preferred day…"), put to the
 * caller ("Could you tell me whether you confirm…?").
 */
const askedIn = (description: string): string | undefined => {
  const match = /\bask(?:\s+(?:the\s+\w+|them|him|her))?(?:\s+(?:for|about))?\s+(.+)$/i.exec(description)?.[1]
  if (match === undefined) return undefined
  const rest = toCaller.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), match.trim())
  const infinitive = /^to\s+(.+)$/i.exec(rest)?.[1]
  return infinitive === undefined ? `Could you tell me ${rest}?` : `Could you ${infinitive}?`
}

const hintFor = (field: FieldItem): string | undefined => {
  switch (field.field_type) {
    case "integer":
      return "Could you say just the number?"
    case "date":
      return "Could you say the date with the month, the day and the year?"
    case "multiple_choice":
      return field.choices === undefined || field.choices.length === 0
        ? undefined
        : `Please choose one of: ${listOf(field.choices)}.`
    case "calendar_slot":
      return "Could you say the day and the time that suits you?"
    case "digit_sequence":
      return "Could you say the digits one at a time, or key them in followed by the pound key?"
    case "cvv":
      return "Could you say the three or four digit security code one digit at a time, or key it in followed by the pound key?"
    case "text":
      return undefined
  }
}

/**
 * @category constructors
 */
export const defaultLines: Lines = {
  greeting: (persona, direction) => {
    const intro = introduction(persona)
    const hello = intro === undefined ? "Hello." : `Hello, ${intro}.`
    return direction === "inbound" ? `${hello} Thank you for calling.` : hello
  },
  voicemail: (persona) => {
    const intro = introduction(persona)
    return `${
      intro === undefined ? "Hello." : `Hello, ${intro}.`
    } Sorry we missed you. We will try again later. Goodbye.`
  },
  closing: "Thank you, that is everything I needed. Goodbye.",
  stopped: "I understand. Thank you for your time. Goodbye.",
  giveUp: "I'm sorry, I could not get that. Someone will follow up with you. Goodbye.",
  silenceGoodbye: "I have not heard from you, so I will end the call here. Goodbye.",
  stillThere: "Are you still there?",
  transferFailed: "I'm sorry, I could not transfer your call.",
  reask: (field, question, attempt) => {
    const hint = attempt > 1 ? hintFor(field) : undefined
    return `Sorry, I didn't catch that. ${hint ?? question}`
  }
}
