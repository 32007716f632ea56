/**
 * Limits enforced before work is done (the API reference, "Limits", docs/DECISIONS.md; issue 12, "Security"):
 * each over-limit request is refused with its documented status and a `{detail}` body, and no
 * row of the database changes. The checks come in the documented check order (docs/HTTP_API.md), so a request that is
 * both unauthenticated (or forbidden) and over a limit is refused for the first reason, before
 * its body is looked at; an unauthenticated request is answered without reading its body at
 * all. On both backends.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import * as net from "node:net"
import {
  admin,
  api,
  assertDetail,
  assertValidation,
  campaign,
  campaignBody,
  eachBackend,
  organization,
  q,
  randomNumber,
  request,
  updateOrganization,
  upload
} from "../http/support/ApiServer.ts"

/** Every row of every table, to compare before and after a refused request. */
const everything = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ readonly name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
  const snapshot: Record<string, ReadonlyArray<string>> = {}
  for (const { name } of tables) {
    const rows = yield* sql<{ readonly row: unknown }>`SELECT row_to_json(t)::text AS row FROM ${sql(name)} t`
    snapshot[name] = rows.map((r) => String(r.row)).sort()
  }
  return snapshot
}).pipe(Effect.orDie)

/** The test server's port. */
const port = HttpServer.addressFormattedWith((url) => Effect.succeed(Number(new URL(url).port)))

/**
 * Sends `head` (request line and headers), then up to `bodyBytes` of body in 1 MiB pieces, each
 * once the previous one was taken and only while no answer came; waits up to `waitMs` for the
 * answer. Answers the status line and headers, or `undefined` when none came (the server is
 * waiting for more), and how much of the body was sent before the answer.
 */
/** Sends `head`, then up to `bodyBytes` of body (in chunked framing when `chunked`) until an answer comes. */
const rawRequest = (head: string, bodyBytes: number, waitMs: number, chunked = false) =>
  Effect.flatMap(
    port,
    (p) =>
      Effect.callback<{ readonly answer: string | undefined; readonly sent: number }>((resume) => {
        const socket = net.connect(p, "127.0.0.1")
        let answer = ""
        let sent = 0
        let done = false
        const timer = setTimeout(() => finish(), waitMs)
        const finish = () => {
          if (done) return
          done = true
          clearTimeout(timer)
          socket.destroy()
          resume(Effect.succeed({ answer: answer === "" ? undefined : answer, sent }))
        }
        socket.on("data", (data: Buffer) => {
          answer += data.toString("latin1")
          if (answer.includes("\r\n\r\n")) finish()
        })
        socket.on("error", () => finish())
        const piece = Buffer.alloc(1024 * 1024, 0x20)
        const pump = () => {
          while (!done && answer === "" && sent < bodyBytes) {
            const next = piece.subarray(0, Math.min(piece.length, bodyBytes - sent))
            sent += next.length
            const framed = chunked
              ? Buffer.concat([Buffer.from(`${next.length.toString(16)}\r\n`), next, Buffer.from("\r\n")])
              : next
            if (!socket.write(framed)) return void socket.once("drain", pump)
          }
        }
        socket.write(head, pump)
        return Effect.sync(finish)
      })
  )

/** `n` distinct valid numbers as contacts. */
const manyContacts = (n: number) => {
  const numbers = new Set<string>()
  while (numbers.size < n) numbers.add(randomNumber())
  return Array.from(numbers, (phone_number) => ({ phone_number }))
}

