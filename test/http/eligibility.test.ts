/**
 * Black-box tests of the eligibility explainer (docs/DECISIONS.md, "Eligibility"):
 * `GET /v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility` → `{callable,
 * next_eligible_at, blocked_by}` for a contact that is callable, paused, outside its window,
 * before the start date, on the DNC list, final, waiting for a retry, out of attempts, being
 * dialed, or held back by a full cap; 401, 403 and 404 as the contact delete endpoint. Also the
 * wake-ups of the dial loops: an upload, a campaign created and every PATCH each wake them.
 *
 * The server runs on the real clock, so instants are read from it around each request and
 * the campaigns' windows are placed relative to today.
 */
import { assert } from "@effect/vitest"
import { DayNames } from "@voice-agent/core/CallingWindow"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { Clock, Effect, Queue, Stream } from "effect"
import { SqlClient } from "effect/sql"
import {
  addDnc,
  api,
  assertDetail,
  campaign,
  distinctNumbers,
  eachBackend,
  isIsoInstant,
  keysOf,
  listAllContacts,
  organization,
  randomNumber,
  updateOrganization,
  upload
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const HOUR = 3_600_000
const DAY = 24 * HOUR

const eligibilityPath = (code: string, contactId: string) => `/v2/campaigns/${code}/contacts/${contactId}/eligibility`

/** The UTC date `YYYY-MM-DD` of an instant. */
const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10)
/** The API reference's day name of the UTC weekday of an instant. */
const utcDayName = (ms: number): string => DayNames[(new Date(ms).getUTCDay() + 6) % 7] ?? "monday"

const allWeek = DayNames.map((day) => ({ day, start_time: "00:00", end_time: "24:00" }))

/** A campaign open around the clock in UTC since yesterday, with `overrides`. */
const openCampaign = (org: TestOrganization, overrides: Record<string, unknown> = {}) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    campaign(org, {
      calling_windows: allWeek,
      timezone: "UTC",
      start_date: utcDate(now - DAY),
      max_attempts: 3,
      ...overrides
    }))

/** Uploads `count` fresh numbers; answers the contacts, oldest first. */
const contactsIn = (org: TestOrganization, code: string, count = 1) =>
  Effect.gen(function*() {
    yield* upload(org, code, distinctNumbers(count).map((phone_number) => ({ phone_number })))
    const listed = yield* listAllContacts(org, `campaign_code=${code}&limit=1000`)
    return [...listed].reverse()
  })

/** The explainer's answer, which must be 200 with exactly the three fields. */
const eligibility = (org: TestOrganization, code: string, contactId: string) =>
  Effect.gen(function*() {
    const reply = yield* api(org.key, "GET", eligibilityPath(code, contactId))
    assert.strictEqual(reply.status, 200, reply.text)
    assert.deepStrictEqual(keysOf(reply.body), ["blocked_by", "callable", "next_eligible_at"])
    assert.isTrue(reply.body.next_eligible_at === null || isIsoInstant(reply.body.next_eligible_at), reply.text)
    return reply.body as { callable: boolean; next_eligible_at: string | null; blocked_by: Array<string> }
  })

/** Sets dialing columns the API cannot: status, attempts, next attempt time, a lease (instants in ms). */
const setContact = (
  id: string,
  fields: {
    readonly status?: string
    readonly attempts?: number
    readonly nextAttemptAt?: number
    readonly leaseUntil?: number
  }
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (fields.status !== undefined) {
      yield* sql`UPDATE contacts SET status = ${fields.status},
        next_attempt_at = CASE WHEN ${fields.status} = 'TRYING' THEN next_attempt_at ELSE NULL END
        WHERE id = ${id}::bigint`
    }
    if (fields.attempts !== undefined) {
      yield* sql`UPDATE contacts SET attempts = ${fields.attempts} WHERE id = ${id}::bigint`
    }
    if (fields.nextAttemptAt !== undefined) {
      yield* sql`UPDATE contacts SET next_attempt_at = ${new Date(fields.nextAttemptAt).toISOString()}::timestamptz
        WHERE id = ${id}::bigint`
    }
    if (fields.leaseUntil !== undefined) {
      yield* sql`UPDATE contacts SET dialing_worker = 'test',
        dialing_lease_expires_at = ${new Date(fields.leaseUntil).toISOString()}::timestamptz WHERE id = ${id}::bigint`
    }
  }).pipe(Effect.orDie)

