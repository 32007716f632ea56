/**
 * The engine's webhook worker over the SQL queue, on both backends, against a real HTTP
 * receiver: deliveries arrive signed per Standard Webhooks with the `{type, timestamp, data}`
 * body; a 500, a timeout or a redirect is retried on the (shortened) schedule with the same
 * `webhook-id` (redirects are not followed); a delivery whose every attempt fails ends `failed`;
 * each attempt is kept with why it failed; a worker that stops lets its attempts in flight
 * finish and record.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, layer } from "@effect/vitest"
import type { WebhookRepository as WebhookRepositoryService } from "@voice-agent/core/ports/WebhookRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import type { WebhookDelivery as Delivery, WebhookEventType } from "@voice-agent/core/Webhook"
import * as WebhookDelivery from "@voice-agent/engine/WebhookDelivery"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Effect, Exit, Layer, Schedule, Scope } from "effect"
import * as WebhookReceiver from "../support/WebhookReceiver.ts"

// A timeout long enough that an attempt answered at once never times out, even with PGlite
// holding the event loop of a loaded machine for a while.
const settings = WebhookDelivery.makeSettings({
  retrySchedule: [200, 200],
  timeoutMs: 3_000,
  leaseMs: 9_000,
  pollMs: 1_000
})

/** An organization with one endpoint at `url`; answers the ids and the secret. */
const endpoint = (url: string, events: ReadonlyArray<WebhookEventType> | null = null) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookRepository
    const organization = yield* Fixtures.organization()
    const created = yield* webhooks.createEndpoint({
      organizationId: organization.id,
      url,
      events,
      now: yield* Clock.currentTimeMillis
    })
    return { organizationId: organization.id, endpointId: created.endpoint.id, secret: created.secret }
  })

const emit = (organizationId: string, type: WebhookEventType, data: Record<string, unknown>) =>
  Effect.gen(function*() {
    const webhooks = yield* WebhookRepository
    return yield* webhooks.enqueue([{ organizationId, type, data }], yield* Clock.currentTimeMillis)
  })

