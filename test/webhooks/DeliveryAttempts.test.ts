/**
 * Every attempt of a webhook delivery, as an operator reads it in the admin API's delivery list
 * (docs/WEBHOOKS.md), on both backends: the engine's worker delivers to real receivers on the
 * loopback, and `GET .../webhooks/{id}/deliveries` shows each delivery's attempts, newest first,
 * with their times, statuses or errors, and durations.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, layer } from "@effect/vitest"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { WebhookEventTypes } from "@voice-agent/core/Webhook"
import * as WebhookDelivery from "@voice-agent/engine/WebhookDelivery"
import * as TestApp from "@voice-agent/http/testing/TestApp"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { HttpClient } from "effect/http"
import * as WebhookReceiver from "../support/WebhookReceiver.ts"

/** An admin API call through the test server's client. */
const admin = (method: "GET" | "POST", path: string, body?: unknown) =>
  TestApp.call(method, path, body === undefined ? {} : { body })

/** Runs the engine's worker for the test's scope, POSTing through undici (a real client). */
const startWorker = Effect.gen(function*() {
  const undici = Context.get(yield* Layer.build(NodeHttpClient.layerUndici), HttpClient.HttpClient)
  yield* WebhookDelivery.run(WebhookDelivery.makeSettings({
    retrySchedule: [200, 200],
    timeoutMs: 5_000,
    pollMs: 500
  })).pipe(Effect.provideService(HttpClient.HttpClient, undici))
})

/** The endpoint's deliveries, as listed, once none is pending. */
const settled = (deliveries: string) =>
  admin("GET", deliveries).pipe(
    Effect.map((reply) => reply.body.deliveries as ReadonlyArray<any>),
    Effect.repeat({
      schedule: Schedule.spaced("25 millis"),
      until: (list) => list.length > 0 && list.every((d) => d.status !== "pending")
    }),
    Effect.timeout("30 seconds")
  )

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`webhook delivery attempts on ${backend.name}`, () => {
    layer(TestApp.serve(backend.layer), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("a receiver that answered 500, then 200: both attempts listed, with statuses and durations", () =>
        Effect.gen(function*() {
          // 500 after 150 ms, then 200 after 60 ms.
          const receiver = yield* WebhookReceiver.make((_, previous) =>
            previous === 0 ? { status: 500, afterMs: 150 } : { status: 200, afterMs: 60 }
          )
          const org = (yield* admin("POST", "/admin/v1/organizations", { name: "attempts" })).body.id as string
          const hooks = `/admin/v1/organizations/${org}/webhooks`
          const created = yield* admin("POST", hooks, { url: `${receiver.url}/flaky` })
          assert.strictEqual(created.status, 201)
          // Registered without events: it receives every type, and says so.
          assert.deepStrictEqual(created.body.events, [...WebhookEventTypes])
          assert.deepStrictEqual((yield* admin("GET", hooks)).body.map((w: any) => w.events), [[...WebhookEventTypes]])

          yield* startWorker
          const webhooks = yield* WebhookRepository
          yield* webhooks.enqueue(
            [{ organizationId: org, type: "message.received", data: { message: { id: "m-1" } } }],
            yield* Clock.currentTimeMillis
          )
          const [delivery] = yield* settled(`${hooks}/${created.body.id}/deliveries`)
          assert.include(delivery, {
            status: "delivered",
            attempts: 2,
            last_response_status: 200,
            last_error: null
          })
          const [second, first] = delivery.attempt_history
          assert.strictEqual(delivery.attempt_history.length, 2)
          assert.deepStrictEqual(Object.keys(first).sort(), [
            "attempt",
            "attempted_datetime",
            "duration_ms",
            "error",
            "error_type",
            "response_status"
          ])
          assert.include(first, { attempt: 1, response_status: 500, error_type: "http_status", error: "HTTP 500" })
          assert.include(second, { attempt: 2, response_status: 200, error_type: null, error: null })
          // Each lasted at least as long as the receiver took to answer.
          assert.isAtLeast(first.duration_ms, 140)
          assert.isAtLeast(second.duration_ms, 50)
          // The retry came 200 ms after the first attempt ended; the newest is the last attempt.
          assert.isAtLeast(
            Date.parse(second.attempted_datetime) - Date.parse(first.attempted_datetime),
            first.duration_ms + 200
          )
          assert.strictEqual(second.attempted_datetime, delivery.last_attempt_datetime)
          assert.deepStrictEqual(receiver.receptions.map((r) => r.status), [500, 200])
        }))

      it.effect("a receiver that is down: every attempt shows the refused connection", () =>
        Effect.gen(function*() {
          const port = yield* WebhookReceiver.closedPort
          const org = (yield* admin("POST", "/admin/v1/organizations", { name: "down" })).body.id as string
          const hooks = `/admin/v1/organizations/${org}/webhooks`
          const created = yield* admin("POST", hooks, { url: `http://127.0.0.1:${port}/hooks`, events: ["call.ended"] })
          assert.deepStrictEqual(created.body.events, ["call.ended"])
          yield* startWorker
          const webhooks = yield* WebhookRepository
          yield* webhooks.enqueue(
            [{ organizationId: org, type: "call.ended", data: { n: 1 } }],
            yield* Clock.currentTimeMillis
          )
          const [delivery] = yield* settled(`${hooks}/${created.body.id}/deliveries`)
          assert.include(delivery, { status: "failed", attempts: 3, last_response_status: null })
          assert.deepStrictEqual(
            delivery.attempt_history.map((a: any) => [a.attempt, a.response_status, a.error_type]),
            [
              [3, null, "connection_refused"],
              [2, null, "connection_refused"],
              [1, null, "connection_refused"]
            ]
          )
          for (const attempt of delivery.attempt_history) {
            assert.strictEqual(attempt.error, `connect ECONNREFUSED 127.0.0.1:${port}`)
            assert.isAtLeast(attempt.duration_ms, 0)
          }
          assert.strictEqual(delivery.last_error, `connect ECONNREFUSED 127.0.0.1:${port}`)
        }))
    })
  })
}
