/**
 * SMS messages: the send request and response, the inbound message resource and its list.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Direction } from "./Conversation.ts"
import { E164 } from "./PhoneNumber.ts"
import { toIso } from "./Time.ts"

/**
 * Longest SMS body accepted (Twilio's limit for a concatenated message).
 *
 * @category constructors
 */
export const MaxSmsLength = 1600

/**
 * @category schemas
 */
export const Modality = Schema.Literal("sms")

/**
 * @category models
 */
export interface MessageRecord {
  readonly id: string
  readonly organizationId: string
  readonly direction: Direction
  readonly modality: "sms"
  readonly fromNumber: string
  readonly toNumber: string
  readonly content: string
  readonly receivedAt: Date
  readonly status: string
}

/**
 * Body of `POST /v1/send-sms`.
 *
 * @category schemas
 */
export const SendSmsRequest = Schema.Struct({
  from_number: E164,
  to_number: E164,
  message: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MaxSmsLength))
}).annotate({ identifier: "SendSMSRequest" })

/**
 * @category models
 */
export type SendSmsRequest = typeof SendSmsRequest.Type

/**
 * @category schemas
 */
export const SendSmsResponse = Schema.Struct({
  status: Schema.String
}).annotate({ identifier: "SendSMSResponse" })

/**
 * The inbound message resource of the documented API.
 *
 * @category schemas
 */
export const InboundMessage = Schema.Struct({
  id: Schema.String,
  from_number: Schema.String,
  to_number: Schema.String,
  content: Schema.String,
  received_at: Schema.String,
  modality: Modality,
  direction: Schema.Literal("inbound")
}).annotate({ identifier: "InboundMessage" })

/**
 * @category models
 */
export type InboundMessage = typeof InboundMessage.Type

/**
 * @category encoding
 */
export const toInboundMessage = (record: MessageRecord): InboundMessage => ({
  id: record.id,
  from_number: record.fromNumber,
  to_number: record.toNumber,
  content: record.content,
  received_at: toIso(record.receivedAt),
  modality: record.modality,
  direction: "inbound"
})

/**
 * Response of `GET /v1/messages`.
 *
 * @category schemas
 */
export const MessageList = Schema.Struct({
  messages: Schema.Array(InboundMessage),
  has_more: Schema.Boolean
}).annotate({ identifier: "MessageList" })
