/**
 * The exact JSON of every agent → server payload the Guava Python SDK (0.35.0) sends: the call
 * commands of `guava/commands.py` (as `model_dump()` writes them: every field, defaults included,
 * in declaration order), the action items of `guava/types/__init__.py`, the discovery messages of
 * `guava/listen_inbound.py` and `guava/guavadialer_events.py`, and the fixed texts `guava/call.py`,
 * `guava/call_controller.py` and `guava/agent.py` put in them (hangup, voicemail, reach_person,
 * escalation, fallback answers, expert errors).
 *
 * Constructors validate their input as the pydantic models would (literals, DTMF digits, field
 * choices) and throw an `SdkError` where the SDK would raise.
 */
import { type DtmfDigit, dtmfDigits, SdkError } from "./Events.ts"
import { isJsonable, jsonDumpsIndent2, randomHex } from "./Python.ts"

/** A JSON value (`pydantic.JsonValue`). */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | {
  readonly [key: string]: JsonValue
}

// ---------------------------------------------------------------------------------------------
// guava/types/__init__.py: checklist items

export const languages = ["english", "spanish", "french", "german", "italian"] as const
export type Language = (typeof languages)[number]

export const fieldTypes = [
  "text",
  "date",
  "integer",
  "multiple_choice",
  "calendar_slot",
  "digit_sequence",
  "cvv"
] as const
export type FieldType = (typeof fieldTypes)[number]

/** `ChoiceGeneratorFunction`: a query → (matching, fallback) choices. */
export type ChoiceGenerator = (query: string) => readonly [ReadonlyArray<string>, ReadonlyArray<string>]

export interface FieldOptions {
  readonly key: string
  readonly description?: string
  readonly question?: string
  readonly fieldType?: FieldType
  readonly required?: boolean
  readonly choices?: ReadonlyArray<string>
  /** Legacy CallController only (the Agent API raises NotImplementedError for it). */
  readonly choiceGenerator?: ChoiceGenerator
  readonly searchable?: boolean
  readonly sensitive?: boolean
}

const literalCheck = <T extends string>(model: string, field: string, allowed: ReadonlyArray<T>, value: string): T => {
  if (!(allowed as ReadonlyArray<string>).includes(value)) {
    throw new SdkError(
      "ValidationError",
      `1 validation error for ${model}\n${field}\n  Input should be ${allowed.map((a) => `'${a}'`).join(", ")} ` +
        `[type=literal_error, input_value='${value}']`
    )
  }
  return value as T
}

// `datetime.fromisoformat` (Python 3.11+), as far as calendar_slot choices need it.
const isoDateTime =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,]\d{1,6})?)?)?(?:Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?)?$/

const isValidIsoDateTime = (s: string): boolean => {
  const m = isoDateTime.exec(s)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((x) => (x === undefined ? 0 : Number(x)))
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1))
  return date.getUTCMonth() === (month ?? 1) - 1 && date.getUTCDate() === day && (hour ?? 0) < 24 &&
    (minute ?? 0) < 60 && (second ?? 0) < 60
}

/** `guava.Field`: a value to collect (validated like the model's `validate_choices`). */
export class Field {
  readonly item_type = "field"
  readonly key: string
  readonly description: string
  readonly question: string
  readonly fieldType: FieldType
  readonly required: boolean
  readonly choices: ReadonlyArray<string>
  readonly choiceGenerator: ChoiceGenerator | undefined
  readonly searchable: boolean
  readonly sensitive: boolean

