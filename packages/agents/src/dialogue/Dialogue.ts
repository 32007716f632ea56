// One concept over 500 lines: its state, events, actions and `step` are one state machine, read together.
/**
 * The dialogue of one call as a value (what the agent says and asks, and what it has collected;
 * core's `Conversation` is the call's record): who the agent is (persona), what it must achieve
 * (the task and the status and collected value of each of its action items), the variables
 * (the contact's data, the definition's own), the instructions and the language, the counters a
 * policy keeps (re-asks, silences, keyed digits), the speech queued and not yet heard, the
 * silence timer, and how the call ended. Pure: no I/O and no clock; time comes in the events.
 *
 * The runtime that drives it (`ConversationAgent`) turns what happens on the call into `Event`s
 * and calls `step(state, event, policy)`; it gets the next state and the `Action`s to carry
 * out, in order:
 * - `Say` / `Ask`: speak the text after what is already queued, and report `SpeechPlayed` or
 *   `SpeechInterrupted` with the action's `id` (an interrupt drops every later queued speech:
 *   the dialogue drops them with the first one reported cut, and ignores reports about
 *   them after that).
 *   The text of an `Ask` never carries a value; a `Say` whose `sensitiveFree` is false is
 *   written to transcripts and logs as `[redacted]`.
 * - `RecordTurn`: the caller's turn for the transcript, already redacted when it answered a
 *   sensitive field.
 * - `RecordField`: store a collected value (`sensitive`: never log it in clear).
 * - `StartSilenceTimer`: (re)start the one silence timer; report `SilenceTimeout` with its `id`
 *   (a timeout of a timer the dialogue has since replaced or cleared is dropped, so the
 *   runtime never has to cancel one).
 * - `CompleteTask`, `EndCall`: the last ends the dialogue after the speech already queued has
 *   played; every later event is ignored.
 * - `Transfer`: once the speech already queued has played, ask the carrier to move the call,
 *   and report how it went: `Transferred` ends the dialogue (`transfer`); `TransferRefused`
 *   puts it back where it was, and the policy tells whoever asked (the model, through the
 *   result of its `transfer` call `id`; the caller). Until then, only `HungUp` counts.
 * - `Generate`: ask the language model for the next reply, with a prompt built from this state
 *   (a generation still streaming is dropped first); its sentences come back as `ModelText`
 *   and its tool calls as `ModelToolCall` events.
 * - `ToolResult`: the output of a model's tool call, and whether it was `refused` (not carried
 *   out): the model hears back at once about a refused call (another round); the others only
 *   when its reply had nothing to say.
 *
 * What to say is the `Policy`'s: `step` gives it the event (with the speech a playback report
 * is about) and applies what it decides. `step` owns the bookkeeping every policy shares, so a
 * policy cannot get it wrong: ids of speech and timers, a recorded field's value and status,
 * the end of the call, the caller's turns, and the last guard on sensitive values: a value
 * collected for a sensitive field (`isSensitive`: flagged, or any `cvv`) is replaced by
 * `[redacted]` wherever it would appear in the text of a `Say`, an `Ask` or a transfer message.
 *
 * Policies: `DeterministicPolicy` (the default, no model). A language-model policy implements
 * the same `Policy`: its prompt is built from this state (persona, task, items and values,
 * instructions, variables, `turns`), the model is called by the runtime outside the step, and
 * the model's output comes back as events whose `decide` turns sentences into `Say`s and the
 * tool calls (record a field, complete the task, transfer, end the call) into the matching
 * directives, which `step` checks and applies like the deterministic policy's.
 *
 * @since 0.1.0
 */
import type { ActionItem, FieldItem, FieldValue, Persona, Task } from "@voice-agent/core/AgentTask"
import { isSensitive } from "@voice-agent/core/AgentTask"
import * as CalendarDate from "@voice-agent/core/CalendarDate"
import type { AgentOutcome } from "@voice-agent/core/ports/Agent"

/**
 * What stands for a sensitive value in text.
 *
 * @category constants
 */
export const Redacted = "[redacted]"

/**
 * @category models
 */
export type Variables = { readonly [key: string]: unknown }

