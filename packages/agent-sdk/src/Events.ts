/**
 * Events, server → agent, on a call socket (each the `payload` of one envelope `message`,
 * tagged by `event_type`), decoded into camelCase objects tagged by `type`:
 *
 * | `event_type` | wire fields | decoded |
 * | - | - | - |
 * | `caller-speech` | `utterance`, `utterance_id?` | `utterance`, `utteranceId?` (a later event with the same id supersedes) |
 * | `agent-speech` | `utterance`, `interrupted` (default false) | `utterance`, `interrupted` |
 * | `action-item-done` | `key`, `payload` (the bare typed value) | `key`, `value` |
 * | `task-done` | `task_id` | `taskId` |
 * | `agent-question` | `question_id`, `question` | `questionId`, `question` |
 * | `choice-query` | `field_key`, `query`, `query_id` | `fieldKey`, `query`, `queryId` |
 * | `action-request` | `intent_id`, `intent_summary` | `intentId`, `intentSummary` |
 * | `execute-action` | `action_key` | `actionKey` |
 * | `escalate` | `requested_by` (human, agent; default human) | `requestedBy` |
 * | `dtmf` | `digit`, `recent_digits` (default "") | `digit`, `recentDigits` |
 * | `outbound-call-connected` | | |
 * | `outbound-call-failed` | `error_code` (integer), `error_reason` | `errorCode`, `errorReason` (terminal) |
 * | `bot-session-ended` | `termination_reason`, `dnc` (default false) | `terminationReason`, `dnc` (terminal) |
 * | `error`, `warning` | `content` | `content` |
 *
 * Any event may carry a `sequence` (ignored). Other `event_type`s (v1's `inbound-call` and
 * `session-started`, the legacy `intent`, anything newer) are `unknown` and skipped; a known
 * event with a missing or mistyped field is `invalid` (and skipped, where the reference client
 * would stop handling the call).
 *
 * @since 0.1.0
 */
import type { JsonObject, JsonValue } from "@voice-agent/agent-protocol/Json"
import type { DtmfDigit } from "./Commands.ts"
import * as Read from "./internal/Read.ts"

export type TerminationReason = "user-hangup" | "bot-hangup" | "bot-failure" | "bot-transfer" | "voicemail"

export const terminationReasons: ReadonlyArray<TerminationReason> = [
  "user-hangup",
  "bot-hangup",
  "bot-failure",
  "bot-transfer",
  "voicemail"
]

export const dtmfDigits: ReadonlyArray<DtmfDigit> = [
  "0",
  "1",
  "2",
  "3",
  "4",
  "5",
  "6",
  "7",
  "8",
  "9",
  "*",
  "#",
  "A",
  "B",
  "C",
  "D"
]

export interface CallerSpeech {
  readonly type: "caller-speech"
  readonly utterance: string
  readonly utteranceId?: string
}

export interface AgentSpeech {
  readonly type: "agent-speech"
  readonly utterance: string
  readonly interrupted: boolean
}

export interface ActionItemDone {
  readonly type: "action-item-done"
  readonly key: string
  readonly value: JsonValue
}

export interface TaskDone {
  readonly type: "task-done"
  readonly taskId: string
}

export interface AgentQuestion {
  readonly type: "agent-question"
  readonly questionId: string
  readonly question: string
}

export interface ChoiceQuery {
  readonly type: "choice-query"
  readonly fieldKey: string
  readonly query: string
  readonly queryId: string
}

export interface ActionRequest {
  readonly type: "action-request"
  readonly intentId: string
  readonly intentSummary: string
}

export interface ExecuteAction {
  readonly type: "execute-action"
  readonly actionKey: string
}

export interface Escalate {
  readonly type: "escalate"
  readonly requestedBy: "human" | "agent"
}

export interface DtmfPressed {
  readonly type: "dtmf"
  readonly digit: DtmfDigit
  readonly recentDigits: string
}

export interface OutboundCallConnected {
  readonly type: "outbound-call-connected"
}

export interface OutboundCallFailed {
  readonly type: "outbound-call-failed"
  readonly errorCode: number
  readonly errorReason: string
}

