import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as Webhook from "@voice-agent/core/Webhook"
import { AttemptErrorTypes, attemptsKept } from "@voice-agent/core/Webhook"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import type { HttpMethod } from "effect/http"
import { randomUUID } from "node:crypto"
import { isHttpUrl } from "../api/WebhooksApi.ts"
import * as HttpApp from "../HttpApp.ts"
import { AdminToken } from "./Admin.ts"

const adminToken = "test-admin-token"

const server = (database: TestDatabase.Backend["layer"]) =>
  HttpRouter.serve(HttpApp.layer, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    // The webhook routes use neither the carrier nor recordings: stand-ins that fail if called.
    Layer.provide([
      AdminToken.layer(Option.some(Redacted.make(adminToken))),
      Layer.mock(Carrier, {}),
      Layer.mock(RecordingStore, {})
    ]),
    Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(database)))
  )

interface Reply {
  readonly status: number
  readonly text: string
  // Parsed JSON, read field by field in the assertions.
  readonly body: any
}

const call = (
  method: HttpMethod.HttpMethod,
  url: string,
  options: { readonly token?: string; readonly body?: unknown } = {}
): Effect.Effect<Reply, unknown, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.bearerToken(HttpClientRequest.make(method)(url), options.token ?? adminToken)
    if (options.body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, options.body)
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) }
  })

const organization = Effect.map(
  call("POST", "/admin/v1/organizations", { body: { name: `org-${Math.random().toString(36).slice(2)}` } }),
  (reply) => reply.body.id as string
)

const hooks = (orgId: string) => `/admin/v1/organizations/${orgId}/webhooks`

const unknownOrg = "00000000-0000-4000-8000-000000000000"

