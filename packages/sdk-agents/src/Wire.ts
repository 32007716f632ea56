/**
 * The reference SDK's call-socket payloads: the agent's commands (`command_type`) decoded into
 * the conversation's terms, and the events (`event_type`) the server sends, built exactly as the
 * Python SDK 0.35's strict models accept them (an event it cannot parse kills a real agent).
 *
 * Commands are decoded leniently where the SDK's versions differ (`completion_criteria` or the
 * older `success_criteria`, optional flags) and strictly where a value matters (an E.164
 * transfer target, a task's items as `core/AgentTask` defines them). A command the server does
 * not know, or cannot read, is answered with a `warning` event, never a closed socket.
 *
 * @since 0.1.0
 */
import type { Payload } from "@voice-agent/agent-protocol/Envelope"
import type { Note } from "@voice-agent/agents/ConversationAgent"
import type * as Dialogue from "@voice-agent/agents/dialogue/Dialogue"
import { ActionItem } from "@voice-agent/core/AgentTask"
import type { FieldValue } from "@voice-agent/core/AgentTask"
import type { TerminationReason } from "@voice-agent/core/Conversation"
import { Schema } from "effect"

const NullableString = Schema.optionalKey(Schema.NullOr(Schema.String))
const Flag = Schema.optionalKey(Schema.NullOr(Schema.Boolean))

const Languages = ["english", "spanish", "french", "german", "italian"] as const

