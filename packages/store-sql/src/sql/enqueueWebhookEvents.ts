/**
 * Writes webhook events and fans each out to its organization's subscribed endpoints, in one
 * statement: the events travel as one jsonb array; an event is kept only when some endpoint of
 * its organization takes its type (`events` null or containing it) and gets a new message id
 * (`msg_` + 32 hex digits, random; the `input` CTE is materialized so each id is drawn once);
 * the events are inserted, then one pending delivery per (event, subscribed endpoint), due at
 * `now`, in the order of the events given (so delivery ids, and the delivery lists, follow it).
 * Both inserts read the endpoints in the statement's one snapshot, so an event is never written
 * without deliveries nor fanned out to an endpoint it was not checked against.
 *
 * Wake-up: on PostgreSQL the statement itself calls `pg_notify` on {@link channel} when it
 * created deliveries, which PostgreSQL delivers at commit (and drops on rollback), to every
 * daemon's workers; on the embedded database it signals this process's workers
 * (internal/webhookSignal).
 *
 * Callers: `WebhookRepository.enqueue`, and the dialer's and the DNC sweep's transactions,
 * which write the events of the changes they make in the same transaction (they call this with
 * the same client, so it runs on the transaction's connection).
 *
 * Cost for an organization with no endpoint: one probe of `webhook_endpoints_by_organization`
 * per event, nothing written.
 */
import type { PgClient } from "@effect/sql-pg"
import type { OutgoingEvent } from "@voice-agent/core/Webhook"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { isEmbedded } from "../Database.ts"
import * as WebhookSignal from "../internal/webhookSignal.ts"

/**
 * The PostgreSQL notification channel that wakes webhook workers.
 *
 * @category constructors
 */
export const channel = "voice_agent_webhook_wakeup"

const EventInput = Schema.Struct({
  ord: Schema.Int,
  organization_id: Schema.String,
  type: Schema.String,
  payload: Schema.Unknown
})

/**
 * Answers how many deliveries the events made (0 when no endpoint wants any of them).
 *
 * @category constructors
 */
export const enqueueWebhookEvents = (sql: PgClient.PgClient) => {
  const embedded = isEmbedded(sql)
  const insert = SqlSchema.findOne({
    Request: Schema.Struct({ events: Schema.Array(EventInput), now: Schema.Date }),
    Result: Schema.Struct({ deliveries: Schema.Int }),
    execute: ({ events, now }) => {
      const statement = sql`
        WITH input AS MATERIALIZED (
          SELECT i.ord, i.organization_id, i.type, i.payload, 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id
          FROM jsonb_to_recordset(${sql.json(events)}) AS i(ord int, organization_id uuid, type text, payload jsonb)
          WHERE EXISTS (
            SELECT 1 FROM webhook_endpoints w
            WHERE w.organization_id = i.organization_id AND (w.events IS NULL OR i.type = ANY(w.events))
          )
        ),
        events AS (
          INSERT INTO webhook_events (id, organization_id, type, payload, created_at)
          SELECT i.id, i.organization_id, i.type, i.payload, ${now} FROM input i ORDER BY i.ord
          RETURNING id
        ),
        deliveries AS (
          INSERT INTO webhook_deliveries (endpoint_id, event_id, status, next_attempt_at, created_at)
          SELECT w.id, i.id, 'pending', ${now}, ${now}
          FROM events e
          JOIN input i ON i.id = e.id
          JOIN webhook_endpoints w
            ON w.organization_id = i.organization_id AND (w.events IS NULL OR i.type = ANY(w.events))
          ORDER BY i.ord, w.created_at, w.id
          RETURNING 1
        )`
      return embedded
        ? sql`${statement} SELECT count(*)::int AS "deliveries" FROM deliveries`
        : sql`
          ${statement}
          SELECT d.n AS "deliveries", (CASE WHEN d.n > 0 THEN pg_notify(${channel}, '')::text END) AS "notified"
          FROM (SELECT count(*)::int AS n FROM deliveries) d`
    }
  })

  return (events: ReadonlyArray<OutgoingEvent>, now: Date) =>
    events.length === 0 ? Effect.succeed(0) : insert({
      events: events.map((event, ord) => ({
        ord,
        organization_id: event.organizationId,
        type: event.type,
        payload: event.data
      })),
      now
    }).pipe(
      Effect.map((row) => row.deliveries),
      Effect.tap((deliveries) =>
        embedded && deliveries > 0 ? Effect.sync(() => WebhookSignal.signal(sql)) : Effect.void
      )
    )
}
