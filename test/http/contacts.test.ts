/**
 * Black-box tests of the contact endpoints (the API reference, "Contacts", docs/DECISIONS.md): upload with
 * every rejection reason and all-or-nothing, the list with its cursor and filters, both
 * deletes with their 404/409, and concurrent uploads of one number, on both backends.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  addDnc,
  api,
  assertDetail,
  assertValidation,
  campaign,
  distinctNumbers,
  eachBackend,
  Fields,
  keysOf,
  listAllContacts,
  organization,
  q,
  randomNumber,
  updateOrganization,
  upload
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const uploadPath = (code: string, query = "accepted_terms_of_service=true") => `/v2/campaigns/${code}/contacts?${query}`

const national = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`

/** Every contact of the campaign, newest first. */
const contactsOf = (org: TestOrganization, code: string) => listAllContacts(org, `campaign_code=${code}&limit=1000`)

/** Sets columns the API cannot (no dialer yet): status, attempts, a dialing lease. */
const setContact = (
  id: string,
  fields: { readonly status?: string; readonly lastAttemptedAt?: string; readonly dialing?: boolean }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (fields.status !== undefined) {
      yield* sql`UPDATE contacts SET status = ${fields.status},
        next_attempt_at = CASE WHEN ${fields.status} = 'TRYING' THEN next_attempt_at ELSE NULL END
        WHERE id = ${id}::bigint`
    }
    if (fields.lastAttemptedAt !== undefined) {
      yield* sql`UPDATE contacts SET last_attempted_at = ${fields.lastAttemptedAt}::timestamptz WHERE id = ${id}::bigint`
    }
    if (fields.dialing !== undefined) {
      yield* fields.dialing
        ? sql`UPDATE contacts SET dialing_worker = 'test', dialing_lease_expires_at = now() + interval '1 hour'
              WHERE id = ${id}::bigint`
        : sql`UPDATE contacts SET dialing_worker = NULL, dialing_lease_expires_at = NULL WHERE id = ${id}::bigint`
    }
  }).pipe(Effect.orDie)