/**
 * Where an action item stands. A `say` item is `done` once said (back to `pending` if the
 * caller cut it off); a field is `asking` while its question is out, then `done` with its value
 * or `skipped`.
 *
 * @category models
 */
export type ItemStatus = "pending" | "asking" | "done" | "skipped"

/**
 * @category models
 */
export interface ItemState {
  readonly item: ActionItem
  readonly status: ItemStatus
  readonly value?: FieldValue | undefined
}

/**
 * The call as the dialogue knows it from `CallStarted`.
 *
 * @category models
 */
export interface CallInfo {
  readonly direction: "inbound" | "outbound"
  readonly from: string
  readonly to: string
  readonly answeredBy: "human" | "machine"
  /** The date of the call in its timezone (relative dates are read from it). */
  readonly today: CalendarDate.CivilDate
}

/**
 * Speech sent and not yet reported played: a fixed line, a checklist statement (`key` of the
 * `say` item) or a field's question (`key` of the field).
 *
 * @category models
 */
export interface Speech {
  readonly id: number
  readonly kind: "line" | "statement" | "question"
  readonly key?: string | undefined
  readonly text: string
}

/**
 * A turn of the dialogue as a model may read it (sensitive answers already redacted).
 *
 * @category models
 */
export interface Turn {
  readonly speaker: "AGENT" | "HUMAN"
  readonly text: string
}

/**
 * How the dialogue ended: by the agent (an `EndCall` or a `Transfer`) or by the caller
 * hanging up.
 *
 * @category models
 */
export interface Ended {
  readonly outcome: AgentOutcome
  readonly endedBy: "agent" | "remote"
  readonly transferTo?: string | undefined
}

/**
 * A transfer under way: its target, and the model's tool call that asked for it, if one did.
 *
 * @category models
 */
export interface Transferring {
  readonly to: string
  readonly id?: string | undefined
}

/**
 * The dialogue of one call.
 *
 * @category models
 */
export interface State {
  readonly persona: Persona
  readonly variables: Variables
  readonly task: Task | undefined
  readonly items: ReadonlyArray<ItemState>
  readonly instructions: ReadonlyArray<string>
  readonly language: string
  readonly call: CallInfo | undefined
  /** The field whose answer the next utterance is taken as. */
  readonly awaiting: string | undefined
  /** Re-asks of the awaited field after answers that could not be understood. */
  readonly reasks: number
  /** Silence timeouts since the caller last spoke. */
  readonly silences: number
  /** Digits keyed for the awaited field, not yet submitted. */
  readonly dtmf: string
  readonly speaking: ReadonlyArray<Speech>
  readonly turns: ReadonlyArray<Turn>
  /** The running silence timer's id. */
  readonly timer: number | undefined
  readonly nextId: number
  readonly completed: boolean
  readonly ended: Ended | undefined
  /** A transfer asked for and not yet reported (`Transferred` or `TransferRefused`). */
  readonly transferring: Transferring | undefined
  /**
   * An SDK agent drives the dialogue (the reference SDK's protocol): the end of the
   * checklist completes the task and waits for the agent's next command instead of closing the
   * call, and what the agent registered hooks for is handed to it.
   */
  readonly controller: Controller | undefined
}

/**
 * What the SDK agent handles itself (its registered hooks).
 *
 * @category models
 */
export interface Controller {
  /** Questions of the caller go to the agent (`Question`), which answers them. */
  readonly answersQuestions: boolean
  /** Requests of the caller outside the task go to the agent (`ActionRequest`), which may act on them. */
  readonly handlesRequests: boolean
}

/**
 * An SDK agent's command, in the dialogue's terms.
 *
 * @category models
 */
export type Command =
  | { readonly _tag: "SetPersona"; readonly persona: Persona }
  | { readonly _tag: "SetHooks"; readonly answersQuestions: boolean; readonly handlesRequests: boolean }
  | { readonly _tag: "SetVariable"; readonly key: string; readonly value: unknown }
  | { readonly _tag: "SetLanguage"; readonly language: string }
  /** Replaces the task (and every item's status and value). */
  | { readonly _tag: "SetTask"; readonly task: Task }
  /** The agent refused the completed task: collect its fields again. */
  | { readonly _tag: "RetryTask"; readonly reason: string }
  | { readonly _tag: "Instruct"; readonly text: string }
  | { readonly _tag: "ReadScript"; readonly text: string }
  /** `soft`: the message is guidance for a model, not words to say. */
  | { readonly _tag: "Transfer"; readonly to: string; readonly message: string; readonly soft: boolean }
  | { readonly _tag: "AnswerQuestion"; readonly questionId: string; readonly answer: string }
  /** The choices of a search field that match what the caller said. */
  | {
    readonly _tag: "ChoiceResult"
    readonly key: string
    readonly queryId: string
    readonly matched: ReadonlyArray<string>
  }

