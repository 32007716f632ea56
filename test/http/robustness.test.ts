/**
 * No input, however malformed, yields a 500 or a partial write (issue 3, docs/DECISIONS.md "What
 * real clients send"): bad JSON, JSON of the wrong type, huge bodies, unknown fields, bad
 * percent-encoding, text the database cannot store, deep nesting, empty bodies, odd headers.
 * Every error answer carries `{"detail": ...}`.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  admin,
  api,
  assertDetail,
  assertValidation,
  campaign,
  campaignBody,
  eachBackend,
  Fields,
  keysOf,
  listAllContacts,
  organization,
  q,
  randomNumber,
  request
} from "./support/ApiServer.ts"
import type { Reply, TestOrganization } from "./support/ApiServer.ts"

/** Every body-taking endpoint of the public API, with a valid body. */
const bodyEndpoints = (org: TestOrganization, c: any): ReadonlyArray<readonly [string, string, unknown]> => [
  ["POST", "/v2/campaigns", campaignBody(org)],
  ["PATCH", `/v2/campaigns/${c.campaign_code}`, { description: "x" }],
  ["POST", `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`, {
    contacts: [{ phone_number: randomNumber() }]
  }],
  ["PATCH", `/v1/campaigns/${c.id}`, { description: "x" }],
  ["POST", `/v1/campaigns/${c.id}/contacts?accepted_terms_of_service=true`, {
    contacts: [{ phone_number: randomNumber() }]
  }],
  ["POST", "/v1/send-sms", { from_number: org.number, to_number: randomNumber(), message: "hi" }]
]

/** Asserts nothing was written: the organization's only campaign is `c`, unchanged, with no contacts. */
const assertUntouched = (org: TestOrganization, c: any) =>
  Effect.gen(function*() {
    assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/campaigns")).body, [c])
    assert.deepStrictEqual(yield* listAllContacts(org, ""), [])
  })

const assertNot500 = (reply: Reply, label: string) => {
  assert.isBelow(reply.status, 500, `${label}: ${reply.status} ${reply.text.slice(0, 300)}`)
  assert.isAtLeast(reply.status, 400, label)
  assert.isString(
    reply.body?.detail === undefined ? undefined : "ok",
    `${label}: no {detail} body: ${reply.text.slice(0, 200)}`
  )
}