describe("isHttpUrl", () => {
  it("accepts absolute http and https URLs with a host, loopback and private ones included", () => {
    for (
      const url of ["http://127.0.0.1:8080/hook", "https://example.com", "http://[::1]/x", "http://10.0.0.5/a?b=c"]
    ) {
      assert.isTrue(isHttpUrl(url), url)
    }
    for (
      const url of ["ftp://example.com", "example.com/hook", "/hook", "mailto:a@b.c", "http://", "file:///etc/passwd"]
    ) {
      assert.isFalse(isHttpUrl(url), url)
    }
  })
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`webhooks admin API on ${backend.name}`, () => {
    layer(server(backend.layer), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("registers an endpoint: 201 {id, url, events, secret}, the secret shown only there", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const created = yield* call("POST", hooks(orgId), {
            body: { url: "http://127.0.0.1:9/hook", events: ["message.received", "call.ended", "call.ended"] }
          })
          assert.strictEqual(created.status, 201)
          assert.deepStrictEqual(Object.keys(created.body).sort(), ["events", "id", "secret", "url"])
          assert.strictEqual(created.body.url, "http://127.0.0.1:9/hook")
          // Repeats dropped, in the documented order of types.
          assert.deepStrictEqual(created.body.events, ["call.ended", "message.received"])
          assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/)

          // Null or absent: every type, answered as the list of every type.
          const every = ["call.started", "call.ended", "contact.status_changed", "message.received"]
          const all = yield* call("POST", hooks(orgId), { body: { url: "https://example.com/all", events: null } })
          assert.strictEqual(all.status, 201)
          assert.deepStrictEqual(all.body.events, every)
          const absent = yield* call("POST", hooks(orgId), { body: { url: "https://example.com/absent" } })
          assert.deepStrictEqual(absent.body.events, every)

          const listed = yield* call("GET", hooks(orgId))
          assert.strictEqual(listed.status, 200)
          assert.deepStrictEqual(listed.body.map((w: any) => w.id), [created.body.id, all.body.id, absent.body.id])
          assert.deepStrictEqual(listed.body.map((w: any) => w.events), [
            ["call.ended", "message.received"],
            every,
            every
          ])
          assert.deepStrictEqual(Object.keys(listed.body[0]).sort(), ["created_datetime", "events", "id", "url"])
          assert.notInclude(listed.text, "whsec_")
          assert.isFalse(Number.isNaN(Date.parse(listed.body[0].created_datetime)))
        }))

      it.effect("the organization is the path's: a body naming another is ignored, others see nothing", () =>
        Effect.gen(function*() {
          const mine = yield* organization
          const other = yield* organization
          const created = yield* call("POST", hooks(mine), {
            body: { url: "http://localhost/x", organization_id: other, org_id: other }
          })
          assert.strictEqual(created.status, 201)
          assert.deepStrictEqual(yield* Effect.map(call("GET", hooks(other)), (r) => r.body), [])
          assert.strictEqual((yield* call("GET", hooks(mine))).body.length, 1)
          const id = created.body.id as string
          assert.strictEqual((yield* call("DELETE", `${hooks(other)}/${id}`)).status, 404)
          assert.strictEqual((yield* call("GET", `${hooks(other)}/${id}/deliveries`)).status, 404)
          assert.strictEqual((yield* call("GET", hooks(mine))).body.length, 1)
        }))

      it.effect("rejects other schemes, non-URLs and unknown or no event types with FastAPI's 422", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          for (const url of ["ftp://example.com/x", "not a url", "/relative", "mailto:a@example.com", "http://", 42]) {
            const reply = yield* call("POST", hooks(orgId), { body: { url } })
            assert.strictEqual(reply.status, 422, String(url))
            assert.deepStrictEqual(reply.body.detail[0].loc, ["body", "url"], String(url))
          }
          const long = yield* call("POST", hooks(orgId), { body: { url: `https://example.com/${"a".repeat(2100)}` } })
          assert.strictEqual(long.status, 422)
          const missing = yield* call("POST", hooks(orgId), { body: {} })
          assert.deepStrictEqual(missing.body.detail[0], {
            loc: ["body", "url"],
            msg: "Field required",
            type: "missing"
          })
          const unknown = yield* call("POST", hooks(orgId), {
            body: { url: "https://example.com", events: ["call.ended", "call.exploded"] }
          })
          assert.strictEqual(unknown.status, 422)
          assert.deepStrictEqual(unknown.body.detail[0].loc, ["body", "events", 1])
          const none = yield* call("POST", hooks(orgId), { body: { url: "https://example.com", events: [] } })
          assert.strictEqual(none.status, 422)
          assert.deepStrictEqual(none.body.detail[0].loc, ["body", "events"])
          assert.deepStrictEqual((yield* call("GET", hooks(orgId))).body, [])
        }))

      it.effect("401 for a wrong token (before validation), 404 for an unknown organization", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const wrong = yield* call("POST", hooks(orgId), { token: "nope", body: { url: "ftp://x" } })
          assert.strictEqual(wrong.status, 401)
          assert.isString(wrong.body.detail)
          assert.strictEqual((yield* call("GET", hooks(orgId), { token: "nope" })).status, 401)
          const unknown = yield* call("POST", hooks(unknownOrg), { body: { url: "https://example.com" } })
          assert.strictEqual(unknown.status, 404)
          assert.isString(unknown.body.detail)
          assert.strictEqual((yield* call("GET", hooks(unknownOrg))).status, 404)
          assert.strictEqual((yield* call("GET", hooks("not-a-uuid"))).status, 404)
          // Validation comes before the 404.
          assert.strictEqual((yield* call("POST", hooks(unknownOrg), { body: { url: "ftp://x" } })).status, 422)
        }))

      it.effect("deletes an endpoint: 204 with no body, then 404", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const created = yield* call("POST", hooks(orgId), { body: { url: "https://example.com/gone" } })
          const url = `${hooks(orgId)}/${created.body.id}`
          const deleted = yield* call("DELETE", url)
          assert.strictEqual(deleted.status, 204)
          assert.strictEqual(deleted.text, "")
          assert.deepStrictEqual((yield* call("GET", hooks(orgId))).body, [])
          const again = yield* call("DELETE", url)
          assert.strictEqual(again.status, 404)
          assert.strictEqual(again.body.detail, `Webhook ${created.body.id} not found`)
          assert.strictEqual((yield* call("DELETE", `${hooks(orgId)}/not-a-uuid`)).status, 404)
          assert.strictEqual((yield* call("GET", `${url}/deliveries`)).status, 404)
        }))

      it.effect("lists deliveries newest first, with attempts, statuses and keyset pages", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const created = yield* call("POST", hooks(orgId), { body: { url: "http://127.0.0.1:9/none" } })
          const deliveries = `${hooks(orgId)}/${created.body.id}/deliveries`
          assert.deepStrictEqual((yield* call("GET", deliveries)).body, {
            deliveries: [],
            next_cursor: null,
            has_more: false
          })
          const webhooks = yield* WebhookRepository
          const now = yield* Clock.currentTimeMillis
          for (const [i, type] of (["call.started", "call.ended", "contact.status_changed"] as const).entries()) {
            yield* webhooks.enqueue([{ organizationId: orgId, type, data: { i } }], now + i)
          }
          const all = yield* call("GET", deliveries)
          assert.strictEqual(all.status, 200)
          assert.deepStrictEqual(all.body.deliveries.map((d: any) => d.event_type), [
            "contact.status_changed",
            "call.ended",
            "call.started"
          ])
          const [newest] = all.body.deliveries
          assert.deepStrictEqual(Object.keys(newest).sort(), [
            "attempt_history",
            "attempts",
            "created_datetime",
            "delivered_datetime",
            "event_id",
            "event_type",
            "id",
            "last_attempt_datetime",
            "last_error",
            "last_response_status",
            "next_attempt_datetime",
            "status"
          ])
          assert.deepStrictEqual(newest.attempt_history, [])
          assert.include(newest, {
            status: "pending",
            attempts: 0,
            last_response_status: null,
            last_error: null,
            last_attempt_datetime: null,
            delivered_datetime: null
          })
          assert.match(newest.event_id, /^msg_[0-9a-f]{32}$/)
          assert.strictEqual(Date.parse(newest.created_datetime), now + 2)

          const first = yield* call("GET", `${deliveries}?limit=2`)
          assert.strictEqual(first.body.deliveries.length, 2)
          assert.isTrue(first.body.has_more)
          const second = yield* call("GET", `${deliveries}?limit=2&after=${first.body.next_cursor}`)
          assert.deepStrictEqual(second.body.deliveries.map((d: any) => d.event_type), ["call.started"])
          assert.deepStrictEqual([second.body.has_more, second.body.next_cursor], [false, null])

          assert.strictEqual((yield* call("GET", `${deliveries}?limit=0`)).status, 400)
          assert.strictEqual((yield* call("GET", `${deliveries}?limit=101`)).status, 400)
          assert.strictEqual((yield* call("GET", `${deliveries}?after=abc`)).status, 400)
          // A cursor of another organization does not work here.
          const other = yield* organization
          const otherHook = yield* call("POST", hooks(other), { body: { url: "http://127.0.0.1:9/other" } })
          yield* webhooks.enqueue([{ organizationId: other, type: "call.ended", data: {} }], now)
          yield* webhooks.enqueue([{ organizationId: other, type: "call.ended", data: {} }], now)
          const foreign = yield* call("GET", `${hooks(other)}/${otherHook.body.id}/deliveries?limit=1`)
          assert.strictEqual(
            (yield* call("GET", `${deliveries}?after=${foreign.body.next_cursor}`)).status,
            400
          )
        }))

      it.effect("lists the deliveries of the events a call caused, to every endpoint, oldest first", () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const first = (yield* call("POST", hooks(orgId), { body: { url: "http://127.0.0.1:9/first" } })).body
          const second = (yield* call("POST", hooks(orgId), {
            body: { url: "http://127.0.0.1:9/second", events: ["call.ended"] }
          })).body
          const conversations = yield* ConversationRepository
          const webhooks = yield* WebhookRepository
          const startedAt = new Date(yield* Clock.currentTimeMillis)
          const endedAt = new Date(startedAt.getTime() + 8_000)
          const record = (callId: string, contactId: string | null) =>
            conversations.insert({
              callId,
              organizationId: orgId,
              campaignId: null,
              contactId,
              direction: "outbound",
              fromNumber: "+12025550100",
              toNumber: "+12025550101",
              startedAt,
              answeredAt: startedAt,
              endedAt,
              durationSec: 8,
              terminationReason: "user-hangup"
            })
          const callId = `CA${randomUUID().replaceAll("-", "")}`
          const ours = yield* record(callId, "41")
          // Another call at the same moment, and a status change of another contact: not ours.
          const theirs = yield* record(`CA${randomUUID().replaceAll("-", "")}`, "42")
          const change = (id: string) =>
            Webhook.contactStatusChanged({
              id,
              organizationId: orgId,
              campaignId: "c",
              phoneNumber: "+12025550101",
              data: {},
              previousStatus: "TRYING",
              status: "COMPLETED"
            })
          const t = startedAt.getTime()
          yield* webhooks.enqueue([Webhook.callStarted(ours), Webhook.callStarted(theirs)], t)
          yield* webhooks.enqueue([Webhook.callEnded(theirs), change("42")], t + 8_000)
          yield* webhooks.enqueue([Webhook.callEnded(ours)], t + 8_001)
          yield* webhooks.enqueue([change("41")], t + 8_002)

          const reply = yield* call("GET", `/admin/v1/webhook-deliveries?call_id=${callId}`)
          assert.strictEqual(reply.status, 200)
          const listed = reply.body.deliveries.map((d: any) => `${d.event_type} ${d.url}`)
          assert.deepStrictEqual(listed.slice(0, 1), ["call.started http://127.0.0.1:9/first"])
          assert.sameMembers(listed.slice(1, 3), [
            "call.ended http://127.0.0.1:9/first",
            "call.ended http://127.0.0.1:9/second"
          ])
          assert.deepStrictEqual(listed.slice(3), ["contact.status_changed http://127.0.0.1:9/first"])
          const ended = reply.body.deliveries.find((d: any) => d.webhook_id === second.id)
          assert.strictEqual(ended.event_type, "call.ended")
          assert.deepStrictEqual(ended.attempt_history, [])
          assert.strictEqual(first.url, "http://127.0.0.1:9/first")

          assert.deepStrictEqual((yield* call("GET", "/admin/v1/webhook-deliveries?call_id=CA-unknown")).body, {
            deliveries: []
          })
          assert.strictEqual((yield* call("GET", "/admin/v1/webhook-deliveries")).status, 422)
          assert.strictEqual(
            (yield* call("GET", `/admin/v1/webhook-deliveries?call_id=${callId}`, {
              token: "wrong"
            })).status,
            401
          )
        }))

      it.effect(`shows each delivery's newest ${attemptsKept} attempts, newest first, in the API's shape`, () =>
        Effect.gen(function*() {
          const orgId = yield* organization
          const created = yield* call("POST", hooks(orgId), { body: { url: "http://127.0.0.1:9/many" } })
          const webhooks = yield* WebhookRepository
          // Long before anything else in this database is due, so only this delivery is claimed.
          const t = Date.parse("2000-01-01T00:00:00.000Z")
          const at = (n: number) => t + n * 60_000
          yield* webhooks.enqueue([{ organizationId: orgId, type: "call.ended", data: {} }], t)
          const attempts = attemptsKept + 3
          for (let n = 1; n <= attempts; n++) {
            const [claimed] = yield* webhooks.claimDue({ now: at(n), leaseMs: 30_000, limit: 1 })
            assert.strictEqual(claimed!.attempt, n)
            yield* webhooks.recordAttempt({
              deliveryId: claimed!.deliveryId,
              attempt: n,
              startedAt: at(n),
              now: at(n) + 40 + n,
              result: n < attempts
                ? {
                  _tag: "Failed",
                  responseStatus: 500 + n,
                  errorType: "http_status",
                  error: `HTTP ${500 + n}`,
                  retryAt: at(n + 1)
                }
                : { _tag: "Delivered", responseStatus: 204 }
            })
          }
          const [delivery] = (yield* call("GET", `${hooks(orgId)}/${created.body.id}/deliveries`)).body.deliveries
          assert.include(delivery, { status: "delivered", attempts, last_response_status: 204, last_error: null })
          assert.strictEqual(delivery.attempt_history.length, attemptsKept)
          assert.deepStrictEqual(delivery.attempt_history[0], {
            attempt: attempts,
            attempted_datetime: new Date(at(attempts)).toISOString(),
            duration_ms: 40 + attempts,
            response_status: 204,
            error_type: null,
            error: null
          })
          assert.deepStrictEqual(delivery.attempt_history[1], {
            attempt: attempts - 1,
            attempted_datetime: new Date(at(attempts - 1)).toISOString(),
            duration_ms: 40 + attempts - 1,
            response_status: 500 + attempts - 1,
            error_type: "http_status",
            error: `HTTP ${500 + attempts - 1}`
          })
          // The oldest three are gone.
          assert.deepStrictEqual(
            delivery.attempt_history.map((a: any) => a.attempt),
            Array.from({ length: attemptsKept }, (_, i) => attempts - i)
          )
        }))

      it.effect("documents the types received, each delivery's attempts and their errors in /openapi.json", () =>
        Effect.gen(function*() {
          const schemas = (yield* call("GET", "/openapi.json")).body.components.schemas
          // Always the list of types (never null).
          assert.deepStrictEqual(schemas.Webhook.properties.events.type, "array")
          assert.deepStrictEqual(schemas.CreatedWebhook.properties.events.type, "array")
          assert.deepStrictEqual(schemas.WebhookDelivery.properties.attempt_history.items, {
            $ref: "#/components/schemas/WebhookAttempt"
          })
          assert.include(schemas.WebhookDelivery.required, "attempt_history")
          assert.sameMembers(Object.keys(schemas.WebhookAttempt.properties), [
            "attempt",
            "attempted_datetime",
            "duration_ms",
            "response_status",
            "error_type",
            "error"
          ])
          assert.sameMembers(schemas.WebhookAttemptErrorType.enum, [...AttemptErrorTypes])
        }))
    })
  })
}
