import { assert, describe, it, layer } from "@effect/vitest"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Effect, Option } from "effect"
import type { HttpMethod } from "effect/http"
import { randomInt } from "node:crypto"
import { adminToken, call, serve } from "../testing/TestApp.ts"
import { secretsEqual } from "./Admin.ts"

const server = (database: TestDatabase.Backend["layer"], token: Option.Option<string>) => serve(database, { token })

const createOrganization = (body: Record<string, unknown> = {}) =>
  call("POST", "/admin/v1/organizations", { body: { name: `org-${Math.random().toString(36).slice(2)}`, ...body } })

const issueKey = (orgId: string) => call("POST", `/admin/v1/organizations/${orgId}/api-keys`)

/** A random, valid NANP number (area code 202: never N11), unique per test in practice. */
const randomNumber = (): string => `+1202${randomInt(2_000_000, 10_000_000)}`

const unknownOrg = "00000000-0000-4000-8000-000000000000"

describe("secretsEqual", () => {
  it("compares secrets of any length", () => {
    assert.isTrue(secretsEqual("a-token", "a-token"))
    assert.isFalse(secretsEqual("a-token", "a-token2"))
    assert.isFalse(secretsEqual("", "a-token"))
  })
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`admin API on ${backend.name}`, () => {
    // A real server on a real clock (no TestClock): the admin API reads the time when a message
    // comes without `received_at`.
    layer(server(backend.layer, Option.some(adminToken)), { timeout: "60 seconds", excludeTestServices: true })(
      (it) => {
        it.effect("creates an organization with the documented defaults", () =>
          Effect.gen(function*() {
            const created = yield* call("POST", "/admin/v1/organizations", { body: { name: "Acme" } })
            assert.strictEqual(created.status, 201)
            assert.deepStrictEqual(Object.keys(created.body).sort(), [
              "billing_issue",
              "created_datetime",
              "id",
              "max_concurrency",
              "name",
              "outbound_dialing_enabled",
              "sms_registered"
            ])
            assert.include(created.body, {
              name: "Acme",
              outbound_dialing_enabled: true,
              sms_registered: true,
              billing_issue: false,
              max_concurrency: 10
            })
            assert.isFalse(Number.isNaN(Date.parse(created.body.created_datetime)))
          }))

        it.effect("creates an organization with the given settings; null means the default", () =>
          Effect.gen(function*() {
            const created = yield* createOrganization({
              outbound_dialing_enabled: false,
              sms_registered: null,
              billing_issue: true,
              max_concurrency: 3
            })
            assert.strictEqual(created.status, 201)
            assert.include(created.body, {
              outbound_dialing_enabled: false,
              sms_registered: true,
              billing_issue: true,
              max_concurrency: 3
            })
          }))

        it.effect("rejects invalid organization bodies with FastAPI's 422", () =>
          Effect.gen(function*() {
            const missing = yield* call("POST", "/admin/v1/organizations", { body: {} })
            assert.strictEqual(missing.status, 422)
            assert.deepStrictEqual(missing.body.detail[0], {
              loc: ["body", "name"],
              msg: "Field required",
              type: "missing"
            })
            const zero = yield* createOrganization({ max_concurrency: 0 })
            assert.strictEqual(zero.status, 422)
            assert.deepStrictEqual(zero.body.detail[0].loc, ["body", "max_concurrency"])
          }))

        it.effect("updates only the supplied fields; none is 400; an unknown organization is 404", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const updated = yield* call("PATCH", `/admin/v1/organizations/${org.id}`, {
              body: { billing_issue: true, max_concurrency: 2 }
            })
            assert.strictEqual(updated.status, 200)
            assert.deepStrictEqual(updated.body, { ...org, billing_issue: true, max_concurrency: 2 })
            const empty = yield* call("PATCH", `/admin/v1/organizations/${org.id}`, { body: {} })
            assert.strictEqual(empty.status, 400)
            assert.isString(empty.body.detail)
            for (const id of [unknownOrg, "not-an-id"]) {
              const missing = yield* call("PATCH", `/admin/v1/organizations/${id}`, { body: { name: "x" } })
              assert.strictEqual(missing.status, 404)
              assert.isString(missing.body.detail)
            }
          }))

        it.effect("issues a key that works on the public API until it is revoked", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const issued = yield* issueKey(org.id)
            assert.strictEqual(issued.status, 201)
            assert.deepStrictEqual(Object.keys(issued.body).sort(), ["api_key", "id"])
            const apiKey: string = issued.body.api_key

            assert.deepStrictEqual(yield* call("GET", "/v2/campaigns", { token: apiKey }), { status: 200, body: [] })
            const revoked = yield* call("DELETE", `/admin/v1/organizations/${org.id}/api-keys/${issued.body.id}`)
            assert.deepStrictEqual(revoked, { status: 200, body: { ok: true } })
            const after = yield* call("GET", "/v2/campaigns", { token: apiKey })
            assert.strictEqual(after.status, 401)
            assert.isString(after.body.detail)

            const again = yield* call("DELETE", `/admin/v1/organizations/${org.id}/api-keys/${issued.body.id}`)
            assert.strictEqual(again.status, 404)
            assert.strictEqual((yield* issueKey(unknownOrg)).status, 404)
          }))

        it.effect("revoking a key of another organization is 404 and leaves it working", () =>
          Effect.gen(function*() {
            const owner = (yield* createOrganization()).body
            const other = (yield* createOrganization()).body
            const issued = (yield* issueKey(owner.id)).body
            const wrong = yield* call("DELETE", `/admin/v1/organizations/${other.id}/api-keys/${issued.id}`)
            assert.strictEqual(wrong.status, 404)
            assert.strictEqual((yield* call("GET", "/v2/campaigns", { token: issued.api_key })).status, 200)
          }))

        it.effect("adds a number normalized to E.164; a number owned by anyone is 409", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const other = (yield* createOrganization()).body
            const number = randomNumber()
            const national = `(${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}`
            const added = yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, {
              body: { phone_number: national }
            })
            assert.deepStrictEqual(added, { status: 201, body: { phone_number: number, sms_enabled: true } })
            for (const owner of [org, other]) {
              const taken = yield* call("POST", `/admin/v1/organizations/${owner.id}/phone-numbers`, {
                body: { phone_number: number, sms_enabled: false }
              })
              assert.strictEqual(taken.status, 409)
              assert.isString(taken.body.detail)
            }
            const noSms = yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, {
              body: { phone_number: randomNumber(), sms_enabled: false }
            })
            assert.strictEqual(noSms.body.sms_enabled, false)
          }))

        it.effect("rejects a malformed number with 422 at its field, and an unknown organization with 404", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const invalid = yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, {
              body: { phone_number: "not a number" }
            })
            assert.strictEqual(invalid.status, 422)
            assert.deepStrictEqual(invalid.body.detail[0].loc, ["body", "phone_number"])
            const unknown = yield* call("POST", `/admin/v1/organizations/${unknownOrg}/phone-numbers`, {
              body: { phone_number: randomNumber() }
            })
            assert.strictEqual(unknown.status, 404)
          }))

        it.effect("adds and removes Do-Not-Call entries", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const dnc = `/admin/v1/organizations/${org.id}/dnc`
            const add = yield* call("POST", dnc, {
              body: { phone_numbers: ["202-555-0111", "+12025550112", "2025550111"] }
            })
            assert.deepStrictEqual(add, { status: 200, body: { added: 2 } })
            assert.deepStrictEqual((yield* call("POST", dnc, { body: { phone_numbers: ["+12025550112"] } })).body, {
              added: 0
            })
            const remove = yield* call("DELETE", `${dnc}?phone_number=${encodeURIComponent("(202) 555-0111")}`)
            assert.deepStrictEqual(remove, { status: 200, body: { deleted: 1 } })
            assert.deepStrictEqual((yield* call("DELETE", `${dnc}?phone_number=%2B12025550111`)).body, { deleted: 0 })

            assert.strictEqual((yield* call("DELETE", dnc)).status, 422)
            assert.strictEqual((yield* call("POST", dnc, { body: { phone_numbers: [] } })).status, 422)
            const unknown = `/admin/v1/organizations/${unknownOrg}/dnc`
            assert.strictEqual(
              (yield* call("POST", unknown, { body: { phone_numbers: ["+12025550111"] } })).status,
              404
            )
            assert.strictEqual((yield* call("DELETE", `${unknown}?phone_number=%2B12025550111`)).status, 404)
          }))

        it.effect("lists organizations oldest first and gets one; an unknown one is 404", () =>
          Effect.gen(function*() {
            const first = (yield* createOrganization({ max_concurrency: 3 })).body
            const second = (yield* createOrganization()).body
            const list = yield* call("GET", "/admin/v1/organizations")
            assert.strictEqual(list.status, 200)
            const ids: Array<string> = list.body.map((o: { id: string }) => o.id)
            assert.isBelow(ids.indexOf(first.id), ids.indexOf(second.id))
            assert.isAtLeast(ids.indexOf(first.id), 0)
            assert.deepStrictEqual(list.body[ids.indexOf(first.id)], first)
            assert.deepStrictEqual(yield* call("GET", `/admin/v1/organizations/${second.id}`), {
              status: 200,
              body: second
            })
            assert.strictEqual((yield* call("GET", `/admin/v1/organizations/${unknownOrg}`)).status, 404)
            assert.strictEqual((yield* call("GET", "/admin/v1/organizations/not-a-uuid")).status, 404)
          }))

        it.effect("lists an organization's keys without their text, a revoked one with its time", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const other = (yield* createOrganization()).body
            const kept = (yield* issueKey(org.id)).body
            const revoked = (yield* issueKey(org.id)).body
            yield* issueKey(other.id)
            yield* call("DELETE", `/admin/v1/organizations/${org.id}/api-keys/${revoked.id}`)
            const list = yield* call("GET", `/admin/v1/organizations/${org.id}/api-keys`)
            assert.strictEqual(list.status, 200)
            assert.deepStrictEqual(list.body.map((k: { id: string }) => k.id), [kept.id, revoked.id])
            for (const key of list.body) {
              assert.deepStrictEqual(Object.keys(key).sort(), ["created_datetime", "id", "revoked_datetime"])
              assert.notInclude(JSON.stringify(key), "va_")
            }
            assert.isNull(list.body[0].revoked_datetime)
            assert.isFalse(Number.isNaN(Date.parse(list.body[1].revoked_datetime)))
            assert.strictEqual((yield* call("GET", `/admin/v1/organizations/${unknownOrg}/api-keys`)).status, 404)
          }))

        it.effect("lists an organization's numbers", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const [a, b] = [randomNumber(), randomNumber()].sort()
            yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, { body: { phone_number: b } })
            yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, {
              body: { phone_number: a, sms_enabled: false }
            })
            assert.deepStrictEqual(yield* call("GET", `/admin/v1/organizations/${org.id}/phone-numbers`), {
              status: 200,
              body: [{ phone_number: a, sms_enabled: false }, { phone_number: b, sms_enabled: true }]
            })
            assert.strictEqual(
              (yield* call("GET", `/admin/v1/organizations/${unknownOrg}/phone-numbers`)).status,
              404
            )
          }))

        it.effect("pages the DNC list in number order with cursors bound to the organization", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const other = (yield* createOrganization()).body
            const numbers = Array.from({ length: 5 }, () => randomNumber()).sort()
            yield* call("POST", `/admin/v1/organizations/${org.id}/dnc`, { body: { phone_numbers: numbers } })
            yield* call("POST", `/admin/v1/organizations/${other.id}/dnc`, {
              body: { phone_numbers: [randomNumber()] }
            })
            const dnc = `/admin/v1/organizations/${org.id}/dnc`
            const first = yield* call("GET", `${dnc}?limit=2`)
            assert.strictEqual(first.status, 200)
            assert.deepStrictEqual(first.body.phone_numbers.map((e: { phone_number: string }) => e.phone_number), [
              numbers[0],
              numbers[1]
            ])
            assert.isTrue(first.body.has_more)
            assert.isFalse(Number.isNaN(Date.parse(first.body.phone_numbers[0].created_datetime)))
            const seen: Array<string> = []
            let cursor: string | null = null
            do {
              const page: { body: { phone_numbers: Array<{ phone_number: string }>; next_cursor: string | null } } =
                yield* call("GET", `${dnc}?limit=2${cursor === null ? "" : `&after=${encodeURIComponent(cursor)}`}`)
              seen.push(...page.body.phone_numbers.map((e) => e.phone_number))
              cursor = page.body.next_cursor
            } while (cursor !== null)
            assert.deepStrictEqual(seen, numbers)

            assert.strictEqual((yield* call("GET", `${dnc}?limit=0`)).status, 400)
            assert.strictEqual((yield* call("GET", `${dnc}?after=nonsense`)).status, 400)
            const foreign = `/admin/v1/organizations/${other.id}/dnc?after=${
              encodeURIComponent(first.body.next_cursor)
            }`
            assert.strictEqual((yield* call("GET", foreign)).status, 400)
            assert.strictEqual((yield* call("GET", `/admin/v1/organizations/${unknownOrg}/dnc`)).status, 404)
          }))

        it.effect("stores an inbound message to one of the organization's numbers", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const number = randomNumber()
            yield* call("POST", `/admin/v1/organizations/${org.id}/phone-numbers`, { body: { phone_number: number } })
            const inbound = `/admin/v1/organizations/${org.id}/inbound-messages`

            const received = yield* call("POST", inbound, {
              body: {
                from_number: "+1 (415) 555-0123",
                to_number: number,
                content: "STOP",
                received_at: "2026-11-21T05:10:00.123456+01:00"
              }
            })
            assert.strictEqual(received.status, 201)
            assert.deepStrictEqual({ ...received.body, id: "" }, {
              id: "",
              from_number: "+14155550123",
              to_number: number,
              content: "STOP",
              received_at: "2026-11-21T04:10:00.123Z",
              modality: "sms",
              direction: "inbound"
            })

            // Without received_at: the server's Clock at receipt.
            const before = yield* Clock.currentTimeMillis
            const now = yield* call("POST", inbound, {
              body: { from_number: "+14155550123", to_number: number, content: "hi" }
            })
            const after = yield* Clock.currentTimeMillis
            assert.strictEqual(now.status, 201)
            const receivedAt = Date.parse(now.body.received_at)
            assert.isTrue(before <= receivedAt && receivedAt <= after, now.body.received_at)

            const stored = yield* MessageRepository.use((messages) =>
              messages.listInbound({ organizationId: org.id, toNumber: number, limit: 10 })
            )
            // Oldest first.
            assert.deepStrictEqual(stored.messages.map((m) => [m.id, m.status, m.direction]), [
              [received.body.id, "received", "inbound"],
              [now.body.id, "received", "inbound"]
            ])
          }))

        it.effect("refuses an inbound message to a number the organization does not own", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const body = { from_number: "+14155550123", to_number: randomNumber(), content: "hi" }
            const refused = yield* call("POST", `/admin/v1/organizations/${org.id}/inbound-messages`, { body })
            assert.strictEqual(refused.status, 400)
            assert.isString(refused.body.detail)
            const unknown = yield* call("POST", `/admin/v1/organizations/${unknownOrg}/inbound-messages`, { body })
            assert.strictEqual(unknown.status, 404)
            const badDate = yield* call("POST", `/admin/v1/organizations/${org.id}/inbound-messages`, {
              body: { ...body, received_at: "yesterday" }
            })
            assert.strictEqual(badDate.status, 422)
            assert.deepStrictEqual(badDate.body.detail[0].loc, ["body", "received_at"])
          }))

        it.effect("answers 401 {detail} to a missing or wrong admin token, before validating the body", () =>
          Effect.gen(function*() {
            for (const token of [null, "wrong", `${adminToken}x`, ""]) {
              const reply = yield* call("POST", "/admin/v1/organizations", { token, body: { name: 42 } })
              assert.strictEqual(reply.status, 401)
              assert.isString(reply.body.detail)
            }
          }))

        it.effect("does not accept an organization's API key as the admin token", () =>
          Effect.gen(function*() {
            const org = (yield* createOrganization()).body
            const key = (yield* issueKey(org.id)).body.api_key
            assert.strictEqual(
              (yield* call("POST", "/admin/v1/organizations", { token: key, body: { name: "x" } })).status,
              401
            )
          }))
      }
    )
  })
}

