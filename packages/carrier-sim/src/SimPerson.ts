/**
 * Who picks up an answered call of the simulated carrier (packages/carrier-sim/README.md), scripted and
 * deterministic: a person who talks with the agent, one who hangs up at once, one who never
 * does, or an answering machine. They hear the agent through `SimMediaStream` (simulated
 * speech decoded from the audio as it plays) and speak simulated speech in the person's voice
 * (`SimVoice.speak(text, "person")`: flite saying it, the text in a band above), so what they
 * say truly crosses the audio path and a recording sounds like two people talking
 * (docs/MEDIA.md, "Simulated speech").
 *
 * By outcome (`behave`), timed from the answer (`timings`):
 *
 * - `conversation`: listens. Each time the agent finishes an utterance that ends with "?",
 *   answers `replyMs` (300 ms) later with `answerFor(utterance)`. When an utterance of the
 *   agent contains "goodbye" (any case), hangs up `goodbyeMs` (300 ms) after it.
 * - `never-hangs-up`: answers questions the same way, and never hangs up (the agent ends the
 *   call by closing the stream).
 * - `early-hangup`: says {@link earlyHangupLine} at once ("Bye.", 0.7 s, over the agent's
 *   greeting) and hangs up as soon as it is said ({@link earlyHangupMs}), whatever the agent
 *   says.
 * - `voicemail`: the machine plays its greeting (`voicemailGreeting`, simulated speech, about
 *   5.2 s) at once, `beepGapMs` (300 ms) of silence, a 1 kHz beep of `beepMs` (500 ms), then
 *   silence until our side closes the stream.
 *
 * Every one of them hangs up after `maxCallMs` (5 minutes) at the latest, so no call runs
 * forever.
 *
 * When the carrier leaves answering-machine detection to the engine (`SimCarrier` with
 * `machineDetection: "engine"`), a person who talks (`conversation`, `never-hangs-up`) first
 * says {@link helloLine} as they pick up, as people do and as the engine's detection needs to
 * hear a person. With the carrier's detection they do not: a carrier's detection (Twilio's) has
 * heard that before the call's stream starts.
 *
 * A person may be briefed (`Briefing`, docs/AGENTS.md, "The simulated person"): the
 * checklist fields the agent will ask about and the answers to give (the contact's
 * `data.sim_answers`). They still only act on what they heard: a question they hear is taken
 * as the field whose question (or description, or key) it contains, and answered with the
 * briefed answer for its key, else the default for its type; a question that names no field
 * is answered by `answerFor`'s rules.
 *
 * @since 0.1.0
 */
import type { FieldItem } from "@voice-agent/core/AgentTask"
import { Duration, Effect, Queue } from "effect"
import type { Line } from "./SimMediaStream.ts"
import type { SimOutcome } from "./SimOutcome.ts"
import * as SimVoice from "./SimVoice.ts"

/**
 * The scripted person's timings, in milliseconds.
 *
 * @category models
 */
export const timings: {
  readonly replyMs: number
  readonly goodbyeMs: number
  readonly beepGapMs: number
  readonly beepMs: number
  readonly maxCallMs: number
} = {
  replyMs: 300,
  goodbyeMs: 300,
  beepGapMs: 300,
  beepMs: 500,
  maxCallMs: 300_000
}

/**
 * The outcomes whose calls are answered, and so have someone on the line.
 *
 * @category models
 */
export type AnsweredOutcome = Extract<SimOutcome, "conversation" | "voicemail" | "early-hangup" | "never-hangs-up">

/**
 * What the person who hangs up early says before leaving.
 *
 * @category constructors
 */
export const earlyHangupLine = "Bye."

/**
 * When the person who hangs up early does, in ms from the answer: as soon as the last frame
 * carrying {@link earlyHangupLine} has gone out (20 ms frames, each sent at its end), so before
 * an agent could answer the line, however loaded the machine (a fixed 1 s raced the agent's
 * reply to it).
 *
 * @category constructors
 */
export const earlyHangupMs = (): number => (Math.ceil(SimVoice.speak(earlyHangupLine, "person").length / 160) + 1) * 20

/**
 * What a person who talks says as they pick up, when the engine detects answering machines.
 *
 * @category constructors
 */
export const helloLine = "Hello?"

/**
 * What the answering machine says before its beep.
 *
 * @category models
 */
export const voicemailGreeting =
  "Hi, you have reached the voicemail of this number. Please leave a message after the beep."

