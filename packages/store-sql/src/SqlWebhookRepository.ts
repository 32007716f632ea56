/**
 * WebhookRepository on SQL (tables `webhook_endpoints`, `webhook_events`,
 * `webhook_deliveries`, `webhook_attempts`; migrations 0006 and 0011): endpoints, the fan-out
 * of events (sql/enqueueWebhookEvents), the workers' claim (sql/claimDueDeliveries) and
 * results, the delivery list with each delivery's attempts (one statement per page), the
 * retention prune (sql/pruneWebhookEvents), and the workers' wake-ups.
 *
 * Owns: the secret's generation (24 random bytes, `whsec_` + base64 shown once, the bytes
 * stored) and the wake-up channel. Every instant is the caller's.
 *
 * Wake-ups: on PostgreSQL one `LISTEN` per process on the enqueue's channel (started on first
 * use, see internal/listener), which reaches every daemon on the database; on the embedded
 * database the in-process signal (internal/webhookSignal). Like the dialer's, they carry
 * nothing and coalesce (a sliding PubSub of capacity 1): a worker looks for itself.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { OrganizationNotFound } from "@voice-agent/core/Errors"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { isSerialId } from "@voice-agent/core/SerialId"
import { fromMillis } from "@voice-agent/core/Time"
import { isUuid } from "@voice-agent/core/Uuid"
import type { OutgoingEvent, WebhookDelivery, WebhookEndpoint } from "@voice-agent/core/Webhook"
import {
  AttemptErrorType,
  attemptsKept,
  DeliveryStatus,
  formatSecret,
  secretBytes,
  WebhookEndpointNotFound,
  WebhookEventType
} from "@voice-agent/core/Webhook"
import { Effect, Layer, Option, PubSub, Schema, Stream } from "effect"
import { SqlSchema } from "effect/sql"
import { randomBytes } from "node:crypto"
import { isEmbedded } from "./Database.ts"
import * as Listener from "./internal/listener.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import * as WebhookSignal from "./internal/webhookSignal.ts"
import { claimDueDeliveries } from "./sql/claimDueDeliveries.ts"
import { channel, enqueueWebhookEvents } from "./sql/enqueueWebhookEvents.ts"
import { pruneWebhookEvents } from "./sql/pruneWebhookEvents.ts"

const EndpointRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  url: Schema.String,
  events: Schema.NullOr(Schema.Array(WebhookEventType)),
  createdAt: Schema.Date
})

const endpointColumns = `id::text AS "id", organization_id::text AS "organizationId", url AS "url", ` +
  `events AS "events", created_at AS "createdAt"`

const DeliveryRow = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  eventType: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Int,
  createdAt: Schema.Date,
  lastAttemptAt: Schema.NullOr(Schema.Date),
  nextAttemptAt: Schema.NullOr(Schema.Date),
  deliveredAt: Schema.NullOr(Schema.Date),
  lastResponseStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  history: Schema.Array(Schema.Struct({
    attempt: Schema.Int,
    /** Epoch milliseconds (JSON has no timestamps). */
    attemptedAt: Schema.Number,
    durationMs: Schema.NullOr(Schema.Int),
    responseStatus: Schema.NullOr(Schema.Int),
    errorType: Schema.NullOr(AttemptErrorType),
    error: Schema.NullOr(Schema.String)
  }))
})

const toDelivery = (row: typeof DeliveryRow.Type): WebhookDelivery => ({
  ...row,
  history: row.history.map((attempt) => ({ ...attempt, attemptedAt: fromMillis(attempt.attemptedAt) }))
})

const toEndpoint = (row: typeof EndpointRow.Type): WebhookEndpoint => row

