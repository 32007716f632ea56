/**
 * The retention prune of event webhooks on both backends, driven by the test clock: every hour
 * (and once at start) the events older than the retention period go, with their deliveries and
 * attempts, from the delivery list; an event whose delivery is still pending stays until the
 * delivery ends.
 */
import { assert, describe, layer } from "@effect/vitest"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import type { AttemptResult } from "@voice-agent/core/ports/WebhookRepository"
import * as WebhookRetention from "@voice-agent/engine/WebhookRetention"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Exit, Layer, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"

const hour = 3_600_000
const day = 24 * hour
const start = Date.parse("2031-03-01T00:00:00.000Z")

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`webhook retention on ${backend.name}`, () => {
    // The storage runs on the live clock; the test and the prune it starts, on a test clock.
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), {
      timeout: "60 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect("prunes, at start and hourly, the events older than the period; a pending one waits", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(start)
          const webhooks = yield* WebhookRepository
          const organization = yield* Fixtures.organization()
          const { endpoint } = yield* webhooks.createEndpoint({
            organizationId: organization.id,
            url: "http://127.0.0.1:9/retained",
            events: null,
            now: start - 60 * day
          })
          const list = webhooks.listDeliveries({ organizationId: organization.id, endpointId: endpoint.id, limit: 100 })
            .pipe(Effect.map((page) => page.deliveries.map((d) => (d.createdAt.getTime() - start) / hour)))
          /** Settles the due delivery whose event is `n` with `result`, at `now`. */
          const settle = (now: number, result: AttemptResult) =>
            Effect.gen(function*() {
              const [claimed] = yield* webhooks.claimDue({ now, leaseMs: 30_000, limit: 1 })
              yield* webhooks.recordAttempt({
                deliveryId: claimed!.deliveryId,
                attempt: claimed!.attempt,
                startedAt: now,
                now: now + 5,
                result
              })
            })
          const delivered: AttemptResult = { _tag: "Delivered", responseStatus: 200 }
          // Hours before the start: three 31 days old, one 30 days less 30 min old, one a day old
          // (each delivered), and one 40 days old whose delivery is still pending (its retry is
          // due 2 hours after the start).
          const ages = [-31 * 24, -31 * 24 + 1, -31 * 24 + 2, -30 * 24 + 0.5, -24]
          yield* webhooks.enqueue([{ organizationId: organization.id, type: "call.ended", data: {} }], start - 40 * day)
          yield* settle(start - 40 * day, {
            _tag: "Failed",
            responseStatus: 500,
            errorType: "http_status",
            error: "HTTP 500",
            retryAt: start + 2 * hour
          })
          for (const age of ages) {
            yield* webhooks.enqueue(
              [{ organizationId: organization.id, type: "call.ended", data: {} }],
              start + age * hour
            )
            yield* settle(start + age * hour, delivered)
          }
          assert.deepStrictEqual(yield* list, [...ages].reverse().concat([-40 * 24]))

          /** The listed deliveries once they match `expected` (the prune runs on its own fiber). */
          const pruned = (expected: ReadonlyArray<number>) =>
            TestClock.withLive(
              list.pipe(
                Effect.repeat({
                  schedule: Schedule.spaced("20 millis"),
                  until: (ages) => JSON.stringify(ages) === JSON.stringify(expected)
                }),
                Effect.timeout("20 seconds")
              )
            )

          const scope = yield* Scope.make()
          yield* WebhookRetention.run(WebhookRetention.makeSettings({ retentionMs: 30 * day, everyMs: hour, batch: 2 }))
            .pipe(Scope.provide(scope))
          // At start: the three 31 days old go (two statements); the pending one stays.
          yield* pruned([-24, -30 * 24 + 0.5, -40 * 24])
          // An hour later the one that was 30 days less 30 min old has passed the period.
          yield* TestClock.adjust("1 hour")
          yield* pruned([-24, -40 * 24])
          // Its delivery ended: the next hour's prune takes the 40 days old event too.
          yield* settle(start + 2 * hour, delivered)
          yield* TestClock.adjust("1 hour")
          yield* pruned([-24])
          yield* Scope.close(scope, Exit.void)
        }).pipe(Effect.provide(TestClock.layer())))
    })
  })
}