/** The endpoint's deliveries once none is pending (the worker records after the receiver answers). */
const settled = (webhooks: WebhookRepositoryService["Service"], organizationId: string, endpointId: string) =>
  webhooks.listDeliveries({ organizationId, endpointId, limit: 100 }).pipe(
    Effect.orDie,
    Effect.map((page) => page.deliveries),
    Effect.repeat({
      schedule: Schedule.spaced("25 millis"),
      until: (deliveries: ReadonlyArray<Delivery>) => deliveries.every((d) => d.status !== "pending")
    }),
    Effect.timeout("20 seconds")
  )

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`webhook worker on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer), Layer.provideMerge(NodeHttpClient.layerUndici)), {
      timeout: "60 seconds",
      excludeTestServices: true
    })((it) => {
      it.effect("delivers signed events, retries failures with the same id, and fails a delivery for good", () =>
        Effect.gen(function*() {
          const webhooks = yield* WebhookRepository
          // /ok answers 200; /flaky 500 then 200; /slow never answers the first time, then 204;
          // /moved a redirect, then 200; /down always 503.
          const receiver = yield* WebhookReceiver.make((path, previous) => {
            switch (path) {
              case "/ok":
                return 200
              case "/flaky":
                return previous === 0 ? 500 : 200
              case "/slow":
                return previous === 0 ? "hang" : 204
              case "/moved":
                return previous === 0 ? { status: 302, headers: { location: "/ok" } } : 200
              default:
                return 503
            }
          })
          const ok = yield* endpoint(`${receiver.url}/ok`, ["call.ended"])
          const flaky = yield* endpoint(`${receiver.url}/flaky`)
          const slow = yield* endpoint(`${receiver.url}/slow`)
          const moved = yield* endpoint(`${receiver.url}/moved`)
          const down = yield* endpoint(`${receiver.url}/down`)

          const worker = yield* Scope.make()
          yield* WebhookDelivery.run(settings).pipe(Scope.provide(worker))
          yield* emit(ok.organizationId, "call.started", { skipped: true })
          yield* emit(ok.organizationId, "call.ended", { conversation: { call_id: "c-1" }, contact_id: "7" })
          for (const target of [flaky, slow, moved, down]) {
            yield* emit(target.organizationId, "contact.status_changed", { n: 1 })
          }

          const okDeliveries = yield* settled(webhooks, ok.organizationId, ok.endpointId)
          assert.deepStrictEqual(okDeliveries.map((d) => [d.eventType, d.status, d.attempts, d.lastResponseStatus]), [
            ["call.ended", "delivered", 1, 200]
          ])
          // One reception on /ok: the redirect of /moved to /ok was not followed.
          assert.strictEqual(receiver.receptions.filter((r) => r.path === "/ok").length, 1)
          const [first] = receiver.receptions.filter((r) => r.path === "/ok")
          assert.isTrue(WebhookReceiver.verifies(ok.secret, first!), "signed with the endpoint's secret")
          assert.isFalse(WebhookReceiver.verifies(flaky.secret, first!), "not with another's")
          assert.strictEqual(first!.id, okDeliveries[0]!.eventId)
          assert.match(first!.id, /^msg_[0-9a-f]{32}$/)
          assert.match(first!.contentType ?? "", /^application\/json/)
          const body = JSON.parse(first!.body)
          assert.deepStrictEqual(Object.keys(body), ["type", "timestamp", "data"])
          assert.strictEqual(body.type, "call.ended")
          assert.strictEqual(body.timestamp, okDeliveries[0]!.createdAt.toISOString())
          assert.deepStrictEqual(body.data, { conversation: { call_id: "c-1" }, contact_id: "7" })

          for (
            const [target, path, status] of [[flaky, "/flaky", 200], [slow, "/slow", 204], [
              moved,
              "/moved",
              200
            ]] as const
          ) {
            const [delivery] = yield* settled(webhooks, target.organizationId, target.endpointId)
            assert.include(
              delivery,
              { status: "delivered", attempts: 2, lastResponseStatus: status, lastError: null },
              path
            )
            const receptions = receiver.receptions.filter((r) => r.path === path)
            assert.strictEqual(receptions.length, 2, path)
            assert.strictEqual(receptions[0]!.id, receptions[1]!.id, `${path}: one message id on every attempt`)
            assert.strictEqual(receptions[0]!.body, receptions[1]!.body, `${path}: the same body`)
            assert.isTrue(receptions.every((r) => WebhookReceiver.verifies(target.secret, r)), path)
            assert.deepStrictEqual(delivery!.history[0], {
              attempt: 2,
              attemptedAt: delivery!.lastAttemptAt!,
              durationMs: delivery!.history[0]!.durationMs,
              responseStatus: status,
              errorType: null,
              error: null
            })
          }
          // Why each first attempt failed.
          const firstAttempt = (target: typeof flaky) =>
            Effect.map(settled(webhooks, target.organizationId, target.endpointId), ([d]) => d!.history[1]!)
          assert.include(yield* firstAttempt(flaky), {
            responseStatus: 500,
            errorType: "http_status",
            error: "HTTP 500"
          })
          const redirected = yield* firstAttempt(moved)
          assert.include(
            redirected,
            { responseStatus: 302, errorType: "http_status", error: "HTTP 302" },
            JSON.stringify(redirected)
          )
          const timedOut = yield* firstAttempt(slow)
          assert.include(timedOut, { responseStatus: null, errorType: "timeout", error: "no answer within 3 s" })
          assert.isAtLeast(timedOut.durationMs!, 2_900)
          const [failed] = yield* settled(webhooks, down.organizationId, down.endpointId)
          assert.include(failed, { status: "failed", attempts: 3, lastResponseStatus: 503, lastError: "HTTP 503" })
          assert.deepStrictEqual(failed!.history.map((a) => [a.attempt, a.responseStatus, a.errorType]), [
            [3, 503, "http_status"],
            [2, 503, "http_status"],
            [1, 503, "http_status"]
          ])
          assert.strictEqual(receiver.receptions.filter((r) => r.path === "/down").length, 3)
          yield* Scope.close(worker, Exit.void)
        }))

      it.effect("a stopping worker lets its attempt in flight finish and records it", () =>
        Effect.gen(function*() {
          const webhooks = yield* WebhookRepository
          const receiver = yield* WebhookReceiver.make(() => ({ status: 200, afterMs: 300 }))
          const target = yield* endpoint(`${receiver.url}/stop`)
          const worker = yield* Scope.make()
          yield* WebhookDelivery.run(settings).pipe(Scope.provide(worker))
          yield* emit(target.organizationId, "message.received", { message: { id: "m" } })
          yield* receiver.waitFor((receptions) => receptions.some((r) => r.path === "/stop"))
          // The receiver answers 300 ms later: the worker is stopped with the attempt in flight.
          yield* Scope.close(worker, Exit.void)
          const [delivery] = yield* settled(webhooks, target.organizationId, target.endpointId)
          assert.include(delivery, { status: "delivered", attempts: 1, lastResponseStatus: 200 })
          // The receiver took 300 ms to answer.
          assert.isAtLeast(delivery!.history[0]!.durationMs!, 290)
        }))
    })
  })
}
