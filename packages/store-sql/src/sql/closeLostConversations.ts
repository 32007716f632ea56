/**
 * Closes the conversations of calls whose dialer is gone, with `bot-failure`: the recovery of
 * an expired lease that carried a call (ContactState.recover, outcome `lost`) and the delete of
 * a contact whose lease expired mid-call. `ended_at` is the caller's `now`; `duration_sec`
 * counts whole seconds from the answer when one was recorded, else 0. Only open conversations
 * change, so a call its dialer ended meanwhile keeps what it wrote.
 *
 * Locking: row locks on the conversations only (a primary-key lookup per id, batched through
 * `ANY`); the caller holds the contacts' row locks, so nobody else ends these calls at once.
 */
import { Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient } from "effect/sql"

/**
 * @category constructors
 */
export const closeLostConversations = (sql: SqlClient.SqlClient) =>
  SqlSchema.void({
    Request: Schema.Struct({ conversationIds: Schema.Array(Schema.String), now: Schema.Date }),
    execute: ({ conversationIds, now }) =>
      sql`
        UPDATE conversations SET
          ended_at = ${now},
          termination_reason = 'bot-failure',
          duration_sec = CASE
            WHEN answered_at IS NULL THEN 0
            ELSE greatest(0, floor(extract(epoch FROM (${now}::timestamptz - answered_at))))::int
          END
        WHERE id = ANY(${conversationIds}::uuid[]) AND ended_at IS NULL`
  })