  constructor(options: FieldOptions) {
    this.key = options.key
    this.description = options.description ?? ""
    this.question = options.question ?? ""
    this.fieldType = literalCheck("Field", "field_type", fieldTypes, options.fieldType ?? "text")
    this.required = options.required ?? true
    this.choices = [...(options.choices ?? [])]
    this.choiceGenerator = options.choiceGenerator
    this.searchable = options.searchable ?? false
    this.sensitive = options.sensitive ?? false
    if (this.fieldType === "calendar_slot") {
      const bad = this.choices.find((c) => !isValidIsoDateTime(c))
      // The ValueError of datetime.fromisoformat, raised in a model validator, surfaces as a ValidationError.
      if (bad !== undefined) {
        throw new SdkError(
          "ValidationError",
          `1 validation error for Field\n  Value error, Invalid isoformat string: '${bad}'`
        )
      }
    }
    if (
      (this.choices.length > 0 || this.choiceGenerator !== undefined) &&
      this.fieldType !== "multiple_choice" && this.fieldType !== "calendar_slot"
    ) {
      throw new SdkError("TypeError", `Field type ${this.fieldType} does not support choices attribute.`)
    }
  }
}

/** `guava.Say`: a statement to speak (`key` defaults to 5 random hex characters). */
export class Say {
  readonly item_type = "say"
  readonly statement: string
  readonly key: string
  constructor(statement: string, key = "") {
    this.statement = statement
    this.key = key === "" ? randomHex(5) : key
  }
}

/** `guava.Todo`: a free-text checklist step (what a bare string in a checklist becomes). */
export class Todo {
  readonly item_type = "todo"
  readonly description: string
  readonly key: string
  constructor(description: string, key = "") {
    this.description = description
    this.key = key === "" ? randomHex(5) : key
  }
}

/** A checklist item as user code writes it: `Field(...)`, `Say(...)` or a plain string. */
export type ChecklistItem = Field | Say | Todo | string

