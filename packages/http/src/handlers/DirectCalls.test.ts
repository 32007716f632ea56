/**
 * `POST /v2/create-outbound` over the whole app, with a stand-in `DirectCalls` (the engine's is
 * tested in test/dialer/DirectCalls.test.ts): the check order (401, 403, 422), what reaches the
 * service, each refusal's status and sentence, and 501 on a server without the service.
 */
import { assert, describe, layer } from "@effect/vitest"
import { NumberOnDoNotCallList, OutboundDialingDisabled, PhoneNumberNotOwned } from "@voice-agent/core/Errors"
import type { DirectCallRequest } from "@voice-agent/core/ports/DirectCalls"
import { DirectCalls } from "@voice-agent/core/ports/DirectCalls"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer } from "effect"
import { call, serve } from "../testing/TestApp.ts"

/** What the stand-in was asked, and its answers by the number called. */
const placed: Array<DirectCallRequest> = []
const standIn = Layer.succeed(
  DirectCalls,
  DirectCalls.of({
    place: (request) => {
      placed.push(request)
      switch (request.to) {
        case "+12025550111":
          return Effect.fail(new NumberOnDoNotCallList({ phoneNumber: request.to }))
        case "+12025550112":
          return Effect.fail(new PhoneNumberNotOwned({ phoneNumbers: [request.from] }))
        case "+12025550113":
          return Effect.fail(new OutboundDialingDisabled())
        default:
          return Effect.succeed({ callId: `call-${placed.length}`, conversationId: "c" })
      }
    }
  })
)

const server = (database: TestDatabase.Backend["layer"], calls: Layer.Layer<never> | Layer.Layer<DirectCalls>) =>
  serve(database, { services: calls })

/** An organization (with `settings`) and one of its keys. */
const organization = (settings: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* call("POST", "/admin/v1/organizations", {
      body: { name: `org-${Math.random().toString(36).slice(2)}`, ...settings }
    })
    const key = yield* call("POST", `/admin/v1/organizations/${created.body.id}/api-keys`)
    return { id: created.body.id as string, key: key.body.api_key as string }
  })

const createOutbound = (token: string | null, query: string) => call("POST", `/v2/create-outbound?${query}`, { token })

const numbers = (from: string, to: string) =>
  `from_number=${encodeURIComponent(from)}&to_number=${encodeURIComponent(to)}`

const from = "+12025550100"

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`create-outbound on ${backend.name}`, () => {
    layer(server(backend.layer, standIn), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("answers {call_id} and hands the organization's call to the service", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const reply = yield* createOutbound(org.key, numbers(from, "+12025550123"))
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          assert.deepStrictEqual(Object.keys(reply.body), ["call_id"])
          assert.deepStrictEqual(placed.at(-1), { organizationId: org.id, from, to: "+12025550123" })
        }))

      it.effect("401 for a missing or wrong key, before anything else", () =>
        Effect.gen(function*() {
          const before = placed.length
          for (const token of [null, "", "va_wrong"]) {
            const reply = yield* createOutbound(token, "from_number=nope")
            assert.strictEqual(reply.status, 401)
            assert.isString(reply.body.detail)
          }
          assert.strictEqual(placed.length, before)
        }))

      it.effect("403 when outbound dialing is off or the account has a billing issue, before validation", () =>
        Effect.gen(function*() {
          const before = placed.length
          const off = yield* organization({ outbound_dialing_enabled: false })
          const billing = yield* organization({ billing_issue: true })
          for (const query of [numbers(from, "+12025550123"), "from_number=nope"]) {
            const refused = yield* createOutbound(off.key, query)
            assert.strictEqual(refused.status, 403)
            assert.strictEqual(refused.body.detail, "Outbound dialing is not enabled for this organization")
            const owing = yield* createOutbound(billing.key, query)
            assert.strictEqual(owing.status, 403)
            assert.strictEqual(owing.body.detail, "The account has an unresolved billing issue")
          }
          assert.strictEqual(placed.length, before)
        }))

      it.effect("422 in FastAPI's shape for a missing number or one that is not E.164", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const missing = yield* createOutbound(org.key, `to_number=${encodeURIComponent("+12025550123")}`)
          assert.strictEqual(missing.status, 422)
          assert.deepStrictEqual(missing.body.detail, [{
            loc: ["query", "from_number"],
            msg: "Field required",
            type: "missing"
          }])
          const malformed = yield* createOutbound(org.key, numbers("2025550100", "+1 202 555 0123"))
          assert.strictEqual(malformed.status, 422)
          assert.deepStrictEqual(
            malformed.body.detail.map((item: { loc: ReadonlyArray<string> }) => item.loc),
            [["query", "from_number"], ["query", "to_number"]]
          )
          // What the SDK sends for a None from_number (docs/SDK_HTTP.md: refused, nothing placed).
          const empty = yield* createOutbound(org.key, numbers("", "+12025550123"))
          assert.strictEqual(empty.status, 422)
          assert.deepStrictEqual(empty.body.detail[0].loc, ["query", "from_number"])
        }))

      it.effect("400 for a sender the organization does not own, or a number on its Do-Not-Call list", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const listed = yield* createOutbound(org.key, numbers(from, "+12025550111"))
          assert.strictEqual(listed.status, 400)
          assert.strictEqual(listed.body.detail, "Phone number +12025550111 is on this organization's Do-Not-Call list")
          const notOwned = yield* createOutbound(org.key, numbers(from, "+12025550112"))
          assert.strictEqual(notOwned.status, 400)
          assert.strictEqual(notOwned.body.detail, `Phone number ${from} is not owned by this organization`)
          // The service's own check of the flags (a change between the key's lookup and the call).
          const off = yield* createOutbound(org.key, numbers(from, "+12025550113"))
          assert.strictEqual(off.status, 403)
        }))
    })

    layer(server(backend.layer, Layer.empty), { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("501 on a server without outbound calling", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const reply = yield* createOutbound(org.key, numbers(from, "+12025550123"))
          assert.strictEqual(reply.status, 501)
          assert.strictEqual(reply.body.detail, "This server does not place outbound calls")
        }))
    })
  })
}
