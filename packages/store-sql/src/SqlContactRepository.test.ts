import { assert, describe, layer } from "@effect/vitest"
import type { ContactRecord } from "@voice-agent/core/Contact"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import type { ContactQuery } from "@voice-agent/core/ports/ContactRepository"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const now = new Date("2026-03-02T17:00:00.000Z")
const nowMs = now.getTime()
const minutes = (n: number) => new Date(now.getTime() + n * 60_000)

/** Pages through a list query with `limit`, checking every page but the last is full. */
const listAll = (query: Omit<ContactQuery, "limit" | "afterId">, limit: number) =>
  Effect.gen(function*() {
    const contacts = yield* ContactRepository
    const seen: Array<ContactRecord> = []
    let afterId: string | undefined = undefined
    for (;;) {
      const page: { contacts: ReadonlyArray<ContactRecord>; hasMore: boolean } = yield* contacts.list({
        ...query,
        limit,
        afterId
      })
      seen.push(...page.contacts)
      if (!page.hasMore) return seen
      assert.strictEqual(page.contacts.length, limit)
      afterId = page.contacts[page.contacts.length - 1]!.id
    }
  })

const setLease = (contactId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`
        UPDATE contacts SET dialing_worker = 'test-worker', dialing_lease_expires_at = ${minutes(5)}
        WHERE id = ${contactId}::bigint`
  )