/**
 * The answer to a plain yes/no question.
 *
 * @category models
 */
export const yesAnswer = "Yes, I have a moment."

/**
 * The answers by kind of question, docs/AGENTS.md's defaults by field type ("The simulated person").
 *
 * @category models
 */
export const answers = {
  text: "Alex Morgan",
  integer: "forty two",
  date: "March third twenty twenty seven",
  digitSequence: "one two three four",
  calendarSlot: "next Tuesday at ten a m",
  yes: yesAnswer
} as const

const YES_NO = /^(?:am|is|are|was|were|do|does|did|can|could|would|will|may|might|have|has|had|should|shall)\b/
const OPEN = /^(?:what|who|whom|whose|where|which|why|how)\b/
const DIGITS = /\b(?:digits?|pin|code|zip|postcode|(?:account|phone|card|member) number)\b/
const SLOT = /\b(?:appointment|slot|schedule|book|meet|meeting|what time|which time)\b/
const DATE = /\b(?:date|birthday|born|when)\b/
const INTEGER = /\b(?:how many|how much|how old|number of)\b/

/** The choices of a question that lists them after a colon or in parentheses. */
const choicesOf = (question: string): ReadonlyArray<string> => {
  const listed = /\(([^()]*)\)[^()]*$/.exec(question)?.[1] ?? /:([^:]*)$/.exec(question)?.[1]
  if (listed === undefined) return []
  const choices = listed.replace(/[?.!]+\s*$/, "").split(/\s*,\s*(?:or\s+)?|\s+or\s+/).map((c) => c.trim())
  return choices.length >= 2 && choices.every((c) => c !== "") ? choices : []
}

/**
 * What the person answers to an utterance of the agent that asks a question (its last
 * sentence is the question). By the first rule that matches the question:
 *
 * 1. choices listed after a colon or in parentheses ("Which do you prefer: email, phone or
 *    text?") → the first one (a multiple choice field);
 * 2. digits, a PIN, a code, a zip or postcode, an account, phone, card or member number → "one
 *    two three four";
 * 3. an appointment, a slot, a schedule, booking, a meeting, what or which time → "next Tuesday
 *    at ten a m";
 * 4. a date, a birthday, being born, "when" → "March third twenty twenty seven";
 * 5. how many, how much, how old, a number of → "forty two";
 * 6. a question whose asking clause (the first of its comma-separated clauses to start with a
 *    question word) starts like a yes/no question (is, are, do, can, would…) → "Yes, I have a
 *    moment.";
 * 7. any other question (what, who, where…: a text field such as a name) → "Alex Morgan".
 *
 * @category constructors
 */
export const answerFor = (utterance: string): string => {
  const sentences = utterance.trim().split(/(?<=[.!?])\s+/)
  const question = (sentences.at(-1) ?? "").trim()
  const lower = question.toLowerCase()
  const choices = choicesOf(question)
  if (choices.length > 0) return choices[0]!
  if (DIGITS.test(lower)) return answers.digitSequence
  if (SLOT.test(lower)) return answers.calendarSlot
  if (DATE.test(lower)) return answers.date
  if (INTEGER.test(lower)) return answers.integer
  // the clause that asks ("Hello Jane, do you have…"): the first to start like a question
  const asking = lower.split(/\s*[,;:]\s*/).find((clause) => YES_NO.test(clause) || OPEN.test(clause))
  return asking !== undefined && YES_NO.test(asking) ? answers.yes : answers.text
}

/**
 * What a person is told before the call: the fields the agent will ask for, and the answers
 * to give by field key.
 *
 * @category models
 */
export interface Briefing {
  readonly fields: ReadonlyArray<FieldItem>
  readonly answers: { readonly [key: string]: string }
}

/**
 * @category constructors
 */
export const unbriefed: Briefing = { fields: [], answers: {} }

const normalized = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

/** docs/AGENTS.md's answer by field type. */
const answerByType = (field: FieldItem): string => {
  switch (field.field_type) {
    case "text":
      return answers.text
    case "integer":
      return answers.integer
    case "date":
      return answers.date
    case "multiple_choice":
      return field.choices?.[0] ?? answers.text
    case "digit_sequence":
      return answers.digitSequence
    case "calendar_slot":
      return answers.calendarSlot
    case "cvv":
      return "one two three"
  }
}

