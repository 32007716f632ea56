/**
 * One call, as the agent's hooks see it: what is known about it (id, call info, collected field
 * values, variables) and the commands that steer it. Commands are sent in the order they are
 * made; those made before the call socket is open (in `onCallStart`) wait and go first once it
 * is. After the call has ended, commands are dropped with a warning.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@voice-agent/agent-protocol/Json"
import { isJsonValue } from "@voice-agent/agent-protocol/Json"
import type { CallInfo } from "./CallInfo.ts"
import type { ChecklistItem, DateValue } from "./Checklist.ts"
import { isDateValue, toActionItem } from "./Checklist.ts"
import type { Command, DtmfDigit, Language } from "./Commands.ts"
import { dtmfDigits } from "./Events.ts"
import type { CallState } from "./internal/CallState.ts"
import type { ReachPersonOptions } from "./ReachPerson.ts"
import { REACH_PERSON_TASK, reachPersonTask, voicemailRule } from "./ReachPerson.ts"

/** How the agent presents itself; every part optional (the server fills in defaults). */
export interface Persona {
  /** The agent's name ("Riley"). */
  readonly name?: string
  /** Whom it calls for ("Acme Dental"). */
  readonly organization?: string
  /** Why it calls ("to confirm appointments"). */
  readonly purpose?: string
  /** The voice: "grace" (the default) or "jack" on the reference service. */
  readonly voice?: string
}

export interface TaskOptions {
  /** What the task is for, in words. */
  readonly objective?: string
  /** The fields, statements and to-dos, in order. */
  readonly checklist?: ReadonlyArray<ChecklistItem>
  /** When the task counts as done, in words (default ""). */
  readonly completionCriteria?: string
}

/** What to do on reaching an answering machine: hang up, or leave `message` and hang up. */
export type VoicemailAction = { readonly hangup: true } | { readonly message: string }

const VOICEMAIL_HANDLER = "_voicemail_handler"

export class Call {
  /** The call's id (the server's). */
  readonly id: string
  /** How the call reached the agent. */
  readonly info: CallInfo
  readonly #state: CallState

  /** @internal Calls are made by the agent; hooks receive them. */
  constructor(id: string, info: CallInfo, state: CallState) {
    this.id = id
    this.info = info
    this.#state = state
  }

  /** Whether the call has ended (its socket is closed). */
  get ended(): boolean {
    return this.#state.ended
  }

  /** Sends a command as is. The methods below cover every command; this is the escape hatch. */
  send(command: Command): void {
    this.#state.send(command)
  }

  // ---- fields and variables ----

  /**
   * The value collected for a field, or `fallback` (default `undefined`) if none yet. Values:
   * strings, numbers (`integer`), `{year, month, day}` (`date`), the choice (`multiple_choice`),
   * `"YYYY-MM-DDTHH:MM"` (`calendar_slot`).
   */
  getField(key: string): JsonValue | undefined
  getField(key: string, fallback: JsonValue): JsonValue
  getField(key: string, fallback?: JsonValue): JsonValue | undefined {
    return this.#state.fields.has(key) ? this.#state.fields.get(key) : fallback
  }

  /** A field's value if it is a string (text, choices, slots, digit sequences), else `undefined`. */
  getText(key: string): string | undefined {
    const value = this.getField(key)
    return typeof value === "string" ? value : undefined
  }

  /** A field's value if it is a number (`integer` fields), else `undefined`. */
  getNumber(key: string): number | undefined {
    const value = this.getField(key)
    return typeof value === "number" ? value : undefined
  }

  /** A field's value if it is a `{year, month, day}` (`date` fields), else `undefined`. */
  getDate(key: string): DateValue | undefined {
    const value = this.getField(key)
    return isDateValue(value) ? value : undefined
  }

  hasField(key: string): boolean {
    return this.#state.fields.has(key)
  }

  /** Every value collected so far, by field key (a copy). */
  get fields(): Readonly<Record<string, JsonValue>> {
    return Object.fromEntries(this.#state.fields)
  }

  /**
   * Sets a variable the agent's instructions can use (`set-variable`); the initial variables of
   * `callPhone` and a campaign contact's `data` are set this way before `onCallStart`. Throws
   * `TypeError` if `value` is not JSON (see `isJsonValue`).
   */
  setVariable(key: string, value: JsonValue): void {
    if (!isJsonValue(value)) throw new TypeError(`Variable ${key}: the value is not JSON`)
    this.#state.variables.set(key, value)
    this.send({ command_type: "set-variable", key, value })
  }

  getVariable(key: string): JsonValue | undefined {
    return this.#state.variables.get(key)
  }

  // ---- the conversation ----

  /**
   * Gives the agent a task (replacing the current one): an objective and a checklist of `Field`s,
   * `Say`s and to-do strings. When the server judges it done, `onTaskComplete(taskId)` runs
   * (after any `onValidate` of its fields). Throws `TypeError` when there is neither objective
   * nor checklist.
   */
  setTask(taskId: string, task: TaskOptions): void {
    const checklist = task.checklist ?? []
    const objective = task.objective ?? ""
    if (objective === "" && checklist.length === 0) {
      throw new TypeError(`Task ${taskId} needs an objective or a checklist`)
    }
    const actionItems = checklist.map(toActionItem)
    this.#state.taskFields.set(
      taskId,
      actionItems.flatMap((item) => item.item_type === "field" ? [item.key] : [])
    )
    this.send({
      command_type: "set-task",
      task_id: taskId,
      objective,
      completion_criteria: task.completionCriteria ?? "",
      action_items: actionItems
    })
  }

