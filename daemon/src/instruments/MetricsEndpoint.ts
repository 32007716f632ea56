/**
 * `GET /metrics`: every metric of the process (core Metrics) in Prometheus's text format 0.0.4,
 * through Effect's own exposition (`PrometheusMetrics`). The webhook backlog gauges are read
 * from the database when scraped (bounded at 1 s; a database out of reach leaves their last
 * values). With `VOICE_AGENT_METRICS_TOKEN` set, the scrape needs it as a bearer token (401
 * otherwise); unset, anyone who reaches the port may read the metrics, which carry no ids, no
 * numbers and no names (docs/OPERATIONS.md).
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import { secretsEqual } from "@voice-agent/http/handlers/Admin"
import * as SqlWebhookBacklog from "@voice-agent/store-sql/SqlWebhookBacklog"
import { Clock, Config, Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"

/**
 * The path.
 *
 * @category constructors
 */
export const path = "/metrics"

/**
 * The bearer token `/metrics` needs, if any.
 *
 * @category constructors
 */
export const token = Config.option(Config.Redacted("VOICE_AGENT_METRICS_TOKEN")).pipe(
  Config.map(Option.filter((t) => Redacted.value(t) !== ""))
)

const unauthorized = HttpServerResponse.jsonUnsafe(
  { detail: "Invalid or missing metrics token" },
  { status: 401, headers: { "www-authenticate": "Bearer" } }
)

const authorized = (expected: Option.Option<Redacted.Redacted>, authorization: string | undefined): boolean =>
  Option.match(expected, {
    onNone: () => true,
    onSome: (secret) => {
      const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
      return match !== null && secretsEqual(match[1]!, Redacted.value(secret))
    }
  })

/** The webhook backlog gauges, from the database now. */
const refreshBacklog = Effect.gen(function*() {
  const backlog = yield* SqlWebhookBacklog.backlog
  const now = yield* Clock.currentTimeMillis
  Metrics.observeUnsafe(Metrics.webhookDeliveriesPending, backlog.pending)
  Metrics.observeUnsafe(
    Metrics.webhookOldestPendingAge,
    backlog.oldestCreatedAt === null ? 0 : Math.max(0, now - backlog.oldestCreatedAt) / 1000
  )
}).pipe(
  Effect.timeout("1 second"),
  Effect.catchCause(() => Effect.void)
)

/**
 * The route.
 *
 * @category layers
 */
export const route = Layer.unwrap(Effect.map(token, (expected) => {
  Metrics.registerUnsafe(Metrics.webhookDeliveriesPending)
  Metrics.registerUnsafe(Metrics.webhookOldestPendingAge)
  return HttpRouter.add(
    "GET",
    path,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!authorized(expected, request.headers["authorization"])) return unauthorized
      yield* refreshBacklog
      return HttpServerResponse.text(yield* PrometheusMetrics.format(), {
        contentType: "text/plain; version=0.0.4; charset=utf-8"
      })
    })
  )
}))