await eachBackend("eligibility", (it) => {
  it.effect("a fresh contact of an open campaign is callable, eligible now", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const [contact] = yield* contactsIn(org, c.campaign_code)
      const before = yield* Clock.currentTimeMillis
      const answer = yield* eligibility(org, c.campaign_code, contact.id)
      const after = yield* Clock.currentTimeMillis
      assert.isTrue(answer.callable)
      assert.deepStrictEqual(answer.blocked_by, [])
      const at = Date.parse(answer.next_eligible_at ?? "")
      assert.isTrue(before <= at && at <= after, `${answer.next_eligible_at} not within the request`)
    }))

  it.effect("paused: never until resumed; resumed: callable again", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const [contact] = yield* contactsIn(org, c.campaign_code)
      const path = `/v2/campaigns/${c.campaign_code}`
      assert.strictEqual((yield* api(org.key, "PATCH", path, { json: { enabled: false } })).status, 200)
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, contact.id), {
        callable: false,
        next_eligible_at: null,
        blocked_by: ["paused"]
      })
      assert.strictEqual((yield* api(org.key, "PATCH", path, { json: { enabled: true } })).status, 200)
      assert.isTrue((yield* eligibility(org, c.campaign_code, contact.id)).callable)
    }))

  it.effect("outside the calling window: eligible at the next window opening, in the campaign's zone", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const now = yield* Clock.currentTimeMillis
      // One window, two days from now (UTC): it opens that day at 09:00.
      const inTwoDays = now + 2 * DAY
      const utcCampaign = yield* openCampaign(org, {
        calling_windows: [{ day: utcDayName(inTwoDays), start_time: "09:00", end_time: "10:00" }]
      })
      const [a] = yield* contactsIn(org, utcCampaign.campaign_code)
      assert.deepStrictEqual(yield* eligibility(org, utcCampaign.campaign_code, a.id), {
        callable: false,
        next_eligible_at: `${utcDate(inTwoDays)}T09:00:00.000Z`,
        blocked_by: ["outside_calling_window"]
      })
      // The same in Kolkata (UTC+05:30, no DST): 09:00 there is 03:30 UTC.
      const kolkata = inTwoDays + 5.5 * HOUR
      const zoned = yield* openCampaign(org, {
        timezone: "Asia/Kolkata",
        calling_windows: [{ day: utcDayName(kolkata), start_time: "09:00", end_time: "10:00" }]
      })
      const [b] = yield* contactsIn(org, zoned.campaign_code)
      assert.deepStrictEqual(yield* eligibility(org, zoned.campaign_code, b.id), {
        callable: false,
        next_eligible_at: new Date(Date.parse(`${utcDate(kolkata)}T09:00:00+05:30`)).toISOString(),
        blocked_by: ["outside_calling_window"]
      })
    }))

  it.effect("before the start date: eligible at the first opening on the start date", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const now = yield* Clock.currentTimeMillis
      const start = utcDate(now + 3 * DAY)
      const c = yield* openCampaign(org, { start_date: start })
      const [contact] = yield* contactsIn(org, c.campaign_code)
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, contact.id), {
        callable: false,
        next_eligible_at: `${start}T00:00:00.000Z`,
        blocked_by: ["before_start_date"]
      })
    }))

  it.effect("a number put on the DNC list: FAILED at once, never eligible", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const [listed, other] = yield* contactsIn(org, c.campaign_code, 2)
      yield* addDnc(org.id, [listed.phone_number])
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, listed.id), {
        callable: false,
        next_eligible_at: null,
        blocked_by: ["do_not_call", "final_status"]
      })
      assert.isTrue((yield* eligibility(org, c.campaign_code, other.id)).callable)
    }))

  it.effect("a final status: never eligible", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const contacts = yield* contactsIn(org, c.campaign_code, 3)
      const statuses = ["COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const
      for (const [i, status] of statuses.entries()) {
        const contact = contacts[i]
        yield* setContact(contact.id, { status })
        assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, contact.id), {
          callable: false,
          next_eligible_at: null,
          blocked_by: ["final_status"]
        }, status)
      }
    }))

  it.effect("waiting for a retry: eligible at the next attempt time; attempts used up: never", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const [contact] = yield* contactsIn(org, c.campaign_code)
      const due = (yield* Clock.currentTimeMillis) + 2 * HOUR
      yield* setContact(contact.id, { attempts: 1, nextAttemptAt: due })
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, contact.id), {
        callable: false,
        next_eligible_at: new Date(due).toISOString(),
        blocked_by: ["retry_delay"]
      })
      yield* setContact(contact.id, { attempts: 3 })
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, contact.id), {
        callable: false,
        next_eligible_at: null,
        blocked_by: ["retry_delay", "attempts_exhausted"]
      })
    }))

  it.effect("being dialed: in progress; the other contacts wait for a slot under the campaign or organization cap", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org, { max_concurrency: 1 })
      const [held, waiting] = yield* contactsIn(org, c.campaign_code, 2)
      const now = yield* Clock.currentTimeMillis
      yield* setContact(held.id, { leaseUntil: now + HOUR })
      assert.deepStrictEqual(yield* eligibility(org, c.campaign_code, held.id), {
        callable: false,
        next_eligible_at: null,
        blocked_by: ["in_progress", "campaign_concurrency_full"]
      })
      const before = yield* Clock.currentTimeMillis
      const blocked = yield* eligibility(org, c.campaign_code, waiting.id)
      assert.deepStrictEqual(blocked.blocked_by, ["campaign_concurrency_full"])
      assert.isFalse(blocked.callable)
      // A full cap does not move the time: a slot frees when a call ends.
      assert.isAtLeast(Date.parse(blocked.next_eligible_at ?? ""), before)
      // The organization's cap counts every campaign's calls.
      yield* updateOrganization(org.id, { max_concurrency: 1 })
      const sibling = yield* openCampaign(org)
      const [elsewhere] = yield* contactsIn(org, sibling.campaign_code)
      assert.deepStrictEqual((yield* eligibility(org, sibling.campaign_code, elsewhere.id)).blocked_by, [
        "organization_concurrency_full"
      ])
      // A lease that expired holds no slot.
      yield* setContact(held.id, { leaseUntil: now - 1000 })
      assert.isTrue((yield* eligibility(org, c.campaign_code, waiting.id)).callable)
      assert.isTrue((yield* eligibility(org, sibling.campaign_code, elsewhere.id)).callable)
    }))

  it.effect("404: unknown campaign; a contact of another campaign, deleted, unknown or malformed", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const other = yield* openCampaign(org)
      const [x, y] = yield* contactsIn(org, c.campaign_code, 2)
      const [z] = yield* contactsIn(org, other.campaign_code)
      assert.strictEqual(
        (yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}/contacts/${y.id}`)).status,
        200
      )
      for (const id of [y.id, z.id, "999999999999", "abc", "-1", "1.5", "99999999999999999999999"]) {
        assertDetail(yield* api(org.key, "GET", eligibilityPath(c.campaign_code, id)), 404, id)
      }
      assertDetail(yield* api(org.key, "GET", eligibilityPath("gcmp-unknown", x.id)), 404)
      assertDetail(yield* api(org.key, "GET", eligibilityPath(other.campaign_code, x.id)), 404)
      // A deleted campaign's contacts.
      yield* api(org.key, "DELETE", `/v2/campaigns/${c.campaign_code}`)
      assertDetail(yield* api(org.key, "GET", eligibilityPath(c.campaign_code, x.id)), 404)
    }))

  it.effect("another organization's campaign or contact: 404", () =>
    Effect.gen(function*() {
      const owner = yield* organization()
      const stranger = yield* organization()
      const c = yield* openCampaign(owner)
      const [contact] = yield* contactsIn(owner, c.campaign_code)
      const theirs = yield* openCampaign(stranger)
      assertDetail(yield* api(stranger.key, "GET", eligibilityPath(c.campaign_code, contact.id)), 404)
      assertDetail(yield* api(stranger.key, "GET", eligibilityPath(theirs.campaign_code, contact.id)), 404)
      assert.isTrue((yield* eligibility(owner, c.campaign_code, contact.id)).callable)
    }))

  it.effect("401 without a valid key, then 403 with outbound dialing disabled (before 404)", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* openCampaign(org)
      const [contact] = yield* contactsIn(org, c.campaign_code)
      const path = eligibilityPath(c.campaign_code, contact.id)
      for (const token of [null, "nope"]) assertDetail(yield* api(token, "GET", path), 401)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "GET", path), 403)
      assertDetail(yield* api(org.key, "GET", eligibilityPath("gcmp-unknown", "abc")), 403)
      assertDetail(yield* api("nope", "GET", eligibilityPath("gcmp-unknown", "abc")), 401)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      assert.isTrue((yield* eligibility(org, c.campaign_code, contact.id)).callable)
    }))

  it.effect("an upload, a campaign created and every PATCH (resume included) wake the dial loops", () =>
    Effect.gen(function*() {
      const wakeup = yield* DialerWakeup
      const received = yield* Queue.unbounded<void>()
      const stream = yield* wakeup.wakeups
      yield* Effect.forkScoped(Stream.runForEach(stream, () => Queue.offer(received, undefined)))
      const woken = (what: string) =>
        Queue.take(received).pipe(
          Effect.timeoutOrElse({
            duration: "3 seconds",
            orElse: () => Effect.die(new Error(`no wake-up after ${what}`))
          })
        )
      const org = yield* organization()
      const c = yield* openCampaign(org)
      yield* woken("create")
      yield* upload(org, c.campaign_code, [{ phone_number: randomNumber() }])
      yield* woken("upload")
      for (const patch of [{ enabled: false }, { enabled: true }, { retry_delay_s: 7200 }]) {
        const reply = yield* api(org.key, "PATCH", `/v2/campaigns/${c.campaign_code}`, { json: patch })
        assert.strictEqual(reply.status, 200, reply.text)
        yield* woken(`PATCH ${JSON.stringify(patch)}`)
      }
    }))
})
