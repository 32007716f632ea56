/**
 * Takes back contacts whose lease expired (their daemon is presumed dead): up to `limit` of
 * them, oldest expiry first, each moved on by `ContactState.recover` with its campaign's
 * current policy (a lease that carried a call ends it as `lost`: the attempt counts and the
 * conversation is closed with `bot-failure`; a mere claim is released with no attempt used).
 *
 * A short transaction: lock the expired leases (`FOR UPDATE OF c SKIP LOCKED`, by
 * `contacts_dialing_lease`), write the states ContactState computed (writeContactStates, one
 * statement for the batch), close their conversations keeping what was recorded of each call
 * (closeLostConversations: three statements, and one more for their `call.ended` webhook
 * events; the caller's `finalizeRecordings`, for recordings kept outside the database, runs
 * between them);
 * then, when a status moved (a lost call with no attempt left), one statement for the
 * `contact.status_changed` events (sql/enqueueWebhookEvents). `SKIP LOCKED` lets several daemons recover at once
 * without taking the same contact twice or waiting for each other, and passes over a contact
 * whose owner is ending or releasing its call right now (that step clears the lease itself).
 * A lease renewed after this statement's snapshot but before its lock is re-checked on the
 * locked row (READ COMMITTED re-evaluates the WHERE clause), so a live lease is never taken.
 *
 * Measured (2-core box, Node 24 and PostgreSQL 15 on the same host, `scripts/bench-dialer.ts`):
 * 8,300 contacts/s taken back, 100 per transaction, half of them with a call to close.
 */
import type { PgClient } from "@effect/sql-pg"
import { ContactDataSchema } from "@voice-agent/core/Contact"
import { recover } from "@voice-agent/core/ContactState"
import type { FinalizeLost } from "@voice-agent/core/ports/RecordingStore"
import { fromMillis } from "@voice-agent/core/Time"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { leaseExpired } from "../internal/beingDialed.ts"
import {
  dialStateColumns,
  DialStateRow,
  policyColumns,
  PolicyRow,
  toDialState,
  toPolicy,
  toStateWrite
} from "../internal/dialState.ts"
import { statusChanged } from "../internal/webhookEvents.ts"
import { closeLostConversations } from "./closeLostConversations.ts"
import { enqueueWebhookEvents } from "./enqueueWebhookEvents.ts"
import { writeContactStates } from "./writeContactStates.ts"

/**
 * Recovers in one transaction; answers how many contacts it took back.
 *
 * @category constructors
 */
export const recoverExpiredLeases = (sql: PgClient.PgClient) => {
  const lockExpired = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date, limit: Schema.Int }),
    Result: Schema.Struct({
      id: Schema.String,
      campaignId: Schema.String,
      organizationId: Schema.String,
      phoneNumber: Schema.String,
      data: ContactDataSchema,
      ...DialStateRow.fields,
      ...PolicyRow.fields
    }),
    execute: ({ limit, now }) =>
      sql`
        SELECT c.id::text AS "id", c.campaign_id::text AS "campaignId", c.organization_id::text AS "organizationId",
               c.phone_number AS "phoneNumber", c.data AS "data",
               ${sql.literal(dialStateColumns("c"))}, ${sql.literal(policyColumns("k"))}
        FROM contacts c JOIN campaigns k ON k.id = c.campaign_id
        WHERE ${leaseExpired(sql, now, "c")}
        ORDER BY c.dialing_lease_expires_at
        LIMIT ${limit}
        FOR UPDATE OF c SKIP LOCKED`
  })
  const write = writeContactStates(sql)
  const close = closeLostConversations(sql)
  const enqueue = enqueueWebhookEvents(sql)

  return (
    input: { readonly now: number; readonly limit: number; readonly finalizeRecordings?: FinalizeLost | undefined }
  ) =>
    input.limit <= 0 ? Effect.succeed(0) : sql.withTransaction(Effect.gen(function*() {
      const now = fromMillis(input.now)
      const expired = yield* lockExpired({ now, limit: input.limit })
      if (expired.length === 0) return 0
      const next = expired.map((row) => recover(toDialState(row), toPolicy(row), input.now))
      yield* write(expired.map((row, i) => toStateWrite(row.id, next[i]!)))
      const conversationIds = expired.flatMap((row) =>
        row.leaseConversationId === null ? [] : [row.leaseConversationId]
      )
      if (conversationIds.length > 0) {
        yield* close({ conversationIds, now, finalizeRecordings: input.finalizeRecordings })
      }
      yield* enqueue(expired.flatMap((row, i) => statusChanged(row, row.status, next[i]!.status)), now)
      return expired.length
    }))
}
