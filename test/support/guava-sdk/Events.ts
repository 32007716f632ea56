/**
 * Strict validators of every server → agent payload the Guava Python SDK (0.35.0) parses, field by
 * field as its pydantic models declare them:
 *
 * - call sockets: `guava/events.py` (`decode_event_dict`: a missing `event_type` is an assertion
 *   failure, an unknown one is ignored with a warning, a known one is validated by the model);
 * - the inbound discovery socket: `guava/listen_inbound.py` (`ListenStarted | IncomingCall |
 *   AssignCall`, `call_info` tagged by `call_type` as `guava/types/call_info.py` declares);
 * - the campaign discovery socket: `guava/guavadialer_events.py` (`ListenStarted |
 *   InitiateAndAssignCall`);
 * - the envelope frames of `guava/socket/protocol.py` (`GuavaOpenAck | GuavaClose` answering
 *   `open`, then `GuavaMessage | GuavaClose | GuavaPing | GuavaPong | GuavaAck`).
 *
 * Pydantic validates in its default *lax* mode, and so does this module (checked against pydantic
 * 2.13 with the SDK's own models): an `int` field takes `503`, `503.0`, `true` and the string
 * `" 5_03 "` but not `503.5` or `"busy"`; a `bool` takes `0`/`1` and `"yes"`/`"off"`…; a `str`
 * takes only strings; literals are exact. Every such coercion is accepted (the SDK accepts it) but
 * reported in `notes`, so a test can insist that the server sends canonical types. The discovery
 * unions are pydantic "smart" unions (not discriminated): with no `message_type` the member with
 * the most fields set wins, then the one needing no coercion, then the first.
 *
 * What the SDK rejects, this module throws as a `ValidationError` (or the Python exception the SDK
 * would die of), naming the SDK model.
 */
import { isDict, pyRepr, pyTypeName } from "./Python.ts"

// ---------------------------------------------------------------------------------------------
// Errors

/** An exception the real SDK would raise at this point (its Python type in `pythonType`). */
export class SdkError extends Error {
  readonly pythonType: string

  constructor(pythonType: string, message: string) {
    super(`${pythonType}: ${message}`)
    this.pythonType = pythonType
    this.name = "SdkError"
  }
}

/** One failed check, as pydantic reports it (`loc`, `type`, `msg`, input). */
export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>
  readonly type: string
  readonly msg: string
  readonly input: unknown
}

/** A pydantic `ValidationError` for one of the SDK's models. */
export class ValidationError extends SdkError {
  readonly model: string
  readonly issues: ReadonlyArray<ValidationIssue>

  constructor(model: string, issues: ReadonlyArray<ValidationIssue>) {
    super(
      "ValidationError",
      `${issues.length} validation error${issues.length === 1 ? "" : "s"} for ${model}\n` +
        issues.map((i) =>
          `${i.loc.join(".")}\n  ${i.msg} [type=${i.type}, input_value=${pyRepr(i.input).slice(0, 120)}, input_type=${
            pyTypeName(i.input)
          }]`
        ).join("\n")
    )
    this.name = "ValidationError"
    this.model = model
    this.issues = issues
  }
}

// ---------------------------------------------------------------------------------------------
// A small pydantic (lax mode) in TypeScript

type Loc = ReadonlyArray<string | number>

interface Valid<T> {
  readonly ok: true
  readonly value: T
  /** Model fields present in the input (pydantic's `fields_set`), for smart-union ranking. */
  readonly fieldsSet: number
  /** Lax coercions applied (empty: the input was already of the exact type). */
  readonly coercions: ReadonlyArray<string>
}
interface Invalid {
  readonly ok: false
  readonly issues: ReadonlyArray<ValidationIssue>
}
type Outcome<T> = Valid<T> | Invalid
type Validator<T> = (input: unknown, loc: Loc) => Outcome<T>

const valid = <T>(value: T, coercions: ReadonlyArray<string> = [], fieldsSet = 0): Valid<T> => ({
  ok: true,
  value,
  fieldsSet,
  coercions
})
const invalid = (loc: Loc, type: string, msg: string, input: unknown): Invalid => ({
  ok: false,
  issues: [{ loc, type, msg, input }]
})