/**
 * What happens on the call, as the runtime reports it. Offsets are milliseconds from the
 * answer.
 *
 * @category models
 */
export type Event =
  | {
    readonly _tag: "CallStarted"
    readonly direction: "inbound" | "outbound"
    readonly from: string
    readonly to: string
    /** The contact's data, merged over the definition's variables. */
    readonly variables: Variables
    readonly answeredBy: "human" | "machine"
    /** The date of the call in its timezone: the runtime reads the clock, the dialogue does not. */
    readonly today: CalendarDate.CivilDate
  }
  /** A final transcript of the caller's speech. */
  | { readonly _tag: "Utterance"; readonly text: string; readonly offsetMs: number }
  | { readonly _tag: "Dtmf"; readonly digit: string; readonly offsetMs: number }
  | { readonly _tag: "SpeechPlayed"; readonly id: number; readonly offsetMs: number }
  /** The caller barged in: the speech `id` was cut after `playedMs`, and all speech after it dropped. */
  | { readonly _tag: "SpeechInterrupted"; readonly id: number; readonly offsetMs: number; readonly playedMs: number }
  | { readonly _tag: "SilenceTimeout"; readonly id: number; readonly offsetMs: number }
  /** The caller hung up. */
  | { readonly _tag: "HungUp"; readonly offsetMs: number }
  /** The carrier moved the call (after a `Transfer`). */
  | { readonly _tag: "Transferred" }
  /** The carrier refused the `Transfer`, for `reason`: the call goes on. */
  | { readonly _tag: "TransferRefused"; readonly reason: string }
  /** A sentence of the language model's reply (after a `Generate`), as it streams in. */
  | { readonly _tag: "ModelText"; readonly text: string }
  /** A tool call of the language model; answered by a `ToolResult` with its `id`. */
  | { readonly _tag: "ModelToolCall"; readonly id: string; readonly name: string; readonly arguments: string }
  /** An SDK agent's command. */
  | { readonly _tag: "Command"; readonly command: Command }

/**
 * What a policy is given: the events, with a playback report resolved to the speech it is about
 * (for an interruption, also every speech dropped with it, the interrupted one first). Stale
 * timeouts and reports of unknown speech never reach it, nor does `HungUp`.
 *
 * @category models
 */
export type Input =
  | Exclude<
    Event,
    { readonly _tag: "SpeechPlayed" | "SpeechInterrupted" | "HungUp" | "Command" | "Transferred" | "TransferRefused" }
  >
  /** The carrier refused the transfer to `to` (asked for by the model's call `id`, if any). */
  | {
    readonly _tag: "TransferRefused"
    readonly to: string
    readonly id?: string | undefined
    readonly reason: string
  }
  /** The commands a policy decides on (the others are `step`'s), after `step` applied them. */
  | {
    readonly _tag: "Command"
    readonly command: Extract<
      Command,
      { readonly _tag: "SetTask" | "RetryTask" | "Instruct" | "AnswerQuestion" | "ChoiceResult" }
    >
  }
  | { readonly _tag: "SpeechPlayed"; readonly speech: Speech; readonly offsetMs: number }
  | {
    readonly _tag: "SpeechInterrupted"
    readonly speech: Speech
    readonly dropped: ReadonlyArray<Speech>
    readonly offsetMs: number
    readonly playedMs: number
  }

/**
 * What a policy decides; `step` gives speech and timers their ids and turns these into
 * `Action`s. `Say` with a `key` is the checklist's `say` item of that key.
 *
 * @category models
 */
