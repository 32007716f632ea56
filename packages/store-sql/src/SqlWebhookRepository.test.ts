import { assert, describe, layer } from "@effect/vitest"
import { OrganizationNotFound } from "@voice-agent/core/Errors"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import type { AttemptResult, DueDelivery } from "@voice-agent/core/ports/WebhookRepository"
import type { OutgoingEvent, WebhookEventType } from "@voice-agent/core/Webhook"
import { attemptsKept, parseSecret, WebhookEndpointNotFound } from "@voice-agent/core/Webhook"
import { Effect, Layer, Option, Result, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const t0 = Date.parse("2030-01-01T00:00:00.000Z")
const leaseMs = 30_000

const event = (organizationId: string, type: WebhookEventType, n = 0): OutgoingEvent => ({
  organizationId,
  type,
  data: { n, nested: { list: [1, "two", null] } }
})

/**
 * An organization with endpoints subscribed to `subscriptions` (null: every type); the
 * endpoints, and with them their deliveries, are deleted when the test ends, so no test claims
 * another's deliveries.
 */
const withEndpoints = <A, E, R>(
  subscriptions: ReadonlyArray<ReadonlyArray<WebhookEventType> | null>,
  body: (organizationId: string, endpointIds: ReadonlyArray<string>) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookRepository
    const organization = yield* Fixtures.organization()
    const endpointIds: Array<string> = []
    for (const [i, events] of subscriptions.entries()) {
      const created = yield* webhooks.createEndpoint({
        organizationId: organization.id,
        url: `http://127.0.0.1:9/hook-${i}`,
        events,
        now: t0
      })
      endpointIds.push(created.endpoint.id)
    }
    return yield* body(organization.id, endpointIds).pipe(
      Effect.ensuring(
        Effect.forEach(endpointIds, (id) => Effect.ignore(webhooks.deleteEndpoint(organization.id, id)))
      )
    )
  })

