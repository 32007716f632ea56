/**
 * Event webhooks (docs/WEBHOOKS.md): the endpoints an organization registers, the
 * events (Standard Webhooks messages) written for it, and one delivery per endpoint per event,
 * which is also the durable queue the delivery workers claim from.
 *
 * Forward-only and frozen once merged. Event types are spelled out here on purpose (core's
 * `WebhookEventType` at the time of writing).
 *
 * - `webhook_endpoints`: `events` null means every type. `secret` holds the signing key's raw
 *   bytes (shown to the user once, as `whsec_` + base64): it must be readable to sign, so it is
 *   stored as is, like a password the server itself has to use. Deleting an endpoint deletes
 *   its deliveries (pending ones stop).
 * - `webhook_events`: `id` is the Standard Webhooks message id (`msg_…`, the `webhook-id`
 *   header, the same on every retry); `payload` is the body's `data`, `created_at` its
 *   `timestamp`. An event is written only when at least one endpoint subscribes to it.
 * - `webhook_deliveries`: `status` pending → delivered | failed. `next_attempt_at` is set exactly
 *   while pending: when the next attempt is due, or, while an attempt is in flight, when its
 *   claim lapses (the claim moves it to `now + lease`, so a worker that dies mid-attempt leaves
 *   a delivery that simply falls due again). `attempts` counts attempts started; it is also the
 *   claim's token: a result is recorded only by the claim that started that attempt.
 *
 * Index policy as in 0001: one per query. The claim (and the workers' "when is the next one
 * due") is a range scan of `webhook_deliveries_due`, which holds pending rows only; an endpoint's
 * delivery list, newest first by id, is a range scan of `webhook_deliveries_by_endpoint` (which
 * also serves the cascade on endpoint delete); the fan-out of an event and the endpoint list read
 * `webhook_endpoints_by_organization`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      url text NOT NULL,
      events text[] CHECK (
        events IS NULL OR (
          cardinality(events) > 0
          AND events <@ ARRAY['call.started', 'call.ended', 'contact.status_changed', 'message.received']
        )
      ),
      secret bytea NOT NULL CHECK (octet_length(secret) BETWEEN 24 AND 64),
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX webhook_endpoints_by_organization ON webhook_endpoints (organization_id, created_at, id)`

  yield* sql`
    CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      type text NOT NULL
        CHECK (type IN ('call.started', 'call.ended', 'contact.status_changed', 'message.received')),
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`

  yield* sql`
    CREATE TABLE webhook_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL REFERENCES webhook_events (id),
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      last_response_status integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL,
      UNIQUE (endpoint_id, event_id),
      CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
      CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
    )`
  yield* sql`
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending'`
  yield* sql`CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id DESC)`
})