export type Directive =
  | { readonly _tag: "Say"; readonly text: string; readonly sensitiveFree: boolean; readonly key?: string | undefined }
  | { readonly _tag: "Ask"; readonly key: string; readonly text: string }
  | { readonly _tag: "RecordField"; readonly key: string; readonly value: FieldValue }
  | { readonly _tag: "CompleteTask" }
  /** `id`: the model's tool call that asked for it (its result waits for the carrier's answer). */
  | { readonly _tag: "Transfer"; readonly to: string; readonly message: string; readonly id?: string | undefined }
  | { readonly _tag: "EndCall"; readonly outcome: AgentOutcome }
  | { readonly _tag: "StartSilenceTimer"; readonly ms: number }
  | { readonly _tag: "Generate" }
  /** `refused`: the call was not carried out (a value that cannot be read, a required field missing…). */
  | {
    readonly _tag: "ToolResult"
    readonly id: string
    readonly output: string
    readonly refused?: boolean | undefined
  }
  /** Hand the caller's question to the SDK agent. */
  | { readonly _tag: "Question"; readonly text: string }
  /** Hand a request of the caller outside the task to the SDK agent. */
  | { readonly _tag: "ActionRequest"; readonly text: string }
  /** Ask the SDK agent which choices of a search field match what the caller said. */
  | { readonly _tag: "ChoiceQuery"; readonly key: string; readonly query: string }
  /** The caller asked for a human. */
  | { readonly _tag: "Escalate" }

/**
 * What the runtime carries out, in order (see the module's header).
 *
 * @category models
 */
export type Action =
  | {
    readonly _tag: "Say"
    readonly id: number
    readonly text: string
    readonly sensitiveFree: boolean
    readonly key?: string | undefined
  }
  | { readonly _tag: "Ask"; readonly id: number; readonly key: string; readonly text: string }
  | { readonly _tag: "RecordField"; readonly key: string; readonly value: FieldValue; readonly sensitive: boolean }
  | { readonly _tag: "CompleteTask"; readonly taskId: string | undefined }
  | { readonly _tag: "Transfer"; readonly to: string; readonly message: string; readonly id?: string | undefined }
  | { readonly _tag: "EndCall"; readonly outcome: AgentOutcome }
  | { readonly _tag: "StartSilenceTimer"; readonly id: number; readonly ms: number }
  | { readonly _tag: "RecordTurn"; readonly speaker: "HUMAN"; readonly text: string; readonly offsetMs: number }
  | { readonly _tag: "Generate" }
  | {
    readonly _tag: "ToolResult"
    readonly id: string
    readonly output: string
    readonly refused?: boolean | undefined
  }
  | { readonly _tag: "Question"; readonly id: string; readonly text: string }
  | { readonly _tag: "ActionRequest"; readonly id: string; readonly text: string }
  | { readonly _tag: "ChoiceQuery"; readonly id: string; readonly key: string; readonly query: string }
  | { readonly _tag: "Escalate" }

/**
 * A policy's answer to one input.
 *
 * @category models
 */
export interface Decision {
  readonly state: State
  readonly actions: ReadonlyArray<Directive>
}

/**
 * What decides the dialogue: pure, one input at a time. It may change any part of the
 * state it owns (item statuses, `awaiting`, the counters, `dtmf`); `step` applies its
 * directives to the rest.
 *
 * @category models
 */
export interface Policy {
  readonly decide: (state: State, input: Input) => Decision
}

/**
 * The result of a step.
 *
 * @category models
 */
export interface Step {
  readonly state: State
  readonly actions: ReadonlyArray<Action>
}

/**
 * What a dialogue starts from (an agent definition, or the reference's `set-persona`,
 * `set-task`, `set-variable`, `send-instruction` and `set-language-mode`).
 *
 * @category models
 */
export interface Definition {
  readonly persona?: Persona | undefined
  readonly task?: Task | undefined
  readonly variables?: Variables | undefined
  readonly instructions?: ReadonlyArray<string> | undefined
  readonly language?: string | undefined
  /** An SDK agent drives the dialogue (see `State.controller`). */
  readonly controller?: Controller | undefined
}

/**
 * The dialogue before the call starts.
 *
 * @category constructors
 */