const coerced = (loc: Loc, input: unknown, to: string) =>
  `${loc.join(".")}: ${pyTypeName(input)} ${JSON.stringify(input)} coerced to ${to}`

const str: Validator<string> = (input, loc) =>
  typeof input === "string" ? valid(input) : invalid(loc, "string_type", "Input should be a valid string", input)

// Rust's `str::trim` (Unicode White_Space), which pydantic-core applies before parsing numbers.
const pyWhitespace =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g
const intText = /^[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?$/

const int: Validator<number> = (input, loc) => {
  if (typeof input === "number") {
    // JSON.stringify writes integers below 1e21 as integer literals (Python ints, any size) and
    // larger ones in exponent form (Python floats, which must fit an i64).
    if (Number.isInteger(input) && Math.abs(input) < 1e21) return valid(input)
    if (Number.isInteger(input)) {
      return invalid(
        loc,
        "int_parsing_size",
        "Unable to parse input string as an integer, exceeded maximum size",
        input
      )
    }
    if (!Number.isFinite(input)) return invalid(loc, "finite_number", "Input should be a finite number", input)
    return invalid(
      loc,
      "int_from_float",
      "Input should be a valid integer, got a number with a fractional part",
      input
    )
  }
  if (typeof input === "boolean") return valid(input ? 1 : 0, [coerced(loc, input, "int")])
  if (typeof input === "string") {
    const text = input.replace(pyWhitespace, "")
    if (intText.test(text)) {
      return valid(Number(text.replace(/_/g, "").replace(/\.0+$/, "")) + 0, [coerced(loc, input, "int")])
    }
    return invalid(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", input)
  }
  return invalid(loc, "int_type", "Input should be a valid integer", input)
}

const trueStrings = new Set(["1", "on", "t", "true", "y", "yes"])
const falseStrings = new Set(["0", "off", "f", "false", "n", "no"])

const bool: Validator<boolean> = (input, loc) => {
  if (typeof input === "boolean") return valid(input)
  if (typeof input === "number") {
    if (input === 0 || input === 1) return valid(input === 1, [coerced(loc, input, "bool")])
    return invalid(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", input)
  }
  if (typeof input === "string") {
    const lower = input.toLowerCase()
    if (trueStrings.has(lower)) return valid(true, [coerced(loc, input, "bool")])
    if (falseStrings.has(lower)) return valid(false, [coerced(loc, input, "bool")])
    return invalid(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", input)
  }
  return invalid(loc, "bool_type", "Input should be a valid boolean", input)
}

const literal = <const T extends string>(...values: ReadonlyArray<T>): Validator<T> => (input, loc) => {
  if (typeof input === "string" && (values as ReadonlyArray<string>).includes(input)) return valid(input as T)
  const quoted = values.map((v) => `'${v}'`)
  const expected = quoted.length === 1
    ? quoted[0]
    : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`
  return invalid(loc, "literal_error", `Input should be ${expected}`, input)
}

const pattern = (regex: RegExp, source: string): Validator<string> => (input, loc) => {
  const s = str(input, loc)
  if (!s.ok) return s
  return regex.test(s.value)
    ? s
    : invalid(loc, "string_pattern_mismatch", `String should match pattern '${source}'`, input)
}

const nullable = <T>(inner: Validator<T>): Validator<T | null> => (input, loc) =>
  input === null ? valid(null) : inner(input, loc)

const dict: Validator<Record<string, unknown>> = (input, loc) =>
  isDict(input) ? valid(input) : invalid(loc, "dict_type", "Input should be a valid dictionary", input)

const dictOf = <T>(inner: Validator<T>): Validator<Record<string, T>> => (input, loc) => {
  if (!isDict(input)) return invalid(loc, "dict_type", "Input should be a valid dictionary", input)
  const out: Record<string, T> = {}
  const issues: Array<ValidationIssue> = []
  const coercions: Array<string> = []
  for (const [key, value] of Object.entries(input)) {
    const r = inner(value, [...loc, key])
    if (r.ok) {
      out[key] = r.value
      coercions.push(...r.coercions)
    } else issues.push(...r.issues)
  }
  return issues.length > 0 ? { ok: false, issues } : valid(out, coercions)
}

const anything: Validator<unknown> = (input) => valid(input)

interface FieldSpec {
  readonly validator: Validator<unknown>
  /** Absent: the field is required. */
  readonly default?: () => unknown
}
const required = (validator: Validator<unknown>): FieldSpec => ({ validator })
const withDefault = (validator: Validator<unknown>, value: () => unknown): FieldSpec => ({
  validator,
  default: value
})

/** A pydantic `BaseModel` (extra keys ignored, defaults filled, output in declaration order). */
const model = <T>(name: string, fields: Readonly<Record<string, FieldSpec>>): Validator<T> => (input, loc) => {
  if (!isDict(input)) {
    return invalid(loc, "model_type", `Input should be a valid dictionary or instance of ${name}`, input)
  }
  const out: Record<string, unknown> = {}
  const issues: Array<ValidationIssue> = []
  const coercions: Array<string> = []
  let fieldsSet = 0
  for (const [key, spec] of Object.entries(fields)) {
    if (Object.hasOwn(input, key)) {
      const r = spec.validator(input[key], [...loc, key])
      if (r.ok) {
        out[key] = r.value
        coercions.push(...r.coercions)
        fieldsSet++
      } else issues.push(...r.issues)
    } else if (spec.default !== undefined) {
      out[key] = spec.default()
    } else {
      issues.push({ loc: [...loc, key], type: "missing", msg: "Field required", input })
    }
  }
  return issues.length > 0 ? { ok: false, issues } : valid(out as T, coercions, fieldsSet)
}

/** `Annotated[Union[...], Field(discriminator=tag)]`: the tag must be present and match exactly. */
const discriminated =
  <T>(tag: string, members: Readonly<Record<string, Validator<unknown>>>): Validator<T> => (input, loc) => {
    if (!isDict(input)) {
      return invalid(
        loc,
        "model_attributes_type",
        "Input should be a valid dictionary or object to extract fields from",
        input
      )
    }
    if (!Object.hasOwn(input, tag)) {
      return invalid(loc, "union_tag_not_found", `Unable to extract tag using discriminator '${tag}'`, input)
    }
    const value = input[tag]
    const member = typeof value === "string" && Object.hasOwn(members, value) ? members[value] : undefined
    if (member === undefined) {
      const expected = Object.keys(members).map((k) => `'${k}'`).join(", ")
      return invalid(
        loc,
        "union_tag_invalid",
        `Input tag ${pyRepr(value)} found using '${tag}' does not match any of the expected tags: ${expected}`,
        input
      )
    }
    return member(input, [...loc, value as string]) as Outcome<T>
  }

/**
 * A pydantic smart union (`A | B | C` with no discriminator): every member is tried; the one with
 * the most fields set wins, then one that needed no coercion, then the first declared
 * (pydantic-core `UnionValidator::validate_smart`).
 */
const smartUnion = <T>(members: ReadonlyArray<readonly [string, Validator<unknown>]>): Validator<T> => (input, loc) => {
  let best: Valid<unknown> | undefined
  const issues: Array<ValidationIssue> = []
  for (const [name, member] of members) {
    const r = member(input, [...loc, name])
    if (!r.ok) {
      issues.push(...r.issues)
      continue
    }
    if (
      best === undefined || r.fieldsSet > best.fieldsSet ||
      (r.fieldsSet === best.fieldsSet && best.coercions.length > 0 && r.coercions.length === 0)
    ) best = r
  }
  return best === undefined ? { ok: false, issues } : (best as Valid<T>)
}

const run = <T>(validator: Validator<T>, modelName: string, input: unknown, notes?: Array<string>): T => {
  const r = validator(input, [])
  if (!r.ok) throw new ValidationError(modelName, r.issues)
  if (notes !== undefined) notes.push(...r.coercions.map((c) => `${modelName}: ${c}`))
  return r.value
}

// ---------------------------------------------------------------------------------------------
// guava/types: E164PhoneNumber, DTMFDigit, TerminationReason

/**
 * `E164PhoneNumber` (guava/types/__init__.py). pydantic-core runs the pattern with Rust's regex,
 * where `\d` is any Unicode decimal digit and `$` matches only at the very end.
 */
export const e164Pattern = /^\+[1-9]\p{Nd}{1,14}$/u
const e164 = pattern(e164Pattern, "^\\+[1-9]\\d{1,14}$")

export const dtmfDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D"] as const
export type DtmfDigit = (typeof dtmfDigits)[number]

export const terminationReasons = ["user-hangup", "bot-hangup", "bot-failure", "bot-transfer", "voicemail"] as const
export type TerminationReason = (typeof terminationReasons)[number]

// ---------------------------------------------------------------------------------------------
// guava/events.py

interface BaseEvent {
  readonly sequence: number | null
}
export interface OutboundSessionStartedEvent extends BaseEvent {
  readonly event_type: "session-started"
  readonly session_id: string
}
export interface InboundCallEvent extends BaseEvent {
  readonly event_type: "inbound-call"
  readonly caller_number: string | null
  readonly agent_number: string | null
}
export interface CallerSpeechEvent extends BaseEvent {
  readonly event_type: "caller-speech"
  readonly utterance: string
  readonly utterance_id: string | null
}
export interface AgentSpeechEvent extends BaseEvent {
  readonly event_type: "agent-speech"
  readonly utterance: string
  readonly interrupted: boolean
}
export interface ErrorEvent extends BaseEvent {
  readonly event_type: "error"
  readonly content: string
}
export interface WarningEvent extends BaseEvent {
  readonly event_type: "warning"
  readonly content: string
}
export interface AgentQuestionEvent extends BaseEvent {
  readonly event_type: "agent-question"
  readonly question_id: string
  readonly question: string
}
export interface IntentEvent extends BaseEvent {
  readonly event_type: "intent"
  readonly intent_id: string
  readonly intent_summary: string
}
export interface ActionRequestEvent extends BaseEvent {
  readonly event_type: "action-request"
  readonly intent_id: string
  readonly intent_summary: string
}
export interface ActionItemCompletedEvent extends BaseEvent {
  readonly event_type: "action-item-done"
  readonly key: string
  /** `Any`: the bare value `get_field` returns. Required (null allowed). */
  readonly payload: unknown
}
export interface TaskCompletedEvent extends BaseEvent {
  readonly event_type: "task-done"
  readonly task_id: string
}
export interface ExecuteActionEvent extends BaseEvent {
  readonly event_type: "execute-action"
  readonly action_key: string
}
export interface OutboundCallConnected extends BaseEvent {
  readonly event_type: "outbound-call-connected"
}
export interface OutboundCallFailed extends BaseEvent {
  readonly event_type: "outbound-call-failed"
  readonly error_code: number
  readonly error_reason: string
}
export interface BotSessionEnded extends BaseEvent {
  readonly event_type: "bot-session-ended"
  readonly termination_reason: TerminationReason
  readonly dnc: boolean
}
export interface ChoiceQueryEvent extends BaseEvent {
  readonly event_type: "choice-query"
  readonly field_key: string
  readonly query: string
  readonly query_id: string
}
export interface EscalateEvent extends BaseEvent {
  readonly event_type: "escalate"
  readonly requested_by: "human" | "agent"
}
export interface DTMFPressedEvent extends BaseEvent {
  readonly event_type: "dtmf"
  readonly digit: DtmfDigit
  readonly recent_digits: string
}

export type GuavaEvent =
  | OutboundSessionStartedEvent
  | InboundCallEvent
  | CallerSpeechEvent
  | AgentSpeechEvent
  | ErrorEvent
  | WarningEvent
  | AgentQuestionEvent
  | IntentEvent
  | ActionRequestEvent
  | ActionItemCompletedEvent
  | TaskCompletedEvent
  | ExecuteActionEvent
  | OutboundCallConnected
  | OutboundCallFailed
  | BotSessionEnded
  | ChoiceQueryEvent
  | EscalateEvent
  | DTMFPressedEvent

export type EventType = GuavaEvent["event_type"]

const event = (name: string, type: EventType, fields: Readonly<Record<string, FieldSpec>>) =>
  [
    type,
    name,
    model<GuavaEvent>(name, {
      sequence: withDefault(nullable(int), () => null),
      event_type: withDefault(literal(type), () => type),
      ...fields
    })
  ] as const

const eventModels = [
  event("OutboundSessionStartedEvent", "session-started", { session_id: required(str) }),
  event("CallerSpeechEvent", "caller-speech", {
    utterance: required(str),
    utterance_id: withDefault(nullable(str), () => null)
  }),
  event("AgentSpeechEvent", "agent-speech", {
    utterance: required(str),
    interrupted: withDefault(bool, () => false)
  }),
  event("ErrorEvent", "error", { content: required(str) }),
  event("WarningEvent", "warning", { content: required(str) }),
  event("AgentQuestionEvent", "agent-question", { question_id: required(str), question: required(str) }),
  event("IntentEvent", "intent", { intent_id: required(str), intent_summary: required(str) }),
  event("ActionRequestEvent", "action-request", { intent_id: required(str), intent_summary: required(str) }),
  event("ExecuteActionEvent", "execute-action", { action_key: required(str) }),
  event("InboundCallEvent", "inbound-call", {
    caller_number: withDefault(nullable(e164), () => null),
    agent_number: withDefault(nullable(e164), () => null)
  }),
  event("TaskCompletedEvent", "task-done", { task_id: required(str) }),
  event("ActionItemCompletedEvent", "action-item-done", { key: required(str), payload: required(anything) }),
  event("OutboundCallConnected", "outbound-call-connected", {}),
  event("OutboundCallFailed", "outbound-call-failed", { error_code: required(int), error_reason: required(str) }),
  event("BotSessionEnded", "bot-session-ended", {
    termination_reason: required(literal(...terminationReasons)),
    dnc: withDefault(bool, () => false)
  }),
  event("ChoiceQueryEvent", "choice-query", {
    field_key: required(str),
    query: required(str),
    query_id: required(str)
  }),
  event("EscalateEvent", "escalate", { requested_by: withDefault(literal("human", "agent"), () => "human") }),
  event("DTMFPressedEvent", "dtmf", {
    digit: required(literal(...dtmfDigits)),
    recent_digits: withDefault(str, () => "")
  })
] as const

/** The event types this SDK version knows (`_KNOWN_EVENT_TYPES`); any other one is ignored. */
export const knownEventTypes: ReadonlySet<string> = new Set(eventModels.map(([type]) => type))

/** The SDK model class that validates an event type (`"OutboundCallFailed"` for `outbound-call-failed`). */
export const eventModelName = (type: EventType): string => eventModels.find(([t]) => t === type)?.[1] ?? type

const eventUnion = discriminated<GuavaEvent>(
  "event_type",
  Object.fromEntries(eventModels.map(([type, , validator]) => [type, validator]))
)

/**
 * `guava.events.decode_event_dict`, the call sockets' deserializer: returns the validated event,
 * or `null` for an event type this SDK version does not know (it warns and the receive loop skips
 * it). Throws what the SDK would raise: `AssertionError` without `event_type`, `TypeError` for an
 * unhashable `event_type`, `ValidationError` (naming the model) for a known event that fails it.
 */
export const decodeEventDict = (payload: Record<string, unknown>, notes?: Array<string>): GuavaEvent | null => {
  if (!Object.hasOwn(payload, "event_type")) {
    throw new SdkError("AssertionError", "Missing event_type in event data (guava/events.py decode_event_dict)")
  }
  const type = payload["event_type"]
  if (typeof type === "object" && type !== null) {
    throw new SdkError("TypeError", `unhashable type: '${pyTypeName(type)}' (event_type of a call event)`)
  }
  if (typeof type !== "string" || !knownEventTypes.has(type)) return null
  return run(eventUnion, eventModelName(type as EventType), payload, notes)
}

// ---------------------------------------------------------------------------------------------
// guava/types/call_info.py

export interface PstnCallInfo {
  readonly call_type: "pstn"
  readonly from_number: string | null
  readonly to_number: string
  readonly caller_id: string | null
}
export interface WebRtcCallInfo {
  readonly call_type: "webrtc"
  readonly webrtc_code: string
}
export interface SipCallInfo {
  readonly call_type: "sip"
  readonly from_aor: string
  readonly sip_code: string | null
  readonly sip_headers: Readonly<Record<string, string>>
}
export type CallInfo = PstnCallInfo | WebRtcCallInfo | SipCallInfo

const pstnCallInfo = model<PstnCallInfo>("PSTNCallInfo", {
  call_type: withDefault(literal("pstn"), () => "pstn"),
  // `E164PhoneNumber | None` with no default: present, null allowed.
  from_number: required(nullable(e164)),
  to_number: required(e164),
  caller_id: withDefault(nullable(str), () => null)
})
const webRtcCallInfo = model<WebRtcCallInfo>("WebRTCCallInfo", {
  call_type: withDefault(literal("webrtc"), () => "webrtc"),
  webrtc_code: required(str)
})
const sipCallInfo = model<SipCallInfo>("SipCallInfo", {
  call_type: withDefault(literal("sip"), () => "sip"),
  from_aor: required(str),
  sip_code: withDefault(nullable(str), () => null),
  sip_headers: withDefault(dictOf(str), () => ({}))
})
const callInfo = discriminated<CallInfo>("call_type", { pstn: pstnCallInfo, webrtc: webRtcCallInfo, sip: sipCallInfo })

/**
 * `PSTNCallInfo(from_number=..., to_number=...)` as the SDK builds it locally (agent.py
 * call_phone, the campaign's initiate_call): raises a ValidationError for a number that is not
 * E.164.
 */
export const makePstnCallInfo = (fromNumber: unknown, toNumber: unknown): PstnCallInfo =>
  run(pstnCallInfo, "PSTNCallInfo", { from_number: fromNumber, to_number: toNumber })

// ---------------------------------------------------------------------------------------------
// guava/listen_inbound.py and guava/guavadialer_events.py

export interface ListenStarted {
  readonly message_type: "listen-started"
  readonly other_listeners: number
}
export interface IncomingCall {
  readonly message_type: "incoming-call"
  readonly call_id: string
}
export interface AssignCall {
  readonly message_type: "assign-call"
  readonly call_id: string
  readonly call_info: CallInfo
}
export type ListenInboundServerMessage = ListenStarted | IncomingCall | AssignCall

export interface InitiateAndAssignCall {
  readonly message_type: "initiate-and-assign-call"
  readonly call_id: string
  /** `Any` (required): whatever the contact's data was; the SDK later calls `.get` on it. */
  readonly contact_data: unknown
}
export type GuavadialerServerMessage = ListenStarted | InitiateAndAssignCall

const listenStarted = model<ListenStarted>("ListenStarted", {
  message_type: withDefault(literal("listen-started"), () => "listen-started"),
  other_listeners: required(int)
})
const incomingCall = model<IncomingCall>("IncomingCall", {
  message_type: withDefault(literal("incoming-call"), () => "incoming-call"),
  call_id: required(str)
})
const assignCall = model<AssignCall>("AssignCall", {
  message_type: withDefault(literal("assign-call"), () => "assign-call"),
  call_id: required(str),
  call_info: required(callInfo)
})
const initiateAndAssignCall = model<InitiateAndAssignCall>("InitiateAndAssignCall", {
  message_type: withDefault(literal("initiate-and-assign-call"), () => "initiate-and-assign-call"),
  call_id: required(str),
  contact_data: required(anything)
})

const listenInboundUnion = smartUnion<ListenInboundServerMessage>([
  ["ListenStarted", listenStarted],
  ["IncomingCall", incomingCall],
  ["AssignCall", assignCall]
])
const guavadialerUnion = smartUnion<GuavadialerServerMessage>([
  ["ListenStarted", listenStarted],
  ["InitiateAndAssignCall", initiateAndAssignCall]
])

/**
 * `guava.listen_inbound.decode_server_message`: anything but listen-started, incoming-call and
 * assign-call (a `warning` included) raises, which kills the SDK's inbound listener.
 */
export const decodeListenInboundMessage = (
  payload: Record<string, unknown>,
  notes?: Array<string>
): ListenInboundServerMessage =>
  run(listenInboundUnion, "union[ListenStarted, IncomingCall, AssignCall] (guava/listen_inbound.py)", payload, notes)

/**
 * `guava.guavadialer_events.decode_server_message`: anything but listen-started and
 * initiate-and-assign-call raises, which kills the SDK's campaign listener.
 */
export const decodeGuavadialerMessage = (
  payload: Record<string, unknown>,
  notes?: Array<string>
): GuavadialerServerMessage =>
  run(
    guavadialerUnion,
    "union[ListenStarted, InitiateAndAssignCall] (guava/guavadialer_events.py)",
    payload,
    notes
  )

// ---------------------------------------------------------------------------------------------
// guava/socket/protocol.py: server → client envelope frames

export const closeReasons = [
  "authentication-failure",
  "state-lost",
  "done",
  "other",
  "server-error",
  "reconnection-failed",
  "unknown"
] as const
export type CloseReason = (typeof closeReasons)[number]

export interface GuavaOpenAck {
  readonly message_type: "open-ack"
  readonly is_reopen: boolean
  readonly last_seen_sequence: number
}
export interface GuavaClose {
  readonly message_type: "close"
  readonly reason: CloseReason
  readonly description: string
}
export interface GuavaMessage {
  readonly message_type: "message"
  readonly sequence: number
  readonly payload: Record<string, unknown>
}
export interface GuavaPing {
  readonly message_type: "ping"
  readonly ping_timestamp: number
}
export interface GuavaPong {
  readonly message_type: "pong"
  readonly ping_timestamp: number
  readonly pong_timestamp: number
}
export interface GuavaAck {
  readonly message_type: "ack"
  readonly last_seen_sequence: number
}
export type GuavaServerFrame = GuavaMessage | GuavaClose | GuavaPing | GuavaPong | GuavaAck

const openAck = model<GuavaOpenAck>("GuavaOpenAck", {
  message_type: withDefault(literal("open-ack"), () => "open-ack"),
  is_reopen: required(bool),
  last_seen_sequence: required(int)
})
const close = model<GuavaClose>("GuavaClose", {
  message_type: withDefault(literal("close"), () => "close"),
  reason: required(literal(...closeReasons)),
  description: required(str)
})
const message = model<GuavaMessage>("GuavaMessage", {
  message_type: withDefault(literal("message"), () => "message"),
  sequence: required(int),
  payload: required(dict)
})
const ping = model<GuavaPing>("GuavaPing", {
  message_type: withDefault(literal("ping"), () => "ping"),
  ping_timestamp: required(int)
})
const pong = model<GuavaPong>("GuavaPong", {
  message_type: withDefault(literal("pong"), () => "pong"),
  ping_timestamp: required(int),
  pong_timestamp: required(int)
})
const ack = model<GuavaAck>("GuavaAck", {
  message_type: withDefault(literal("ack"), () => "ack"),
  last_seen_sequence: required(int)
})

const openResponseUnion = smartUnion<GuavaOpenAck | GuavaClose>([["GuavaOpenAck", openAck], ["GuavaClose", close]])
const serverFrameUnion = smartUnion<GuavaServerFrame>([
  ["GuavaMessage", message],
  ["GuavaClose", close],
  ["GuavaPing", ping],
  ["GuavaPong", pong],
  ["GuavaAck", ack]
])

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * `validate_json` on a received frame: text frames and binary frames alike (websockets hands
 * bytes to pydantic, which parses them as UTF-8 JSON). Invalid JSON is a ValidationError.
 * Limit: JSON.parse rejects `NaN`/`Infinity` tokens, which pydantic's parser would accept.
 */
const parseJson = (data: string | Uint8Array, modelName: string): unknown => {
  try {
    return JSON.parse(typeof data === "string" ? data : utf8.decode(data))
  } catch (e) {
    throw new ValidationError(modelName, [{
      loc: [],
      type: "json_invalid",
      msg: `Invalid JSON: ${e instanceof Error ? e.message : String(e)}`,
      input: typeof data === "string" ? data : `<${data.byteLength} bytes>`
    }])
  }
}

/** The frame answering `open` (`TypeAdapter(Union[GuavaOpenAck, GuavaClose]).validate_json`). */
export const decodeOpenResponse = (data: string | Uint8Array, notes?: Array<string>): GuavaOpenAck | GuavaClose => {
  const name = "union[GuavaOpenAck, GuavaClose] (guava/socket/protocol.py)"
  return run(openResponseUnion, name, parseJson(data, name), notes)
}

/** A frame after `open-ack` (`GuavaMessage | GuavaClose | GuavaPing | GuavaPong | GuavaAck`). */
export const decodeServerFrame = (data: string | Uint8Array, notes?: Array<string>): GuavaServerFrame => {
  const name = "union[GuavaMessage, GuavaClose, GuavaPing, GuavaPong, GuavaAck] (guava/socket/protocol.py)"
  return run(serverFrameUnion, name, parseJson(data, name), notes)
}
