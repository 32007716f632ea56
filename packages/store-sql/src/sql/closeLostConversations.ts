/**
 * Closes the conversations of calls whose dialer is gone, with `bot-failure`: the recovery of
 * an expired lease that carried a call (ContactState.recover, outcome `lost`) and the delete of
 * a contact whose lease expired mid-call. `ended_at` is the caller's `now`; `duration_sec`
 * counts whole seconds from the answer when one was recorded, else 0. Only open conversations
 * change, so a call its dialer ended meanwhile keeps what it wrote. Each conversation closed
 * here gets its `call.ended` webhook event, written in the caller's transaction
 * (sql/enqueueWebhookEvents: a second statement, only when some conversation was closed).
 *
 * Locking: row locks on the conversations only (a primary-key lookup per id, batched through
 * `ANY`); the caller holds the contacts' row locks, so nobody else ends these calls at once.
 */
import type { PgClient } from "@effect/sql-pg"
import { callEnded } from "@voice-agent/core/Webhook"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { conversationColumns } from "../internal/webhookEvents.ts"
import { ConversationRow } from "../SqlConversationRepository.ts"
import { enqueueWebhookEvents } from "./enqueueWebhookEvents.ts"

/**
 * @category constructors
 */
export const closeLostConversations = (sql: PgClient.PgClient) => {
  const close = SqlSchema.findAll({
    Request: Schema.Struct({ conversationIds: Schema.Array(Schema.String), now: Schema.Date }),
    Result: ConversationRow,
    execute: ({ conversationIds, now }) =>
      sql`
        UPDATE conversations SET
          ended_at = ${now},
          termination_reason = 'bot-failure',
          duration_sec = CASE
            WHEN answered_at IS NULL THEN 0
            ELSE greatest(0, floor(extract(epoch FROM (${now}::timestamptz - answered_at))))::int
          END
        WHERE id = ANY(${conversationIds}::uuid[]) AND ended_at IS NULL
        RETURNING ${sql.literal(conversationColumns)}`
  })
  const enqueue = enqueueWebhookEvents(sql)
  return (input: { readonly conversationIds: ReadonlyArray<string>; readonly now: Date }) =>
    Effect.flatMap(close(input), (closed) => enqueue(closed.map(callEnded), input.now))
}