const idsOf = (campaignId: string, phoneNumber: E164) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string }>`
        SELECT id::text AS "id" FROM contacts WHERE campaign_id = ${campaignId} AND phone_number = ${phoneNumber}
        ORDER BY id`,
      (rows) => rows.map((r) => r.id)
    ))

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlContactRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "120 seconds" })((it) => {
      describe("upload", () => {
        it.effect("inserts TRYING contacts with their data and modalities, due at `now`", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const result = yield* contacts.upload(campaign, [
              { phoneNumber: Fixtures.e164(1), data: { name: "Ada", nested: { n: 1 } }, outreachModalities: ["sms"] },
              { phoneNumber: Fixtures.e164(2), data: {}, outreachModalities: [] }
            ], { allowDuplicates: false, now })
            assert.deepStrictEqual(result, { created: 2 })
            const page = yield* contacts.list({ organizationId: org.id, limit: 10 })
            assert.deepStrictEqual(
              page.contacts.map(({ createdAt: _, id: __, ...rest }) => rest),
              [
                {
                  campaignId: campaign.id,
                  organizationId: org.id,
                  phoneNumber: Fixtures.e164(2),
                  status: "TRYING",
                  data: {},
                  outreachModalities: [],
                  attempts: 0,
                  nextAttemptAt: now,
                  lastAttemptedAt: null,
                  dialing: false
                },
                {
                  campaignId: campaign.id,
                  organizationId: org.id,
                  phoneNumber: Fixtures.e164(1),
                  status: "TRYING",
                  data: { name: "Ada", nested: { n: 1 } },
                  outreachModalities: ["sms"],
                  attempts: 0,
                  nextAttemptAt: now,
                  lastAttemptedAt: null,
                  dialing: false
                }
              ]
            )
            assert.isTrue(BigInt(page.contacts[0]!.id) > BigInt(page.contacts[1]!.id))
          }))

        it.effect("is all-or-nothing: DNC and duplicate numbers reject the whole upload", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const dnc = yield* DncRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const [listed, present, both, fresh] = [1, 2, 3, 4].map(Fixtures.e164)
            yield* contacts.upload(campaign, [Fixtures.contact(present!), Fixtures.contact(both!)], {
              allowDuplicates: false,
              now
            })
            yield* dnc.add(org.id, [listed!, both!])
            const rejected = yield* Effect.flip(contacts.upload(
              campaign,
              [fresh!, present!, listed!, both!].map((n) => Fixtures.contact(n)),
              { allowDuplicates: false, now }
            ))
            assert.deepStrictEqual(rejected.rejected, [
              { phone_number: present!, reason: "duplicate" },
              { phone_number: listed!, reason: "do_not_call" },
              { phone_number: both!, reason: "do_not_call" }
            ])
            const all = yield* listAll({ organizationId: org.id }, 100)
            assert.deepStrictEqual(all.map((c) => c.phoneNumber).sort(), [present!, both!].sort())
          }))

        it.effect("findConflicts reports what an upload would reject, in order, and inserts nothing", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const dnc = yield* DncRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const [listed, present, fresh] = [11, 12, 13].map(Fixtures.e164)
            yield* contacts.upload(campaign, [Fixtures.contact(present!)], { allowDuplicates: false, now })
            yield* dnc.add(org.id, [listed!])
            const numbers = [present!, fresh!, listed!]
            assert.deepStrictEqual(yield* contacts.findConflicts(campaign, numbers, { allowDuplicates: false }), [
              { phone_number: present!, reason: "duplicate" },
              { phone_number: listed!, reason: "do_not_call" }
            ])
            assert.deepStrictEqual(yield* contacts.findConflicts(campaign, numbers, { allowDuplicates: true }), [
              { phone_number: listed!, reason: "do_not_call" }
            ])
            const all = yield* listAll({ organizationId: org.id }, 100)
            assert.deepStrictEqual(all.map((c) => c.phoneNumber), [present!])
          }))

        it.effect("allowDuplicates skips the in-campaign check but never the DNC list", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const dnc = yield* DncRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const other = yield* Fixtures.campaign(org.id)
            const options = { allowDuplicates: true, now }
            yield* contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(1))], options)
            assert.deepStrictEqual(
              yield* contacts.upload(
                campaign,
                [Fixtures.contact(Fixtures.e164(1)), Fixtures.contact(Fixtures.e164(1))],
                options
              ),
              { created: 2 }
            )
            // Another campaign of the organization is no duplicate.
            assert.deepStrictEqual(
              yield* contacts.upload(other, [Fixtures.contact(Fixtures.e164(1))], { allowDuplicates: false, now }),
              { created: 1 }
            )
            yield* dnc.add(org.id, [Fixtures.e164(9)])
            const rejected = yield* Effect.flip(
              contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(9))], options)
            )
            assert.deepStrictEqual(rejected.rejected, [{ phone_number: Fixtures.e164(9), reason: "do_not_call" }])
          }))

        it.effect("concurrent uploads of one number to one campaign: exactly one succeeds", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            for (let round = 0; round < 3; round++) {
              const campaign = yield* Fixtures.campaign(org.id)
              const batch = Array.from({ length: 300 }, (_, i) => Fixtures.contact(Fixtures.e164(i)))
              const upload = contacts.upload(campaign, batch, { allowDuplicates: false, now })
              // On PostgreSQL the two run on two pool connections at once; the campaign row
              // lock makes the second wait and then see the first one's contacts.
              const results = yield* Effect.all([Effect.result(upload), Effect.result(upload)], { concurrency: 2 })
              const succeeded = results.filter(Result.isSuccess)
              const failed = results.filter(Result.isFailure)
              assert.strictEqual(succeeded.length, 1)
              assert.deepStrictEqual(succeeded[0]!.success, { created: 300 })
              const rejected = failed[0]!.failure.rejected
              assert.strictEqual(rejected.length, 300)
              assert.isTrue(rejected.every((r) => r.reason === "duplicate"))
              const stored = yield* listAll({ organizationId: org.id, campaignId: campaign.id }, 1000)
              assert.strictEqual(stored.length, 300)
            }
          }))

        // How long these take is measured by `npm run bench:parts` (test/bench/run.ts), not asserted here.
        it.effect("10,000 contacts in one upload are all created; the same again are all rejected as duplicates", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const campaigns = yield* CampaignRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const batch = Array.from({ length: 10_000 }, (_, i) => ({
              phoneNumber: Fixtures.e164(i),
              data: { name: `Contact ${i}`, index: i, tags: ["a", "b"] },
              outreachModalities: ["sms"]
            }))
            assert.deepStrictEqual(yield* contacts.upload(campaign, batch, { allowDuplicates: false, now }), {
              created: 10_000
            })
            const rejected = yield* Effect.flip(contacts.upload(campaign, batch, { allowDuplicates: false, now }))
            assert.strictEqual(rejected.rejected.length, 10_000)
            assert.isTrue(rejected.rejected.every((r) => r.reason === "duplicate"))
            assert.strictEqual((yield* campaigns.statusCounts(campaign.id)).TRYING, 10_000)
          }))
      })

      describe("list", () => {
        it.effect("pages newest first through every filter combination", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const campaigns = yield* CampaignRepository
            const sql = yield* SqlClient.SqlClient
            const org = yield* Fixtures.organization()
            const a = yield* Fixtures.campaign(org.id)
            const b = yield* Fixtures.campaign(org.id)
            const deleted = yield* Fixtures.campaign(org.id)
            const other = yield* Fixtures.organization()
            const elsewhere = yield* Fixtures.campaign(other.id)
            const options = { allowDuplicates: false, now }
            const model = (i: number) => ({
              campaignId: i < 20 ? a.id : b.id,
              group: i % 2 === 0 ? "even" : "odd",
              status: i < 20 && i % 5 === 0 ? "FAILED" : i < 20 && i % 3 === 0 ? "COMPLETED" : "TRYING",
              lastAttemptedAt: i < 10 ? minutes(i) : null
            })
            const indexes = Array.from({ length: 30 }, (_, i) => i)
            // Interleave the campaigns' uploads so that ids of a and b alternate in runs.
            for (const chunk of [[0, 10], [20, 25], [10, 20], [25, 30]] as const) {
              const part = indexes.slice(chunk[0], chunk[1])
              yield* contacts.upload(
                part[0]! < 20 ? a : b,
                part.map((i) => Fixtures.contact(Fixtures.e164(i), { group: model(i).group, i })),
                options
              )
            }
            yield* contacts.upload(deleted, [Fixtures.contact(Fixtures.e164(50), { group: "even" })], options)
            yield* contacts.upload(elsewhere, [Fixtures.contact(Fixtures.e164(1), { group: "odd" })], options)
            yield* campaigns.softDelete(org.id, deleted.id)
            for (const i of indexes) {
              const m = model(i)
              yield* sql`
                UPDATE contacts
                SET status = ${m.status}, last_attempted_at = ${m.lastAttemptedAt},
                    next_attempt_at = CASE WHEN ${m.status} = 'TRYING' THEN next_attempt_at END
                WHERE organization_id = ${org.id} AND phone_number = ${Fixtures.e164(i)}`
            }
            const ids = new Map<number, string>()
            for (const i of indexes) {
              ids.set(i, (yield* idsOf(model(i).campaignId, Fixtures.e164(i)))[0]!)
            }
            const expected = (keep: (i: number) => boolean) =>
              indexes.filter(keep).map((i) => ids.get(i)!).sort((x, y) => Number(BigInt(y) - BigInt(x)))

            const cases: ReadonlyArray<readonly [Omit<ContactQuery, "limit" | "afterId">, (i: number) => boolean]> = [
              [{ organizationId: org.id }, () => true],
              [{ organizationId: org.id, campaignId: a.id }, (i) => model(i).campaignId === a.id],
              [{ organizationId: org.id, campaignId: b.id }, (i) => model(i).campaignId === b.id],
              [{ organizationId: org.id, statuses: ["TRYING", "FAILED"] }, (i) => model(i).status !== "COMPLETED"],
              [{ organizationId: org.id, statuses: ["COMPLETED"] }, (i) => model(i).status === "COMPLETED"],
              [{ organizationId: org.id, data: { group: "even" } }, (i) => model(i).group === "even"],
              [{ organizationId: org.id, data: { group: "odd", i: 7 } }, (i) => i === 7],
              [
                { organizationId: org.id, attemptedAfter: minutes(3), attemptedBefore: minutes(7) },
                (i) => i >= 3 && i <= 7
              ],
              [{ organizationId: org.id, attemptedAfter: minutes(8) }, (i) => i >= 8 && i < 10],
              [{ organizationId: org.id, attemptedBefore: minutes(1) }, (i) => i <= 1],
              [
                {
                  organizationId: org.id,
                  campaignId: a.id,
                  statuses: ["TRYING", "COMPLETED"],
                  data: { group: "even" },
                  attemptedAfter: minutes(0),
                  attemptedBefore: minutes(8)
                },
                (i) => model(i).status !== "FAILED" && i % 2 === 0 && i <= 8
              ],
              [{ organizationId: other.id, campaignId: a.id }, () => false]
            ]
            for (const [query, keep] of cases) {
              for (const limit of [1, 4, 100]) {
                const all = yield* listAll(query, limit)
                assert.deepStrictEqual(all.map((c) => c.id), expected(keep), JSON.stringify({ query, limit }))
              }
            }
            const statuses = (yield* listAll({ organizationId: org.id }, 100)).map((c) => c.status)
            assert.deepStrictEqual(
              statuses,
              expected(() => true).map((id) => {
                const i = [...ids].find(([, v]) => v === id)![0]
                return model(i).status
              })
            )
          }))

        it.effect("a malformed campaign id or cursor finds nothing", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            yield* contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(1))], { allowDuplicates: false, now })
            const empty = { contacts: [], hasMore: false }
            assert.deepStrictEqual(yield* contacts.list({ organizationId: org.id, campaignId: "x", limit: 5 }), empty)
            assert.deepStrictEqual(yield* contacts.list({ organizationId: org.id, afterId: "-1", limit: 5 }), empty)
            assert.deepStrictEqual(yield* contacts.list({ organizationId: "x", limit: 5 }), empty)
          }))
      })

      describe("delete", () => {
        it.effect("by phone number removes every copy in the campaign and nothing elsewhere", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const other = yield* Fixtures.campaign(org.id)
            const options = { allowDuplicates: true, now }
            const number = Fixtures.e164(1)
            yield* contacts.upload(campaign, [Fixtures.contact(number), Fixtures.contact(number)], options)
            yield* contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(2))], options)
            yield* contacts.upload(other, [Fixtures.contact(number)], options)
            assert.strictEqual(yield* contacts.deleteByPhoneNumber(campaign.id, number, nowMs), 2)
            assert.deepStrictEqual(yield* idsOf(campaign.id, number), [])
            assert.strictEqual((yield* idsOf(other.id, number)).length, 1)
            assert.strictEqual((yield* idsOf(campaign.id, Fixtures.e164(2))).length, 1)
            const again = yield* Effect.flip(contacts.deleteByPhoneNumber(campaign.id, number, nowMs))
            assert.strictEqual(again._tag, "ContactNotFound")
          }))

        it.effect("by phone number removes nothing when any copy is being dialed", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const number = Fixtures.e164(1)
            yield* contacts.upload(campaign, [Fixtures.contact(number), Fixtures.contact(number)], {
              allowDuplicates: true,
              now
            })
            const [first, second] = yield* idsOf(campaign.id, number)
            yield* setLease(second!)
            const busy = yield* Effect.flip(contacts.deleteByPhoneNumber(campaign.id, number, nowMs))
            assert.deepStrictEqual(busy._tag === "ContactBusy" && busy.contactIds, [second!])
            assert.deepStrictEqual(yield* idsOf(campaign.id, number), [first!, second!])
          }))

        it.effect("by id removes one contact, not a dialing one, and only in its campaign", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const other = yield* Fixtures.campaign(org.id)
            const options = { allowDuplicates: false, now }
            yield* contacts.upload(
              campaign,
              [Fixtures.contact(Fixtures.e164(1)), Fixtures.contact(Fixtures.e164(2))],
              options
            )
            const [idle] = yield* idsOf(campaign.id, Fixtures.e164(1))
            const [dialing] = yield* idsOf(campaign.id, Fixtures.e164(2))
            yield* setLease(dialing!)
            const busy = yield* Effect.flip(contacts.deleteById(campaign.id, dialing!, nowMs))
            assert.strictEqual(busy._tag, "ContactBusy")
            const foreign = yield* Effect.flip(contacts.deleteById(other.id, idle!, nowMs))
            assert.strictEqual(foreign._tag, "ContactNotFound")
            for (const junk of ["abc", "0", "-1", "99999999999999999999", "1.5", ""]) {
              assert.strictEqual(
                (yield* Effect.flip(contacts.deleteById(campaign.id, junk, nowMs)))._tag,
                "ContactNotFound"
              )
            }
            yield* contacts.deleteById(campaign.id, idle!, nowMs)
            assert.deepStrictEqual(yield* idsOf(campaign.id, Fixtures.e164(1)), [])
            assert.deepStrictEqual(yield* idsOf(campaign.id, Fixtures.e164(2)), [dialing!])
            assert.strictEqual(
              (yield* Effect.flip(contacts.deleteById(campaign.id, idle!, nowMs)))._tag,
              "ContactNotFound"
            )
          }))

        it.effect("a contact whose lease expired is deleted, and the call it carried closed with bot-failure", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const sql = yield* SqlClient.SqlClient
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const number = Fixtures.e164(1)
            yield* contacts.upload(campaign, [Fixtures.contact(number), Fixtures.contact(number)], {
              allowDuplicates: true,
              now
            })
            const [inCall, claimed] = yield* idsOf(campaign.id, number)
            const [conversation] = yield* sql<{ id: string }>`
              INSERT INTO conversations (call_id, organization_id, campaign_id, contact_id, direction, from_number,
                                         to_number, started_at, answered_at)
              VALUES (${`call-${inCall!}`}, ${org.id}, ${campaign.id}, ${inCall!}::bigint, 'outbound', ${campaign
              .originPhoneNumbers[0]!}, ${number}, ${minutes(-3)}, ${minutes(-2)})
              RETURNING id::text AS "id"`
            // What the call left: a turn 45.5 s after the answer (its duration is what was recorded).
            yield* sql`
              INSERT INTO transcript_turns (conversation_id, seq, speaker, text, offset_ms)
              VALUES (${conversation!.id}, 1, 'HUMAN', 'Yes.', 45500)`
            // Expired one minute ago, with a call; expiring exactly now (expired), claimed only.
            yield* sql`
              UPDATE contacts SET dialing_worker = 'dead-worker', dialing_lease_expires_at = ${minutes(-1)},
                                  dialing_conversation_id = ${conversation!.id}
              WHERE id = ${inCall!}::bigint`
            yield* sql`
              UPDATE contacts SET dialing_worker = 'dead-worker', dialing_lease_expires_at = ${now}
              WHERE id = ${claimed!}::bigint`
            assert.strictEqual(yield* contacts.deleteByPhoneNumber(campaign.id, number, nowMs), 2)
            assert.deepStrictEqual(yield* idsOf(campaign.id, number), [])
            const closed = yield* sql<{ endedAt: Date; durationSec: number; terminationReason: string }>`
              SELECT ended_at AS "endedAt", duration_sec AS "durationSec", termination_reason AS "terminationReason"
              FROM conversations WHERE id = ${conversation!.id}`
            assert.deepStrictEqual(closed, [{ endedAt: now, durationSec: 46, terminationReason: "bot-failure" }])
          }))

        it.effect("a lease is judged by the given instant: live until it expires", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            yield* contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(1))], { allowDuplicates: false, now })
            const [id] = yield* idsOf(campaign.id, Fixtures.e164(1))
            yield* setLease(id!)
            const leaseEnd = minutes(5).getTime()
            const busy = yield* Effect.flip(contacts.deleteById(campaign.id, id!, leaseEnd - 1))
            assert.strictEqual(busy._tag, "ContactBusy")
            yield* contacts.deleteById(campaign.id, id!, leaseEnd)
            assert.deepStrictEqual(yield* idsOf(campaign.id, Fixtures.e164(1)), [])
          }))
      })

      describe("hasCallable", () => {
        it.effect("follows the contact-level callable predicate", () =>
          Effect.gen(function*() {
            const contacts = yield* ContactRepository
            const dnc = yield* DncRepository
            const sql = yield* SqlClient.SqlClient
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id)
            const callable = (maxAttempts: number, at: Date = now) =>
              contacts.hasCallable(campaign.id, { maxAttempts, now: at })
            assert.isFalse(yield* callable(3))
            yield* contacts.upload(campaign, [Fixtures.contact(Fixtures.e164(1))], { allowDuplicates: false, now })
            const [id] = yield* idsOf(campaign.id, Fixtures.e164(1))
            assert.isTrue(yield* callable(3))
            assert.isFalse(yield* callable(3, minutes(-1)), "not due yet")
            yield* sql`UPDATE contacts SET attempts = 3 WHERE id = ${id!}::bigint`
            assert.isFalse(yield* callable(3), "no attempts left")
            assert.isTrue(yield* callable(4))
            yield* setLease(id!)
            assert.isFalse(yield* callable(4), "being dialed")
            yield* sql`UPDATE contacts SET dialing_lease_expires_at = NULL, dialing_worker = NULL WHERE id = ${id!}::bigint`
            assert.isTrue(yield* callable(4))
            // Listed directly in the table, so the sweep of DncRepository.add leaves it TRYING.
            yield* sql`INSERT INTO dnc_entries (organization_id, phone_number) VALUES (${org.id}, ${Fixtures.e164(1)})`
            assert.isFalse(yield* callable(4), "on the DNC list")
            yield* dnc.remove(org.id, Fixtures.e164(1))
            assert.isTrue(yield* callable(4))
            yield* sql`UPDATE contacts SET status = 'COMPLETED', next_attempt_at = NULL WHERE id = ${id!}::bigint`
            assert.isFalse(yield* callable(4), "not TRYING")
            assert.isFalse(yield* contacts.hasCallable("junk", { maxAttempts: 4, now }))
          }))
      })
    })
  })
}
