import { assert, describe, layer } from "@effect/vitest"
import { OrganizationNotFound } from "@voice-agent/core/Errors"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import type { DueDelivery } from "@voice-agent/core/ports/WebhookRepository"
import type { OutgoingEvent, WebhookEventType } from "@voice-agent/core/Webhook"
import { parseSecret, WebhookEndpointNotFound } from "@voice-agent/core/Webhook"
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
              now: t0 + leaseMs + 5,
              result: { _tag: "Delivered", responseStatus: 200 }
            })
            assert.isFalse(stale)
            const current = yield* webhooks.recordAttempt({
              deliveryId: second!.deliveryId,
              attempt: 2,
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
            // Recorded once: a repeated record changes nothing.
            assert.isFalse(
              yield* webhooks.recordAttempt({
                deliveryId: second!.deliveryId,
                attempt: 2,
                now: t0 + leaseMs + 20,
                result: { _tag: "Failed", responseStatus: 500, error: "late", retryAt: t0 + 1e9 }
              })
            )
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
              now: t0 + 100,
              result: { _tag: "Failed", responseStatus: 500, error: "HTTP 500", retryAt: t0 + 5_100 }
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
              now: t0 + 15_200,
              result: { _tag: "Failed", responseStatus: null, error: "timed out after 10 s", retryAt: null }
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