export interface SessionEnded {
  readonly type: "bot-session-ended"
  readonly terminationReason: TerminationReason
  readonly dnc: boolean
}

export interface ServerNotice {
  readonly type: "error" | "warning"
  readonly content: string
}

export type CallEvent =
  | CallerSpeech
  | AgentSpeech
  | ActionItemDone
  | TaskDone
  | AgentQuestion
  | ChoiceQuery
  | ActionRequest
  | ExecuteAction
  | Escalate
  | DtmfPressed
  | OutboundCallConnected
  | OutboundCallFailed
  | SessionEnded
  | ServerNotice

export type DecodedEvent =
  | { readonly _tag: "event"; readonly event: CallEvent }
  | { readonly _tag: "unknown"; readonly eventType: string }
  | { readonly _tag: "invalid"; readonly reason: string }

type Decoder = (payload: JsonObject) => CallEvent

const decoders: Readonly<Record<string, Decoder>> = {
  "caller-speech": (p) => {
    const utteranceId = Read.optionalString(p, "utterance_id")
    return {
      type: "caller-speech",
      utterance: Read.string(p, "utterance"),
      ...(utteranceId === undefined ? {} : { utteranceId })
    }
  },
  "agent-speech": (p) => ({
    type: "agent-speech",
    utterance: Read.string(p, "utterance"),
    interrupted: Read.boolean(p, "interrupted", false)
  }),
  "action-item-done": (p) => {
    if (!("payload" in p)) throw new Read.Invalid("payload is required")
    return { type: "action-item-done", key: Read.string(p, "key"), value: p["payload"] ?? null }
  },
  "task-done": (p) => ({ type: "task-done", taskId: Read.string(p, "task_id") }),
  "agent-question": (p) => ({
    type: "agent-question",
    questionId: Read.string(p, "question_id"),
    question: Read.string(p, "question")
  }),
  "choice-query": (p) => ({
    type: "choice-query",
    fieldKey: Read.string(p, "field_key"),
    query: Read.string(p, "query"),
    queryId: Read.string(p, "query_id")
  }),
  "action-request": (p) => ({
    type: "action-request",
    intentId: Read.string(p, "intent_id"),
    intentSummary: Read.string(p, "intent_summary")
  }),
  "execute-action": (p) => ({ type: "execute-action", actionKey: Read.string(p, "action_key") }),
  escalate: (p) => ({ type: "escalate", requestedBy: Read.oneOf(p, "requested_by", ["human", "agent"], "human") }),
  dtmf: (p) => ({
    type: "dtmf",
    digit: Read.oneOf(p, "digit", dtmfDigits),
    recentDigits: Read.optionalString(p, "recent_digits") ?? ""
  }),
  "outbound-call-connected": () => ({ type: "outbound-call-connected" }),
  "outbound-call-failed": (p) => ({
    type: "outbound-call-failed",
    errorCode: Read.integer(p, "error_code"),
    errorReason: Read.string(p, "error_reason")
  }),
  "bot-session-ended": (p) => ({
    type: "bot-session-ended",
    terminationReason: Read.oneOf(p, "termination_reason", terminationReasons),
    dnc: Read.boolean(p, "dnc", false)
  }),
  error: (p) => ({ type: "error", content: Read.string(p, "content") }),
  warning: (p) => ({ type: "warning", content: Read.string(p, "content") })
}

/** Decodes one call-socket payload. */
export const decodeEvent = (payload: JsonObject): DecodedEvent => {
  const eventType = payload["event_type"]
  if (typeof eventType !== "string") return { _tag: "invalid", reason: "event_type is missing" }
  const decoder = Object.hasOwn(decoders, eventType) ? decoders[eventType] : undefined
  if (decoder === undefined) return { _tag: "unknown", eventType }
  try {
    return { _tag: "event", event: decoder(payload) }
  } catch (error) {
    if (error instanceof Read.Invalid) return { _tag: "invalid", reason: `${eventType}: ${error.message}` }
    throw error
  }
}