describe("admin API without VOICE_AGENT_ADMIN_TOKEN", () => {
  layer(server(TestDatabase.pglite, Option.none()), { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("answers 404 on every admin route, whatever the token", () =>
      Effect.gen(function*() {
        const routes: ReadonlyArray<readonly [HttpMethod.HttpMethod, string, unknown]> = [
          ["POST", "/admin/v1/organizations", { name: "x" }],
          ["GET", "/admin/v1/organizations", undefined],
          ["GET", `/admin/v1/organizations/${unknownOrg}`, undefined],
          ["GET", `/admin/v1/organizations/${unknownOrg}/api-keys`, undefined],
          ["GET", `/admin/v1/organizations/${unknownOrg}/phone-numbers`, undefined],
          ["GET", `/admin/v1/organizations/${unknownOrg}/dnc`, undefined],
          ["PATCH", `/admin/v1/organizations/${unknownOrg}`, { name: "x" }],
          ["POST", `/admin/v1/organizations/${unknownOrg}/api-keys`, undefined],
          ["DELETE", `/admin/v1/organizations/${unknownOrg}/api-keys/${unknownOrg}`, undefined],
          ["POST", `/admin/v1/organizations/${unknownOrg}/phone-numbers`, { phone_number: "+12025550100" }],
          ["POST", `/admin/v1/organizations/${unknownOrg}/dnc`, { phone_numbers: ["+12025550100"] }],
          ["DELETE", `/admin/v1/organizations/${unknownOrg}/dnc?phone_number=%2B12025550100`, undefined],
          ["POST", `/admin/v1/organizations/${unknownOrg}/inbound-messages`, { content: "x" }]
        ]
        for (const [method, url, body] of routes) {
          for (const token of [null, "", adminToken]) {
            const reply = yield* call(method, url, { token, body })
            assert.strictEqual(reply.status, 404, `${method} ${url}`)
          }
        }
      }))
  })
})
