/**
 * Event webhooks, continued (issue 21, docs/WEBHOOKS.md): every attempt of a delivery is kept,
 * and old events and deliveries can be pruned.
 *
 * Forward-only and frozen once merged. The error types are spelled out here on purpose (core's
 * `AttemptErrorType` at the time of writing).
 *
 * - `webhook_attempts`: one row per attempt of a delivery, keyed by the attempt's number (the
 *   delivery's `attempts` when it was claimed). `duration_ms` is null only for an attempt whose
 *   worker recorded nothing (`error_type` `lapsed`: it stopped or died mid-attempt, and the
 *   next claim wrote the row). `response_status` is null when no answer came; `error_type` and
 *   `error` are null for the attempt that delivered. Writers keep at most the newest few per
 *   delivery (core's `attemptsKept`); deleting a delivery deletes its attempts.
 * - `webhook_deliveries.attempt_open`: true from a claim until its result is recorded. A claim
 *   that finds it still true knows the previous attempt's worker recorded nothing, and writes
 *   that attempt's `lapsed` row. Deliveries from before this migration start false, so an
 *   attempt they made before it is never mistaken for a lapsed one (they simply list no
 *   attempts from then).
 * - `webhook_events_by_time`: the retention prune is a range scan of events older than its
 *   cutoff, oldest first.
 * - The uniqueness of (endpoint, event) now leads with the event: the same guarantee, and the
 *   index it brings serves the prune's "has this event a pending delivery?" probe, its delete of
 *   the event's deliveries, and the foreign-key check when the event is deleted (which would
 *   otherwise scan every delivery). No index more on `webhook_deliveries` than before.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE webhook_attempts (
      delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt integer NOT NULL CHECK (attempt >= 1),
      attempted_at timestamptz NOT NULL,
      duration_ms integer CHECK (duration_ms >= 0),
      response_status integer,
      error_type text CHECK (
        error_type IN (
          'http_status', 'timeout', 'dns', 'connection_refused', 'connection_closed', 'tls', 'network', 'lapsed',
          'other'
        )
      ),
      error text,
      PRIMARY KEY (delivery_id, attempt),
      CHECK ((error_type IS NULL) = (error IS NULL)),
      CHECK ((duration_ms IS NULL) = (error_type IS NOT DISTINCT FROM 'lapsed'))
    )`

  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN attempt_open boolean NOT NULL DEFAULT false`

  yield* sql`CREATE INDEX webhook_events_by_time ON webhook_events (created_at)`

  yield* sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_event_id_key`
  yield* sql`
    ALTER TABLE webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id)`
})
