/**
 * Storage port for SMS messages, inbound and outbound.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { MessageRecord } from "../Message.ts"

/**
 * Filters of `GET /v1/messages`, oldest first.
 *
 * @category models
 */
export interface InboundMessageQuery {
  readonly organizationId: string
  readonly toNumber: string
  /** Inclusive lower bound on `receivedAt`. */
  readonly start?: Date | undefined
  readonly fromNumber?: string | undefined
  readonly modality?: "sms" | undefined
  readonly limit: number
}

/**
 * @category services
 */
export class MessageRepository extends Context.Service<MessageRepository, {
  /** Stores a message; `carrierMessageId` is the carrier's id for it, when it has one. */
  readonly insert: (message: Omit<MessageRecord, "id">, carrierMessageId?: string) => Effect.Effect<MessageRecord>
  /**
   * Stores a message a carrier delivered under `carrierMessageId`, once: a second delivery of
   * the same id stores nothing and answers the message stored the first time (`created: false`).
   */
  readonly receive: (
    message: Omit<MessageRecord, "id">,
    carrierMessageId: string
  ) => Effect.Effect<{ readonly message: MessageRecord; readonly created: boolean }>
  /**
   * Sets the status of the message the carrier knows as `carrierMessageId`; answers whether
   * there is one.
   */
  readonly updateStatus: (carrierMessageId: string, status: string) => Effect.Effect<boolean>
  readonly listInbound: (
    query: InboundMessageQuery
  ) => Effect.Effect<{ readonly messages: ReadonlyArray<MessageRecord>; readonly hasMore: boolean }>
}>()("@voice-agent/core/ports/MessageRepository") {}
