/**
 * Conversation records of calls (inbound and outbound), their transcript turns and the
 * recording channels, as stored and as documented.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { PageFields } from "./Page.ts"
import { toIso } from "./Time.ts"

/**
 * @category schemas
 */
export const Direction = Schema.Literals(["inbound", "outbound"])

/**
 * @category models
 */
export type Direction = typeof Direction.Type

/**
 * `termination_reason` values (docs/DECISIONS.md, "Dialing"): the reference service's values for
 * answered calls, and `busy`, `no-answer`, `failed` for calls never answered.
 *
 * @category schemas
 */
export const TerminationReason = Schema.Literals([
  "user-hangup",
  "bot-hangup",
  "bot-failure",
  "bot-transfer",
  "voicemail",
  "busy",
  "no-answer",
  "failed"
])

/**
 * @category models
 */
export type TerminationReason = typeof TerminationReason.Type

/**
 * @category schemas
 */
export const Speaker = Schema.Literals(["HUMAN", "AGENT"])

/**
 * @category models
 */
export type Speaker = typeof Speaker.Type

/**
 * The channels a call's audio is recorded in: what the agent said, and what the person on the
 * call (the remote party) said.
 *
 * @category models
 */
export const RecordedChannels = ["agent", "remote"] as const

/**
 * @category models
 */
export type RecordedChannel = typeof RecordedChannels[number]

/**
 * The recordings a call has: its recorded channels and `mixed`, their sum (derived on read,
 * never stored).
 *
 * @category schemas
 */
export const RecordingChannel = Schema.Literals([...RecordedChannels, "mixed"])

/**
 * @category models
 */
export type RecordingChannel = typeof RecordingChannel.Type

/**
 * The stored call.
 *
 * @category models
 */
export interface ConversationRecord {
  readonly id: string
  readonly callId: string
  readonly organizationId: string
  readonly campaignId: string | null
  readonly contactId: string | null
  readonly direction: Direction
  readonly fromNumber: string
  readonly toNumber: string
  readonly startedAt: Date
  readonly answeredAt: Date | null
  readonly endedAt: Date | null
  readonly durationSec: number | null
  readonly terminationReason: TerminationReason | null
}

/**
 * @category models
 */
export interface TranscriptTurnRecord {
  readonly speaker: Speaker
  readonly text: string
  readonly offsetMs: number
}

/**
 * The Conversation resource of the documented API.
 *
 * @category schemas
 */
export const Conversation = Schema.Struct({
  id: Schema.String,
  call_id: Schema.String,
  ts: Schema.String,
  direction: Direction,
  from_number: Schema.String,
  to_number: Schema.String,
  duration_sec: Schema.NullOr(Schema.Int),
  campaign_id: Schema.NullOr(Schema.String),
  termination_reason: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Conversation" })

/**
 * @category models
 */
export type Conversation = typeof Conversation.Type

/**
 * @category encoding
 */
export const toConversation = (record: ConversationRecord): Conversation => ({
  id: record.id,
  call_id: record.callId,
  ts: toIso(record.startedAt),
  direction: record.direction,
  from_number: record.fromNumber,
  to_number: record.toNumber,
  duration_sec: record.durationSec,
  campaign_id: record.campaignId,
  termination_reason: record.terminationReason
})

/**
 * @category schemas
 */
export const TranscriptTurn = Schema.Struct({
  speaker: Speaker,
  text: Schema.String,
  offset_ms: Schema.Int
}).annotate({ identifier: "TranscriptTurn" })

/**
 * @category encoding
 */
export const toTranscriptTurn = (turn: TranscriptTurnRecord): typeof TranscriptTurn.Type => ({
  speaker: turn.speaker,
  text: turn.text,
  offset_ms: turn.offsetMs
})

/**
 * Response of `GET /v1/conversations`.
 *
 * @category schemas
 */
export const ConversationList = Schema.Struct({
  conversations: Schema.Array(Conversation),
  ...PageFields
}).annotate({ identifier: "ConversationList" })
