/**
 * Commands, agent → server, as they travel on a call socket (each is the `payload` of one
 * envelope `message`), tagged by `command_type`. `Call`'s methods build them; `call.send` takes
 * one as is. Field names and order are the protocol's.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@voice-agent/agent-protocol/Json"

export type FieldType = "text" | "date" | "integer" | "multiple_choice" | "calendar_slot" | "digit_sequence" | "cvv"

export type Language = "english" | "spanish" | "french" | "german" | "italian"

export type DtmfDigit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "*" | "#" | "A" | "B" | "C" | "D"

/** A value for the agent to collect. */
export type FieldItem = {
  readonly item_type: "field"
  readonly key: string
  readonly description: string
  readonly question: string
  readonly field_type: FieldType
  readonly required: boolean
  readonly choices: ReadonlyArray<string>
  readonly is_search_field: boolean
  readonly sensitive: boolean
}

/** A statement for the agent to say. */
export type SayItem = {
  readonly item_type: "say"
  readonly statement: string
  readonly key: string
}

/** Something for the agent to do, in words. */
export type TodoItem = {
  readonly item_type: "todo"
  readonly key: string
  readonly description: string
}

export type ActionItem = FieldItem | SayItem | TodoItem

export type SetPersonaCommand = {
  readonly command_type: "set-persona"
  readonly agent_name: string | null
  readonly organization_name: string | null
  readonly agent_purpose: string | null
  readonly voice: string | null
}

export type RegisteredHooksCommand = {
  readonly command_type: "registered-hooks"
  readonly has_on_question: boolean
  readonly has_on_intent: boolean
  readonly has_on_action_requested: boolean
  readonly has_on_escalate: boolean
  readonly accept_dtmf_for_numbers: boolean
}

export type SetVariableCommand = {
  readonly command_type: "set-variable"
  readonly key: string
  readonly value: JsonValue
}

/** Replaces the current task. */
export type SetTaskCommand = {
  readonly command_type: "set-task"
  readonly task_id: string
  readonly objective: string
  readonly completion_criteria: string | null
  readonly action_items: ReadonlyArray<ActionItem>
}

export type RetryTaskCommand = {
  readonly command_type: "retry-task"
  readonly reason: string
}

/** Free text for the agent's model (hang-ups and voicemail handling included). */
export type SendInstructionCommand = {
  readonly command_type: "send-instruction"
  readonly instruction: string
}

/** Spoken verbatim. */
export type ReadScriptCommand = {
  readonly command_type: "read-script"
  readonly script: string
}

/** `soft_transfer`: the message is guidance for the model; otherwise it is spoken verbatim. */
export type TransferCallCommand = {
  readonly command_type: "transfer-call"
  readonly transfer_message: string
  readonly to_number: string
  readonly soft_transfer: boolean
}

export type AnswerQuestionCommand = {
  readonly command_type: "answer-question"
  readonly question_id: string
  readonly answer: string
}

export type ActionCandidate = {
  readonly key: string
  readonly description: string
}

/**
 * The answer to an `action-request`. `actions`: none is no match, one is a match, several are
 * ambiguous. `action_key` / `action_description` repeat a single match for older servers.
 */
export type ActionSuggestionCommand = {
  readonly command_type: "action-suggestion"
  readonly intent_id: string
  readonly action_key: string | null
  readonly action_description: string
  readonly actions: ReadonlyArray<ActionCandidate>
}

export type ChoiceQueryResultCommand = {
  readonly command_type: "choice-query-result"
  readonly field_key: string
  readonly query_id: string
  readonly matched_choices: ReadonlyArray<string>
  readonly other_choices: ReadonlyArray<string>
}

export type SetLanguageModeCommand = {
  readonly command_type: "set-language-mode"
  readonly primary: Language
  readonly secondary: ReadonlyArray<Language>
}

export type SetAgentDtmfCommand = {
  readonly command_type: "set-agent-dtmf"
  readonly enabled: boolean
}

export type SendAgentDtmfCommand = {
  readonly command_type: "send-agent-dtmf"
  readonly digits: ReadonlyArray<DtmfDigit>
}

/** Tells the server a handler of this agent failed. */
export type ExpertErrorCommand = {
  readonly command_type: "expert-error"
  readonly message: string
}

export type Command =
  | SetPersonaCommand
  | RegisteredHooksCommand
  | SetVariableCommand
  | SetTaskCommand
  | RetryTaskCommand
  | SendInstructionCommand
  | ReadScriptCommand
  | TransferCallCommand
  | AnswerQuestionCommand
  | ActionSuggestionCommand
  | ChoiceQueryResultCommand
  | SetLanguageModeCommand
  | SetAgentDtmfCommand
  | SendAgentDtmfCommand
  | ExpertErrorCommand
