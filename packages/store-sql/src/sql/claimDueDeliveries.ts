/**
 * The webhook workers' claim: up to `limit` pending deliveries due at `now`, oldest due first,
 * each with its attempt counted as started and its due time moved to `now + lease`, answered
 * with what the attempt needs (the endpoint's URL and secret, the event).
 *
 * One statement: a range scan of `webhook_deliveries_due` (pending rows only) locks the due rows
 * with `FOR UPDATE SKIP LOCKED`, and the UPDATE writes the claim. Several workers claiming at
 * once never take the same delivery: a row another claim has locked is skipped, and one it has
 * already claimed and committed is no longer due (READ COMMITTED re-checks the WHERE clause on
 * the newest version of a row it locks). Moving `next_attempt_at` is the lease: a worker that
 * dies mid-attempt records nothing, and its delivery falls due again when the lease runs out,
 * for any worker to take (the attempt still counts). `attempts` is the claim's token: the
 * result is recorded only while it is unchanged (see SqlWebhookRepository `recordAttempt`).
 * `attempt_open` is set until then: a claim that finds it still set writes the previous
 * attempt as `lapsed` (and keeps the delivery's newest `attemptsKept` attempts), in the same
 * statement. (The locked row is its newest version, so a result recorded meanwhile is seen;
 * `ON CONFLICT DO NOTHING` keeps a recorded attempt over a lapsed one regardless.)
 *
 * Measured (2-core box, loaded by other work, Node 24 and PostgreSQL 15 on the same host,
 * `scripts/bench-webhooks.ts`): 4 workers claiming 10 at a time and recording each delivered
 * drain 20,000 deliveries at 3,400 deliveries/s; PGlite, 1 worker, 2,300 deliveries/s. The
 * plan is a range scan of `webhook_deliveries_due` stopping at `limit`, then primary-key
 * probes of the delivery, the endpoint and the event.
 */
import type { PgClient } from "@effect/sql-pg"
import type { DueDelivery } from "@voice-agent/core/ports/WebhookRepository"
import { fromMillis } from "@voice-agent/core/Time"
import { attemptsKept, WebhookEventType } from "@voice-agent/core/Webhook"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"

const Claimed = Schema.Struct({
  deliveryId: Schema.String,
  attempt: Schema.Int,
  endpointId: Schema.String,
  url: Schema.String,
  secret: Schema.Uint8Array,
  eventId: Schema.String,
  eventType: WebhookEventType,
  eventCreatedAt: Schema.Date,
  data: Schema.Unknown
})

/** The error of an attempt whose worker recorded nothing. */
const lapsedMessage = "no result recorded: the worker stopped or died during the attempt"

/**
 * @category constructors
 */
export const claimDueDeliveries = (sql: PgClient.PgClient) => {
  const claim = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date, leaseUntil: Schema.Date, limit: Schema.Int }),
    Result: Claimed,
    execute: ({ leaseUntil, limit, now }) =>
      sql`
        WITH due AS (
          SELECT d.id, d.attempts, d.attempt_open, d.last_attempt_at FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
          ORDER BY d.next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ),
        lapsed AS (
          INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, error_type, error)
          SELECT due.id, due.attempts, due.last_attempt_at, 'lapsed', ${lapsedMessage}
          FROM due WHERE due.attempt_open
          ON CONFLICT DO NOTHING
        ),
        trimmed AS (
          DELETE FROM webhook_attempts a USING due
          WHERE due.attempt_open AND due.attempts > ${attemptsKept}
            AND a.delivery_id = due.id AND a.attempt <= due.attempts - ${attemptsKept}
        )
        UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}, last_attempt_at = ${now}, attempt_open = true
        FROM due, webhook_endpoints w, webhook_events e
        WHERE d.id = due.id AND w.id = d.endpoint_id AND e.id = d.event_id
        RETURNING d.id::text AS "deliveryId", d.attempts AS "attempt", w.id::text AS "endpointId", w.url AS "url",
                  w.secret AS "secret", e.id AS "eventId", e.type AS "eventType", e.created_at AS "eventCreatedAt",
                  e.payload AS "data"`
  })

  return (input: { readonly now: number; readonly leaseMs: number; readonly limit: number }) =>
    input.limit <= 0 ? Effect.succeed([]) : claim({
      now: fromMillis(input.now),
      leaseUntil: fromMillis(input.now + input.leaseMs),
      limit: input.limit
    }).pipe(
      Effect.map((rows) => rows.map((row): DueDelivery => ({ ...row, eventCreatedAt: row.eventCreatedAt.getTime() })))
    )
}
