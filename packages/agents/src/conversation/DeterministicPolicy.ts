/**
 * The default conversation policy: no model, works offline, the same answers every time. It
 * owns what to say and when; `Conversation.step` owns the bookkeeping and the last guard on
 * sensitive values.
 *
 * - **Start.** A human gets a greeting from the persona (`"Hello, this is {agent_name} from
 *   {organization_name}."`, falling back to whichever is known, else `"Hello."`; an inbound
 *   caller is also thanked for calling). The objective is not read aloud. An answering machine
 *   (the runtime reports the call started once the machine's greeting is over) gets one
 *   voicemail message, then the call ends `voicemail`.
 * - **The checklist, in order.** A `say` item is said verbatim; a `todo` is marked done (it
 *   describes work for a model); a `field` is asked by its `question`, else a question built
 *   from its `description` (one written as an instruction to a model, "Ask the patient whether
 *   they…", is put to the caller: "Could you tell me whether you…?"), else from its key. The
 *   reference SDK's `reach_person` field is asked "May I speak with {name}?" and its reply read
 *   as one of its outcomes (`ReachPerson`). The silence timer starts when a question has
 *   been heard. The caller's answer (or digits keyed and ended with `#`, `*` to start over, or
 *   keyed and left to the silence timer) goes through the `Extractor`: a value is recorded and
 *   the walk goes on; a failure is re-asked with a short rephrase, at most `maxReasks` times
 *   (default 2), after which an optional field (`required: false`) is skipped and a required
 *   one (the default, as in the reference) ends the call `cut-short` with an apology.
 * - **Silence.** The first timeout on a question asks it again ("Are you still there?"), the
 *   second ends the call `cut-short`. Speaking resets the count.
 * - **Stop.** A caller who wants to stop ("stop calling", "not interested", "goodbye", …) is
 *   answered politely and the call ends `cut-short`, unless the phrase is one of the awaited
 *   multiple-choice field's choices, when it is an answer.
 * - **Barge-in.** Speech the caller cut off is not taken as heard: a statement cut off (or
 *   dropped after the cut) is said again in full, a question cut off is asked again, once the
 *   caller's turn is over. If the caller cut off the awaited question itself they are taken to
 *   be answering it, so what they say goes through the extractor first (a failure is a re-ask,
 *   as for any answer); if they cut off something before the question, they had not heard it,
 *   so what they say is not taken as its answer. If no turn follows the barge-in within the
 *   silence timeout (it was noise), the walk resumes the same way, and that does not count as a
 *   silence. A cut-off greeting is not repeated.
 * - **End.** When the walk reaches the end of the checklist, the task is completed, a closing
 *   line said, and the call ends `completed`.
 *
 * Sensitive values: the lines are fixed or come from the persona and the checklist, never from
 * a value or an utterance, so no say or ask carries one; a failed extraction is never echoed.
 *
 * @since 0.1.0
 */
import type { FieldItem, FieldValue, Persona } from "@voice-agent/core/AgentTask"
import type { Result } from "effect"
import type { Day, Decision, Directive, Input, Policy, State, Variables } from "./Conversation.ts"
import * as Conversation from "./Conversation.ts"
import * as ReachPerson from "./ReachPerson.ts"

/**
 * What an extractor is told besides the field and the utterance.
 *
 * @category models
 */
export interface ExtractionContext {
  /** The date of the call in its timezone. */
  readonly today: Day
  readonly language: string
  readonly variables: Variables
}

/**
 * Turns what the caller said (or keyed) into a field's value by its type; the failure is not
 * looked at (it is never spoken, so it cannot echo a sensitive value). `FieldExtraction.extract`
 * has this shape.
 *
 * @category models
 */
export type Extractor = (
  field: FieldItem,
  utterance: string,
  context: ExtractionContext
) => Result.Result<FieldValue, unknown>

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
  /** A re-ask after a failed answer: the `attempt`th (1-based). */
  readonly reask: (field: FieldItem, question: string, attempt: number) => string
}

/**
 * @category models
 */
export interface Options {
  readonly extractor: Extractor
  /** Re-asks after a failed answer before giving up on a field (default 2). */
  readonly maxReasks?: number | undefined
  /** How long to wait for an answer after a question (default 8000 ms). */
  readonly silenceMs?: number | undefined
  readonly lines?: Partial<Lines> | undefined
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
  reask: (field, question, attempt) => {
    const hint = attempt > 1 ? hintFor(field) : undefined
    return `Sorry, I didn't catch that. ${hint ?? question}`
  }
}

