/**
 * Rates of the webhook queue's statements (sql/enqueueWebhookEvents, sql/claimDueDeliveries, the
 * result), as docs/WEBHOOKS.md quotes them. Maintenance, not a test: run with
 * `node packages/store-sql/scripts/bench-webhooks.ts` against the test server (TEST_DATABASE_URL
 * or postgres://postgres@127.0.0.1:5432/postgres; a fresh database is created and dropped) and,
 * for reference, an in-memory PGlite.
 *
 * What it measures, wall time, after a short warm-up:
 * - enqueue: 10,000 events one per statement (as the dialer writes them), for an organization
 *   with two endpoints (20,000 deliveries);
 * - claim and record: 4 workers on connections of their own, each claiming 10 at a time and
 *   recording every one delivered, until the queue is empty (PGlite: 1 worker).
 * What it does not measure: HTTP (the worker's POSTs), the network, a loaded server.
 */
import { PGlite } from "@electric-sql/pglite"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import { freshDatabaseUrl } from "@voice-agent/store-sql/testing/TestDatabase"
import { Context, Effect, Layer, Redacted } from "effect"

const now = Date.parse("2026-03-02T17:00:00.000Z")
const events = 10_000

const timed = <A, E, R>(label: string, operations: number, unit: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    yield* effect
    const seconds = (performance.now() - start) / 1000
    yield* Effect.sync(() =>
      console.log(`${label}: ${Math.round(operations / seconds)} ${unit}/s (${operations} in ${seconds.toFixed(2)} s)`)
    )
  })

/** An organization with two endpoints for every event. */
const seed = Effect.gen(function*() {
  const webhooks = yield* WebhookRepository
  const org = yield* Fixtures.organization()
  for (const url of ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]) {
    yield* webhooks.createEndpoint({ organizationId: org.id, url, events: null, now })
  }
  return org.id
})

const enqueueAll = (webhooks: WebhookRepository["Service"], organizationId: string, count: number) =>
  Effect.forEach(Array.from({ length: count }, (_, n) => n), (n) =>
    webhooks.enqueue([{
      organizationId,
      type: "call.ended",
      data: { conversation: { id: `c-${n}`, duration_sec: 7 }, contact_id: String(n) }
    }], now), { discard: true })

/** Claims 10 at a time and records each delivered, until a claim comes back empty. */
const drain = (webhooks: WebhookRepository["Service"]) =>
  Effect.gen(function*() {
    let claimed = 0
    while (true) {
      const batch = yield* webhooks.claimDue({ now: now + 1, leaseMs: 30_000, limit: 10 })
      if (batch.length === 0) return claimed
      claimed += batch.length
      yield* Effect.forEach(batch, (d) =>
        webhooks.recordAttempt({
          deliveryId: d.deliveryId,
          attempt: d.attempt,
          startedAt: now + 1,
          now: now + 2,
          result: { _tag: "Delivered", responseStatus: 200 }
        }), { discard: true })
    }
  })

const benchPostgres = Effect.gen(function*() {
  const url = Redacted.make(yield* freshDatabaseUrl("voice_agent_bench"))
  const stack = () =>
    Layer.build(
      Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(url, { maxConnections: 3 }))))
    )
  const main = yield* stack()
  const webhooks = Context.get(main, WebhookRepository)
  const organizationId = yield* seed.pipe(Effect.provide(main))
  yield* enqueueAll(webhooks, organizationId, 200)
  yield* drain(webhooks)
  yield* timed(
    "PostgreSQL enqueue, one event (two deliveries) per statement",
    events,
    "events",
    enqueueAll(webhooks, organizationId, events)
  )
  const workers = yield* Effect.forEach(
    [0, 1, 2, 3],
    () => Effect.map(stack(), (c) => Context.get(c, WebhookRepository))
  )
  yield* timed(
    "PostgreSQL claim 10 + record each, 4 workers",
    2 * events,
    "deliveries",
    Effect.forEach(workers, drain, { concurrency: "unbounded" })
  )
})

const benchPglite = Effect.gen(function*() {
  const pglite = yield* Effect.acquireRelease(
    Effect.promise(() => PGlite.create()),
    (p) => Effect.promise(() => p.close())
  )
  const main = yield* Layer.build(
    Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.migrated(Database.layerPgliteClient(pglite)))))
  )
  const webhooks = Context.get(main, WebhookRepository)
  const organizationId = yield* seed.pipe(Effect.provide(main))
  const count = events / 5
  yield* timed(
    "PGlite enqueue, one event (two deliveries) per statement",
    count,
    "events",
    enqueueAll(webhooks, organizationId, count)
  )
  yield* timed("PGlite claim 10 + record each, 1 worker", 2 * count, "deliveries", drain(webhooks))
})

await Effect.runPromise(Effect.scoped(Effect.andThen(benchPostgres, benchPglite)))