/** Longest error message kept (a connection error's message can be long). */
const maxErrorLength = 500

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const embedded = isEmbedded(sql)
  const enqueueEvents = enqueueWebhookEvents(sql)
  const claim = claimDueDeliveries(sql)

  // Inserts only when the organization exists, so a missing one is "no row".
  const insertEndpoint = SqlSchema.findOneOption({
    Request: Schema.Struct({
      organizationId: Schema.String,
      url: Schema.String,
      events: Schema.NullOr(Schema.Array(Schema.String)),
      secret: Schema.Uint8Array,
      createdAt: Schema.Date
    }),
    Result: EndpointRow,
    execute: ({ createdAt, events, organizationId, secret, url }) =>
      sql`
        INSERT INTO webhook_endpoints (organization_id, url, events, secret, created_at)
        SELECT o.id, ${url}, ${events}::text[], ${secret}, ${createdAt} FROM organizations o WHERE o.id = ${organizationId}
        RETURNING ${sql.literal(endpointColumns)}`
  })

  const selectEndpoints = SqlSchema.findAll({
    Request: Schema.String,
    Result: EndpointRow,
    execute: (organizationId) =>
      sql`
        SELECT ${sql.literal(endpointColumns)} FROM webhook_endpoints
        WHERE organization_id = ${organizationId}
        ORDER BY created_at, id`
  })

  const selectEndpoint = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, endpointId: Schema.String }),
    Result: EndpointRow,
    execute: ({ endpointId, organizationId }) =>
      sql`
        SELECT ${sql.literal(endpointColumns)} FROM webhook_endpoints
        WHERE id = ${endpointId} AND organization_id = ${organizationId}`
  })

  const removeEndpoint = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, endpointId: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ endpointId, organizationId }) =>
      sql`
        DELETE FROM webhook_endpoints WHERE id = ${endpointId} AND organization_id = ${organizationId}
        RETURNING id::text AS "id"`
  })

  // A DeliveryRow of the delivery `d` of the event `e`, its attempts included.
  const deliveryColumns = sql.literal(`
    d.id::text AS "id", d.event_id AS "eventId", e.type AS "eventType", d.status AS "status",
    d.attempts AS "attempts", d.created_at AS "createdAt", d.last_attempt_at AS "lastAttemptAt",
    d.next_attempt_at AS "nextAttemptAt", d.delivered_at AS "deliveredAt",
    d.last_response_status AS "lastResponseStatus", d.last_error AS "lastError",
    (SELECT COALESCE(json_agg(json_build_object(
              'attempt', a.attempt,
              'attemptedAt', floor(extract(epoch FROM a.attempted_at) * 1000)::bigint,
              'durationMs', a.duration_ms,
              'responseStatus', a.response_status,
              'errorType', a.error_type,
              'error', a.error
            ) ORDER BY a.attempt DESC), '[]'::json)
     FROM webhook_attempts a WHERE a.delivery_id = d.id) AS "history"`)

  const selectDeliveries = SqlSchema.findAll({
    Request: Schema.Struct({
      endpointId: Schema.String,
      after: Schema.NullOr(Schema.String),
      limit: Schema.Int
    }),
    Result: DeliveryRow,
    execute: ({ after, endpointId, limit }) =>
      sql`
        SELECT ${deliveryColumns}
        FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.endpoint_id = ${endpointId} ${after === null ? sql`` : sql`AND d.id < ${after}::bigint`}
        ORDER BY d.id DESC
        LIMIT ${limit}`
  })

  // The events a call caused (its call.started and call.ended, and its contact's status
  // changes) are found without reading payloads at large: a range scan of
  // webhook_events_by_time over the call's span (a minute of slack each side; to the end of the
  // index while it runs), the payloads of that span's events matched, then each event's
  // deliveries through the (event_id, endpoint_id) key.
  const selectCallDeliveries = SqlSchema.findAll({
    Request: Schema.Struct({ callId: Schema.String, limit: Schema.Int }),
    Result: Schema.Struct({ ...DeliveryRow.fields, endpointId: Schema.String, url: Schema.String }),
    execute: ({ callId, limit }) =>
      sql`
        SELECT ${deliveryColumns}, w.id::text AS "endpointId", w.url AS "url"
        FROM conversations c
        JOIN webhook_events e
          ON e.created_at >= c.started_at - interval '1 minute'
         AND e.created_at <= COALESCE(c.ended_at + interval '1 minute', 'infinity'::timestamptz)
         AND e.organization_id = c.organization_id
         AND (e.payload -> 'conversation' ->> 'call_id' = c.call_id
              OR (e.type = 'contact.status_changed' AND e.payload -> 'contact' ->> 'id' = c.contact_id::text))
        JOIN webhook_deliveries d ON d.event_id = e.id
        JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE c.call_id = ${callId}
        ORDER BY e.created_at, d.id
        LIMIT ${limit}`
  })

  // The attempt's row and the delivery's new state in one statement: both or neither. The
  // trim keeps the newest `attemptsKept` (the new row is not visible to it, nor needs to be).
  const record = SqlSchema.findAll({
    Request: Schema.Struct({
      id: Schema.String,
      attempt: Schema.Int,
      status: DeliveryStatus,
      startedAt: Schema.Date,
      durationMs: Schema.Int,
      nextAttemptAt: Schema.NullOr(Schema.Date),
      deliveredAt: Schema.NullOr(Schema.Date),
      responseStatus: Schema.NullOr(Schema.Int),
      errorType: Schema.NullOr(AttemptErrorType),
      error: Schema.NullOr(Schema.String)
    }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (r) =>
      sql`
        WITH updated AS (
          UPDATE webhook_deliveries SET
            status = ${r.status}, next_attempt_at = ${r.nextAttemptAt}, delivered_at = ${r.deliveredAt},
            last_attempt_at = ${r.startedAt}, last_response_status = ${r.responseStatus}, last_error = ${r.error},
            attempt_open = false
          WHERE id = ${r.id}::bigint AND attempts = ${r.attempt} AND status = 'pending'
          RETURNING id
        ),
        trimmed AS (
          DELETE FROM webhook_attempts a USING updated u
          WHERE a.delivery_id = u.id AND a.attempt <= ${r.attempt - attemptsKept}::int
        )
        INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, duration_ms, response_status, error_type, error)
        SELECT u.id, ${r.attempt}::int, ${r.startedAt}::timestamptz, ${r.durationMs}::int, ${r.responseStatus}::int,
               ${r.errorType}::text, ${r.error}::text
        FROM updated u
        RETURNING delivery_id::text AS "id"`
  })

  const prune = pruneWebhookEvents(sql)

  const earliestDue = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ at: Schema.NullOr(Schema.Date) }),
    execute: () => sql`SELECT min(next_attempt_at) AS "at" FROM webhook_deliveries WHERE status = 'pending'`
  })

  const pubsub = yield* Effect.acquireRelease(PubSub.sliding<void>(1), PubSub.shutdown)
  const wake = PubSub.publish(pubsub, undefined)
  const listening = embedded
    ? yield* Effect.acquireRelease(
      Effect.sync(() => WebhookSignal.listen(sql, () => PubSub.publishUnsafe(pubsub, undefined))),
      (unlisten) => Effect.sync(unlisten)
    ).pipe(Effect.as(Effect.void))
    : yield* Listener.make(sql, channel, {
      onNotification: () => {
        PubSub.publishUnsafe(pubsub, undefined)
      },
      onListening: wake
    })

  const ownedEndpoint = (organizationId: string, endpointId: string) =>
    isUuid(organizationId) && isUuid(endpointId)
      ? selectEndpoint({ organizationId, endpointId })
      : Effect.succeedNone

  return WebhookRepository.of({
    createEndpoint: Effect.fn("WebhookRepository.createEndpoint")(
      function*(input) {
        if (!isUuid(input.organizationId)) {
          return yield* new OrganizationNotFound({ organizationId: input.organizationId })
        }
        const secret = randomBytes(secretBytes)
        const inserted = yield* insertEndpoint({
          organizationId: input.organizationId,
          url: input.url,
          events: input.events,
          secret,
          createdAt: fromMillis(input.now)
        })
        if (Option.isNone(inserted)) return yield* new OrganizationNotFound({ organizationId: input.organizationId })
        return { endpoint: toEndpoint(inserted.value), secret: formatSecret(secret) }
      },
      orDieInfrastructure
    ),
    listEndpoints: Effect.fn("WebhookRepository.listEndpoints")(
      (organizationId: string) =>
        isUuid(organizationId)
          ? Effect.map(selectEndpoints(organizationId), (rows) => rows.map(toEndpoint))
          : Effect.succeed([]),
      orDieInfrastructure
    ),
    getEndpoint: Effect.fn("WebhookRepository.getEndpoint")(
      (organizationId: string, endpointId: string) =>
        Effect.map(ownedEndpoint(organizationId, endpointId), Option.map(toEndpoint)),
      orDieInfrastructure
    ),
    deleteEndpoint: Effect.fn("WebhookRepository.deleteEndpoint")(
      function*(organizationId: string, endpointId: string) {
        const removed = isUuid(organizationId) && isUuid(endpointId)
          ? yield* removeEndpoint({ organizationId, endpointId })
          : Option.none()
        if (Option.isNone(removed)) return yield* new WebhookEndpointNotFound({ endpointId })
      },
      orDieInfrastructure
    ),
    listDeliveries: Effect.fn("WebhookRepository.listDeliveries")(
      function*(query) {
        const endpoint = yield* ownedEndpoint(query.organizationId, query.endpointId)
        if (Option.isNone(endpoint)) return yield* new WebhookEndpointNotFound({ endpointId: query.endpointId })
        if (query.after !== undefined && !isSerialId(query.after)) return { deliveries: [], hasMore: false }
        const rows = yield* selectDeliveries({
          endpointId: query.endpointId,
          after: query.after ?? null,
          limit: query.limit + 1
        })
        const deliveries: ReadonlyArray<WebhookDelivery> = rows.slice(0, query.limit).map(toDelivery)
        return { deliveries, hasMore: rows.length > query.limit }
      },
      orDieInfrastructure
    ),
    listCallDeliveries: Effect.fn("WebhookRepository.listCallDeliveries")(
      (callId: string, limit: number) =>
        Effect.map(
          selectCallDeliveries({ callId, limit }),
          (rows) => rows.map(({ endpointId, url, ...row }) => ({ ...toDelivery(row), endpointId, url }))
        ),
      orDieInfrastructure
    ),
    enqueue: Effect.fn("WebhookRepository.enqueue")(
      (events: ReadonlyArray<OutgoingEvent>, now: number) =>
        enqueueEvents(events.filter((event) => isUuid(event.organizationId)), fromMillis(now)),
      orDieInfrastructure
    ),
    claimDue: Effect.fn("WebhookRepository.claimDue")((input) => claim(input), orDieInfrastructure),
    recordAttempt: Effect.fn("WebhookRepository.recordAttempt")(
      (input) => {
        const { result } = input
        const failedForGood = result._tag === "Failed" && result.retryAt === null
        return Effect.map(
          record({
            id: input.deliveryId,
            attempt: input.attempt,
            status: result._tag === "Delivered" ? "delivered" : failedForGood ? "failed" : "pending",
            startedAt: fromMillis(input.startedAt),
            durationMs: Math.max(0, Math.round(input.now - input.startedAt)),
            nextAttemptAt: result._tag === "Failed" && result.retryAt !== null ? fromMillis(result.retryAt) : null,
            deliveredAt: result._tag === "Delivered" ? fromMillis(input.now) : null,
            responseStatus: result.responseStatus,
            errorType: result._tag === "Failed" ? result.errorType : null,
            error: result._tag === "Failed" ? result.error.replaceAll("\u0000", "").slice(0, maxErrorLength) : null
          }),
          (rows) => rows.length > 0
        )
      },
      orDieInfrastructure
    ),
    prune: Effect.fn("WebhookRepository.prune")((input) => prune(input), orDieInfrastructure),
    nextDueAt: Effect.map(earliestDue(undefined), (row) => row.at === null ? null : row.at.getTime()).pipe(
      orDieInfrastructure,
      Effect.withSpan("WebhookRepository.nextDueAt")
    ),
    wakeups: Effect.gen(function*() {
      yield* listening
      return Stream.fromSubscription(yield* PubSub.subscribe(pubsub))
    }).pipe(Effect.withSpan("WebhookRepository.wakeups"))
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(WebhookRepository, make)