await eachBackend("robustness", (it) => {
  it.effect("invalid JSON and JSON of the wrong type answer 422 at [body] on every body endpoint", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      for (const [method, path] of bodyEndpoints(org, c)) {
        for (const body of ["{bad", "{\"name\":", "", "nul", "{'a': 1}", "[1,2", "\u00ff\u00fe"]) {
          const reply = yield* api(org.key, method, path, { body })
          assertValidation(reply, ["body"])
        }
        for (const body of ["[]", "[{}]", "\"text\"", "42", "null", "true"]) {
          assertValidation(yield* api(org.key, method, path, { body }), ["body"])
        }
      }
      yield* assertUntouched(org, c)
    }))

  it.effect("wrong field types are 422 at the field; nothing is written", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const cases: ReadonlyArray<readonly [string, string, unknown, ReadonlyArray<string | number>]> = [
        ["POST", "/v2/campaigns", campaignBody(org, { origin_phone_numbers: "+12025550123" }), [
          "body",
          "origin_phone_numbers"
        ]],
        ["POST", "/v2/campaigns", campaignBody(org, { calling_windows: {} }), ["body", "calling_windows"]],
        ["POST", "/v2/campaigns", campaignBody(org, { calling_windows: [] }), ["body", "calling_windows"]],
        ["POST", "/v2/campaigns", campaignBody(org, { origin_phone_numbers: [] }), ["body", "origin_phone_numbers"]],
        ["POST", "/v2/campaigns", campaignBody(org, { max_attempts: 1.5 }), ["body", "max_attempts"]],
        ["POST", "/v2/campaigns", campaignBody(org, { max_concurrency: 0 }), ["body", "max_concurrency"]],
        ["POST", "/v2/campaigns", campaignBody(org, { max_concurrency: -1 }), ["body", "max_concurrency"]],
        ["POST", "/v2/campaigns", campaignBody(org, { max_concurrency: "2" }), ["body", "max_concurrency"]],
        ["POST", "/v2/campaigns", campaignBody(org, { start_date: 20260101 }), ["body", "start_date"]],
        ["POST", "/v2/campaigns", campaignBody(org, { start_date: "0000-01-01" }), ["body", "start_date"]],
        ["POST", "/v2/campaigns", campaignBody(org, { end_date: "2025-12-31" }), ["body", "end_date"]],
        ["POST", "/v2/campaigns", campaignBody(org, { description: 7 }), ["body", "description"]],
        [
          "POST",
          "/v2/campaigns",
          campaignBody(org, { calling_windows: [{ day: null, start_time: "9am", end_time: "5pm" }] }),
          ["body", "calling_windows", 0, "day"]
        ],
        [
          "POST",
          "/v2/campaigns",
          campaignBody(org, { calling_windows: [{ day: 1.5, start_time: "9am", end_time: "5pm" }] }),
          ["body", "calling_windows", 0, "day"]
        ],
        [
          "POST",
          "/v2/campaigns",
          campaignBody(org, { calling_windows: [{ day: 1, start_time: 9, end_time: "5pm" }] }),
          ["body", "calling_windows", 0, "start_time"]
        ],
        ["PATCH", `/v2/campaigns/${c.campaign_code}`, { max_attempts: null }, ["body", "max_attempts"]],
        ["PATCH", `/v2/campaigns/${c.campaign_code}`, { start_date: "2026-02-30" }, ["body", "start_date"]],
        ["PATCH", `/v2/campaigns/${c.campaign_code}`, { name: "" }, ["body", "name"]],
        ["PATCH", `/v2/campaigns/${c.campaign_code}`, { name: "   " }, ["body", "name"]],
        ["POST", "/v1/send-sms", { from_number: org.number, to_number: randomNumber(), message: "" }, [
          "body",
          "message"
        ]],
        ["POST", "/v1/send-sms", { from_number: org.number, to_number: randomNumber(), message: "x".repeat(1601) }, [
          "body",
          "message"
        ]]
      ]
      for (const [method, path, json, loc] of cases) {
        assertValidation(yield* api(org.key, method, path, { json }), loc)
      }
      // An end date before the stored start date needs the campaign: 400, not a 422.
      assertDetail(
        yield* api(org.key, "PATCH", `/v2/campaigns/${c.campaign_code}`, { json: { end_date: "2025-01-01" } }),
        400
      )
      yield* assertUntouched(org, c)
    }))

  it.effect("unknown fields are ignored and never echoed", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* api(org.key, "POST", "/v2/campaigns", {
        json: campaignBody(org, {
          color: "blue",
          id: "mine",
          campaign_code: "gcmp-mine",
          created_datetime: "x",
          warning: "y"
        })
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(keysOf(created.body), [...Fields.campaign])
      assert.notStrictEqual(created.body.id, "mine")
      assert.notStrictEqual(created.body.campaign_code, "gcmp-mine")
      const code = created.body.campaign_code
      const patched = yield* api(org.key, "PATCH", `/v2/campaigns/${code}`, { json: { description: "d", shiny: true } })
      assert.strictEqual(patched.status, 200)
      assert.deepStrictEqual(keysOf(patched.body), [...Fields.campaign])
      // Only unknown fields: there is nothing to update.
      assertDetail(yield* api(org.key, "PATCH", `/v2/campaigns/${code}`, { json: { shiny: true } }), 400)
      const uploaded = yield* api(
        org.key,
        "POST",
        `/v2/campaigns/${code}/contacts?accepted_terms_of_service=true&utm=1`,
        {
          json: { contacts: [{ phone_number: randomNumber(), email: "a@b.c", status: "COMPLETED" }], source: "crm" }
        }
      )
      assert.deepStrictEqual(uploaded.body, { created: 1 })
      const [contact] = yield* listAllContacts(org, `campaign_code=${code}&unknown=1`)
      assert.deepStrictEqual(keysOf(contact), [...Fields.contact])
      assert.strictEqual(contact.status, "TRYING")
      const sent = yield* api(org.key, "POST", "/v1/send-sms", {
        json: { from_number: org.number, to_number: randomNumber(), message: "hi", media_url: "http://x" }
      })
      assert.deepStrictEqual(sent.body, { status: "queued" })
    }))

  it.effect("null for an optional field means absent", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* api(org.key, "POST", "/v2/campaigns", {
        json: campaignBody(org, {
          max_attempts: null,
          retry_delay_s: null,
          max_concurrency: null,
          timezone: null,
          end_date: null,
          description: null
        })
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.include(created.body, {
        max_attempts: 1,
        retry_delay_s: 3600,
        max_concurrency: 1,
        timezone: "America/Los_Angeles",
        end_date: null,
        description: null
      })
      const number = randomNumber()
      const uploaded = yield* api(
        org.key,
        "POST",
        `/v2/campaigns/${created.body.campaign_code}/contacts?accepted_terms_of_service=true`,
        {
          json: { contacts: [{ phone_number: number, data: null, outreach_modalities: null }] }
        }
      )
      assert.deepStrictEqual(uploaded.body, { created: 1 })
      const [contact] = yield* listAllContacts(org, "")
      assert.deepStrictEqual(contact.data, {})
    }))

  it.effect("text the database cannot store (NUL, unpaired surrogates) is 422 at the field, never 500", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const upload = `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`
      const number = randomNumber()
      const cases: ReadonlyArray<readonly [string, string, string, ReadonlyArray<string | number>]> = [
        ["POST", "/v2/campaigns", JSON.stringify(campaignBody(org, { name: "a\u0000b" })), ["body", "name"]],
        ["POST", "/v2/campaigns", JSON.stringify(campaignBody(org, { description: "a\u0000b" })), [
          "body",
          "description"
        ]],
        [
          "POST",
          "/v2/campaigns",
          JSON.stringify(campaignBody(org)).replace(/"name":"[^"]*"/, "\"name\":\"x\\ud800\""),
          ["body", "name"]
        ],
        ["PATCH", `/v2/campaigns/${c.campaign_code}`, "{\"description\":\"\\u0000\"}", ["body", "description"]],
        ["POST", upload, `{"contacts":[{"phone_number":"${number}","data":{"a":"x\\u0000y"}}]}`, [
          "body",
          "contacts",
          0,
          "data",
          "a"
        ]],
        ["POST", upload, `{"contacts":[{"phone_number":"${number}","data":{"k\\u0000":1}}]}`, [
          "body",
          "contacts",
          0,
          "data",
          "k\u0000"
        ]],
        ["POST", upload, `{"contacts":[{"phone_number":"${number}","data":{"a":["\\udfff"]}}]}`, [
          "body",
          "contacts",
          0,
          "data",
          "a",
          0
        ]],
        ["POST", upload, `{"contacts":[{"phone_number":"${number}","outreach_modalities":["s\\u0000"]}]}`, [
          "body",
          "contacts",
          0,
          "outreach_modalities",
          0
        ]],
        ["POST", "/v1/send-sms", JSON.stringify({ from_number: org.number, to_number: number, message: "a\u0000" }), [
          "body",
          "message"
        ]]
      ]
      for (const [method, path, body, loc] of cases) {
        assertValidation(yield* api(org.key, method, path, { body }), loc)
      }
      assertValidation(
        yield* api(org.key, "POST", upload, { body: `{"contacts":[{"phone_number":"${number}\\u0000"}]}` }),
        ["body", "contacts", 0, "phone_number"]
      )
      yield* assertUntouched(org, c)
      // In paths and queries: nothing has such a name.
      for (
        const [method, path] of [
          ["GET", "/v2/campaigns/gcmp-a%00b"],
          ["GET", "/v2/campaigns/gcmp-a%00b/status"],
          ["DELETE", "/v2/campaigns/gcmp-a%00b"],
          ["GET", "/v1/campaigns/a%00b"],
          ["GET", "/v2/contacts?campaign_code=a%00b"],
          ["GET", "/v1/contacts?campaign_id=a%00b"],
          ["DELETE", `/v2/campaigns/${c.campaign_code}/contacts/1%00`],
          ["GET", "/v1/conversations/CA%00x"],
          ["GET", "/v1/conversations/CA%00x/transcript"],
          ["GET", "/v1/conversations/CA%00x/recording"]
        ] as const
      ) {
        assertDetail(yield* api(org.key, method, path), 404, path)
      }
      for (const filter of ["{\"a\":\"\\u0000\"}", "{\"\\u0000\":1}", "{\"a\":\"\\ud800\"}"]) {
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?data=${q(filter)}`), 400, filter)
      }
      assertDetail(yield* api(org.key, "GET", "/v2/contacts?status=TRYING%00"), 400)
      assertDetail(yield* api(org.key, "GET", "/v2/contacts?after=%00"), 400)
      assertValidation(yield* api(org.key, "GET", `/v1/messages?to_number=${q(org.number)}%00`), ["query", "to_number"])
    }))

  it.effect("data nested deeper than 32 levels is 422; 32 levels are accepted", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const upload = `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`
      // data is level 1 below the contact (level 2 in the body); "[" x n adds n levels.
      const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
      for (const depth of [100, 8000, 100_000]) {
        const reply = yield* api(org.key, "POST", upload, {
          body: `{"contacts":[{"phone_number":"${randomNumber()}","data":{"a":${nested(depth)}}}]}`
        })
        assert.strictEqual(reply.status, 422, `${depth}: ${reply.text.slice(0, 200)}`)
        assert.deepStrictEqual(reply.body.detail[0].loc.slice(0, 5), ["body", "contacts", 0, "data", "a"])
      }
      const ok = yield* api(org.key, "POST", upload, {
        body: `{"contacts":[{"phone_number":"${randomNumber()}","data":{"a":${nested(28)}}}]}`
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assertDetail(yield* api(org.key, "GET", `/v2/contacts?data=${q(`{"a":${nested(40)}}`)}`), 400)
    }))

  it.effect("huge bodies: over the limit 413 {detail}; large but under it, validated normally", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const large = yield* api(org.key, "POST", "/v2/campaigns", {
        body: JSON.stringify(campaignBody(org, { name: "x".repeat(5_000_000) }))
      })
      assertValidation(large, ["body", "name"])
      const huge = yield* api(
        org.key,
        "POST",
        `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`,
        {
          body: `{"contacts":[{"phone_number":"${randomNumber()}","data":{"blob":"${"x".repeat(65 * 1024 * 1024)}"}}]}`
        }
      )
      assertDetail(huge, 413)
      yield* assertUntouched(org, c)
    }))

  it.effect("bad percent-encoding in paths and queries is a 4xx with {detail}", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      for (
        const [method, path] of [
          ["GET", "/v2/campaigns/%ZZ"],
          ["GET", "/v2/campaigns/%E0%A4"],
          ["GET", "/v2/campaigns/%"],
          ["PATCH", "/v2/campaigns/%C0%80"],
          ["DELETE", "/v2/campaigns/%FF%FE"],
          ["GET", "/v1/conversations/%E0%A4%A/recording"],
          ["GET", "/v1/conversations/x/channels/%ZZ/recording"],
          ["GET", "/v2/contacts?campaign_code=%E0%A4%A"],
          ["GET", "/v2/contacts?status=%ZZ"],
          ["GET", "/v2/contacts?limit=%"],
          ["GET", "/v1/conversations?from_number=%ZZ"],
          ["GET", "/v1/messages?to_number=%2"],
          ["DELETE", `/v2/campaigns/${c.campaign_code}/contacts?phone_number=%E0%A4%A`],
          ["POST", `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=%ZZ`]
        ] as const
      ) {
        const reply = yield* api(org.key, method, path, {
          json: method === "GET" || method === "DELETE" ? undefined : { contacts: [] }
        })
        assertNot500(reply, `${method} ${path}`)
      }
      // An unknown parameter is ignored, however it is encoded.
      assert.strictEqual((yield* api(org.key, "GET", "/v2/contacts?%ZZ=1")).status, 200)
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}`)).body, c)
    }))

  it.effect("requests without a body (Content-Length 0) where none is required are accepted", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      const number = randomNumber()
      yield* api(org.key, "POST", `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`, {
        json: { contacts: [{ phone_number: number }, { phone_number: randomNumber() }] }
      })
      // Newest first: the second contact, not the one deleted by number below.
      const [second] = yield* listAllContacts(org, "")
      const empty = { headers: { "content-length": "0" } }
      const emptyJson = { headers: { "content-length": "0", "content-type": "application/json" } }
      for (const options of [empty, emptyJson]) {
        assert.strictEqual((yield* api(org.key, "GET", "/v2/campaigns", options)).status, 200)
        assert.strictEqual((yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}/status`, options)).status, 200)
        assert.strictEqual((yield* api(org.key, "GET", "/v1/conversations", options)).status, 200)
      }
      const byNumber = yield* api(
        org.key,
        "DELETE",
        `/v2/campaigns/${c.campaign_code}/contacts?phone_number=${q(number)}`,
        empty
      )
      assert.deepStrictEqual(byNumber.body, { deleted: 1 }, byNumber.text)
      assert.deepStrictEqual(
        (yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${second.id}`, emptyJson)).body,
        { deleted: 1 }
      )
      assert.deepStrictEqual((yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}`, emptyJson)).body, {
        ok: true
      })
      // A JSON body where none is expected is ignored.
      assert.deepStrictEqual(
        (yield* api(org.key, "DELETE", `/v2/campaigns/${other.campaign_code}`, { json: { force: true } })).body,
        { ok: true }
      )
      // The admin API's body-less POST (a new key).
      const orgs = yield* admin("POST", "/admin/v1/organizations", { name: "empty-body" }, 201)
      const key = yield* request("POST", `/admin/v1/organizations/${orgs.body.id}/api-keys`, {
        token: "test-admin-token",
        ...empty
      })
      assert.strictEqual(key.status, 201, key.text)
      // Where a body is required, its absence is a validation error.
      assertValidation(yield* api(org.key, "POST", "/v2/campaigns", empty), ["body"])
      assertValidation(yield* api(org.key, "POST", "/v1/send-sms", emptyJson), ["body"])
    }))

  it.effect("content types other than JSON are refused with {detail}, never 500", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      for (
        const contentType of [
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml"
        ]
      ) {
        const reply = yield* api(org.key, "POST", "/v2/campaigns", {
          body: JSON.stringify(campaignBody(org)),
          headers: { "content-type": contentType }
        })
        assert.include([415, 422], reply.status, `${contentType}: ${reply.status} ${reply.text}`)
        assert.match(String(reply.headers["content-type"]), /^application\/json/, contentType)
        assertDetail(reply, reply.status, contentType)
      }
      const charset = yield* api(org.key, "POST", "/v2/campaigns", {
        body: JSON.stringify(campaignBody(org)),
        headers: { "content-type": "application/json; charset=utf-8" }
      })
      assert.strictEqual(charset.status, 201, charset.text)
      yield* api(org.key, "DELETE", `/v2/campaigns/${charset.body.campaign_code}`)
      yield* assertUntouched(org, c)
    }))

  it.effect("unknown headers are ignored; the bearer scheme is case-insensitive", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const headers = {
        "x-request-id": "abc",
        "x-forwarded-for": "not an ip",
        "user-agent": "python-requests/2.32.3",
        "accept": "application/xml",
        "accept-encoding": "br, gzip",
        "x-empty": "",
        "cookie": "session=1; x=%ZZ",
        "if-none-match": "\"garbage\""
      }
      const reply = yield* api(org.key, "GET", "/v2/campaigns", { headers })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, [])
      for (const scheme of ["bearer", "BEARER", "Bearer"]) {
        const ok = yield* request("GET", "/v2/campaigns", { headers: { authorization: `${scheme} ${org.key}` } })
        assert.strictEqual(ok.status, 200, scheme)
      }
      for (
        const authorization of [
          `Basic ${org.key}`,
          org.key,
          "Bearer",
          "Bearer ",
          `Token ${org.key}`,
          `Bearer ${"k".repeat(4000)}`
        ]
      ) {
        assertDetail(
          yield* request("GET", "/v2/campaigns", { headers: { authorization } }),
          401,
          authorization.slice(0, 20)
        )
      }
    }))

  it.effect("unknown routes answer 404 {detail}; other methods on known paths 404 or 405 {detail}", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (
        const [method, path] of [
          // GET / redirects to the web console.
          ["POST", "/"],
          ["GET", "/v3/campaigns"],
          ["GET", "/v2/campaign"],
          ["GET", "/v2/campaigns/x/y/z"],
          ["POST", "/v1/conversations"],
          ["GET", "/v1/send-sms"],
          ["PUT", "/v2/campaigns"],
          ["DELETE", "/v2/contacts"],
          ["PUT", `/v2/campaigns/gcmp-x`],
          ["PATCH", "/v1/conversations/x"]
        ] as const
      ) {
        for (const token of [org.key, null]) {
          const reply = yield* api(token, method, path)
          assert.include([401, 404, 405], reply.status, `${method} ${path}: ${reply.status} ${reply.text}`)
          assertDetail(reply, reply.status, `${method} ${path}`)
        }
      }
      assertDetail(yield* api(org.key, "GET", `/v2/campaigns/${"x".repeat(8000)}`), 404)
      assertDetail(yield* api(org.key, "GET", `/v1/conversations/${"x".repeat(8000)}/recording`), 404)
    }))

  it.effect("repeated single-valued query parameters are a 4xx, never 500", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      for (
        const [method, path] of [
          ["GET", "/v2/contacts?limit=1&limit=2"],
          ["GET", `/v2/contacts?campaign_code=${c.campaign_code}&campaign_code=${c.campaign_code}`],
          ["GET", "/v1/conversations?direction=inbound&direction=outbound"],
          ["GET", `/v1/messages?to_number=${q(org.number)}&to_number=${q(org.number)}`],
          [
            "POST",
            `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true&accepted_terms_of_service=true`
          ],
          ["DELETE", `/v2/campaigns/${c.campaign_code}/contacts?phone_number=1&phone_number=2`]
        ] as const
      ) {
        const reply = yield* api(org.key, method, path, { json: method === "POST" ? { contacts: [] } : undefined })
        assertNot500(reply, `${method} ${path}`)
      }
    }))
})