  /** Sends the agent back to the current task, telling it why (`retry-task`). */
  retryTask(reason: string): void {
    this.send({ command_type: "retry-task", reason })
  }

  /** A free-text instruction for the agent (`send-instruction`). */
  sendInstruction(instruction: string): void {
    this.send({ command_type: "send-instruction", instruction })
  }

  /** Has the agent say `script` verbatim (`read-script`). */
  readScript(script: string): void {
    this.send({ command_type: "read-script", script })
  }

  /** Gives the agent information on a topic, as pretty-printed JSON in an instruction. */
  addInfo(label: string, info: JsonValue): void {
    this.sendInstruction(`Here is information about ${label}:\n${JSON.stringify(info, null, 2)}`)
  }

  /**
   * Asks the agent to wrap up and hang up, after following `finalInstructions` if given. There is
   * no hang-up command: this is an instruction, and the call ends when the agent hangs up
   * (`onSessionEnd`, reason `bot-hangup`).
   */
  hangup(finalInstructions?: string): void {
    this.sendInstruction(
      finalInstructions === undefined || finalInstructions === ""
        ? "Wrap up the conversation naturally and hang up the call."
        : `Start wrapping up the conversation. Final instructions: ${finalInstructions} Once you have followed them, end the conversation naturally and hang up the call.`
    )
  }

  /**
   * Transfers the call to `destination` (an E.164 number or a SIP address). `instructions` guide
   * what the agent says first (a soft transfer).
   */
  transfer(destination: string, instructions?: string): void {
    this.send({
      command_type: "transfer-call",
      transfer_message: instructions ?? "Tell the caller you are transferring them, then transfer the call.",
      to_number: destination,
      soft_transfer: true
    })
  }

  /** Sets the agent's languages (`set-language-mode`). */
  setLanguageMode(primary: Language = "english", secondary: ReadonlyArray<Language> = []): void {
    this.send({ command_type: "set-language-mode", primary, secondary: [...secondary] })
  }

  /** Changes the persona mid-call (`set-persona`; `null` for each part not given). */
  setPersona(persona: Persona): void {
    this.send({
      command_type: "set-persona",
      agent_name: persona.name ?? null,
      organization_name: persona.organization ?? null,
      agent_purpose: persona.purpose ?? null,
      voice: persona.voice ?? null
    })
  }

  // ---- keypad ----

  /** Lets the agent press keys itself, or stops it (`set-agent-dtmf`). Not on WebRTC calls. */
  setAgentDtmf(enabled: boolean): void {
    this.refuseOnWebrtc()
    this.send({ command_type: "set-agent-dtmf", enabled })
  }

  /** Presses keys now (`send-agent-dtmf`): "123#" or ["1", "2"]. Not on WebRTC calls. */
  sendDtmf(digits: string | ReadonlyArray<DtmfDigit>): void {
    this.refuseOnWebrtc()
    const list = typeof digits === "string" ? digits.split("") : [...digits]
    const bad = list.find((digit) => !(dtmfDigits as ReadonlyArray<string>).includes(digit))
    if (bad !== undefined) throw new TypeError(`${JSON.stringify(bad)} is not a DTMF digit (0-9, *, #, A-D)`)
    this.send({ command_type: "send-agent-dtmf", digits: list as Array<DtmfDigit> })
  }

  private refuseOnWebrtc(): void {
    if (this.info.callType === "webrtc") throw new TypeError("WebRTC calls have no keypad")
  }

  // ---- voicemail and reaching a person ----

  /**
   * What to do on reaching an answering machine. Not with `reachPerson` (which takes its own
   * voicemail options): mixing them throws `TypeError`.
   */
  setVoicemailAction(action: VoicemailAction): void {
    if (this.getVariable(VOICEMAIL_HANDLER) === "reach_person") {
      throw new TypeError("reachPerson already handles voicemail; use its voicemail options")
    }
    const rule = voicemailRule("hangup" in action ? { hangup: true } : { message: action.message })
    this.setVariable(VOICEMAIL_HANDLER, "set_voicemail_action")
    this.sendInstruction(
      `If an answering machine picks up, and only when it is clear the person cannot be reached: ${rule}`
    )
  }

  /**
   * Sets the `reach_person` task: get `name` on the line and record in `contact_availability`
   * whether that worked (`available`, `unavailable`, `voicemail`, `wrong_number`,
   * `do_not_contact` by default). `agent.onReachPerson` receives the result.
   */
  reachPerson(name: string, options: ReachPersonOptions = {}): void {
    if (this.getVariable(VOICEMAIL_HANDLER) === "set_voicemail_action") {
      throw new TypeError("setVoicemailAction was called; use reachPerson's voicemail options instead")
    }
    const task = reachPersonTask(name, options)
    this.setVariable(VOICEMAIL_HANDLER, "reach_person")
    this.setTask(REACH_PERSON_TASK, task)
  }
}
