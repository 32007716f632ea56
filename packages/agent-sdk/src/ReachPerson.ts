/**
 * Reaching a named person on an outbound call: a ready-made task, `reach_person`, whose one
 * field, `contact_availability`, records whether the person came to the phone. `call.reachPerson`
 * sets it; `agent.onReachPerson` receives the recorded availability.
 *
 * @since 0.1.0
 */
import type { ChecklistItem } from "./Checklist.ts"
import { Field, Say } from "./Checklist.ts"

export const REACH_PERSON_TASK = "reach_person"
export const AVAILABILITY_FIELD = "contact_availability"

export interface ReachPersonOutcome {
  /** The choice recorded in `contact_availability`. */
  readonly key: string
  /** When the agent should pick it. */
  readonly description?: string
  /** What the agent does next, in the second person starting with a verb ("pull up your file"). */
  readonly nextActionPreview?: string
}

export const defaultReachPersonOutcomes: ReadonlyArray<ReachPersonOutcome> = [
  { key: "available", description: "The person asked for is on the line." },
  {
    key: "unavailable",
    description:
      "The person could not be reached: whoever answered (a person, a gatekeeper, a phone menu) could not put them on."
  },
  { key: "voicemail", description: "An answering machine or voicemail picked up." },
  { key: "wrong_number", description: "This number does not belong to the person asked for." },
  { key: "do_not_contact", description: "Whoever answered asked not to be called at this number again." }
]

export interface ReachPersonOptions {
  /** An opening to say verbatim instead of the agent's own greeting. */
  readonly greeting?: string
  /** On voicemail, leave exactly this message and hang up. */
  readonly voicemailMessage?: string
  /** On voicemail, hang up without a message. */
  readonly voicemailHangup?: boolean
  /** The choices of `contact_availability`; default `defaultReachPersonOutcomes`. */
  readonly outcomes?: ReadonlyArray<ReachPersonOutcome>
}

export interface ReachPersonTask {
  readonly objective: string
  readonly completionCriteria: string
  readonly checklist: ReadonlyArray<ChecklistItem>
}

/** What to do on voicemail, as an instruction for the agent. */
export const voicemailRule = (options: { readonly message?: string; readonly hangup?: boolean }): string => {
  if (options.hangup === true && options.message !== undefined) {
    throw new TypeError("Give a voicemail message or ask to hang up, not both")
  }
  if (options.hangup === true) return "Do not leave a message: say nothing and hang up."
  if (options.message !== undefined) {
    return `Say exactly this message, word for word: "${options.message}" Then hang up.`
  }
  return "Leave a short, suitable voicemail message, then hang up."
}

/** The `reach_person` task for `name`. */
export const reachPersonTask = (name: string, options: ReachPersonOptions = {}): ReachPersonTask => {
  const outcomes = options.outcomes ?? defaultReachPersonOutcomes
  if (outcomes.length === 0) throw new TypeError("reachPerson needs at least one outcome")
  const onVoicemail = voicemailRule({
    ...(options.voicemailMessage === undefined ? {} : { message: options.voicemailMessage }),
    ...(options.voicemailHangup === undefined ? {} : { hangup: options.voicemailHangup })
  })
  const described = outcomes.filter((outcome) => outcome.description !== undefined)
  const fieldDescription = [
    `Whether ${name} could be reached.`,
    ...(described.length === 0 ? [] : ["The choices:", ...described.map((o) => `- ${o.key}: ${o.description}`)])
  ].join("\n")
  const objective = [
    `Reach ${name} and make sure they are the one on the line.`,
    "",
    `- If someone else answers, or a phone menu, ask for ${name} (or work through the menu) and wait to be put through.`,
    `  If ${name} cannot be reached, record that in \`${AVAILABILITY_FIELD}\`.`,
    `- Once ${name} is on the line, say again briefly who you are and why you are calling, and record them as available.`,
    "- If this is clearly the wrong number, or you are asked not to call again, end the call politely and hang up.",
    `- If an answering machine or voicemail picks up: ${onVoicemail}`
  ].join("\n")
  const completionCriteria = `\`${AVAILABILITY_FIELD}\` records whether ${name} was reached.`
  const previews = outcomes.filter((outcome) => outcome.nextActionPreview !== undefined)
  const checklist: Array<ChecklistItem> = [
    options.greeting === undefined
      ? `Greet whoever answered (a person or a phone menu), say on whose behalf you are calling and why, and ask for ${name}. Skip the greeting if an answering machine or voicemail picked up.`
      : new Say(options.greeting),
    new Field({
      key: AVAILABILITY_FIELD,
      description: fieldDescription,
      fieldType: "multiple_choice",
      choices: outcomes.map((outcome) => outcome.key),
      required: true
    })
  ]
  if (previews.length > 0) {
    checklist.push(
      [
        `After recording \`${AVAILABILITY_FIELD}\`, if its value has a next step below, tell the person briefly while you take it:`,
        ...previews.map((o) => `- ${o.key}: ${o.nextActionPreview}`)
      ].join("\n")
    )
  }
  return { objective, completionCriteria, checklist }
}