export const make = (definition: Definition = {}): State => ({
  persona: definition.persona ?? {},
  variables: definition.variables ?? {},
  task: definition.task,
  items: (definition.task?.action_items ?? []).map((item) => ({ item, status: "pending" })),
  instructions: definition.instructions ?? [],
  language: definition.language ?? "english",
  call: undefined,
  awaiting: undefined,
  reasks: 0,
  silences: 0,
  dtmf: "",
  speaking: [],
  turns: [],
  timer: undefined,
  nextId: 1,
  completed: false,
  ended: undefined,
  transferring: undefined,
  controller: definition.controller
})

/**
 * The field of `key` in the task, if any.
 *
 * @category getters
 */
export const field = (state: State, key: string): FieldItem | undefined => {
  const found = state.items.find((entry) => entry.item.key === key)?.item
  return found?.item_type === "field" ? found : undefined
}

/**
 * The values collected so far, by field key.
 *
 * @category getters
 */
export const values = (state: State): { readonly [key: string]: FieldValue } => {
  const collected: { [key: string]: FieldValue } = {}
  for (const entry of state.items) {
    if (entry.item.item_type === "field" && entry.value !== undefined) collected[entry.item.key] = entry.value
  }
  return collected
}

/**
 * Sets the status of the item `key`.
 *
 * @category combinators
 */
export const setStatus = (state: State, key: string, status: ItemStatus): State => ({
  ...state,
  items: state.items.map((entry) => entry.item.key === key ? { ...entry, status } : entry)
})

/**
 * Stores a field's value: the field is done, and no longer awaited.
 *
 * @category combinators
 */
export const recordField = (state: State, key: string, value: FieldValue): State => ({
  ...state,
  items: state.items.map((entry) => entry.item.key === key ? { ...entry, status: "done", value } : entry),
  awaiting: state.awaiting === key ? undefined : state.awaiting,
  reasks: state.awaiting === key ? 0 : state.reasks,
  dtmf: state.awaiting === key ? "" : state.dtmf
})

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The forms a value may take in text: as written, digits with any separators between them. */
const patternOf = (value: FieldValue): RegExp | undefined => {
  const text = typeof value === "object"
    ? CalendarDate.format(value)
    : String(value).trim()
  if (text === "") return undefined
  const body = /^\d+$/.test(text)
    ? text.split("").join("[\\s.,-]*")
    : escapeRegExp(text)
  const start = /^\w/.test(text) ? "\\b" : ""
  const end = /\w$/.test(text) ? "\\b" : ""
  return new RegExp(`${start}${body}${end}`, "gi")
}

/**
 * `text` with every value collected for a sensitive field replaced by `[redacted]`.
 *
 * @category combinators
 */
export const scrub = (state: State, text: string): string => {
  let result = text
  for (const entry of state.items) {
    if (entry.item.item_type !== "field" || entry.value === undefined || !isSensitive(entry.item)) continue
    const pattern = patternOf(entry.value)
    if (pattern !== undefined) result = result.replace(pattern, Redacted)
  }
  return result
}

const isAwaitingSensitive = (state: State): boolean => {
  if (state.awaiting === undefined) return false
  const awaited = field(state, state.awaiting)
  return awaited !== undefined && isSensitive(awaited)
}

/** What the runtime's event means to the policy; undefined when it is stale or unknown. */
const resolve = (state: State, event: Event): { readonly state: State; readonly input: Input } | undefined => {
  switch (event._tag) {
    case "SpeechPlayed": {
      const speech = state.speaking.find((candidate) => candidate.id === event.id)
      if (speech === undefined) return undefined
      return {
        state: { ...state, speaking: state.speaking.filter((candidate) => candidate.id !== event.id) },
        input: { _tag: "SpeechPlayed", speech, offsetMs: event.offsetMs }
      }
    }
    case "SpeechInterrupted": {
      const index = state.speaking.findIndex((candidate) => candidate.id === event.id)
      const speech = state.speaking[index]
      if (speech === undefined) return undefined
      return {
        state: { ...state, speaking: state.speaking.slice(0, index), timer: undefined },
        input: {
          _tag: "SpeechInterrupted",
          speech,
          dropped: state.speaking.slice(index),
          offsetMs: event.offsetMs,
          playedMs: event.playedMs
        }
      }
    }
    case "SilenceTimeout":
      return event.id === state.timer ? { state: { ...state, timer: undefined }, input: event } : undefined
    case "Utterance":
    case "Dtmf":
      return { state: { ...state, timer: undefined }, input: event }
    case "CallStarted":
      return {
        state: {
          ...state,
          call: {
            direction: event.direction,
            from: event.from,
            to: event.to,
            answeredBy: event.answeredBy,
            today: event.today
          },
          variables: { ...state.variables, ...event.variables }
        },
        input: event
      }
    case "ModelText":
    case "ModelToolCall":
      return { state, input: event }
    case "HungUp":
    case "Command":
    case "Transferred":
    case "TransferRefused":
      return undefined
  }
}