const stopPatterns: ReadonlyArray<RegExp> = [
  /\bstop (calling|call(ing)? me|this)\b/,
  /\b(do not|don't|dont|never) call\b/,
  /\bnot interested\b/,
  /\bgood ?bye\b/,
  /\bbye\b/,
  /\bremove me\b/,
  /\btake me off\b/,
  /\bleave me alone\b/,
  /\bunsubscribe\b/
]

const normalize = (text: string) =>
  text.toLowerCase().replace(/[’']/g, "'").replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim()

/**
 * The stop phrase in `text`, if the caller asks to stop ("stop calling", "not interested",
 * "goodbye", "remove me", …).
 *
 * @category predicates
 */
export const stopPhrase = (text: string): string | undefined => {
  const normalized = normalize(text)
  for (const pattern of stopPatterns) {
    const match = pattern.exec(normalized)
    if (match !== null) return match[0]
  }
  return undefined
}

const humanPatterns: ReadonlyArray<RegExp> = [
  /\b(speak|talk) (to|with) (a |an )?(human|real person|person|someone|representative|agent|operator|manager)\b/,
  /\b(a |an )?(real person|human being|live agent|representative|operator)\b/
]

/**
 * Whether the caller asks for a human ("can I speak to a person", "representative", …).
 *
 * @category predicates
 */
export const asksForHuman = (text: string): boolean => {
  const normalized = normalize(text)
  return humanPatterns.some((pattern) => pattern.test(normalized))
}

/**
 * Whether an utterance is a question: it ends with a question mark, or opens as one does.
 *
 * @category predicates
 */
export const isQuestion = (text: string): boolean =>
  /\?\s*$/.test(text) ||
  /^(what|when|where|who|whom|whose|why|how|which|can you|could you|do you|does|is it|is there|are you|are there|will you|would you)\b/
    .test(normalize(text))

/**
 * Whether the caller asks for something ("I'd like to…", "I want to…", "I need to…", "can I…",
 * "could I…"): a request a remote agent may act on (`action-request`).
 *
 * @category predicates
 */
export const isRequest = (text: string): boolean =>
  /\b(i'd like to|i would like to|i want to|i wanna|i need to|i'd like a|i want a|i need a|can i|could i|may i)\b/
    .test(normalize(text))

/**
 * Whether an instruction asks to end the call (the reference SDK's `hangup`: "… naturally end
 * the conversation and hang up the call").
 *
 * @category predicates
 */
export const isHangUp = (instruction: string): boolean => /\bhang up\b|\bend the call\b/i.test(instruction)

const hasPending = (state: State): boolean =>
  state.items.some((entry) => entry.status === "pending" || entry.status === "asking")

/**
 * The deterministic policy.
 *
 * @category constructors
 */
export const make = (options: Options): Policy => {
  const lines: Lines = { ...defaultLines, ...options.lines }
  const maxReasks = options.maxReasks ?? 2
  const silenceMs = options.silenceMs ?? 8_000
  const say = (text: string, key?: string): Directive => ({ _tag: "Say", text, sensitiveFree: true, key })
  const timer: Directive = { _tag: "StartSilenceTimer", ms: silenceMs }

  const end = (state: State, text: string, outcome: "cut-short" | "completed" | "voicemail"): Decision => ({
    state,
    actions: [say(text), { _tag: "EndCall", outcome }]
  })

  /**
   * Walks the checklist from the first item not yet done: says statements, marks to-dos done,
   * asks the next field and stops there (nothing if its question is already out); at the end,
   * completes the task.
   */
  const advance = (start: State, before: ReadonlyArray<Directive> = []): Decision => {
    let state = start
    const actions = [...before]
    for (const entry of start.items) {
      if (entry.status === "done" || entry.status === "skipped") continue
      if (entry.status === "asking") return { state, actions }
      const item = entry.item
      switch (item.item_type) {
        case "say":
          state = Conversation.setStatus(state, item.key, "done")
          actions.push(say(item.statement, item.key))
          continue
        case "todo":
          state = Conversation.setStatus(state, item.key, "done")
          continue
        case "field": {
          const fresh = state.awaiting !== item.key
          state = {
            ...Conversation.setStatus(state, item.key, "asking"),
            awaiting: item.key,
            reasks: fresh ? 0 : state.reasks,
            silences: fresh ? 0 : state.silences,
            dtmf: ""
          }
          actions.push({ _tag: "Ask", key: item.key, text: questionFor(item) })
          return { state, actions }
        }
      }
    }
    const completion: ReadonlyArray<Directive> = state.task === undefined || state.completed
      ? []
      : [{ _tag: "CompleteTask" }]
    // A remote agent says what comes next (another task, a hang-up); the silence timer ends a
    // call it leaves idle.
    if (state.controller !== undefined) return { state, actions: [...actions, ...completion, timer] }
    return {
      state,
      actions: [...actions, ...completion, say(lines.closing), { _tag: "EndCall", outcome: "completed" }]
    }
  }

  /** The value `utterance` gives `field`, if any. */
  const read = (state: State, today: Day, field: FieldItem, utterance: string): FieldValue | undefined => {
    const contact = ReachPerson.contactOf(field)
    if (contact !== undefined) return ReachPerson.outcomeOf(utterance, contact, field.choices ?? [])
    const extracted = options.extractor(field, utterance, {
      today,
      language: state.language,
      variables: state.variables
    })
    return extracted._tag === "Success" ? extracted.success : undefined
  }

  /** Hands a request outside the task to the remote agent that handles them, and waits for it. */
  const request = (state: State, utterance: string): Decision | undefined =>
    state.controller?.handlesRequests === true && isRequest(utterance)
      ? { state, actions: [{ _tag: "ActionRequest", text: utterance }, timer] }
      : undefined

  /** Takes `utterance` as the answer to `field` (a request it does not answer goes to the agent). */
  const answer = (state: State, today: Day, field: FieldItem, utterance: string): Decision => {
    const value = read(state, today, field, utterance)
    if (value === undefined) return request(state, utterance) ?? misunderstood(state, field)
    const recorded = Conversation.recordField(state, field.key, value)
    return advance(recorded, [{ _tag: "RecordField", key: field.key, value }])
  }

  /** An answer to `field` that could not be used: asked again, skipped, or the call given up. */
  const misunderstood = (state: State, field: FieldItem): Decision => {
    const cleared = { ...state, dtmf: "" }
    if (state.reasks < maxReasks) {
      const attempt = state.reasks + 1
      return {
        state: { ...Conversation.setStatus(cleared, field.key, "asking"), reasks: attempt },
        actions: [{ _tag: "Ask", key: field.key, text: lines.reask(field, questionFor(field), attempt) }]
      }
    }
    if (field.required === false) {
      return advance({ ...Conversation.setStatus(cleared, field.key, "skipped"), awaiting: undefined, reasks: 0 })
    }
    return end(cleared, lines.giveUp, "cut-short")
  }

  const awaited = (state: State): FieldItem | undefined =>
    state.awaiting === undefined ? undefined : Conversation.field(state, state.awaiting)

  const isStop = (state: State, text: string): boolean => {
    const phrase = stopPhrase(text)
    if (phrase === undefined) return false
    const target = awaited(state)
    const contact = target === undefined ? undefined : ReachPerson.contactOf(target)
    // "Don't call this number" answers the reach-person field (do_not_contact).
    if (contact !== undefined && ReachPerson.outcomeOf(text, contact, target?.choices ?? []) !== undefined) return false
    const choices = target?.choices ?? []
    return !choices.some((choice) => normalize(choice).includes(phrase))
  }

  const decide = (state: State, input: Input): Decision => {
    if (input._tag === "CallStarted") {
      if (input.answeredBy === "machine") return end(state, lines.voicemail(state.persona), "voicemail")
      return advance(state, [say(lines.greeting(state.persona, input.direction))])
    }
    if (state.call === undefined) return { state, actions: [] }
    const today = state.call.today
    switch (input._tag) {
      case "Utterance": {
        const heard = { ...state, silences: 0 }
        if (isStop(heard, input.text)) return end(heard, lines.stopped, "cut-short")
        if (heard.controller !== undefined) {
          if (asksForHuman(input.text)) return { state: heard, actions: [{ _tag: "Escalate" }, timer] }
          if (heard.controller.answersQuestions && isQuestion(input.text)) {
            return { state: heard, actions: [{ _tag: "Question", text: input.text }] }
          }
        }
        const target = awaited(heard)
        if (target === undefined) return request(heard, input.text) ?? advance(heard)
        // Said over what comes before the question (not heard yet): not an answer to it. Said
        // over the question itself (a barge-in) or after it (over a script queued behind it): it is.
        const question = heard.speaking.findIndex((speech) => speech.kind === "question" && speech.key === target.key)
        if (question > 0) return { state: heard, actions: [] }
        // A search field's choices are the remote agent's: it is asked which match.
        if (target.is_search_field === true && heard.controller !== undefined) {
          return { state: heard, actions: [{ _tag: "ChoiceQuery", key: target.key, query: input.text }] }
        }
        return answer(heard, today, target, input.text)
      }
      case "Dtmf": {
        const target = awaited(state)
        if (target === undefined) return { state, actions: [] }
        if (input.digit === "#") {
          return state.dtmf === "" ? { state, actions: [timer] } : answer(state, today, target, state.dtmf)
        }
        const dtmf = input.digit === "*" ? "" : state.dtmf + input.digit
        return { state: { ...state, dtmf, silences: 0 }, actions: [timer] }
      }
      case "SpeechPlayed": {
        // The silence is counted from the end of what was said after the question: the question
        // itself, or a script queued behind it.
        const heard = state.awaiting !== undefined && state.speaking.length === 0
        return { state, actions: heard ? [timer] : [] }
      }
      case "SpeechInterrupted": {
        let next = state
        for (const speech of input.dropped) {
          if (speech.key === undefined) continue
          if (speech.kind === "statement") next = Conversation.setStatus(next, speech.key, "pending")
          if (speech.kind === "question") {
            next = Conversation.setStatus(next, speech.key, "pending")
            // Cut off before the question: the caller has not heard it, so is not answering it.
            if (input.speech.id !== speech.id && next.awaiting === speech.key) next = { ...next, awaiting: undefined }
          }
        }
        return { state: next, actions: [timer] }
      }
      case "SilenceTimeout": {
        const target = awaited(state)
        if (target !== undefined && state.dtmf !== "") return answer(state, today, target, state.dtmf)
        const asking = state.items.some((entry) => entry.status === "asking")
        if (state.controller !== undefined && target === undefined && !hasPending(state)) {
          // Left idle by the remote agent.
          return state.completed
            ? end(state, lines.closing, "completed")
            : end(state, lines.silenceGoodbye, "cut-short")
        }
        if (target === undefined || !asking) return advance(state)
        if (state.silences >= 1) return end(state, lines.silenceGoodbye, "cut-short")
        return {
          state: { ...state, silences: state.silences + 1 },
          actions: [{ _tag: "Ask", key: target.key, text: `${lines.stillThere} ${questionFor(target)}` }]
        }
      }
      case "ModelText":
      case "ModelToolCall":
        // No model here: nothing asks one.
        return { state, actions: [] }
      case "Command":
        return command(state, input.command)
    }
  }

  const command = (
    state: State,
    command: Extract<Input, { readonly _tag: "Command" }>["command"]
  ): Decision => {
    switch (command._tag) {
      case "SetTask":
      case "RetryTask":
        return advance(state)
      case "Instruct":
        // Free text is for a model; the one instruction this policy follows is the SDK's hang-up.
        return isHangUp(command.text)
          ? end(state, lines.closing, state.completed || state.task === undefined ? "completed" : "cut-short")
          : { state, actions: [] }
      case "AnswerQuestion": {
        const target = awaited(state)
        return {
          state,
          actions: [
            say(command.answer),
            ...(target === undefined ? [timer] : [{ _tag: "Ask", key: target.key, text: questionFor(target) } as const])
          ]
        }
      }
      case "ChoiceResult": {
        const target = awaited(state)
        if (target === undefined || target.key !== command.key) return { state, actions: [] }
        const choice = command.matched[0]
        if (choice !== undefined) {
          return advance(Conversation.recordField(state, target.key, choice), [
            { _tag: "RecordField", key: target.key, value: choice }
          ])
        }
        return misunderstood(state, target)
      }
    }
  }

  return { decide }
}
