/**
 * Black-box tests of the v2 campaign endpoints (the API reference, "Campaigns", docs/DECISIONS.md): create,
 * list, get, update, delete, status, has-callable-contacts, with exact shapes and every row
 * of the Errors table, on both backends.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  addDnc,
  addNumber,
  api,
  assertDetail,
  assertValidation,
  campaign,
  campaignBody,
  eachBackend,
  Fields,
  isIsoInstant,
  keysOf,
  organization,
  randomNumber,
  uniqueName,
  updateOrganization,
  upload
} from "./support/ApiServer.ts"

const allWeek = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" }))

await eachBackend("v2 campaigns", (it) => {
  it.effect("create answers 201 with exactly the Campaign fields, normalized, with the defaults", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const digits = org.number.slice(2)
      const national = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`
      const name = uniqueName("Spring drive")
      const reply = yield* api(org.key, "POST", "/v2/campaigns", {
        json: {
          name,
          origin_phone_numbers: [national],
          start_date: "2026-03-01",
          calling_windows: [
            { day: "monday", start_time: "9am", end_time: "5:30PM" },
            { day: "Sunday", start_time: "08:00", end_time: "21:00" },
            { day: 2, start_time: "9:00AM", end_time: "12pm" }
          ]
        }
      })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), [...Fields.campaign], "no warning inside 08:00-21:00")
      const { created_datetime, id, campaign_code, ...rest } = reply.body
      assert.isTrue(isIsoInstant(created_datetime), created_datetime)
      assert.isString(id)
      assert.isNotEmpty(id)
      assert.match(campaign_code, /^gcmp-/)
      assert.deepStrictEqual(rest, {
        name,
        origin_phone_numbers: [org.number],
        start_date: "2026-03-01",
        end_date: null,
        calling_windows: [
          { day: 0, start_time: "09:00", end_time: "17:30" },
          { day: 6, start_time: "08:00", end_time: "21:00" },
          { day: 2, start_time: "09:00", end_time: "12:00" }
        ],
        max_attempts: 1,
        retry_delay_s: 3600,
        max_concurrency: 1,
        timezone: "America/Los_Angeles",
        description: null,
        enabled: true
      })
    }))

  it.effect("create keeps every optional field", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const second = yield* addNumber(org.id)
      const reply = yield* api(org.key, "POST", "/v2/campaigns", {
        json: campaignBody(org, {
          origin_phone_numbers: [org.number, second],
          max_attempts: 3,
          retry_delay_s: 7200,
          max_concurrency: 10,
          timezone: "Europe/Berlin",
          end_date: "2026-12-31",
          description: "Renewals"
        })
      })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.deepStrictEqual(
        {
          origin_phone_numbers: reply.body.origin_phone_numbers,
          max_attempts: reply.body.max_attempts,
          retry_delay_s: reply.body.retry_delay_s,
          max_concurrency: reply.body.max_concurrency,
          timezone: reply.body.timezone,
          end_date: reply.body.end_date,
          description: reply.body.description
        },
        {
          origin_phone_numbers: [org.number, second],
          max_attempts: 3,
          retry_delay_s: 7200,
          max_concurrency: 10,
          timezone: "Europe/Berlin",
          end_date: "2026-12-31",
          description: "Renewals"
        }
      )
    }))

  it.effect("a window outside 08:00-21:00 is accepted with a warning in the create response only", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (
        const window of [
          { day: "friday", start_time: "7:59", end_time: "12:00" },
          { day: "friday", start_time: "12:00", end_time: "21:01" },
          { day: "friday", start_time: "6am", end_time: "11pm" }
        ]
      ) {
        const created = yield* api(org.key, "POST", "/v2/campaigns", {
          json: campaignBody(org, { calling_windows: [window] })
        })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(keysOf(created.body), [...Fields.campaign, "warning"].sort())
        assert.isString(created.body.warning)
        assert.isNotEmpty(created.body.warning)
        const code = created.body.campaign_code
        const fetched = yield* api(org.key, "GET", `/v2/campaigns/${code}`)
        assert.deepStrictEqual(keysOf(fetched.body), [...Fields.campaign])
        const listed = yield* api(org.key, "GET", "/v2/campaigns")
        for (const c of listed.body) assert.notProperty(c, "warning")
      }
    }))

  it.effect("list answers the organization's live campaigns, get answers one", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/campaigns")).body, [])
      const a = yield* campaign(org)
      const b = yield* campaign(org, { calling_windows: [{ day: 0, start_time: "06:00", end_time: "07:00" }] })
      const { warning: _, ...bWithoutWarning } = b
      const list = yield* api(org.key, "GET", "/v2/campaigns")
      assert.strictEqual(list.status, 200)
      assert.isArray(list.body)
      const byCode = new Map<string, unknown>(list.body.map((c: any) => [c.campaign_code, c]))
      assert.deepStrictEqual(byCode.get(a.campaign_code), a)
      assert.deepStrictEqual(byCode.get(b.campaign_code), bWithoutWarning)
      assert.strictEqual(list.body.length, 2)
      for (const c of list.body) assert.deepStrictEqual(keysOf(c), [...Fields.campaign])
      const got = yield* api(org.key, "GET", `/v2/campaigns/${a.campaign_code}`)
      assert.deepStrictEqual(got, { ...got, status: 200, body: a })
    }))

  it.effect("update changes only the supplied fields; enabled pauses and resumes", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* campaign(org, { description: "first", end_date: "2026-06-30" })
      const path = `/v2/campaigns/${created.campaign_code}`
      const paused = yield* api(org.key, "PATCH", path, { json: { enabled: false } })
      assert.strictEqual(paused.status, 200, paused.text)
      assert.deepStrictEqual(paused.body, { ...created, enabled: false })
      const resumed = yield* api(org.key, "PATCH", path, { json: { enabled: true, description: "second" } })
      assert.deepStrictEqual(resumed.body, { ...created, description: "second" })
      const second = yield* addNumber(org.id)
      const changed = yield* api(org.key, "PATCH", path, {
        json: {
          name: "Renamed " + created.name,
          origin_phone_numbers: [second],
          start_date: "2026-02-01",
          end_date: null,
          calling_windows: [{ day: "saturday", start_time: "10am", end_time: "2pm" }],
          max_attempts: 4,
          retry_delay_s: 3600,
          max_concurrency: 2,
          timezone: "America/New_York",
          description: null
        }
      })
      assert.strictEqual(changed.status, 200, changed.text)
      assert.deepStrictEqual(changed.body, {
        ...created,
        name: "Renamed " + created.name,
        origin_phone_numbers: [second],
        start_date: "2026-02-01",
        end_date: null,
        calling_windows: [{ day: 5, start_time: "10:00", end_time: "14:00" }],
        max_attempts: 4,
        max_concurrency: 2,
        timezone: "America/New_York",
        description: null
      })
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, changed.body)
    }))

  it.effect("update warns only when a supplied window lies outside the recommended range", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* campaign(org)
      const path = `/v2/campaigns/${created.campaign_code}`
      const early = yield* api(org.key, "PATCH", path, {
        json: { calling_windows: [{ day: "monday", start_time: "7am", end_time: "9am" }] }
      })
      assert.strictEqual(early.status, 200)
      assert.isString(early.body.warning)
      // The windows are still early, but none is supplied: no warning.
      const renamed = yield* api(org.key, "PATCH", path, { json: { description: "x" } })
      assert.deepStrictEqual(keysOf(renamed.body), [...Fields.campaign])
      const inside = yield* api(org.key, "PATCH", path, {
        json: { calling_windows: [{ day: "monday", start_time: "8am", end_time: "9pm" }] }
      })
      assert.deepStrictEqual(keysOf(inside.body), [...Fields.campaign])
    }))

  it.effect("delete soft-deletes: {ok: true}, then 404 everywhere, gone from the list, name reusable", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* campaign(org)
      const kept = yield* campaign(org)
      const path = `/v2/campaigns/${created.campaign_code}`
      const deleted = yield* api(org.key, "DELETE", path)
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { ok: true })
      for (
        const [method, suffix] of [
          ["GET", ""],
          ["DELETE", ""],
          ["GET", "/status"],
          ["GET", "/has-callable-contacts"],
          ["GET", "/latency"]
        ]
      ) {
        assertDetail(yield* api(org.key, method!, `${path}${suffix}`), 404, `${method} ${suffix}`)
      }
      assertDetail(yield* api(org.key, "PATCH", path, { json: { enabled: true } }), 404)
      const list = yield* api(org.key, "GET", "/v2/campaigns")
      assert.deepStrictEqual(list.body.map((c: any) => c.campaign_code), [kept.campaign_code])
      const again = yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, { name: created.name }) })
      assert.strictEqual(again.status, 201, again.text)
      assert.notStrictEqual(again.body.campaign_code, created.campaign_code)
    }))

  it.effect("status counts contacts per status; has-callable-contacts follows the callable predicate", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const open = yield* campaign(org, { start_date: "2020-01-01", calling_windows: allWeek })
      const statusPath = `/v2/campaigns/${open.campaign_code}/status`
      const callablePath = `/v2/campaigns/${open.campaign_code}/has-callable-contacts`
      const empty = yield* api(org.key, "GET", statusPath)
      assert.deepStrictEqual(empty.body, {
        campaign: open.name,
        status_counts: { TRYING: 0, COMPLETED: 0, PARTIALLY_COMPLETED: 0, FAILED: 0 }
      })
      assert.deepStrictEqual((yield* api(org.key, "GET", callablePath)).body, { has_callable_contacts: false })
      const listed = randomNumber()
      const kept = randomNumber()
      yield* upload(org, open.campaign_code, [{ phone_number: listed }, { phone_number: kept }])
      const counted = yield* api(org.key, "GET", statusPath)
      assert.strictEqual(counted.status, 200)
      assert.deepStrictEqual(counted.body, {
        campaign: open.name,
        status_counts: { TRYING: 2, COMPLETED: 0, PARTIALLY_COMPLETED: 0, FAILED: 0 }
      })
      const callable = yield* api(org.key, "GET", callablePath)
      assert.strictEqual(callable.status, 200)
      assert.deepStrictEqual(callable.body, { has_callable_contacts: true })
      // Paused: nothing is callable; resumed: callable again.
      yield* api(org.key, "PATCH", `/v2/campaigns/${open.campaign_code}`, { json: { enabled: false } })
      assert.deepStrictEqual((yield* api(org.key, "GET", callablePath)).body, { has_callable_contacts: false })
      yield* api(org.key, "PATCH", `/v2/campaigns/${open.campaign_code}`, { json: { enabled: true } })
      assert.deepStrictEqual((yield* api(org.key, "GET", callablePath)).body, { has_callable_contacts: true })
      // A number added to the DNC list: its TRYING contact fails at once and is not callable.
      yield* addDnc(org.id, [listed])
      assert.deepStrictEqual((yield* api(org.key, "GET", statusPath)).body.status_counts, {
        TRYING: 1,
        COMPLETED: 0,
        PARTIALLY_COMPLETED: 0,
        FAILED: 1
      })
      assert.deepStrictEqual((yield* api(org.key, "GET", callablePath)).body, { has_callable_contacts: true })
      yield* addDnc(org.id, [kept])
      assert.deepStrictEqual((yield* api(org.key, "GET", callablePath)).body, { has_callable_contacts: false })
      // Not started yet: nothing is callable.
      const future = yield* campaign(org, { start_date: "2099-01-01", calling_windows: allWeek })
      yield* upload(org, future.campaign_code, [{ phone_number: randomNumber() }])
      const notYet = yield* api(org.key, "GET", `/v2/campaigns/${future.campaign_code}/has-callable-contacts`)
      assert.deepStrictEqual(notYet.body, { has_callable_contacts: false })
    }))

  it.effect("create 400: unparsable origin number, max_concurrency over the organization limit", () =>
    Effect.gen(function*() {
      const org = yield* organization({ max_concurrency: 3 })
      for (const origin of ["not a number", "+1 (202) 555", "12345"]) {
        assertDetail(
          yield* api(org.key, "POST", "/v2/campaigns", {
            json: campaignBody(org, { origin_phone_numbers: [origin] })
          }),
          400,
          origin
        )
      }
      assertDetail(
        yield* api(org.key, "POST", "/v2/campaigns", {
          json: campaignBody(org, { max_concurrency: 4 })
        }),
        400
      )
      const atLimit = yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, { max_concurrency: 3 }) })
      assert.strictEqual(atLimit.status, 201)
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/campaigns")).body.length, 1, "nothing else created")
    }))

  it.effect("create 403: outbound dialing disabled, or an origin number the account does not own", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      for (const origins of [[randomNumber()], [org.number, other.number]]) {
        assertDetail(
          yield* api(org.key, "POST", "/v2/campaigns", {
            json: campaignBody(org, { origin_phone_numbers: origins })
          }),
          403
        )
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org) }), 403)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/campaigns")).body, [])
    }))

  it.effect("create 409: a live campaign with this name exists (names are per organization)", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const first = yield* campaign(org)
      assertDetail(yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, { name: first.name }) }), 409)
      const elsewhere = yield* api(other.key, "POST", "/v2/campaigns", {
        json: campaignBody(other, { name: first.name })
      })
      assert.strictEqual(elsewhere.status, 201)
    }))

  it.effect("concurrent creates or renames to one name: exactly one wins, the others are 409", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const name = uniqueName("race")
      const creates = yield* Effect.all(
        Array.from({ length: 4 }, () => api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, { name }) })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        creates.map((r) => r.status).sort((x, y) => x - y),
        [201, 409, 409, 409],
        creates.map((r) => r.text).join(" | ")
      )
      const [a, b] = [yield* campaign(org), yield* campaign(org)]
      const target = uniqueName("renamed")
      const renames = yield* Effect.all(
        [a, b].map((c) => api(org.key, "PATCH", `/v2/campaigns/${c.campaign_code}`, { json: { name: target } })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(renames.map((r) => r.status).sort((x, y) => x - y), [200, 409])
      const names = (yield* api(org.key, "GET", "/v2/campaigns")).body.map((c: any) => c.name)
      assert.strictEqual(names.filter((n: string) => n === name).length, 1)
      assert.strictEqual(names.filter((n: string) => n === target).length, 1)
    }))

  it.effect("create 422 at the field: required fields missing, name too long, limits, bad windows", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (const field of ["name", "origin_phone_numbers", "start_date", "calling_windows"]) {
        const reply = yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, { [field]: undefined }) })
        assertValidation(reply, ["body", field])
        assert.deepStrictEqual(
          reply.body.detail.find((i: any) => i.loc[1] === field),
          { loc: ["body", field], msg: "Field required", type: "missing" }
        )
      }
      assertValidation(
        yield* api(org.key, "POST", "/v2/campaigns", { json: {} }),
        ["body", "name"],
        ["body", "origin_phone_numbers"],
        ["body", "start_date"],
        ["body", "calling_windows"]
      )
      const cases: ReadonlyArray<readonly [Record<string, unknown>, ReadonlyArray<string | number>]> = [
        [{ name: "x".repeat(201) }, ["body", "name"]],
        [{ retry_delay_s: 3599 }, ["body", "retry_delay_s"]],
        [{ retry_delay_s: 2_592_001 }, ["body", "retry_delay_s"]],
        [{ timezone: "Mars/Olympus_Mons" }, ["body", "timezone"]],
        [{ start_date: "2026-13-01" }, ["body", "start_date"]],
        [{ start_date: "01/02/2026" }, ["body", "start_date"]],
        [{ calling_windows: [{ day: "funday", start_time: "09:00", end_time: "17:00" }] }, [
          "body",
          "calling_windows",
          0,
          "day"
        ]],
        [{ calling_windows: [{ day: 7, start_time: "09:00", end_time: "17:00" }] }, [
          "body",
          "calling_windows",
          0,
          "day"
        ]],
        [{ calling_windows: [{ day: 0, start_time: "25:00", end_time: "26:00" }] }, [
          "body",
          "calling_windows",
          0,
          "start_time"
        ]],
        [{ calling_windows: [{ day: 0, start_time: "9am", end_time: "lunch" }] }, [
          "body",
          "calling_windows",
          0,
          "end_time"
        ]],
        [{ calling_windows: [{ day: 0, start_time: "17:00", end_time: "09:00" }] }, [
          "body",
          "calling_windows",
          0,
          "end_time"
        ]],
        [{ calling_windows: [{ day: 0, start_time: "22:00", end_time: "02:00" }] }, [
          "body",
          "calling_windows",
          0,
          "end_time"
        ]],
        [{ max_attempts: "three" }, ["body", "max_attempts"]],
        [{ name: 42 }, ["body", "name"]]
      ]
      for (const [overrides, loc] of cases) {
        assertValidation(yield* api(org.key, "POST", "/v2/campaigns", { json: campaignBody(org, overrides) }), loc)
      }
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/campaigns")).body, [], "nothing was created")
    }))

  it.effect("max_attempts and retry_delay_s at their bounds are accepted", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (const retry of [3600, 2_592_000]) {
        const reply = yield* api(org.key, "POST", "/v2/campaigns", {
          json: campaignBody(org, { retry_delay_s: retry, max_attempts: 2 })
        })
        assert.strictEqual(reply.status, 201, reply.text)
        assert.strictEqual(reply.body.retry_delay_s, retry)
      }
    }))

  it.effect("update 400: no fields, unparsable origin number, max_concurrency over the limit", () =>
    Effect.gen(function*() {
      const org = yield* organization({ max_concurrency: 2 })
      const created = yield* campaign(org)
      const path = `/v2/campaigns/${created.campaign_code}`
      assertDetail(yield* api(org.key, "PATCH", path, { json: {} }), 400)
      assertDetail(yield* api(org.key, "PATCH", path, { json: { origin_phone_numbers: ["garbage"] } }), 400)
      assertDetail(yield* api(org.key, "PATCH", path, { json: { max_concurrency: 3 } }), 400)
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, created, "unchanged")
    }))

  it.effect("update 403 (origin not owned, dialing disabled), 404 (unknown code), 409 (name taken), 422", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const created = yield* campaign(org)
      const sibling = yield* campaign(org)
      const path = `/v2/campaigns/${created.campaign_code}`
      assertDetail(yield* api(org.key, "PATCH", path, { json: { origin_phone_numbers: [other.number] } }), 403)
      assertDetail(yield* api(org.key, "PATCH", path, { json: { origin_phone_numbers: [randomNumber()] } }), 403)
      assertDetail(yield* api(org.key, "PATCH", "/v2/campaigns/gcmp-doesnotexist", { json: { enabled: false } }), 404)
      assertDetail(yield* api(org.key, "PATCH", path, { json: { name: sibling.name } }), 409)
      assertValidation(yield* api(org.key, "PATCH", path, { json: { retry_delay_s: 60 } }), ["body", "retry_delay_s"])
      assertValidation(yield* api(org.key, "PATCH", path, { json: { enabled: "maybe" } }), ["body", "enabled"])
      assertValidation(yield* api(org.key, "PATCH", path, { json: { timezone: "Nowhere/Land" } }), ["body", "timezone"])
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "PATCH", path, { json: { enabled: false } }), 403)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, created, "unchanged")
    }))

  it.effect("every campaign endpoint: 401 without a valid key, 403 with dialing disabled, 404 unknown code", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* campaign(org)
      const code = created.campaign_code
      const endpoints: ReadonlyArray<readonly [string, string, unknown]> = [
        ["POST", "/v2/campaigns", campaignBody(org)],
        ["GET", "/v2/campaigns", undefined],
        ["GET", `/v2/campaigns/${code}`, undefined],
        ["PATCH", `/v2/campaigns/${code}`, { enabled: false }],
        ["DELETE", `/v2/campaigns/${code}`, undefined],
        ["GET", `/v2/campaigns/${code}/status`, undefined],
        ["GET", `/v2/campaigns/${code}/has-callable-contacts`, undefined],
        ["GET", `/v2/campaigns/${code}/latency`, undefined]
      ]
      for (const [method, path, json] of endpoints) {
        for (const token of [null, "", "not-a-key", `${org.key}x`]) {
          assertDetail(yield* api(token, method, path, { json }), 401, `${method} ${path} ${token}`)
        }
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      for (const [method, path, json] of endpoints) {
        assertDetail(yield* api(org.key, method, path, { json }), 403, `${method} ${path}`)
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v2/campaigns/${code}`)).body, created, "untouched")
      for (const [method, path, json] of endpoints.slice(2)) {
        const unknown = path.replace(code, "gcmp-0000000000000000")
        assertDetail(yield* api(org.key, method, unknown, { json }), 404, `${method} ${unknown}`)
        // The internal id is not a v2 address.
        assertDetail(yield* api(org.key, method, path.replace(code, created.id), { json }), 404, `${method} by id`)
      }
    }))

  it.effect("check order: 401 before 403 before 422/400 before 404", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const created = yield* campaign(org)
      const path = `/v2/campaigns/${created.campaign_code}`
      // Bad key and bad body: 401.
      assertDetail(yield* api("wrong", "POST", "/v2/campaigns", { json: { name: 1 } }), 401)
      assertDetail(yield* api("wrong", "PATCH", path, { json: { retry_delay_s: 1 } }), 401)
      // Unknown campaign and a bad body: 422 (and 400 for the no-fields and origin rules).
      assertValidation(yield* api(org.key, "PATCH", "/v2/campaigns/gcmp-unknown", { json: { retry_delay_s: 1 } }), [
        "body",
        "retry_delay_s"
      ])
      assertDetail(yield* api(org.key, "PATCH", "/v2/campaigns/gcmp-unknown", { json: {} }), 400)
      assertDetail(
        yield* api(org.key, "PATCH", "/v2/campaigns/gcmp-unknown", { json: { origin_phone_numbers: ["x"] } }),
        400
      )
      // Dialing disabled and a bad body: 403.
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "POST", "/v2/campaigns", { json: { name: 1 } }), 403)
      assertDetail(yield* api(org.key, "PATCH", path, { json: { retry_delay_s: 1 } }), 403)
      assertDetail(yield* api(org.key, "PATCH", "/v2/campaigns/gcmp-unknown", { json: {} }), 403)
      // Bad key on a disabled organization: 401.
      assertDetail(yield* api("wrong", "GET", "/v2/campaigns"), 401)
    }))
})