/**
 * Applies one event: resolves it, asks the policy, and applies the policy's directives (ids,
 * recorded values, the end of the call, the sensitive-value guard). Nothing happens once the
 * dialogue has ended.
 *
 * @category combinators
 */
export const step = (state: State, event: Event, policy: Policy): Step => {
  if (state.ended !== undefined) return { state, actions: [] }
  if (event._tag === "HungUp") {
    return {
      state: {
        ...state,
        transferring: undefined,
        ended: { outcome: state.completed ? "completed" : "cut-short", endedBy: "remote" }
      },
      actions: []
    }
  }
  if (state.transferring !== undefined) return transferReport(state, state.transferring, event, policy)
  if (event._tag === "Transferred" || event._tag === "TransferRefused") return { state, actions: [] }
  if (event._tag === "Command") return command(state, event.command, policy)
  if (event._tag === "Utterance" && event.text.trim() === "") return { state, actions: [] }
  const resolved = resolve(state, event)
  if (resolved === undefined) return { state, actions: [] }
  const actions: Array<Action> = []
  let current = resolved.state
  if (event._tag === "Utterance") {
    const text = isAwaitingSensitive(current) ? Redacted : scrub(current, event.text)
    actions.push({ _tag: "RecordTurn", speaker: "HUMAN", text, offsetMs: event.offsetMs })
    current = { ...current, turns: [...current.turns, { speaker: "HUMAN", text }] }
  }
  const decision = policy.decide(current, resolved.input)
  return apply(decision.state, decision.actions, actions)
}

/** While a transfer is under way: its report; every other event is ignored. */
const transferReport = (state: State, transferring: Transferring, event: Event, policy: Policy): Step => {
  if (event._tag === "Transferred") {
    return {
      state: {
        ...state,
        transferring: undefined,
        ended: { outcome: "transfer", endedBy: "agent", transferTo: transferring.to }
      },
      actions: []
    }
  }
  if (event._tag !== "TransferRefused") return { state, actions: [] }
  const decision = policy.decide({ ...state, transferring: undefined }, {
    _tag: "TransferRefused",
    to: transferring.to,
    id: transferring.id,
    reason: event.reason
  })
  return apply(decision.state, decision.actions, [])
}

/** What a transfer the agent asked for says when its message is guidance for a model. */
const transferLine = "Please hold while I transfer your call."

/**
 * An SDK agent's command: the settings are `step`'s (persona, hooks, variables, language, a
 * script to read, a transfer); what to do about a task, an instruction, an answer or a search
 * is the policy's, once `step` has applied the change to the state.
 */
const command = (state: State, command: Command, policy: Policy): Step => {
  switch (command._tag) {
    case "SetPersona":
      return { state: { ...state, persona: { ...state.persona, ...definedOf(command.persona) } }, actions: [] }
    case "SetHooks":
      return {
        state: {
          ...state,
          controller: { answersQuestions: command.answersQuestions, handlesRequests: command.handlesRequests }
        },
        actions: []
      }
    case "SetVariable":
      return { state: { ...state, variables: { ...state.variables, [command.key]: command.value } }, actions: [] }
    case "SetLanguage":
      return { state: { ...state, language: command.language }, actions: [] }
    case "ReadScript":
      return apply(state, [{ _tag: "Say", text: command.text, sensitiveFree: true }], [])
    case "Transfer":
      return apply(state, [
        { _tag: "Say", text: command.soft ? transferLine : command.message, sensitiveFree: true },
        { _tag: "Transfer", to: command.to, message: command.message }
      ], [])
    case "SetTask": {
      const replaced: State = {
        ...state,
        task: command.task,
        items: command.task.action_items.map((item) => ({ item, status: "pending" })),
        awaiting: undefined,
        reasks: 0,
        dtmf: "",
        timer: undefined,
        completed: false
      }
      return decideCommand(replaced, command, policy)
    }
    case "RetryTask": {
      const reopened: State = {
        ...state,
        items: state.items.map((entry) =>
          entry.item.item_type === "field" ? { item: entry.item, status: "pending" } : entry
        ),
        awaiting: undefined,
        reasks: 0,
        timer: undefined,
        completed: false
      }
      return decideCommand(reopened, command, policy)
    }
    case "Instruct":
      return decideCommand({ ...state, instructions: [...state.instructions, command.text] }, command, policy)
    case "AnswerQuestion":
    case "ChoiceResult":
      return decideCommand(state, command, policy)
  }
}

