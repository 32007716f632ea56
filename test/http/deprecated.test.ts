/**
 * The deprecated v1 campaign and contact paths (the API reference, "Versioning" 2, docs/DECISIONS.md): each
 * answers exactly like its v2 twin, addressing the campaign by internal `id` or by `gcmp-`
 * code, with `Deprecation: true` on every answer, errors included. Current v1 paths carry no
 * such header. On both backends.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  api,
  assertDetail,
  assertValidation,
  campaign,
  eachBackend,
  organization,
  q,
  randomNumber,
  updateOrganization,
  upload
} from "./support/ApiServer.ts"
import type { Reply } from "./support/ApiServer.ts"

const deprecated = (reply: Reply, label = "") =>
  assert.strictEqual(reply.headers["deprecation"], "true", `${label} ${reply.status}`)
const current = (reply: Reply, label = "") => assert.isUndefined(reply.headers["deprecation"], label)

await eachBackend("deprecated v1 paths", (it) => {
  it.effect("campaign reads answer like v2, by id and by code, with Deprecation: true", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org, { start_date: "2020-01-01" })
      const { warning: _, ...fetched } = c
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }])
      const v2List = yield* api(org.key, "GET", "/v2/campaigns")
      const v1List = yield* api(org.key, "GET", "/v1/campaigns")
      assert.strictEqual(v1List.status, 200)
      assert.deepStrictEqual(v1List.body, v2List.body)
      deprecated(v1List)
      current(v2List)
      for (const ref of [c.id, c.campaign_code, c.id.toUpperCase()]) {
        for (const suffix of ["", "/status", "/has-callable-contacts"]) {
          const v1 = yield* api(org.key, "GET", `/v1/campaigns/${ref}${suffix}`)
          const v2 = yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}${suffix}`)
          assert.strictEqual(v1.status, 200, `${ref}${suffix}: ${v1.text}`)
          assert.deepStrictEqual(v1.body, v2.body, `${ref}${suffix}`)
          deprecated(v1, suffix)
          current(v2, suffix)
        }
      }
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v1/campaigns/${c.id}`)).body, fetched)
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v1/campaigns/${c.id}/status`)).body.status_counts.TRYING, 1)
    }))

  it.effect("PATCH and DELETE by id behave like v2 (warning included)", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const { warning: _, ...fetched } = c
      const paused = yield* api(org.key, "PATCH", `/v1/campaigns/${c.id}`, { json: { enabled: false } })
      assert.strictEqual(paused.status, 200, paused.text)
      assert.deepStrictEqual(paused.body, { ...fetched, enabled: false })
      deprecated(paused)
      const early = yield* api(org.key, "PATCH", `/v1/campaigns/${c.campaign_code}`, {
        json: { calling_windows: [{ day: "monday", start_time: "6am", end_time: "7am" }] }
      })
      assert.isString(early.body.warning)
      deprecated(early)
      const deleted = yield* api(org.key, "DELETE", `/v1/campaigns/${c.id}`)
      assert.deepStrictEqual(deleted.body, { ok: true })
      deprecated(deleted)
      assertDetail(yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}`), 404)
      const again = yield* api(org.key, "DELETE", `/v1/campaigns/${c.id}`)
      assertDetail(again, 404)
      deprecated(again)
      const other = yield* campaign(org)
      const byCode = yield* api(org.key, "DELETE", `/v1/campaigns/${other.campaign_code}`)
      assert.deepStrictEqual(byCode.body, { ok: true })
    }))

  it.effect("upload by id: created, rejections, terms, allow_duplicates, like v2", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const number = randomNumber()
      const path = (ref: string, query: string) => `/v1/campaigns/${ref}/contacts?${query}`
      const ok = yield* api(org.key, "POST", path(c.id, "accepted_terms_of_service=true"), {
        json: { contacts: [{ phone_number: number }] }
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.deepStrictEqual(ok.body, { created: 1 })
      deprecated(ok)
      const duplicate = yield* api(org.key, "POST", path(c.campaign_code, "accepted_terms_of_service=true"), {
        json: { contacts: [{ phone_number: number }] }
      })
      assert.strictEqual(duplicate.status, 400)
      assert.deepStrictEqual(duplicate.body, {
        created: 0,
        rejected: 1,
        rejected_entries: [{ phone_number: number, reason: "duplicate" }]
      })
      deprecated(duplicate)
      const allowed = yield* api(org.key, "POST", path(c.id, "accepted_terms_of_service=true&allow_duplicates=true"), {
        json: { contacts: [{ phone_number: number }] }
      })
      assert.deepStrictEqual(allowed.body, { created: 1 })
      const noTerms = yield* api(org.key, "POST", path(c.id, ""), { json: { contacts: [] } })
      assertDetail(noTerms, 400)
      deprecated(noTerms)
      const invalid = yield* api(org.key, "POST", path(c.id, "accepted_terms_of_service=true"), {
        json: { contacts: "x" }
      })
      assertValidation(invalid, ["body", "contacts"])
      deprecated(invalid)
    }))

  it.effect("GET /v1/contacts?campaign_id= lists like /v2/contacts?campaign_code=, pages with its cursor", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      yield* upload(
        org,
        c.campaign_code,
        Array.from({ length: 5 }, () => ({ phone_number: randomNumber(), data: { k: 1 } }))
      )
      yield* upload(org, other.campaign_code, [{ phone_number: randomNumber() }])
      const v2 = yield* api(org.key, "GET", `/v2/contacts?campaign_code=${c.campaign_code}`)
      for (const ref of [c.id, c.campaign_code]) {
        const v1 = yield* api(org.key, "GET", `/v1/contacts?campaign_id=${ref}`)
        assert.strictEqual(v1.status, 200, v1.text)
        assert.deepStrictEqual(v1.body, v2.body)
        deprecated(v1)
        current(v2)
      }
      const all = yield* api(org.key, "GET", "/v1/contacts")
      assert.deepStrictEqual(all.body, (yield* api(org.key, "GET", "/v2/contacts")).body)
      assert.strictEqual(all.body.contacts.length, 6)
      const seen: Array<string> = []
      let after: string | null = null
      while (true) {
        const url: string = `/v1/contacts?campaign_id=${c.id}&limit=2${after === null ? "" : `&after=${q(after)}`}`
        const page = yield* api(org.key, "GET", url)
        assert.strictEqual(page.status, 200, page.text)
        deprecated(page)
        seen.push(...page.body.contacts.map((x: any) => x.id))
        if (!page.body.has_more) break
        after = page.body.next_cursor
      }
      assert.deepStrictEqual(seen, v2.body.contacts.map((x: any) => x.id))
      const filtered = yield* api(
        org.key,
        "GET",
        `/v1/contacts?campaign_id=${c.id}&status=TRYING&data=${q("{\"k\":1}")}`
      )
      assert.strictEqual(filtered.body.contacts.length, 5)
      for (const query of ["limit=0", "after=bad", "status=NOPE", "data=x", "attempted_after=x"]) {
        const bad = yield* api(org.key, "GET", `/v1/contacts?${query}`)
        assertDetail(bad, 400, query)
        deprecated(bad, query)
      }
      for (const ref of ["00000000-0000-4000-8000-000000000000", "gcmp-unknown", "junk"]) {
        const missing = yield* api(org.key, "GET", `/v1/contacts?campaign_id=${ref}`)
        assertDetail(missing, 404, ref)
        deprecated(missing, ref)
      }
    }))

  it.effect("errors carry Deprecation: true too: 401, 403, 404, 422, 400", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const endpoints: ReadonlyArray<readonly [string, string, unknown]> = [
        ["GET", "/v1/campaigns", undefined],
        ["GET", `/v1/campaigns/${c.id}`, undefined],
        ["PATCH", `/v1/campaigns/${c.id}`, { enabled: false }],
        ["DELETE", `/v1/campaigns/${c.id}`, undefined],
        ["GET", `/v1/campaigns/${c.id}/status`, undefined],
        ["GET", `/v1/campaigns/${c.id}/has-callable-contacts`, undefined],
        ["POST", `/v1/campaigns/${c.id}/contacts?accepted_terms_of_service=true`, { contacts: [] }],
        ["GET", `/v1/contacts?campaign_id=${c.id}`, undefined]
      ]
      for (const [method, path, json] of endpoints) {
        const unauthorized = yield* api("wrong", method, path, { json })
        assertDetail(unauthorized, 401, `${method} ${path}`)
        deprecated(unauthorized, `${method} ${path}`)
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      for (const [method, path, json] of endpoints) {
        const forbidden = yield* api(org.key, method, path, { json })
        assertDetail(forbidden, 403, `${method} ${path}`)
        deprecated(forbidden, `${method} ${path}`)
      }
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      for (const [method, path, json] of endpoints.slice(1)) {
        for (const ref of ["00000000-0000-4000-8000-000000000000", "gcmp-nope", "not-an-id"]) {
          const unknown = path.replace(c.id, ref)
          const missing = yield* api(org.key, method, unknown, { json })
          assertDetail(missing, 404, `${method} ${unknown}`)
          deprecated(missing, `${method} ${unknown}`)
        }
      }
      const invalid = yield* api(org.key, "PATCH", `/v1/campaigns/${c.id}`, { json: { retry_delay_s: 1 } })
      assertValidation(invalid, ["body", "retry_delay_s"])
      deprecated(invalid)
      const empty = yield* api(org.key, "PATCH", `/v1/campaigns/${c.id}`, { json: {} })
      assertDetail(empty, 400)
      deprecated(empty)
      // Check order as on v2: a bad body on an unknown campaign is 422 / 400, not 404.
      assertValidation(yield* api(org.key, "PATCH", "/v1/campaigns/not-an-id", { json: { retry_delay_s: 1 } }), [
        "body",
        "retry_delay_s"
      ])
      assertDetail(yield* api(org.key, "PATCH", "/v1/campaigns/not-an-id", { json: {} }), 400)
      // The campaign is unchanged.
      const { warning: _, ...fetched } = c
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}`)).body, fetched)
    }))

  it.effect("current v1 paths (conversations, messages, send-sms, phone-numbers) carry no Deprecation header", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (
        const [method, path, json] of [
          ["GET", "/v1/conversations", undefined],
          ["GET", "/v1/conversations/CAnone", undefined],
          ["GET", `/v1/messages?to_number=${q(org.number)}`, undefined],
          ["GET", "/v1/phone-numbers", undefined],
          ["POST", "/v1/send-sms", { from_number: org.number, to_number: randomNumber(), message: "hi" }],
          ["POST", "/v1/send-sms", {}],
          ["GET", "/v2/campaigns", undefined],
          ["GET", "/v2/contacts", undefined]
        ] as const
      ) {
        for (const token of [org.key, "wrong"]) {
          current(yield* api(token, method, path, { json }), `${method} ${path}`)
        }
      }
    }))
})