/** Claims everything due at `now` in rounds of `limit`, until a claim comes back empty. */
const claimAll = (webhooks: WebhookRepository["Service"], now: number, limit = 100) =>
  Effect.gen(function*() {
    const all: Array<DueDelivery> = []
    while (true) {
      const batch = yield* webhooks.claimDue({ now, leaseMs, limit })
      if (batch.length === 0) return all
      all.push(...batch)
    }
  })

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlWebhookRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("creates endpoints with a whsec_ secret shown once; lists and deletes them per organization", () =>
        Effect.gen(function*() {
          const webhooks = yield* WebhookRepository
          const mine = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const created = yield* webhooks.createEndpoint({
            organizationId: mine.id,
            url: "https://example.com/hooks",
            events: ["call.ended", "message.received"],
            now: t0
          })
          assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/)
          assert.strictEqual(Result.getOrThrow(parseSecret(created.secret)).length, 24)
          assert.deepStrictEqual(created.endpoint.events, ["call.ended", "message.received"])
          const all = yield* webhooks.createEndpoint({
            organizationId: mine.id,
            url: "http://h/",
            events: null,
            now: t0 + 1
          })
          assert.isNull(all.endpoint.events)
          assert.notStrictEqual(all.secret, created.secret)

          const listed = yield* webhooks.listEndpoints(mine.id)
          assert.deepStrictEqual(listed.map((e) => e.id), [created.endpoint.id, all.endpoint.id])
          assert.notProperty(listed[0], "secret")
          assert.deepStrictEqual(yield* webhooks.listEndpoints(other.id), [])
          assert.isTrue(Option.isNone(yield* webhooks.getEndpoint(other.id, created.endpoint.id)))

          const notMine = yield* Effect.flip(webhooks.deleteEndpoint(other.id, created.endpoint.id))
          assert.instanceOf(notMine, WebhookEndpointNotFound)
          yield* webhooks.deleteEndpoint(mine.id, created.endpoint.id)
          assert.deepStrictEqual((yield* webhooks.listEndpoints(mine.id)).map((e) => e.id), [all.endpoint.id])
          assert.instanceOf(
            yield* Effect.flip(webhooks.deleteEndpoint(mine.id, created.endpoint.id)),
            WebhookEndpointNotFound
          )
          assert.instanceOf(yield* Effect.flip(webhooks.deleteEndpoint(mine.id, "not-a-uuid")), WebhookEndpointNotFound)
          yield* webhooks.deleteEndpoint(mine.id, all.endpoint.id)

          const missing = yield* Effect.flip(
            webhooks.createEndpoint({
              organizationId: "00000000-0000-4000-8000-000000000000",
              url: "http://h/",
              events: null,
              now: t0
            })
          )
          assert.instanceOf(missing, OrganizationNotFound)
        }))

      it.effect("enqueue fans each event out to the subscribed endpoints of its organization only", () =>
        withEndpoints(
          [null, ["call.ended"], ["message.received"]],
          (organizationId, [every, ended, messages]) =>
            Effect.gen(function*() {
              const webhooks = yield* WebhookRepository
              const sql = yield* SqlClient.SqlClient
              const bystander = yield* Fixtures.organization()
              const made = yield* webhooks.enqueue([
                event(organizationId, "call.started", 1),
                event(organizationId, "call.ended", 2),
                event(bystander.id, "call.ended", 3),
                event(organizationId, "contact.status_changed", 4)
              ], t0)
              // every: 3 events; ended: 1; messages: none; the bystander has no endpoint.
              assert.strictEqual(made, 4)
              const rows = yield* sql<{ endpoint: string; type: string; n: number; status: string }>`
              SELECT d.endpoint_id::text AS "endpoint", e.type AS "type", (e.payload->>'n')::int AS "n",
                     d.status AS "status"
              FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
              WHERE e.organization_id IN (${organizationId}, ${bystander.id})`
              const key = (r: readonly [string, string, number]) =>
                `${r[2]} ${r[1]} ${r[0] === every ? "every" : "ended"}`
              assert.deepStrictEqual(rows.map((r) => key([r.endpoint, r.type, r.n])).sort(), [
                "1 call.started every",
                "2 call.ended ended",
                "2 call.ended every",
                "4 contact.status_changed every"
              ])
              assert.include(rows.map((r) => r.endpoint), ended)
              assert.isTrue(rows.every((r) => r.status === "pending"))
              assert.notInclude(rows.map((r) => r.endpoint), messages)
              // No endpoint wants it: no event written either.
              const written = yield* sql<{ n: number }>`
              SELECT count(*)::int AS "n" FROM webhook_events WHERE organization_id = ${bystander.id}`
              assert.strictEqual(written[0]!.n, 0)
              const ids = yield* sql<{ id: string }>`
              SELECT id FROM webhook_events WHERE organization_id = ${organizationId}`
              assert.isTrue(ids.every((row) => /^msg_[0-9a-f]{32}$/.test(row.id)), JSON.stringify(ids))
              assert.strictEqual(yield* webhooks.enqueue([], t0), 0)
            })
        ))

      it.effect("events enqueued in a transaction that rolls back are not written", () =>
        withEndpoints([null], (organizationId, [endpointId]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const sql = yield* SqlClient.SqlClient
            const rolledBack = yield* sql.withTransaction(
              Effect.andThen(webhooks.enqueue([event(organizationId, "call.ended")], t0), Effect.fail("undo"))
            ).pipe(Effect.flip)
            assert.strictEqual(rolledBack, "undo")
            const page = yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 })
            assert.deepStrictEqual(page.deliveries, [])
            yield* sql.withTransaction(webhooks.enqueue([event(organizationId, "call.ended")], t0))
            assert.strictEqual(
              (yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 })).deliveries
                .length,
              1
            )
          })))

      it.effect("concurrent claimers never take the same delivery, and together take every due one", () =>
        withEndpoints([null, null], (organizationId) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const events = Array.from({ length: 60 }, (_, n) => event(organizationId, "call.ended", n))
            assert.strictEqual(yield* webhooks.enqueue(events, t0), 120)
            // Eight claimers at once (on PostgreSQL on connections of their own), small batches.
            const claimed = (yield* Effect.all(
              Array.from({ length: 8 }, () => claimAll(webhooks, t0 + 1, 7)),
              { concurrency: "unbounded" }
            )).flat()
            const ids = claimed.map((d) => d.deliveryId)
            assert.strictEqual(ids.length, 120)
            assert.strictEqual(new Set(ids).size, 120)
            assert.isTrue(claimed.every((d) => d.attempt === 1))
            const first = claimed[0]!
            assert.strictEqual(first.url.startsWith("http://127.0.0.1:9/hook-"), true)
            assert.strictEqual(first.secret.length, 24)
            assert.strictEqual(first.eventType, "call.ended")
            assert.strictEqual(first.eventCreatedAt, t0)
            assert.deepStrictEqual((first.data as { nested: unknown }).nested, { list: [1, "two", null] })
            // All are now in flight: nothing is due until the lease runs out.
            assert.deepStrictEqual(yield* webhooks.claimDue({ now: t0 + 2, leaseMs, limit: 100 }), [])
          })))

      it.effect("a claim lapses after the lease: the delivery falls due again, and the stale claim records nothing", () =>
        withEndpoints([null], (organizationId, [endpointId]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            yield* webhooks.enqueue([event(organizationId, "call.started")], t0)
            const [first] = yield* webhooks.claimDue({ now: t0, leaseMs, limit: 10 })
            assert.strictEqual(first!.attempt, 1)
            assert.strictEqual(yield* webhooks.nextDueAt, t0 + leaseMs)
            assert.deepStrictEqual(yield* webhooks.claimDue({ now: t0 + leaseMs - 1, leaseMs, limit: 10 }), [])
            // The worker died: at the lease's end any worker takes it, as attempt 2.
            const [second] = yield* webhooks.claimDue({ now: t0 + leaseMs, leaseMs, limit: 10 })
            assert.strictEqual(second!.deliveryId, first!.deliveryId)
            assert.strictEqual(second!.attempt, 2)
            assert.strictEqual(second!.eventId, first!.eventId)
            const stale = yield* webhooks.recordAttempt({
              deliveryId: first!.deliveryId,
              attempt: 1,
              startedAt: t0,
              now: t0 + leaseMs + 5,
              result: { _tag: "Delivered", responseStatus: 200 }
            })
            assert.isFalse(stale)
            const current = yield* webhooks.recordAttempt({
              deliveryId: second!.deliveryId,
              attempt: 2,
              startedAt: t0 + leaseMs,
              now: t0 + leaseMs + 10,
              result: { _tag: "Delivered", responseStatus: 204 }
            })
            assert.isTrue(current)
            const [delivery] = (yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 }))
              .deliveries
            assert.include(delivery, {
              status: "delivered",
              attempts: 2,
              lastResponseStatus: 204,
              lastError: null,
              nextAttemptAt: null
            })
            assert.strictEqual(delivery!.deliveredAt!.getTime(), t0 + leaseMs + 10)
            assert.strictEqual(delivery!.lastAttemptAt!.getTime(), t0 + leaseMs)
            // Both attempts are listed, newest first: the one whose worker recorded nothing as
            // lapsed (written by the claim that followed it), and not the stale claim's result.
            assert.deepStrictEqual(delivery!.history, [
              {
                attempt: 2,
                attemptedAt: new Date(t0 + leaseMs),
                durationMs: 10,
                responseStatus: 204,
                errorType: null,
                error: null
              },
              {
                attempt: 1,
                attemptedAt: new Date(t0),
                durationMs: null,
                responseStatus: null,
                errorType: "lapsed",
                error: "no result recorded: the worker stopped or died during the attempt"
              }
            ])
            // Recorded once: a repeated record changes nothing.
            assert.isFalse(
              yield* webhooks.recordAttempt({
                deliveryId: second!.deliveryId,
                attempt: 2,
                startedAt: t0 + leaseMs + 15,
                now: t0 + leaseMs + 20,
                result: {
                  _tag: "Failed",
                  responseStatus: 500,
                  errorType: "http_status",
                  error: "late",
                  retryAt: t0 + 1e9
                }
              })
            )
            const [again] = (yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 }))
              .deliveries
            assert.deepStrictEqual(again!.history, delivery!.history)
          })))

      it.effect("a failed attempt is due again at its retry time; with none left the delivery has failed", () =>
        withEndpoints([["contact.status_changed"]], (organizationId, [endpointId]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            yield* webhooks.enqueue([event(organizationId, "contact.status_changed")], t0)
            const [first] = yield* webhooks.claimDue({ now: t0, leaseMs, limit: 10 })
            yield* webhooks.recordAttempt({
              deliveryId: first!.deliveryId,
              attempt: 1,
              startedAt: t0,
              now: t0 + 100,
              result: {
                _tag: "Failed",
                responseStatus: 500,
                errorType: "http_status",
                error: "HTTP 500",
                retryAt: t0 + 5_100
              }
            })
            const list = () =>
              Effect.map(
                webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 }),
                (page) => page.deliveries[0]!
              )
            const waiting = yield* list()
            assert.include(waiting, { status: "pending", attempts: 1, lastResponseStatus: 500, lastError: "HTTP 500" })
            assert.strictEqual(waiting.nextAttemptAt!.getTime(), t0 + 5_100)
            assert.strictEqual(yield* webhooks.nextDueAt, t0 + 5_100)
            assert.deepStrictEqual(yield* webhooks.claimDue({ now: t0 + 5_099, leaseMs, limit: 10 }), [])
            const [second] = yield* webhooks.claimDue({ now: t0 + 5_100, leaseMs, limit: 10 })
            assert.strictEqual(second!.attempt, 2)
            yield* webhooks.recordAttempt({
              deliveryId: second!.deliveryId,
              attempt: 2,
              startedAt: t0 + 5_100,
              now: t0 + 15_200,
              result: {
                _tag: "Failed",
                responseStatus: null,
                errorType: "timeout",
                error: "timed out after 10 s",
                retryAt: null
              }
            })
            const failed = yield* list()
            assert.include(failed, {
              status: "failed",
              attempts: 2,
              lastResponseStatus: null,
              lastError: "timed out after 10 s",
              nextAttemptAt: null,
              deliveredAt: null
            })
            assert.deepStrictEqual(
              failed.history.map((
                a
              ) => [a.attempt, a.attemptedAt.getTime(), a.durationMs, a.responseStatus, a.errorType]),
              [[2, t0 + 5_100, 10_100, null, "timeout"], [1, t0, 100, 500, "http_status"]]
            )
            assert.deepStrictEqual(yield* webhooks.claimDue({ now: t0 + 1e10, leaseMs, limit: 10 }), [])
          })))

      it.effect("lists an endpoint's deliveries newest first with keyset pages, for its organization only", () =>
        withEndpoints([null, null], (organizationId, [endpointId, otherEndpoint]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            for (let n = 0; n < 5; n++) {
              yield* webhooks.enqueue([event(organizationId, n % 2 === 0 ? "call.started" : "call.ended", n)], t0 + n)
            }
            const pages: Array<ReadonlyArray<string>> = []
            let after: string | undefined
            while (true) {
              const page = yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 2, after })
              pages.push(page.deliveries.map((d) => d.eventType))
              if (!page.hasMore) break
              after = page.deliveries.at(-1)!.id
            }
            assert.deepStrictEqual(pages, [["call.started", "call.ended"], ["call.started", "call.ended"], [
              "call.started"
            ]])
            const all = yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 })
            assert.deepStrictEqual(all.deliveries.map((d) => d.createdAt.getTime()), [4, 3, 2, 1, 0].map((n) => t0 + n))
            assert.isTrue(all.deliveries.every((d) => d.eventId.startsWith("msg_") && d.status === "pending"))
            const otherIds = (yield* webhooks.listDeliveries({ organizationId, endpointId: otherEndpoint!, limit: 10 }))
              .deliveries.map((d) => d.eventId)
            assert.deepStrictEqual(
              otherIds,
              all.deliveries.map((d) => d.eventId),
              "one delivery per endpoint per event"
            )
            const stranger = yield* Fixtures.organization()
            const hidden = yield* Effect.flip(
              webhooks.listDeliveries({ organizationId: stranger.id, endpointId: endpointId!, limit: 10 })
            )
            assert.instanceOf(hidden, WebhookEndpointNotFound)
            // Deleting the endpoint deletes its deliveries; the other endpoint keeps its own.
            yield* webhooks.deleteEndpoint(organizationId, endpointId!)
            assert.strictEqual(
              (yield* webhooks.listDeliveries({ organizationId, endpointId: otherEndpoint!, limit: 10 })).deliveries
                .length,
              5
            )
          })))

      it.effect(`keeps the newest ${attemptsKept} attempts of a delivery, lapsed ones included`, () =>
        withEndpoints([null], (organizationId, [endpointId]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const sql = yield* SqlClient.SqlClient
            yield* webhooks.enqueue([event(organizationId, "call.ended")], t0)
            const at = (n: number) => t0 + n * 60_000
            // Attempts 1 to 10 answered 500; 11 never recorded (its worker died); 12 delivered.
            for (let n = 1; n <= 10; n++) {
              const [claimed] = yield* webhooks.claimDue({ now: at(n), leaseMs, limit: 10 })
              assert.strictEqual(claimed!.attempt, n)
              assert.isTrue(
                yield* webhooks.recordAttempt({
                  deliveryId: claimed!.deliveryId,
                  attempt: n,
                  startedAt: at(n),
                  now: at(n) + n,
                  result: {
                    _tag: "Failed",
                    responseStatus: 500,
                    errorType: "http_status",
                    error: "HTTP 500",
                    retryAt: at(n + 1)
                  }
                })
              )
            }
            const [eleventh] = yield* webhooks.claimDue({ now: at(11), leaseMs, limit: 10 })
            const [twelfth] = yield* webhooks.claimDue({ now: at(11) + leaseMs, leaseMs, limit: 10 })
            assert.strictEqual(twelfth!.attempt, 12)
            const kept = () =>
              Effect.map(
                sql<{ attempt: number }>`
                  SELECT attempt AS "attempt" FROM webhook_attempts
                  WHERE delivery_id = ${eleventh!.deliveryId}::bigint ORDER BY attempt`,
                (rows) => rows.map((row) => row.attempt)
              )
            // The claim wrote 11 as lapsed and dropped the oldest.
            assert.deepStrictEqual(yield* kept(), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
            yield* webhooks.recordAttempt({
              deliveryId: twelfth!.deliveryId,
              attempt: 12,
              startedAt: at(11) + leaseMs,
              now: at(11) + leaseMs + 12,
              result: { _tag: "Delivered", responseStatus: 200 }
            })
            assert.deepStrictEqual(yield* kept(), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
            const [delivery] = (yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 }))
              .deliveries
            assert.strictEqual(delivery!.attempts, 12)
            assert.strictEqual(delivery!.history.length, attemptsKept)
            assert.deepStrictEqual(
              delivery!.history.map((a) => [a.attempt, a.responseStatus, a.errorType, a.durationMs]),
              [
                [12, 200, null, 12],
                [11, null, "lapsed", null],
                ...[10, 9, 8, 7, 6, 5, 4, 3].map((n) => [n, 500, "http_status", n])
              ]
            )
            assert.deepStrictEqual(
              delivery!.history.map((a) => a.attemptedAt.getTime()),
              [at(11) + leaseMs, at(11), ...[10, 9, 8, 7, 6, 5, 4, 3].map(at)]
            )
          })))

      it.effect("prunes events older than the cutoff with their deliveries and attempts, oldest first, in batches", () =>
        withEndpoints([null, null], (organizationId, [endpointId, goneEndpoint]) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const sql = yield* SqlClient.SqlClient
            const day = 86_400_000
            const old = t0 - 100 * day
            // Oldest first: delivered, failed, pending (never attempted), then one 10 days old.
            for (const [n, at] of [[1, old], [2, old + 1], [3, old + 2], [4, t0 - 10 * day]] as const) {
              yield* webhooks.enqueue([event(organizationId, "call.ended", n)], at)
            }
            const settle = (limit: number, result: (attempt: number) => AttemptResult) =>
              Effect.gen(function*() {
                const claimed = yield* webhooks.claimDue({ now: t0, leaseMs, limit })
                for (const d of claimed) {
                  yield* webhooks.recordAttempt({
                    deliveryId: d.deliveryId,
                    attempt: d.attempt,
                    startedAt: t0,
                    now: t0 + 5,
                    result: result(d.attempt)
                  })
                }
                return claimed.map((d) => d.deliveryId)
              })
            // Events 1 and 2 (both endpoints): delivered to one, failed for good at the other.
            const settled = yield* settle(4, () => ({
              _tag: "Failed",
              responseStatus: 410,
              errorType: "http_status",
              error: "HTTP 410",
              retryAt: null
            }))
            // Event 4: delivered; event 3 stays pending (a retry later than the cutoff).
            for (const d of yield* webhooks.claimDue({ now: t0, leaseMs, limit: 4 })) {
              const payload = (d.data as { n: number }).n
              yield* webhooks.recordAttempt({
                deliveryId: d.deliveryId,
                attempt: d.attempt,
                startedAt: t0,
                now: t0 + 5,
                result: payload === 4
                  ? { _tag: "Delivered", responseStatus: 200 }
                  : { _tag: "Failed", responseStatus: 500, errorType: "http_status", error: "x", retryAt: t0 + day }
              })
            }
            // An endpoint deleted since: its deliveries went with it, the events stay until pruned.
            yield* webhooks.deleteEndpoint(organizationId, goneEndpoint!)
            const attemptsOf = (ids: ReadonlyArray<string>) =>
              Effect.map(
                sql<{ n: number }>`
                  SELECT count(*)::int AS "n" FROM webhook_attempts WHERE delivery_id::text IN ${sql.in(ids)}`,
                (rows) => rows[0]!.n
              )
            assert.isAbove(yield* attemptsOf(settled), 0)

            const cutoff = t0 - 50 * day
            // Two events per statement: events 1 and 2 go first, then none is left to prune
            // (event 3 has a pending delivery, event 4 is newer than the cutoff).
            assert.deepStrictEqual(yield* webhooks.prune({ before: cutoff, limit: 2 }), { events: 2, deliveries: 2 })
            assert.deepStrictEqual(yield* webhooks.prune({ before: cutoff, limit: 2 }), { events: 0, deliveries: 0 })
            assert.strictEqual(yield* attemptsOf(settled), 0)
            const listed = (yield* webhooks.listDeliveries({ organizationId, endpointId: endpointId!, limit: 10 }))
              .deliveries
            assert.deepStrictEqual(listed.map((d) => [d.status, d.createdAt.getTime()]), [
              ["delivered", t0 - 10 * day],
              ["pending", old + 2]
            ])
            const events = yield* sql<{ n: number }>`
              SELECT (payload->>'n')::int AS "n" FROM webhook_events WHERE organization_id = ${organizationId}
              ORDER BY created_at`
            assert.deepStrictEqual(events.map((e) => e.n), [3, 4])
            // Once the pending delivery has ended, its event goes too.
            const [retry] = yield* webhooks.claimDue({ now: t0 + day, leaseMs, limit: 10 })
            yield* webhooks.recordAttempt({
              deliveryId: retry!.deliveryId,
              attempt: retry!.attempt,
              startedAt: t0 + day,
              now: t0 + day,
              result: { _tag: "Delivered", responseStatus: 200 }
            })
            assert.deepStrictEqual(yield* webhooks.prune({ before: cutoff, limit: 2 }), { events: 1, deliveries: 1 })
          })))

      it.effect("several pruners at once delete every old event once, without errors", () =>
        withEndpoints([null, null], (organizationId) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const old = t0 - 200 * 86_400_000
            const events = Array.from({ length: 40 }, (_, n) => event(organizationId, "message.received", n))
            assert.strictEqual(yield* webhooks.enqueue(events, old), 80)
            for (const d of yield* claimAll(webhooks, t0)) {
              yield* webhooks.recordAttempt({
                deliveryId: d.deliveryId,
                attempt: d.attempt,
                startedAt: t0,
                now: t0 + 1,
                result: { _tag: "Delivered", responseStatus: 204 }
              })
            }
            const pruneAll = Effect.gen(function*() {
              const total = { events: 0, deliveries: 0 }
              while (true) {
                const pruned = yield* webhooks.prune({ before: old + 1, limit: 3 })
                if (pruned.events === 0) return total
                total.events += pruned.events
                total.deliveries += pruned.deliveries
              }
            })
            // On PostgreSQL each on a connection of its own.
            const totals = yield* Effect.all(Array.from({ length: 4 }, () => pruneAll), { concurrency: "unbounded" })
            assert.strictEqual(totals.reduce((sum, t) => sum + t.events, 0), 40)
            assert.strictEqual(totals.reduce((sum, t) => sum + t.deliveries, 0), 80)
          })))

      it.effect("enqueuing deliveries wakes the workers", () =>
        withEndpoints([null], (organizationId) =>
          Effect.gen(function*() {
            const webhooks = yield* WebhookRepository
            const wakeups = yield* webhooks.wakeups
            const sql = yield* SqlClient.SqlClient
            yield* sql.withTransaction(webhooks.enqueue([event(organizationId, "message.received")], t0))
            assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(wakeups, 1)), [undefined])
          })))
    })
  })
}