const definedOf = (persona: Persona): Persona => {
  const defined: { -readonly [K in keyof Persona]: Persona[K] } = {}
  for (const key of ["agent_name", "organization_name", "agent_purpose", "voice"] as const) {
    const value = persona[key]
    if (value !== undefined && value !== null) defined[key] = value
  }
  return defined
}

const decideCommand = (
  state: State,
  command: Extract<Input, { readonly _tag: "Command" }>["command"],
  policy: Policy
): Step => {
  const decision = policy.decide(state, { _tag: "Command", command })
  return apply(decision.state, decision.actions, [])
}

/** Applies a policy's directives: ids, recorded values, the end of the call, the sensitive guard. */
const apply = (state: State, directives: ReadonlyArray<Directive>, before: ReadonlyArray<Action>): Step => {
  const actions: Array<Action> = [...before]
  let current = state
  for (const directive of directives) {
    if (current.ended !== undefined || current.transferring !== undefined) break
    switch (directive._tag) {
      case "Say":
      case "Ask": {
        const id = current.nextId
        const text = scrub(current, directive.text)
        const speech: Speech = directive._tag === "Ask"
          ? { id, kind: "question", key: directive.key, text }
          : { id, kind: directive.key === undefined ? "line" : "statement", key: directive.key, text }
        const sensitiveFree = directive._tag === "Ask" || directive.sensitiveFree
        current = {
          ...current,
          nextId: id + 1,
          speaking: [...current.speaking, speech],
          turns: [...current.turns, { speaker: "AGENT", text: sensitiveFree ? text : Redacted }],
          awaiting: directive._tag === "Ask" ? directive.key : current.awaiting
        }
        actions.push(
          directive._tag === "Ask"
            ? { _tag: "Ask", id, key: directive.key, text }
            : { _tag: "Say", id, text, sensitiveFree, key: directive.key }
        )
        break
      }
      case "RecordField": {
        const target = field(current, directive.key)
        if (target === undefined) break
        current = recordField(current, directive.key, directive.value)
        actions.push({ ...directive, sensitive: isSensitive(target) })
        break
      }
      case "CompleteTask":
        current = { ...current, completed: true }
        actions.push({ _tag: "CompleteTask", taskId: current.task?.task_id })
        break
      case "Transfer":
        current = { ...current, transferring: { to: directive.to, id: directive.id } }
        actions.push({ ...directive, message: scrub(current, directive.message) })
        break
      case "EndCall":
        current = { ...current, ended: { outcome: directive.outcome, endedBy: "agent" } }
        actions.push(directive)
        break
      case "StartSilenceTimer": {
        const id = current.nextId
        current = { ...current, nextId: id + 1, timer: id }
        actions.push({ _tag: "StartSilenceTimer", id, ms: directive.ms })
        break
      }
      case "Generate":
        actions.push(directive)
        break
      case "ToolResult":
        actions.push({ ...directive, output: scrub(current, directive.output) })
        break
      case "Question":
      case "ActionRequest": {
        const id = current.nextId
        current = { ...current, nextId: id + 1 }
        actions.push({ _tag: directive._tag, id: String(id), text: scrub(current, directive.text) })
        break
      }
      case "ChoiceQuery": {
        const id = current.nextId
        current = { ...current, nextId: id + 1 }
        actions.push({ ...directive, id: String(id) })
        break
      }
      case "Escalate":
        actions.push(directive)
        break
    }
  }
  return { state: current, actions }
}
