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
  readonly insert: (message: Omit<MessageRecord, "id">) => Effect.Effect<MessageRecord>
  readonly listInbound: (
    query: InboundMessageQuery
  ) => Effect.Effect<{ readonly messages: ReadonlyArray<MessageRecord>; readonly hasMore: boolean }>
}>()("@voice-agent/core/ports/MessageRepository") {}