const commandSchemas = {
  "set-persona": Schema.Struct({
    agent_name: NullableString,
    organization_name: NullableString,
    agent_purpose: NullableString,
    voice: NullableString
  }),
  "registered-hooks": Schema.Struct({
    has_on_question: Flag,
    has_on_intent: Flag,
    has_on_action_requested: Flag,
    has_on_escalate: Flag
  }),
  "set-variable": Schema.Struct({ key: Schema.String, value: Schema.optionalKey(Schema.Unknown) }),
  "set-task": Schema.Struct({
    task_id: Schema.String,
    objective: Schema.optionalKey(Schema.NullOr(Schema.String)),
    completion_criteria: NullableString,
    success_criteria: NullableString,
    action_items: Schema.Array(ActionItem)
  }),
  "retry-task": Schema.Struct({ reason: Schema.optionalKey(Schema.NullOr(Schema.String)) }),
  "send-instruction": Schema.Struct({ instruction: Schema.String }),
  "read-script": Schema.Struct({ script: Schema.String }),
  "transfer-call": Schema.Struct({
    transfer_message: Schema.optionalKey(Schema.NullOr(Schema.String)),
    to_number: Schema.String.check(Schema.isPattern(/^(\+[1-9]\d{1,14}|sips?:\S+)$/)),
    soft_transfer: Flag
  }),
  "answer-question": Schema.Struct({ question_id: Schema.String, answer: Schema.String }),
  "choice-query-result": Schema.Struct({
    field_key: Schema.String,
    query_id: Schema.String,
    matched_choices: Schema.Array(Schema.String),
    other_choices: Schema.optionalKey(Schema.Array(Schema.String))
  }),
  "set-language-mode": Schema.Struct({
    primary: Schema.optionalKey(Schema.Literals(Languages)),
    secondary: Schema.optionalKey(Schema.Array(Schema.Literals(Languages)))
  }),
  "action-suggestion": Schema.Struct({
    intent_id: Schema.String,
    action_key: Schema.optionalKey(Schema.NullOr(Schema.String)),
    action_description: Schema.optionalKey(Schema.String),
    actions: Schema.optionalKey(
      Schema.Array(Schema.Struct({ key: Schema.String, description: Schema.optionalKey(Schema.String) }))
    )
  }),
  "send-agent-dtmf": Schema.Struct({ digits: Schema.Array(Schema.String.check(Schema.isPattern(/^[0-9*#A-Da-dw]$/))) }),
  "set-agent-dtmf": Schema.Struct({ enabled: Schema.Boolean }),
  "expert-error": Schema.Struct({ message: Schema.optionalKey(Schema.String) }),
  "send-caller-text": Schema.Struct({ text: Schema.optionalKey(Schema.String) })
} as const

type CommandType = keyof typeof commandSchemas

/**
 * What a command asks of the call.
 *
 * @category models
 */
export type Decoded =
  | { readonly _tag: "Conversation"; readonly command: Dialogue.Command }
  /** Keys to send to the person. */
  | { readonly _tag: "SendDtmf"; readonly digits: string }
  /** The agent picked an action for an intent: it is told to carry it out. */
  | { readonly _tag: "Execute"; readonly actionKey: string }
  /** Read and nothing to do (the agent's own error report, a text the call cannot show). */
  | { readonly _tag: "Noted"; readonly commandType: string; readonly detail: string }
  /** Not a command this server knows, or one it cannot read: a `warning` answers it. */
  | { readonly _tag: "Refused"; readonly warning: string }

const isCommandType = (type: string): type is CommandType => Object.hasOwn(commandSchemas, type)

/**
 * Decodes one call-socket payload.
 *
 * @category decoding
 */
export const decodeCommand = (payload: Payload): Decoded => {
  const type = payload["command_type"]
  if (typeof type !== "string") return { _tag: "Refused", warning: "A command needs a command_type." }
  if (!isCommandType(type)) return { _tag: "Refused", warning: `Unknown command_type "${type}": ignored.` }
  const decoded = Schema.decodeUnknownResult(commandSchemas[type])(payload)
  if (decoded._tag === "Failure") {
    return { _tag: "Refused", warning: `Invalid ${type} command, ignored: ${String(decoded.failure)}` }
  }
  // The table's entry for `type` takes what `type`'s schema decodes (TypeScript cannot tie the two).
  const interpret = interpreters[type] as (command: Decodes[CommandType]) => Decoded
  return interpret(decoded.success)
}

type Decodes = { readonly [K in CommandType]: typeof commandSchemas[K]["Type"] }

const conversation = (command: Dialogue.Command): Decoded => ({ _tag: "Conversation", command })

const noted = (commandType: CommandType, detail: string): Decoded => ({ _tag: "Noted", commandType, detail })

/** What each command asks, from its decoded form. */
const interpreters: { readonly [K in CommandType]: (command: Decodes[K]) => Decoded } = {
  "set-persona": (persona) => conversation({ _tag: "SetPersona", persona }),
  "registered-hooks": (hooks) =>
    conversation({
      _tag: "SetHooks",
      answersQuestions: hooks.has_on_question === true,
      handlesRequests: hooks.has_on_action_requested === true
    }),
  "set-variable": (variable) => conversation({ _tag: "SetVariable", key: variable.key, value: variable.value ?? null }),
  "set-task": (task) =>
    conversation({
      _tag: "SetTask",
      task: {
        task_id: task.task_id,
        objective: task.objective ?? "",
        completion_criteria: task.completion_criteria ?? task.success_criteria ?? null,
        action_items: task.action_items
      }
    }),
  "retry-task": (retry) => conversation({ _tag: "RetryTask", reason: retry.reason ?? "" }),
  "send-instruction": (instruction) => conversation({ _tag: "Instruct", text: instruction.instruction }),
  "read-script": (script) => conversation({ _tag: "ReadScript", text: script.script }),
  "transfer-call": (transfer) =>
    conversation({
      _tag: "Transfer",
      to: transfer.to_number,
      message: transfer.transfer_message ?? "",
      soft: transfer.soft_transfer === true
    }),
  "answer-question": (answer) =>
    conversation({ _tag: "AnswerQuestion", questionId: answer.question_id, answer: answer.answer }),
  "choice-query-result": (result) =>
    conversation({
      _tag: "ChoiceResult",
      key: result.field_key,
      queryId: result.query_id,
      matched: result.matched_choices
    }),
  "set-language-mode": (mode) => conversation({ _tag: "SetLanguage", language: mode.primary ?? "english" }),
  "action-suggestion": (suggestion) => {
    const key = suggestion.action_key ??
      (suggestion.actions !== undefined && suggestion.actions.length === 1 ? suggestion.actions[0]!.key : null)
    return key === null
      ? noted("action-suggestion", "no single action matched the request")
      : { _tag: "Execute", actionKey: key }
  },
  "send-agent-dtmf": (keys) => ({ _tag: "SendDtmf", digits: keys.digits.join("") }),
  "set-agent-dtmf": () => noted("set-agent-dtmf", "keys are always heard"),
  "expert-error": (error) => noted("expert-error", error.message ?? ""),
  "send-caller-text": () => noted("send-caller-text", "a phone call shows no text")
}

/**
 * A field's value as the SDK's `get_field` returns it: a date as `{year, month, day}`, the rest
 * as collected (a calendar slot is already `"YYYY-MM-DDTHH:MM"`).
 *
 * @category encoding
 */
export const fieldPayload = (value: FieldValue): unknown => typeof value === "object" ? { ...value } : value

/**
 * The event that tells the agent of a note.
 *
 * @category encoding
 */
export const noteEvent = (note: Note, recentDigits: string): Payload => {
  switch (note._tag) {
    case "CallerSpeech":
      return { event_type: "caller-speech", utterance: note.text, utterance_id: `u-${note.offsetMs}` }
    case "AgentSpeech":
      return { event_type: "agent-speech", utterance: note.text, interrupted: note.interrupted }
    case "FieldRecorded":
      return { event_type: "action-item-done", key: note.key, payload: fieldPayload(note.value) }
    case "TaskCompleted":
      return { event_type: "task-done", task_id: note.taskId ?? "" }
    case "Question":
      return { event_type: "agent-question", question_id: note.id, question: note.text }
    case "ActionRequest":
      return { event_type: "action-request", intent_id: note.id, intent_summary: note.text }
    case "ChoiceQuery":
      return { event_type: "choice-query", field_key: note.key, query: note.query, query_id: note.id }
    case "Escalate":
      return { event_type: "escalate", requested_by: "human" }
    case "Dtmf":
      return { event_type: "dtmf", digit: note.digit, recent_digits: recentDigits }
    case "TransferFailed":
      // The protocol has no event for a refused transfer: its `warning` (logged by the SDK).
      return warning(`transfer-call to ${note.to} failed: ${note.reason}; the call goes on`)
  }
}

/**
 * @category encoding
 */
export const warning = (content: string): Payload => ({ event_type: "warning", content })

/**
 * @category encoding
 */
export const executeAction = (actionKey: string): Payload => ({ event_type: "execute-action", action_key: actionKey })

/**
 * @category encoding
 */
export const outboundCallConnected: Payload = { event_type: "outbound-call-connected" }

/**
 * The error codes of `outbound-call-failed` (an integer, as the SDK requires), by how the call
 * ended unanswered: SIP's status codes for the same outcomes.
 *
 * @category encoding
 */
export const outboundCallFailed = (reason: "busy" | "no-answer" | "failed"): Payload => {
  switch (reason) {
    case "busy":
      return { event_type: "outbound-call-failed", error_code: 486, error_reason: "busy" }
    case "no-answer":
      return { event_type: "outbound-call-failed", error_code: 480, error_reason: "no-answer" }
    case "failed":
      return { event_type: "outbound-call-failed", error_code: 500, error_reason: "failed" }
  }
}

/**
 * The end of an answered call. The SDK accepts the termination reasons of an answered call
 * only; one never answered ends with `outbound-call-failed` instead.
 *
 * @category encoding
 */
export const botSessionEnded = (
  reason: Exclude<TerminationReason, "busy" | "no-answer" | "failed">,
  dnc: boolean
): Payload => ({
  event_type: "bot-session-ended",
  termination_reason: reason,
  dnc
})