export interface SerializableFieldJson {
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
export interface SayJson {
  readonly item_type: "say"
  readonly statement: string
  readonly key: string
}
export interface TodoJson {
  readonly item_type: "todo"
  readonly key: string
  readonly description: string
}
export type ActionItemJson = SerializableFieldJson | SayJson | TodoJson

/** `SerializableField` as `model_dump()` writes it. */
export const serializableField = (
  field: Field,
  isSearchField: boolean,
  sensitive: boolean
): SerializableFieldJson => ({
  item_type: "field",
  key: field.key,
  description: field.description,
  question: field.question,
  field_type: field.fieldType,
  required: field.required,
  choices: [...field.choices],
  is_search_field: isSearchField,
  sensitive
})

const sayJson = (say: Say): SayJson => ({ item_type: "say", statement: say.statement, key: say.key })
const todoJson = (todo: Todo): TodoJson => ({ item_type: "todo", key: todo.key, description: todo.description })

/** A checklist serialized for `set-task`, with the field keys the task collects. */
export interface SerializedChecklist {
  readonly actionItems: ReadonlyArray<ActionItemJson>
  readonly fieldKeys: ReadonlyArray<string>
  /** Legacy CallController: choice generators registered by field key. */
  readonly searchFunctions: ReadonlyMap<string, ChoiceGenerator>
}

/**
 * A checklist as `Call.set_task` (api "agent": `is_search_field` from `searchable`, `sensitive`
 * passed through, a choice_generator raises NotImplementedError) or `CallController.set_task`
 * (api "legacy": `is_search_field` set by a choice_generator, `sensitive` left at its default
 * false) serializes it (guava/call.py, guava/call_controller.py).
 */
export const serializeChecklist = (
  checklist: ReadonlyArray<ChecklistItem>,
  api: "agent" | "legacy"
): SerializedChecklist => {
  const actionItems: Array<ActionItemJson> = []
  const fieldKeys: Array<string> = []
  const searchFunctions = new Map<string, ChoiceGenerator>()
  for (const item of checklist) {
    if (typeof item === "string") {
      actionItems.push(todoJson(new Todo(item)))
    } else if (item instanceof Field) {
      if (api === "agent") {
        if (item.choiceGenerator !== undefined) {
          throw new SdkError(
            "NotImplementedError",
            "choice_generator is not compatible with the Agent / Call API. Use searchable=True and register a handler."
          )
        }
        actionItems.push(serializableField(item, item.searchable, item.sensitive))
        fieldKeys.push(item.key)
      } else {
        if (item.choiceGenerator !== undefined) searchFunctions.set(item.key, item.choiceGenerator)
        actionItems.push(serializableField(item, item.choiceGenerator !== undefined, false))
      }
    } else if (item instanceof Say) {
      actionItems.push(sayJson(item))
    } else {
      actionItems.push(todoJson(item))
    }
  }
  return { actionItems, fieldKeys, searchFunctions }
}

// ---------------------------------------------------------------------------------------------
// guava/commands.py

export interface SetPersonaCommand {
  readonly command_type: "set-persona"
  readonly agent_name: string | null
  readonly organization_name: string | null
  readonly agent_purpose: string | null
  readonly voice: string | null
}
export interface RegisteredHooksCommand {
  readonly command_type: "registered-hooks"
  readonly has_on_question: boolean
  readonly has_on_intent: boolean
  readonly has_on_action_requested: boolean
  readonly has_on_escalate: boolean
  readonly accept_dtmf_for_numbers: boolean
}
export interface SetVariableCommand {
  readonly command_type: "set-variable"
  readonly key: string
  readonly value: JsonValue
}
export interface SetTaskCommand {
  readonly command_type: "set-task"
  readonly task_id: string
  readonly objective: string
  readonly completion_criteria: string | null
  readonly action_items: ReadonlyArray<ActionItemJson>
}
export interface RetryTaskCommand {
  readonly command_type: "retry-task"
  readonly reason: string
}
export interface SendInstructionCommand {
  readonly command_type: "send-instruction"
  readonly instruction: string
}
export interface ReadScriptCommand {
  readonly command_type: "read-script"
  readonly script: string
}
export interface TransferCommand {
  readonly command_type: "transfer-call"
  readonly transfer_message: string
  readonly to_number: string
  readonly soft_transfer: boolean
}
export interface AnswerQuestionCommand {
  readonly command_type: "answer-question"
  readonly question_id: string
  readonly answer: string
}
export interface ActionCandidate {
  readonly key: string
  readonly description: string
}
export interface ActionSuggestionCommand {
  readonly command_type: "action-suggestion"
  readonly intent_id: string
  readonly action_key: string | null
  readonly action_description: string
  readonly actions: ReadonlyArray<ActionCandidate>
}
export interface ChoiceResultCommand {
  readonly command_type: "choice-query-result"
  readonly field_key: string
  readonly query_id: string
  readonly matched_choices: ReadonlyArray<string>
  readonly other_choices: ReadonlyArray<string>
}
export interface SetLanguageModeCommand {
  readonly command_type: "set-language-mode"
  readonly primary: Language
  readonly secondary: ReadonlyArray<Language>
}
export interface SetAgentDtmfCommand {
  readonly command_type: "set-agent-dtmf"
  readonly enabled: boolean
}
export interface SendAgentDtmfCommand {
  readonly command_type: "send-agent-dtmf"
  readonly digits: ReadonlyArray<DtmfDigit>
}
export interface ExpertErrorCommand {
  readonly command_type: "expert-error"
  readonly message: string
}
export interface SendCallerTextCommand {
  readonly command_type: "send-caller-text"
  readonly text: string
}

/** v1 only (`AcceptInboundCallCommand`, `RejectInboundCallCommand`): still reachable from the legacy controller. */
export interface AcceptInboundCommand {
  readonly command_type: "accept-inbound"
}
export interface RejectInboundCommand {
  readonly command_type: "reject-inbound"
}

/** Every command the v2 call socket carries from the SDK. */
export type Command =
  | AcceptInboundCommand
  | RejectInboundCommand
  | SetPersonaCommand
  | RegisteredHooksCommand
  | SetVariableCommand
  | SetTaskCommand
  | RetryTaskCommand
  | SendInstructionCommand
  | ReadScriptCommand
  | TransferCommand
  | AnswerQuestionCommand
  | ActionSuggestionCommand
  | ChoiceResultCommand
  | SetLanguageModeCommand
  | SetAgentDtmfCommand
  | SendAgentDtmfCommand
  | ExpertErrorCommand
  | SendCallerTextCommand

export const setPersona = (persona: {
  readonly agentName?: string | null | undefined
  readonly organizationName?: string | null | undefined
  readonly agentPurpose?: string | null | undefined
  readonly voice?: string | null | undefined
}): SetPersonaCommand => ({
  command_type: "set-persona",
  agent_name: persona.agentName ?? null,
  organization_name: persona.organizationName ?? null,
  agent_purpose: persona.agentPurpose ?? null,
  voice: persona.voice ?? null
})

export const registeredHooks = (hooks: {
  readonly hasOnQuestion: boolean
  readonly hasOnIntent: boolean
  readonly hasOnActionRequested?: boolean
  readonly hasOnEscalate?: boolean
  readonly acceptDtmfForNumbers?: boolean
}): RegisteredHooksCommand => ({
  command_type: "registered-hooks",
  has_on_question: hooks.hasOnQuestion,
  has_on_intent: hooks.hasOnIntent,
  has_on_action_requested: hooks.hasOnActionRequested ?? false,
  has_on_escalate: hooks.hasOnEscalate ?? false,
  accept_dtmf_for_numbers: hooks.acceptDtmfForNumbers ?? true
})

/** `set-variable`; like `Call.set_variable`, refuses a value `json.dumps` would not accept. */
export const setVariable = (key: string, value: JsonValue): SetVariableCommand => {
  if (!isJsonable(value)) {
    throw new SdkError("ValueError", `Variable value for key '${key}' must be JSON-serializable.`)
  }
  return { command_type: "set-variable", key, value }
}

/** `set-task`; the model's own default for `completion_criteria` is null (the Call API passes ""). */
export const setTask = (task: {
  readonly taskId: string
  readonly objective: string
  readonly completionCriteria?: string | null
  readonly actionItems: ReadonlyArray<ActionItemJson>
}): SetTaskCommand => ({
  command_type: "set-task",
  task_id: task.taskId,
  objective: task.objective,
  completion_criteria: task.completionCriteria ?? null,
  action_items: task.actionItems
})

export const retryTask = (reason: string): RetryTaskCommand => ({ command_type: "retry-task", reason })

export const sendInstruction = (instruction: string): SendInstructionCommand => ({
  command_type: "send-instruction",
  instruction
})

export const readScript = (script: string): ReadScriptCommand => ({ command_type: "read-script", script })

export const transferCall = (transfer: {
  readonly transferMessage: string
  readonly toNumber: string
  readonly softTransfer?: boolean
}): TransferCommand => ({
  command_type: "transfer-call",
  transfer_message: transfer.transferMessage,
  to_number: transfer.toNumber,
  soft_transfer: transfer.softTransfer ?? false
})

export const answerQuestion = (questionId: string, answer: string): AnswerQuestionCommand => {
  if (typeof answer !== "string") {
    throw new SdkError(
      "ValidationError",
      "1 validation error for AnswerQuestionCommand\nanswer\n  Input should be a valid string"
    )
  }
  return { command_type: "answer-question", question_id: questionId, answer }
}

/**
 * `action-suggestion`, with the model's `_normalize` validator: no `actions` but an `action_key`
 * makes `actions` that one candidate (what the legacy CallController relies on).
 */
export const actionSuggestion = (suggestion: {
  readonly intentId: string
  readonly actionKey?: string | null
  readonly actionDescription?: string
  readonly actions?: ReadonlyArray<ActionCandidate>
}): ActionSuggestionCommand => {
  const actionKey = suggestion.actionKey ?? null
  const actionDescription = suggestion.actionDescription ?? ""
  const given = suggestion.actions ?? []
  const actions = given.length === 0 && actionKey !== null
    ? [{ key: actionKey, description: actionDescription }]
    : given.map((a) => ({ key: a.key, description: a.description }))
  return {
    command_type: "action-suggestion",
    intent_id: suggestion.intentId,
    action_key: actionKey,
    action_description: actionDescription,
    actions
  }
}

export const choiceQueryResult = (result: {
  readonly fieldKey: string
  readonly queryId: string
  readonly matchedChoices: ReadonlyArray<string>
  readonly otherChoices: ReadonlyArray<string>
}): ChoiceResultCommand => ({
  command_type: "choice-query-result",
  field_key: result.fieldKey,
  query_id: result.queryId,
  matched_choices: [...result.matchedChoices],
  other_choices: [...result.otherChoices]
})

export const setLanguageMode = (
  primary: Language = "english",
  secondary: ReadonlyArray<Language> = []
): SetLanguageModeCommand => ({
  command_type: "set-language-mode",
  primary: literalCheck("SetLanguageMode", "primary", languages, primary),
  secondary: secondary.map((l) => literalCheck("SetLanguageMode", "secondary", languages, l))
})

export const setAgentDtmf = (enabled: boolean): SetAgentDtmfCommand => ({ command_type: "set-agent-dtmf", enabled })

export const sendAgentDtmf = (digits: ReadonlyArray<DtmfDigit>): SendAgentDtmfCommand => ({
  command_type: "send-agent-dtmf",
  digits: digits.map((d) => literalCheck("SendAgentDTMFCommand", "digits", dtmfDigits, d))
})

export const expertError = (message: string): ExpertErrorCommand => ({ command_type: "expert-error", message })

export const acceptInbound = (): AcceptInboundCommand => ({ command_type: "accept-inbound" })

export const rejectInbound = (): RejectInboundCommand => ({ command_type: "reject-inbound" })

export const sendCallerText = (text: string): SendCallerTextCommand => ({ command_type: "send-caller-text", text })

// ---------------------------------------------------------------------------------------------
// Discovery messages (guava/listen_inbound.py, guava/guavadialer_events.py)

export interface ClaimCall {
  readonly message_type: "claim-call"
  readonly call_id: string
}
export interface AnswerCall {
  readonly message_type: "answer-call"
  readonly call_id: string
}
export interface DeclineCall {
  readonly message_type: "decline-call"
  readonly call_id: string
}
export interface ControllerReady {
  readonly message_type: "controller-ready"
  readonly call_id: string
}
export interface InitControllerFailed {
  readonly message_type: "init-controller-failed"
  readonly call_id: string
}
export type ListenInboundClientMessage = ClaimCall | AnswerCall | DeclineCall
export type GuavadialerClientMessage = ControllerReady | InitControllerFailed

export const claimCall = (callId: string): ClaimCall => ({ message_type: "claim-call", call_id: callId })
export const answerCall = (callId: string): AnswerCall => ({ message_type: "answer-call", call_id: callId })
export const declineCall = (callId: string): DeclineCall => ({ message_type: "decline-call", call_id: callId })
export const controllerReady = (callId: string): ControllerReady => ({
  message_type: "controller-ready",
  call_id: callId
})
export const initControllerFailed = (callId: string): InitControllerFailed => ({
  message_type: "init-controller-failed",
  call_id: callId
})

// ---------------------------------------------------------------------------------------------
// Fixed texts

/** `Call.hangup` / `CallController.hangup`: the `send-instruction` text (there is no hangup command). */
export const hangupInstruction = (finalInstructions = ""): string =>
  finalInstructions !== ""
    ? `Start ending the conversation. Here are your final instructions: ${finalInstructions} ` +
      "Once you've completed the final instructions, naturally end the conversation and hang up the call."
    : "Naturally end the conversation and hang up the call."

/** `_voicemail_hangup_instruction` (guava/call.py). */
export const voicemailHangupRule = "DO NOT leave a message. REMAIN SILENT AND HANG UP WITHOUT RESPONDING."

/** `_voicemail_message_instruction` (guava/call.py). */
export const voicemailMessageRule = (message: string): string => `Say this message VERBATIM: "${message}" Then hang up.`

/** `Call.set_voicemail_action` instruction texts. */
export const voicemailActionInstruction = (rule: string): string =>
  `If you encounter an answering machine, ${rule} You should only do this when it's clear you are unable to reach the person.`

/** `Call.add_info` / `CallController.add_info`: `json.dumps(info, indent=2)` under a label. */
export const addInfoInstruction = (label: string, info: unknown): string =>
  `Here is some information about the following topic ${label}:\n${jsonDumpsIndent2(info)}`

/** `Call.transfer`'s default message (a soft transfer). */
export const defaultTransferInstructions = "Notify the caller that you will be transferring them, and then transfer."

/** `CallController.transfer`'s default message (spoken verbatim). */
export const legacyDefaultTransferMessage = "I'm transferring you now"

/** Answers and instructions `Agent._dispatch_event` sends on its own (guava/agent.py). */
export const agentTexts = {
  noQuestionHandler: "I don't have an answer to that question.",
  questionHandlerFailed: "An error occurred and the question could not be answered.",
  escalateAgentNoHandler:
    "No escalation target set. Apologize for not being able to help, ask them to try calling another time, and hang up the call immediately.",
  escalateHumanNoHandler:
    "Let them know there are no respresentatives available to take their call. Ask them if they would prefer to continue or to call another time.",
  taskCompleteFailed: (taskId: string) =>
    `The expert encountered an error while processing on_task_complete('${taskId}') - the task has failed.`,
  actionRequestFailed: "The expert encountered an error while processing the on_action_request handler.",
  actionFailed: (actionKey: string) =>
    `The expert encountered an error while processing the on_action('${actionKey}') handler.`,
  actionResponse: (actionKey: string, response: string) => `Responding to action execution ${actionKey}: ${response}`,
  searchNoHandler: (fieldKey: string) =>
    `The expert failed to handle on_search_query('${fieldKey}'). No results will be forthcoming.`,
  searchFailed: (fieldKey: string) =>
    `The expert encountered an error while processing the on_search_query('${fieldKey}') handler. No results will be forthcoming.`,
  handlerFailed: (name: string) => `The expert encountered an error while processing ${name}`
} as const

/** `ReachPersonOutcome` of the Agent API (guava/call.py). */
export interface ReachPersonOutcome {
  readonly key: string
  readonly description?: string | null
  readonly nextActionPreview?: string | null
}

/** `DEFAULT_REACH_PERSON_OUTCOMES` (guava/call.py). */
export const defaultReachPersonOutcomes: ReadonlyArray<ReachPersonOutcome> = [
  { key: "available", description: "The intended contact is confirmed on the line." },
  {
    key: "unavailable",
    description:
      "The contact could not be reached. A third party, gatekeeper, or IVR was unable to transfer the call to the contact."
  },
  { key: "voicemail", description: "An answering machine or voicemail system was reached." },
  { key: "wrong_number", description: "The number does not reach the intended contact." },
  { key: "do_not_contact", description: "The person on the line has indicated this number should not be called." }
]

const choiceLines = (outcomes: ReadonlyArray<ReachPersonOutcome>) =>
  outcomes.filter((o) => o.description !== undefined && o.description !== null).map((o) =>
    ` - ${o.key}: ${o.description}`
  )

const nextActionLines = (outcomes: ReadonlyArray<ReachPersonOutcome>) =>
  outcomes.filter((o) => o.nextActionPreview !== undefined && o.nextActionPreview !== null).map((o) =>
    `- ${o.key} → ${o.nextActionPreview}`
  )

/** The `reach_person` task of `Call.reach_person` (guava/call.py), texts exactly as the SDK writes them. */
export const reachPersonTask = (
  contactFullName: string,
  options: {
    readonly greeting?: string | null | undefined
    readonly voicemailRule: string
    readonly outcomes: ReadonlyArray<ReachPersonOutcome>
  }
): { objective: string; completionCriteria: string; checklist: Array<ChecklistItem> } => {
  const name = contactFullName
  const lines = choiceLines(options.outcomes)
  let description = `The availability of ${name}.`
  if (lines.length > 0) description += "\nDetailed descriptions of each choice:\n" + lines.join("\n")
  const objective = "\nOBJECTIVE:\n" +
    `Your goal is to reach ${name} and confirm they are on the line.\n\n` +
    "RULES:\n" +
    `1. If someone other than ${name} answers - including a person or IVR:\n` +
    `   - Politely ask to speak with ${name}, or navigate menus and prompts to reach them.\n` +
    `   - Wait to be transferred or for ${name} to come to the phone.\n` +
    `   - If ${name} cannot be reached, record \`contact_availability\` appropriately.\n` +
    `2. Once ${name} is confirmed on the line:\n` +
    "   - Briefly restate who you are and the purpose of your call\n" +
    "   - Record their availability as available, or equivalent, in `contact_availability`.\n" +
    "3. If it is clearly a wrong number or you have been asked not to call, politely end the call and hang up.\n" +
    `4. If you reach an answering machine or voicemail: ${options.voicemailRule}\n`
  const completionCriteria = "\nTASK COMPLETION REQUIREMENTS:\n" +
    `- The availability of ${name} must be recorded in \`contact_availability\`.\n`
  const checklist: Array<ChecklistItem> = [
    options.greeting !== undefined && options.greeting !== null
      ? new Say(options.greeting)
      : "Greet the person, IVR, or system who answered the phone. " +
        "Notify them who you are calling on behalf of and the purpose of the call. " +
        `Ask to speak with ${name}. ` +
        "Do not greet if you detect an answering machine or voicemail system.",
    new Field({
      key: "contact_availability",
      description,
      fieldType: "multiple_choice",
      choices: options.outcomes.map((o) => o.key),
      required: true
    })
  ]
  const next = nextActionLines(options.outcomes)
  if (next.length > 0) {
    checklist.push(
      "If a next action is defined below for the recorded value of `contact_availability`, " +
        "briefly let the contact know while you perform it.\n" + next.join("\n")
    )
  }
  return { objective, completionCriteria, checklist }
}

/** The legacy `CallController.reach_person` task (guava/call_controller.py), texts as the SDK writes them. */
export const legacyReachPersonTask = (
  contactFullName: string,
  options: { readonly greeting?: string | null | undefined; readonly outcomes: ReadonlyArray<ReachPersonOutcome> }
): { objective: string; checklist: Array<ChecklistItem> } => {
  const name = contactFullName
  const lines = choiceLines(options.outcomes)
  let description = `The availability of ${name}`
  if (lines.length > 0) description += "\nDetailed descriptions of each choice:\n" + lines.join("\n")
  const objective = "\nOBJECTIVE:\n" +
    `Your goal is to reach ${name} and determine their availability to proceed with this call.\n\n` +
    "RULES:\n" +
    `1. If the initial respondent is NOT ${name}:\n` +
    `   - Politely ask to speak with ${name}\n` +
    `   - Wait to be transferred or for ${name} to come to the phone\n` +
    `2. Once you have ${name} on the line:\n` +
    "   - Briefly restate who you are and the purpose of your call\n" +
    "   - Determine and record their current availability status\n" +
    "3. DO NOT hang up the call under any circumstances, unless it's a wrong number.\n\n" +
    "TASK COMPLETION REQUIREMENTS:\n" +
    `- The availability of ${name} must be recorded in \`contact_availability\`.\n`
  const checklist: Array<ChecklistItem> = [
    options.greeting !== undefined && options.greeting !== null
      ? new Say(options.greeting)
      : "Greet the person who answered the phone. " +
        "Notify them who you are calling on behalf of and the purpose of the call. " +
        `Ask to speak with ${name}`,
    new Field({
      key: "contact_availability",
      description,
      fieldType: "multiple_choice",
      choices: options.outcomes.map((o) => o.key),
      required: true
    })
  ]
  const next = nextActionLines(options.outcomes)
  if (next.length > 0) {
    // call_controller.py concatenates the sentence with '\n' before `.join`, so the sentence is the
    // separator between the lines (and absent with a single line): reproduced as the SDK sends it.
    checklist.push(
      next.join(
        "If a next action is defined below for the value of `contact_availability`, briefly ask the contact to wait just a second while you perform it.\n"
      )
    )
  }
  return { objective, checklist }
}