await eachBackend("contacts", (it) => {
  it.effect("upload answers {created}; the list shows exactly the Contact fields, normalized, TRYING", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const [a, b, d] = [randomNumber(), randomNumber(), randomNumber()]
      const reply = yield* api(org.key, "POST", uploadPath(c.campaign_code), {
        json: {
          contacts: [
            {
              phone_number: national(a),
              data: { first_name: "Ada", tier: "gold", nested: { n: 1 } },
              outreach_modalities: ["sms"]
            },
            { phone_number: b.slice(2), data: null, outreach_modalities: null },
            { phone_number: `1-${d.slice(2, 5)}-${d.slice(5, 8)}-${d.slice(8)}` }
          ]
        }
      })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, { created: 3 })
      const list = yield* api(org.key, "GET", `/v2/contacts?campaign_code=${c.campaign_code}`)
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(keysOf(list.body), [...Fields.contactList])
      assert.deepStrictEqual({ next_cursor: list.body.next_cursor, has_more: list.body.has_more }, {
        next_cursor: null,
        has_more: false
      })
      for (const contact of list.body.contacts) {
        assert.deepStrictEqual(keysOf(contact), [...Fields.contact])
        assert.isString(contact.id)
      }
      // Newest first: the reverse of the upload order.
      assert.deepStrictEqual(list.body.contacts.map(({ id: _, ...rest }: any) => rest), [
        { phone_number: d, status: "TRYING", data: {} },
        { phone_number: b, status: "TRYING", data: {} },
        { phone_number: a, status: "TRYING", data: { first_name: "Ada", tier: "gold", nested: { n: 1 } } }
      ])
    }))

  it.effect("upload of an empty list creates nothing", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const reply = yield* api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts: [] } })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, { created: 0 })
    }))

  it.effect("each rejection reason answers 400 {created: 0, rejected, rejected_entries} and creates nothing", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const existing = randomNumber()
      const listed = randomNumber()
      yield* upload(org, c.campaign_code, [{ phone_number: existing }])
      yield* addDnc(org.id, [national(listed)])
      const twice = randomNumber()
      const cases: ReadonlyArray<
        readonly [ReadonlyArray<Record<string, unknown>>, ReadonlyArray<{ phone_number: string; reason: string }>]
      > = [
        [[{ phone_number: "not a number" }], [{ phone_number: "not a number", reason: "invalid_phone_number" }]],
        [[{ phone_number: "+1 (202) 555" }], [{ phone_number: "+1 (202) 555", reason: "invalid_phone_number" }]],
        [[{ phone_number: national(listed) }], [{ phone_number: listed, reason: "do_not_call" }]],
        [[{ phone_number: existing }], [{ phone_number: existing, reason: "duplicate" }]],
        [[{ phone_number: twice }, { phone_number: national(twice) }], [{ phone_number: twice, reason: "duplicate" }]],
        [
          [{ phone_number: twice, data: { blob: "x".repeat(16 * 1024) } }],
          [{ phone_number: twice, reason: "data_too_large" }]
        ]
      ]
      for (const [contacts, expected] of cases) {
        const fresh = randomNumber()
        const reply = yield* api(org.key, "POST", uploadPath(c.campaign_code), {
          json: { contacts: [{ phone_number: fresh }, ...contacts] }
        })
        assert.strictEqual(reply.status, 400, reply.text)
        assert.deepStrictEqual(reply.body, { created: 0, rejected: expected.length, rejected_entries: expected })
      }
      const all = yield* contactsOf(org, c.campaign_code)
      assert.deepStrictEqual(all.map((x: any) => x.phone_number), [existing], "all or nothing")
    }))

  it.effect("a request with several problems lists every rejection at once", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const existing = randomNumber()
      const listed = randomNumber()
      const twice = randomNumber()
      const big = randomNumber()
      yield* upload(org, c.campaign_code, [{ phone_number: existing }])
      yield* addDnc(org.id, [listed])
      const reply = yield* api(org.key, "POST", uploadPath(c.campaign_code), {
        json: {
          contacts: [
            { phone_number: randomNumber() },
            { phone_number: "abc" },
            { phone_number: listed },
            { phone_number: existing },
            { phone_number: twice },
            { phone_number: twice },
            { phone_number: big, data: { blob: "é".repeat(9000) } }
          ]
        }
      })
      assert.strictEqual(reply.status, 400, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), ["created", "rejected", "rejected_entries"])
      assert.strictEqual(reply.body.created, 0)
      assert.strictEqual(reply.body.rejected, reply.body.rejected_entries.length)
      for (const entry of reply.body.rejected_entries) assert.deepStrictEqual(keysOf(entry), ["phone_number", "reason"])
      const byReason = (reason: string) =>
        reply.body.rejected_entries.filter((e: any) => e.reason === reason).map((e: any) => e.phone_number)
      assert.deepStrictEqual(byReason("invalid_phone_number"), ["abc"])
      assert.deepStrictEqual(byReason("do_not_call"), [listed])
      assert.deepStrictEqual(byReason("duplicate").sort(), [existing, twice].sort())
      assert.deepStrictEqual(byReason("data_too_large"), [big])
      assert.strictEqual(reply.body.rejected, 5)
      assert.strictEqual((yield* contactsOf(org, c.campaign_code)).length, 1)
    }))

  it.effect("data of exactly 16 KB serialized is accepted", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      // {"b":"…"} is 8 bytes around the string.
      const data = { b: "x".repeat(16 * 1024 - 8) }
      assert.strictEqual(JSON.stringify(data).length, 16 * 1024)
      assert.strictEqual(yield* upload(org, c.campaign_code, [{ phone_number: randomNumber(), data }]), 1)
    }))

  it.effect("allow_duplicates=true skips the duplicate check; delete by number removes every copy", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      const number = randomNumber()
      yield* upload(org, c.campaign_code, [{ phone_number: number }])
      yield* upload(org, other.campaign_code, [{ phone_number: number }])
      const reply = yield* api(
        org.key,
        "POST",
        uploadPath(c.campaign_code, "accepted_terms_of_service=true&allow_duplicates=true"),
        {
          json: { contacts: [{ phone_number: number }, { phone_number: national(number) }] }
        }
      )
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, { created: 2 })
      assert.strictEqual((yield* contactsOf(org, c.campaign_code)).length, 3)
      // allow_duplicates=false is the default's behavior.
      const refused = yield* api(
        org.key,
        "POST",
        uploadPath(c.campaign_code, "accepted_terms_of_service=true&allow_duplicates=false"),
        {
          json: { contacts: [{ phone_number: number }] }
        }
      )
      assert.strictEqual(refused.status, 400)
      // DNC still applies with duplicates allowed.
      const listed = randomNumber()
      yield* addDnc(org.id, [listed])
      const dnc = yield* api(
        org.key,
        "POST",
        uploadPath(c.campaign_code, "accepted_terms_of_service=true&allow_duplicates=true"),
        {
          json: { contacts: [{ phone_number: listed }] }
        }
      )
      assert.deepStrictEqual(dnc.body, {
        created: 0,
        rejected: 1,
        rejected_entries: [{ phone_number: listed, reason: "do_not_call" }]
      })
      const deleted = yield* api(
        org.key,
        "DELETE",
        `/v2/campaigns/${c.campaign_code}/contacts?phone_number=${q(national(number))}`
      )
      assert.strictEqual(deleted.status, 200, deleted.text)
      assert.deepStrictEqual(deleted.body, { deleted: 3 })
      assert.deepStrictEqual(yield* contactsOf(org, c.campaign_code), [])
      assert.strictEqual((yield* contactsOf(org, other.campaign_code)).length, 1, "other campaigns untouched")
    }))

  it.effect("10,000 contacts in one upload are accepted; 10,001 are 422 and create nothing", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const base = 2_000_000 + Math.floor(Math.random() * 1_000_000)
      const contacts = Array.from({ length: 10_001 }, (_, i) => ({
        phone_number: `+1303${base + i}`,
        data: { row: i }
      }))
      const tooMany = yield* api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts } })
      assertValidation(tooMany, ["body", "contacts"])
      const max = yield* api(org.key, "POST", uploadPath(c.campaign_code), {
        json: { contacts: contacts.slice(0, 10_000) }
      })
      assert.strictEqual(max.status, 200, max.text.slice(0, 500))
      assert.deepStrictEqual(max.body, { created: 10_000 })
      const status = yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}/status`)
      assert.strictEqual(status.body.status_counts.TRYING, 10_000)
    }))

  it.effect("accepted_terms_of_service missing or not true: 400 {detail}, nothing created", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const body = { json: { contacts: [{ phone_number: randomNumber() }] } }
      for (
        const query of [
          "",
          "accepted_terms_of_service=false",
          "accepted_terms_of_service=",
          "accepted_terms_of_service=nope",
          "allow_duplicates=true"
        ]
      ) {
        assertDetail(
          yield* api(org.key, "POST", `/v2/campaigns/${c.campaign_code}/contacts?${query}`, body),
          400,
          query
        )
      }
      assert.deepStrictEqual(yield* contactsOf(org, c.campaign_code), [])
      for (const value of ["true", "True", "1"]) {
        const ok = yield* api(org.key, "POST", uploadPath(c.campaign_code, `accepted_terms_of_service=${value}`), {
          json: { contacts: [{ phone_number: randomNumber() }] }
        })
        assert.strictEqual(ok.status, 200, value)
      }
    }))

  it.effect("upload 422: body not of the documented shape", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const path = uploadPath(c.campaign_code)
      assertValidation(yield* api(org.key, "POST", path, { json: {} }), ["body", "contacts"])
      assertValidation(yield* api(org.key, "POST", path, { json: { contacts: "+12025550123" } }), ["body", "contacts"])
      assertValidation(yield* api(org.key, "POST", path, { json: { contacts: [{}] } }), [
        "body",
        "contacts",
        0,
        "phone_number"
      ])
      assertValidation(yield* api(org.key, "POST", path, { json: { contacts: [{ phone_number: 12025550123 }] } }), [
        "body",
        "contacts",
        0,
        "phone_number"
      ])
      assertValidation(
        yield* api(org.key, "POST", path, { json: { contacts: [{ phone_number: randomNumber(), data: [1] }] } }),
        ["body", "contacts", 0, "data"]
      )
      assertValidation(
        yield* api(org.key, "POST", path, {
          json: { contacts: [{ phone_number: randomNumber(), outreach_modalities: "sms" }] }
        }),
        ["body", "contacts", 0, "outreach_modalities"]
      )
      assert.deepStrictEqual(yield* contactsOf(org, c.campaign_code), [])
    }))

  it.effect("the list is newest first across campaigns; paging with next_cursor yields each contact once", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c1 = yield* campaign(org)
      const c2 = yield* campaign(org)
      const numbers = Array.from({ length: 11 }, () => randomNumber())
      for (const [i, number] of numbers.entries()) {
        yield* upload(org, i % 2 === 0 ? c1.campaign_code : c2.campaign_code, [{ phone_number: number }])
      }
      const expected = [...numbers].reverse()
      for (const limit of [1, 3, 4, 11, 1000]) {
        const seen: Array<string> = []
        let after: string | null = null
        let pages = 0
        while (true) {
          const url: string = `/v2/contacts?limit=${limit}${after === null ? "" : `&after=${q(after)}`}`
          const page = yield* api(org.key, "GET", url)
          assert.strictEqual(page.status, 200, page.text)
          pages++
          assert.isAtMost(page.body.contacts.length, limit)
          seen.push(...page.body.contacts.map((x: any) => x.phone_number))
          if (!page.body.has_more) {
            assert.isNull(page.body.next_cursor)
            break
          }
          assert.isString(page.body.next_cursor)
          assert.strictEqual(page.body.contacts.length, limit)
          after = page.body.next_cursor
        }
        assert.deepStrictEqual(seen, expected, `limit ${limit}`)
        assert.strictEqual(pages, Math.max(1, Math.ceil(11 / limit)))
      }
      // The whole list fits the default limit.
      const all = yield* api(org.key, "GET", "/v2/contacts")
      assert.deepStrictEqual(all.body.contacts.map((x: any) => x.phone_number), expected)
      // The default limit is 100.
      yield* upload(org, c2.campaign_code, Array.from({ length: 95 }, () => ({ phone_number: randomNumber() })))
      const first = yield* api(org.key, "GET", "/v2/contacts")
      assert.strictEqual(first.body.contacts.length, 100)
      assert.strictEqual(first.body.has_more, true)
      const rest = yield* api(org.key, "GET", `/v2/contacts?after=${q(first.body.next_cursor)}`)
      assert.deepStrictEqual(rest.body.contacts.map((x: any) => x.phone_number), expected.slice(5))
      assert.strictEqual(rest.body.has_more, false)
      // Filtered by campaign, paging still works.
      const c1Numbers = yield* listAllContacts(org, `campaign_code=${c1.campaign_code}&limit=2`)
      assert.deepStrictEqual(
        c1Numbers.map((x: any) => x.phone_number),
        expected.filter((n) => numbers.indexOf(n) % 2 === 0)
      )
    }))

  it.effect("limit outside 1..1000 and malformed or tampered cursors: 400 {detail}", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }, { phone_number: randomNumber() }])
      for (const limit of ["0", "1001", "-1", "abc", "1.5", ""]) {
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?limit=${limit}`), 400, `limit=${limit}`)
      }
      const first = yield* api(org.key, "GET", "/v2/contacts?limit=1")
      const cursor: string = first.body.next_cursor
      assert.isString(cursor)
      const flipped = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1)
      // Any single character changed, anywhere (the last one included: base64's spare bits).
      for (let i = 0; i < cursor.length; i++) {
        const bad = flipped(cursor, i)
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?limit=1&after=${q(bad)}`), 400, bad)
      }
      for (
        const bad of [
          "garbage",
          "",
          "a.b",
          `${cursor}x`,
          `${cursor}=`,
          `x${cursor}`,
          cursor.replace(".", ".."),
          cursor.split(".")[0]!
        ]
      ) {
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?limit=1&after=${q(bad)}`), 400, bad)
      }
      // The genuine cursor works.
      const second = yield* api(org.key, "GET", `/v2/contacts?limit=1&after=${q(cursor)}`)
      assert.strictEqual(second.status, 200)
      assert.strictEqual(second.body.contacts.length, 1)
    }))

  it.effect("filters: repeated status, data containment, attempted_after/before, campaign_code", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c1 = yield* campaign(org)
      const c2 = yield* campaign(org)
      const [n1, n2, n3, n4] = [randomNumber(), randomNumber(), randomNumber(), randomNumber()]
      yield* upload(org, c1.campaign_code, [
        { phone_number: n1, data: { tier: "gold", region: { state: "CA" }, n: 1 } },
        { phone_number: n2, data: { tier: "silver", n: 2 } }
      ])
      yield* upload(org, c2.campaign_code, [
        { phone_number: n3, data: { tier: "gold", n: 3 } },
        { phone_number: n4, data: {} }
      ])
      const ids = new Map<string, string>(
        (yield* contactsOf(org, c1.campaign_code)).concat(yield* contactsOf(org, c2.campaign_code))
          .map((x: any) => [x.phone_number, x.id])
      )
      yield* setContact(ids.get(n1)!, { status: "COMPLETED", lastAttemptedAt: "2026-11-21T05:00:00Z" })
      yield* setContact(ids.get(n2)!, { status: "FAILED", lastAttemptedAt: "2026-11-21T06:00:00Z" })
      yield* setContact(ids.get(n3)!, { status: "PARTIALLY_COMPLETED", lastAttemptedAt: "2026-11-21T07:00:00Z" })
      const numbersOf = (query: string) =>
        Effect.map(listAllContacts(org, query), (contacts) => contacts.map((x: any) => x.phone_number as string).sort())
      const sorted = (...ns: Array<string>) => [...ns].sort()
      assert.deepStrictEqual(yield* numbersOf("status=COMPLETED"), [n1])
      assert.deepStrictEqual(yield* numbersOf("status=COMPLETED&status=FAILED"), sorted(n1, n2))
      assert.deepStrictEqual(yield* numbersOf("status=TRYING"), [n4])
      assert.deepStrictEqual(yield* numbersOf(`data=${q(JSON.stringify({ tier: "gold" }))}`), sorted(n1, n3))
      assert.deepStrictEqual(yield* numbersOf(`data=${q(JSON.stringify({ region: { state: "CA" } }))}`), [n1])
      assert.deepStrictEqual(yield* numbersOf(`data=${q(JSON.stringify({ tier: "gold", n: 3 }))}`), [n3])
      assert.deepStrictEqual(yield* numbersOf(`data=${q(JSON.stringify({ tier: "bronze" }))}`), [])
      assert.deepStrictEqual(yield* numbersOf(`data=${q("{}")}`), sorted(n1, n2, n3, n4))
      assert.deepStrictEqual(
        yield* numbersOf(`attempted_after=${q("2026-11-21T06:00:00Z")}`),
        sorted(n2, n3),
        "inclusive"
      )
      assert.deepStrictEqual(
        yield* numbersOf(`attempted_before=${q("2026-11-21T06:00:00Z")}`),
        sorted(n1, n2),
        "inclusive"
      )
      assert.deepStrictEqual(
        yield* numbersOf(
          `attempted_after=${q("2026-11-21T05:30:00.123456+00:00")}&attempted_before=${q("2026-11-21T08:30:00+02:00")}`
        ),
        [n2],
        "Python-style timestamps with offsets"
      )
      // Unencoded "+" of an offset arrives as a space; it still parses.
      assert.deepStrictEqual(yield* numbersOf("attempted_after=2026-11-21T06:30:00.000001+00:00"), [n3])
      assert.deepStrictEqual(yield* numbersOf(`campaign_code=${c2.campaign_code}`), sorted(n3, n4))
      assert.deepStrictEqual(
        yield* numbersOf(`campaign_code=${c1.campaign_code}&status=FAILED&data=${q("{\"n\":2}")}`),
        [n2]
      )
      assert.deepStrictEqual(yield* numbersOf(`campaign_code=${c2.campaign_code}&status=FAILED`), [])
    }))

  it.effect("list 400: bad status, data, dates; 404: unknown campaign_code (after the 400s)", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (
        const query of [
          "status=DONE",
          "status=TRYING&status=trying",
          "data=notjson",
          `data=${q("[1,2]")}`,
          `data=${q("\"gold\"")}`,
          "data=null",
          "attempted_after=yesterday",
          "attempted_before=2026-02-30T00:00:00Z",
          "attempted_after=2026-11-21T25:00:00Z"
        ]
      ) {
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?${query}`), 400, query)
        assertDetail(yield* api(org.key, "GET", `/v2/contacts?${query}&campaign_code=gcmp-unknown`), 400, query)
      }
      assertDetail(yield* api(org.key, "GET", "/v2/contacts?campaign_code=gcmp-unknown"), 404)
      assertDetail(yield* api(org.key, "GET", "/v2/contacts?campaign_code="), 404)
    }))

  it.effect("delete by phone number: any US formatting; 400 not a dialable US number; 404; 422 missing", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const [a, b, d] = [randomNumber(), randomNumber(), randomNumber()]
      yield* upload(org, c.campaign_code, [{ phone_number: a }, { phone_number: b }, { phone_number: d }])
      const path = `/v2/campaigns/${c.campaign_code}/contacts`
      const byNational = yield* api(org.key, "DELETE", `${path}?phone_number=${q(national(a))}`)
      assert.strictEqual(byNational.status, 200, byNational.text)
      assert.deepStrictEqual(byNational.body, { deleted: 1 })
      assert.deepStrictEqual((yield* api(org.key, "DELETE", `${path}?phone_number=${b.slice(2)}`)).body, { deleted: 1 })
      assert.deepStrictEqual(
        (yield* api(
          org.key,
          "DELETE",
          `${path}?phone_number=${q(`1.${d.slice(2, 5)}.${d.slice(5, 8)}.${d.slice(8)}`)}`
        )).body,
        { deleted: 1 }
      )
      for (const bad of ["12345", "not-a-number", "+442079460958", "+14165550123", "+1 (911) 555-0123"]) {
        assertDetail(yield* api(org.key, "DELETE", `${path}?phone_number=${q(bad)}`), 400, bad)
        // 400 before 404.
        assertDetail(
          yield* api(org.key, "DELETE", `/v2/campaigns/gcmp-unknown/contacts?phone_number=${q(bad)}`),
          400,
          bad
        )
      }
      assertDetail(yield* api(org.key, "DELETE", `${path}?phone_number=${q(a)}`), 404)
      assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/gcmp-unknown/contacts?phone_number=${q(a)}`), 404)
      assertValidation(yield* api(org.key, "DELETE", path), ["query", "phone_number"])
    }))

  it.effect("delete by phone number: 409 while a copy is being dialed, and nothing is removed", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const number = randomNumber()
      yield* upload(
        org,
        c.campaign_code,
        [{ phone_number: number }, { phone_number: number }],
        "&allow_duplicates=true"
      )
      const [first] = yield* contactsOf(org, c.campaign_code)
      yield* setContact(first.id, { dialing: true })
      const path = `/v2/campaigns/${c.campaign_code}/contacts?phone_number=${q(number)}`
      assertDetail(yield* api(org.key, "DELETE", path), 409)
      assert.strictEqual((yield* contactsOf(org, c.campaign_code)).length, 2)
      assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${first.id}`), 409)
      assert.strictEqual((yield* contactsOf(org, c.campaign_code)).length, 2)
      yield* setContact(first.id, { dialing: false })
      assert.deepStrictEqual((yield* api(org.key, "DELETE", path)).body, { deleted: 2 })
    }))

  it.effect("delete one contact: {deleted: 1}; 404 for another campaign's contact, unknown or malformed ids", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }, { phone_number: randomNumber() }])
      yield* upload(org, other.campaign_code, [{ phone_number: randomNumber() }])
      const [x, y] = yield* contactsOf(org, c.campaign_code)
      const [z] = yield* contactsOf(org, other.campaign_code)
      const deleted = yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${x.id}`)
      assert.strictEqual(deleted.status, 200, deleted.text)
      assert.deepStrictEqual(deleted.body, { deleted: 1 })
      assert.deepStrictEqual((yield* contactsOf(org, c.campaign_code)).map((k: any) => k.id), [y.id])
      for (const id of [x.id, z.id, "999999999999", "abc", "-1", "1.5", "99999999999999999999999"]) {
        assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${id}`), 404, id)
      }
      assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/gcmp-unknown/contacts/${y.id}`), 404)
      assert.strictEqual((yield* contactsOf(org, other.campaign_code)).length, 1)
    }))

  it.effect("a contact id is written one way: 0, leading zeros, a sign or a space name no contact (404)", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }])
      const [contact] = yield* contactsOf(org, c.campaign_code)
      for (
        const id of ["0", `0${contact.id}`, `00${contact.id}`, `+${contact.id}`, `${contact.id}.0`, `%20${contact.id}`]
      ) {
        const path = `/v2/campaigns/${c.campaign_code}/contacts/${id}`
        assertDetail(yield* api(org.key, "GET", `${path}/eligibility`), 404, id)
        assertDetail(yield* api(org.key, "DELETE", path), 404, id)
      }
      assert.deepStrictEqual((yield* contactsOf(org, c.campaign_code)).map((k: any) => k.id), [contact.id])
      const eligibility = yield* api(
        org.key,
        "GET",
        `/v2/campaigns/${c.campaign_code}/contacts/${contact.id}/eligibility`
      )
      assert.strictEqual(eligibility.status, 200, eligibility.text)
    }))

  it.effect("contacts of a deleted campaign leave the list; its contact paths answer 404", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const number = randomNumber()
      yield* upload(org, c.campaign_code, [{ phone_number: number }])
      const [contact] = yield* contactsOf(org, c.campaign_code)
      yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}`)
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/contacts")).body.contacts, [])
      assertDetail(yield* api(org.key, "GET", `/v2/contacts?campaign_code=${c.campaign_code}`), 404)
      assertDetail(yield* api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts: [] } }), 404)
      assertDetail(
        yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts?phone_number=${q(number)}`),
        404
      )
      assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${contact.id}`), 404)
    }))

  it.effect("every contact endpoint: 401, then 403 with dialing disabled, 404 unknown campaign", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }])
      const [contact] = yield* contactsOf(org, c.campaign_code)
      const number = randomNumber()
      const endpoints = (code: string): ReadonlyArray<readonly [string, string, unknown]> => [
        ["POST", uploadPath(code), { contacts: [{ phone_number: number }] }],
        ["GET", `/v2/contacts?campaign_code=${code}`, undefined],
        ["DELETE", `/v2/campaigns/${code}/contacts?phone_number=${q(number)}`, undefined],
        ["DELETE", `/v2/campaigns/${code}/contacts/${contact.id}`, undefined]
      ]
      for (const [method, path, json] of [...endpoints(c.campaign_code), ["GET", "/v2/contacts", undefined] as const]) {
        for (const token of [null, "nope"]) {
          assertDetail(yield* api(token, method, path, { json }), 401, `${method} ${path}`)
        }
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      for (const [method, path, json] of [...endpoints(c.campaign_code), ["GET", "/v2/contacts", undefined] as const]) {
        assertDetail(yield* api(org.key, method, path, { json }), 403, `${method} ${path}`)
      }
      // 403 before 422 and 400.
      assertDetail(yield* api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts: "x" } }), 403)
      assertDetail(
        yield* api(org.key, "POST", `/v2/campaigns/${c.campaign_code}/contacts`, { json: { contacts: [] } }),
        403
      )
      assertDetail(yield* api(org.key, "GET", "/v2/contacts?limit=0"), 403)
      assertDetail(yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts`), 403)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      for (const [method, path, json] of endpoints("gcmp-unknown")) {
        assertDetail(yield* api(org.key, method, path, { json }), 404, `${method} ${path}`)
      }
      assert.strictEqual((yield* contactsOf(org, c.campaign_code)).length, 1, "nothing changed")
    }))

  it.effect("check order on upload: 422 body and 400 terms come before 404 campaign", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      assertValidation(yield* api(org.key, "POST", uploadPath("gcmp-unknown"), { json: { contacts: 1 } }), [
        "body",
        "contacts"
      ])
      assertDetail(yield* api(org.key, "POST", "/v2/campaigns/gcmp-unknown/contacts", { json: { contacts: [] } }), 400)
      assertDetail(yield* api("bad", "POST", "/v2/campaigns/gcmp-unknown/contacts", { json: { contacts: 1 } }), 401)
    }))

  it.effect("two concurrent uploads of one number: exactly one succeeds, the other is a duplicate", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (let round = 0; round < 4; round++) {
        const c = yield* campaign(org)
        const [number, ...rest] = distinctNumbers(401)
        const shared = [{ phone_number: number }]
        const fillers = (from: number) => rest.slice(from, from + 200).map((phone_number) => ({ phone_number }))
        const replies = yield* Effect.all([
          api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts: [...fillers(0), ...shared] } }),
          api(org.key, "POST", uploadPath(c.campaign_code), { json: { contacts: [...shared, ...fillers(200)] } })
        ], { concurrency: "unbounded" })
        const statuses = replies.map((r) => r.status).sort((x, y) => x - y)
        assert.deepStrictEqual(statuses, [200, 400], replies.map((r) => r.text.slice(0, 200)).join(" | "))
        const loser = replies.find((r) => r.status === 400)!
        assert.deepStrictEqual(loser.body, {
          created: 0,
          rejected: 1,
          rejected_entries: [{ phone_number: number, reason: "duplicate" }]
        })
        const all = yield* contactsOf(org, c.campaign_code)
        assert.strictEqual(all.length, 201)
        assert.strictEqual(all.filter((x: any) => x.phone_number === number).length, 1)
      }
    }))
})