await eachBackend("limits", (it) => {
  it.effect(
    "uploads: over 10,000 contacts is 422, one bad contact or oversized data is 400, and nothing is written",
    () =>
      Effect.gen(function*() {
        const org = yield* organization()
        const c = yield* campaign(org)
        yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }])
        const url = `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`
        const before = yield* everything

        assertValidation(yield* api(org.key, "POST", url, { json: { contacts: manyContacts(10_001) } }), [
          "body",
          "contacts"
        ])
        // All or nothing: 999 good contacts and one over the data limit create none.
        const oversized = yield* api(org.key, "POST", url, {
          json: {
            contacts: [...manyContacts(9_999), { phone_number: randomNumber(), data: { x: "y".repeat(16 * 1024) } }]
          }
        })
        assert.strictEqual(oversized.status, 400, oversized.text)
        assert.strictEqual(oversized.body.created, 0)
        assert.deepStrictEqual(oversized.body.rejected_entries.map((e: any) => e.reason), ["data_too_large"])
        const invalid = yield* api(org.key, "POST", url, {
          json: { contacts: [...manyContacts(100), { phone_number: "not a number" }] }
        })
        assert.strictEqual(invalid.status, 400, invalid.text)
        assert.strictEqual(invalid.body.created, 0)
        // Terms not accepted: 400 before any contact is looked at.
        assertDetail(
          yield* api(org.key, "POST", `/v2/campaigns/${c.campaign_code}/contacts`, {
            json: { contacts: manyContacts(100) }
          }),
          400
        )
        assert.deepStrictEqual(yield* everything, before, "no row changed")

        // The check order: 401 and 403 come before the body is looked at.
        assertDetail(yield* api(null, "POST", url, { json: { contacts: manyContacts(10_001) } }), 401)
        assertDetail(yield* api("va_wrong", "POST", url, { body: "{not json" }), 401)
        yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
        const afterFlag = yield* everything
        assertDetail(yield* api(org.key, "POST", url, { json: { contacts: manyContacts(10_001) } }), 403)
        assert.deepStrictEqual(yield* everything, afterFlag, "no row changed")
      }),
    30_000
  )

  it.effect("page sizes: every list refuses a limit outside its range with 400", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const webhook = (yield* admin("POST", `/admin/v1/organizations/${org.id}/webhooks`, {
        url: "http://127.0.0.1:9/hook"
      }, 201)).body
      const lists: ReadonlyArray<readonly [string, number, string | null]> = [
        ["/v2/contacts", 1000, org.key],
        ["/v1/contacts", 1000, org.key],
        ["/v1/conversations", 100, org.key],
        [`/v1/messages?to_number=${q(org.number)}`, 100, org.key],
        ["/v2/agents", 100, org.key],
        [`/admin/v1/organizations/${org.id}/webhooks/${webhook.id}/deliveries`, 100, "test-admin-token"]
      ]
      for (const [path, max, token] of lists) {
        const join = path.includes("?") ? "&" : "?"
        for (const limit of [String(max + 1), "0", "-1", "1e3", "99999999999", "x"]) {
          assertDetail(yield* request("GET", `${path}${join}limit=${limit}`, { token }), 400, `${path} limit=${limit}`)
        }
        const atMax = yield* request("GET", `${path}${join}limit=${max}`, { token })
        assert.strictEqual(atMax.status, 200, `${path} limit=${max}: ${atMax.text}`)
      }
    }), 30_000)

  it.effect(
    "campaigns, agents, DNC and SMS: over-limit fields are refused and nothing is written",
    () =>
      Effect.gen(function*() {
        const org = yield* organization({ max_concurrency: 5 })
        const before = yield* everything
        const post = (json: unknown) => api(org.key, "POST", "/v2/campaigns", { json })
        assertValidation(yield* post(campaignBody(org, { name: "x".repeat(201) })), ["body", "name"])
        assertValidation(yield* post(campaignBody(org, { retry_delay_s: 2_592_001 })), ["body", "retry_delay_s"])
        assertDetail(yield* post(campaignBody(org, { max_concurrency: 6 })), 400)
        const items = Array.from({ length: 101 }, (_, i) => ({ item_type: "todo", key: `t${i}`, description: "x" }))
        assertValidation(
          yield* api(org.key, "POST", "/v2/agents", {
            json: { name: "too many", persona: {}, task: { objective: "x", action_items: items } }
          }),
          ["body", "task", "action_items"]
        )
        assertValidation(
          yield* api(org.key, "POST", "/v1/send-sms", {
            json: { from_number: org.number, to_number: randomNumber(), message: "x".repeat(1601) }
          }),
          ["body", "message"]
        )
        const dnc = yield* request("POST", `/admin/v1/organizations/${org.id}/dnc`, {
          token: "test-admin-token",
          json: { phone_numbers: Array.from({ length: 10_001 }, () => randomNumber()) }
        })
        assert.strictEqual(dnc.status, 422, dnc.text)
        assert.deepStrictEqual(yield* everything, before, "no row changed")
      }),
    30_000
  )

  it.effect(
    "bodies: refused unread when unauthenticated, 1 MB on the keyless operations, 64 MB otherwise; headers over 16 KiB are 431",
    () =>
      Effect.gen(function*() {
        const org = yield* organization()
        const declared = 100 * 1024 * 1024
        const head = (path: string, auth: string) =>
          `POST ${path} HTTP/1.1\r\nHost: test\r\n${auth}Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`
        // Unauthenticated: answered at once (401, or 413 from the declared length alone), with
        // only a kilobyte of the body sent.
        for (
          const [path, auth] of [["/v2/campaigns", ""], ["/v2/campaigns", "Authorization: Bearer va_wrong\r\n"], [
            "/admin/v1/organizations",
            "Authorization: Bearer wrong\r\n"
          ]] as const
        ) {
          const { answer } = yield* rawRequest(head(path, auth), 1024, 5_000)
          assert.match(answer ?? "", /^HTTP\/1\.1 (401|413) /, `${path}: ${answer}`)
        }
        // The operations that take no key read at most 1 MB: a longer declared body is refused
        // unread, and a chunked one is cut off soon after 1 MB.
        const keyless = "POST /v1/upload-telemetry HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        const declaredKeyless = yield* rawRequest(`${keyless}Content-Length: ${2_000_001}\r\n\r\n`, 1024, 5_000)
        assert.match(declaredKeyless.answer ?? "", /^HTTP\/1\.1 413 /, String(declaredKeyless.answer))
        const chunkedKeyless = yield* rawRequest(`${keyless}Transfer-Encoding: chunked\r\n\r\n`, declared, 20_000, true)
        assert.match(chunkedKeyless.answer ?? "", /^HTTP\/1\.1 413 /, String(chunkedKeyless.answer).slice(0, 200))
        assert.isAtMost(chunkedKeyless.sent, 8 * 1024 * 1024, "refused by 1 MB (and what was in flight)")
        // With a valid key, a declared length over the 64 MB limit: 413, at most the limit read.
        const authorized = yield* rawRequest(
          head("/v2/campaigns", `Authorization: Bearer ${org.key}\r\n`),
          declared,
          20_000
        )
        assert.match(authorized.answer ?? "", /^HTTP\/1\.1 413 /, String(authorized.answer).slice(0, 200))
        assert.isAtMost(authorized.sent, 66 * 1024 * 1024, "refused by 64 MB (and what was in flight)")
        // Node's header limit.
        const { answer: headers } = yield* rawRequest(
          `GET /v2/campaigns HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${org.key}\r\nX-Padding: ${
            "x".repeat(20 * 1024)
          }\r\n\r\n`,
          0,
          5_000
        )
        assert.match(headers ?? "", /^HTTP\/1\.1 431 /, String(headers).slice(0, 200))
      }),
    30_000
  )
})