/**
 * The briefed field an utterance asks about: the one whose question, else description, else
 * key (words separated by spaces) it contains, the latest in the utterance.
 *
 * @category getters
 */
export const fieldAskedIn = (utterance: string, briefing: Briefing): FieldItem | undefined => {
  const heard = ` ${normalized(utterance)} `
  let best: { readonly field: FieldItem; readonly at: number } | undefined
  for (const field of briefing.fields) {
    for (const phrase of [field.question, field.description, field.key.replace(/[_-]+/g, " ")]) {
      const wanted = phrase === undefined ? "" : normalized(phrase)
      if (wanted === "") continue
      const at = heard.lastIndexOf(` ${wanted} `)
      if (at < 0) continue
      if (best === undefined || at > best.at) best = { field, at }
      break
    }
  }
  return best?.field
}

/**
 * What a briefed person answers to a question: the briefed answer of the field it asks about,
 * else its type's default, else `answerFor`'s.
 *
 * @category constructors
 */
export const briefedAnswerFor = (utterance: string, briefing: Briefing): string => {
  const field = fieldAskedIn(utterance, briefing)
  if (field === undefined) return answerFor(utterance)
  return briefing.answers[field.key] ?? answerByType(field)
}

/**
 * Whether an utterance of the agent asks something (it ends with "?").
 *
 * @category guards
 */
export const isQuestion = (utterance: string): boolean => utterance.trimEnd().endsWith("?")

/**
 * Whether an utterance of the agent says goodbye.
 *
 * @category guards
 */
export const isGoodbye = (utterance: string): boolean => /goodbye/i.test(utterance)

/**
 * The machine's beep: `timings.beepMs` of a 1 kHz sine at 8 kHz, amplitude 8000 (−12 dBFS).
 *
 * @category constructors
 */
export const beep = (): Int16Array =>
  Int16Array.from(
    { length: timings.beepMs * 8 },
    (_, n) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * n) / 8000))
  )

/** The machine's whole message: greeting, a short silence, beep. */
const machineMessage = (): Int16Array => {
  const greeting = SimVoice.speak(voicemailGreeting, "person")
  const gap = timings.beepGapMs * 8
  const tone = beep()
  const out = new Int16Array(greeting.length + gap + tone.length)
  out.set(greeting)
  out.set(tone, greeting.length + gap)
  return out
}

/** Answers questions; returns (hangs up) after a goodbye when `hangsUp`. */
const converse = (line: Line, hangsUp: boolean, briefing: Briefing): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const utterance = yield* Queue.take(line.heard)
      if (hangsUp && isGoodbye(utterance)) return yield* Effect.sleep(Duration.millis(timings.goodbyeMs))
      if (isQuestion(utterance)) {
        yield* Effect.sleep(Duration.millis(timings.replyMs))
        yield* line.say(SimVoice.speak(briefedAnswerFor(utterance, briefing), "person"))
      }
    }
  })

/**
 * How a person behaves beyond their outcome: `saysHello`, whether one who talks says
 * {@link helloLine} as they pick up (module header).
 *
 * @category models
 */
export interface Manner {
  readonly saysHello: boolean
}

const hello = (line: Line, manner: Manner): Effect.Effect<void> =>
  manner.saysHello ? line.say(SimVoice.speak(helloLine, "person")) : Effect.void

const script = (outcome: AnsweredOutcome, line: Line, briefing: Briefing, manner: Manner): Effect.Effect<void> => {
  switch (outcome) {
    case "conversation":
      return Effect.andThen(hello(line, manner), converse(line, true, briefing))
    case "never-hangs-up":
      return Effect.andThen(hello(line, manner), converse(line, false, briefing))
    case "early-hangup":
      return Effect.andThen(
        line.say(SimVoice.speak(earlyHangupLine, "person")),
        Effect.sleep(Duration.millis(earlyHangupMs()))
      )
    case "voicemail":
      return Effect.andThen(line.say(machineMessage()), Effect.never)
  }
}

/**
 * The person (or machine) for `outcome` on `line`, from the answer: returns when they hang up,
 * after `timings.maxCallMs` at the latest.
 *
 * @category constructors
 */
export const behave = (
  outcome: AnsweredOutcome,
  line: Line,
  briefing: Briefing = unbriefed,
  manner: Manner = { saysHello: false }
): Effect.Effect<void> =>
  Effect.raceFirst(script(outcome, line, briefing, manner), Effect.sleep(Duration.millis(timings.maxCallMs)))
