/**
 * The default dialogue policy: no model, works offline, the same answers every time. It
 * owns what to say and when; `Dialogue.step` owns the bookkeeping and the last guard on
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
import type { FieldItem, FieldValue } from "@voice-agent/core/AgentTask"
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import type { Result } from "effect"
import type { Decision, Directive, Input, Policy, State, Variables } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"
import type { Lines } from "./Lines.ts"
import { defaultLines, questionFor } from "./Lines.ts"
import { asksForHuman, isHangUp, isQuestion, isRequest, normalize, stopPhrase } from "./Phrases.ts"
import * as ReachPerson from "./ReachPerson.ts"

/**
 * What an extractor is told besides the field and the utterance.
 *
 * @category models
 */
export interface ExtractionContext {
  /** The date of the call in its timezone. */
  readonly today: CivilDate
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

export type { Lines }
export { asksForHuman, defaultLines, isHangUp, isQuestion, isRequest, questionFor, stopPhrase }

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
          state = Dialogue.setStatus(state, item.key, "done")
          actions.push(say(item.statement, item.key))
          continue
        case "todo":
          state = Dialogue.setStatus(state, item.key, "done")
          continue
        case "field": {
          const fresh = state.awaiting !== item.key
          state = {
            ...Dialogue.setStatus(state, item.key, "asking"),
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
    // An SDK agent says what comes next (another task, a hang-up); the silence timer ends a
    // call it leaves idle.
    if (state.controller !== undefined) return { state, actions: [...actions, ...completion, timer] }
    return {
      state,
      actions: [...actions, ...completion, say(lines.closing), { _tag: "EndCall", outcome: "completed" }]
    }
  }

  /** The value `utterance` gives `field`, if any. */
  const read = (state: State, today: CivilDate, field: FieldItem, utterance: string): FieldValue | undefined => {
    const contact = ReachPerson.contactOf(field)
    if (contact !== undefined) return ReachPerson.outcomeOf(utterance, contact, field.choices ?? [])
    const extracted = options.extractor(field, utterance, {
      today,
      language: state.language,
      variables: state.variables
    })
    return extracted._tag === "Success" ? extracted.success : undefined
  }

  /** Hands a request outside the task to the SDK agent that handles them, and waits for it. */
  const request = (state: State, utterance: string): Decision | undefined =>
    state.controller?.handlesRequests === true && isRequest(utterance)
      ? { state, actions: [{ _tag: "ActionRequest", text: utterance }, timer] }
      : undefined

  /** Takes `utterance` as the answer to `field` (a request it does not answer goes to the agent). */
  const answer = (state: State, today: CivilDate, field: FieldItem, utterance: string): Decision => {
    const value = read(state, today, field, utterance)
    if (value === undefined) return request(state, utterance) ?? misunderstood(state, field)
    const recorded = Dialogue.recordField(state, field.key, value)
    return advance(recorded, [{ _tag: "RecordField", key: field.key, value }])
  }

  /** An answer to `field` that could not be used: asked again, skipped, or the call given up. */
  const misunderstood = (state: State, field: FieldItem): Decision => {
    const cleared = { ...state, dtmf: "" }
    if (state.reasks < maxReasks) {
      const attempt = state.reasks + 1
      return {
        state: { ...Dialogue.setStatus(cleared, field.key, "asking"), reasks: attempt },
        actions: [{ _tag: "Ask", key: field.key, text: lines.reask(field, questionFor(field), attempt) }]
      }
    }
    if (field.required === false) {
      return advance({ ...Dialogue.setStatus(cleared, field.key, "skipped"), awaiting: undefined, reasks: 0 })
    }
    return end(cleared, lines.giveUp, "cut-short")
  }

  const awaited = (state: State): FieldItem | undefined =>
    state.awaiting === undefined ? undefined : Dialogue.field(state, state.awaiting)

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
        // A search field's choices are the SDK agent's: it is asked which match.
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
          if (speech.kind === "statement") next = Dialogue.setStatus(next, speech.key, "pending")
          if (speech.kind === "question") {
            next = Dialogue.setStatus(next, speech.key, "pending")
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
          // Left idle by the SDK agent.
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
      case "TransferRefused": {
        // An SDK agent's transfer the carrier refused: say so, and take the conversation up again.
        const target = awaited(state)
        return {
          state,
          actions: [
            say(lines.transferFailed),
            ...(target === undefined ? [timer] : [{ _tag: "Ask", key: target.key, text: questionFor(target) } as const])
          ]
        }
      }
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
          return advance(Dialogue.recordField(state, target.key, choice), [
            { _tag: "RecordField", key: target.key, value: choice }
          ])
        }
        return misunderstood(state, target)
      }
    }
  }

  return { decide }
}
