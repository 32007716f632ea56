import { assert, describe, layer } from "@effect/vitest"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const now = new Date("2026-03-02T17:00:00.000Z")

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlCampaignRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("creates an enabled campaign with a gcmp- code, and finds it by code and id", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const fields = Fixtures.newCampaign({
            endDate: "2026-12-31",
            description: "spring outreach",
            callingWindows: [
              { day: 0, start_time: "09:00", end_time: "12:00" },
              { day: 4, start_time: "13:30", end_time: "24:00" }
            ]
          })
          const created = yield* campaigns.create(org.id, fields)
          assert.match(created.code, /^gcmp-[0-9a-f]{20}$/)
          assert.deepStrictEqual({ ...created, id: "", code: "", createdAt: null }, {
            ...fields,
            id: "",
            code: "",
            organizationId: org.id,
            enabled: true,
            createdAt: null
          })
          assert.deepStrictEqual(yield* campaigns.findByCode(org.id, created.code), Option.some(created))
          assert.deepStrictEqual(yield* campaigns.findById(org.id, created.id), Option.some(created))
        }))

      it.effect("another organization's campaign, or a malformed id, is not found", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const created = yield* Fixtures.campaign(org.id)
          assert.isTrue(Option.isNone(yield* campaigns.findByCode(other.id, created.code)))
          assert.isTrue(Option.isNone(yield* campaigns.findById(other.id, created.id)))
          assert.isTrue(Option.isNone(yield* campaigns.findById(org.id, created.code)))
          assert.isTrue(Option.isNone(yield* campaigns.findById(org.id, "1; DROP TABLE campaigns")))
        }))

      it.effect("names are unique among the organization's live campaigns", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const first = yield* campaigns.create(org.id, Fixtures.newCampaign({ name: "Spring" }))
          const taken = yield* Effect.flip(campaigns.create(org.id, Fixtures.newCampaign({ name: "Spring" })))
          assert.deepStrictEqual([taken._tag, taken.name], ["CampaignNameTaken", "Spring"])
          yield* campaigns.create(other.id, Fixtures.newCampaign({ name: "Spring" }))
          yield* campaigns.softDelete(org.id, first.id)
          const reused = yield* campaigns.create(org.id, Fixtures.newCampaign({ name: "Spring" }))
          assert.notStrictEqual(reused.id, first.id)
        }))

      it.effect("lists live campaigns oldest first; a deleted one is invisible everywhere", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          // Created a few ms apart: the embedded database's clock can give two quick inserts the
          // same created_at, and campaigns of the same instant are in no particular order.
          const apart = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))
          const a = yield* Fixtures.campaign(org.id)
          yield* apart
          const b = yield* Fixtures.campaign(org.id)
          yield* apart
          const c = yield* Fixtures.campaign(org.id)
          assert.deepStrictEqual((yield* campaigns.list(org.id)).map((x) => x.id), [a.id, b.id, c.id])
          yield* campaigns.softDelete(org.id, b.id)
          assert.deepStrictEqual((yield* campaigns.list(org.id)).map((x) => x.id), [a.id, c.id])
          assert.isTrue(Option.isNone(yield* campaigns.findByCode(org.id, b.code)))
          assert.isTrue(Option.isNone(yield* campaigns.findById(org.id, b.id)))
          assert.strictEqual((yield* Effect.flip(campaigns.softDelete(org.id, b.id)))._tag, "CampaignNotFound")
          assert.strictEqual(
            (yield* Effect.flip(campaigns.update(org.id, b.id, { enabled: false })))._tag,
            "CampaignNotFound"
          )
        }))

      it.effect("updates only the supplied fields", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const created = yield* Fixtures.campaign(org.id, { description: "before", endDate: "2026-06-30" })
          const windows = [{ day: 6, start_time: "10:00", end_time: "11:00" }] as const
          const origin = Fixtures.randomE164()
          const updated = yield* campaigns.update(org.id, created.id, {
            enabled: false,
            description: null,
            endDate: null,
            callingWindows: windows,
            originPhoneNumbers: [origin],
            maxAttempts: 5,
            timeZone: "Europe/Berlin"
          })
          assert.deepStrictEqual(updated, {
            ...created,
            enabled: false,
            description: null,
            endDate: null,
            callingWindows: windows,
            originPhoneNumbers: [origin],
            maxAttempts: 5,
            timeZone: "Europe/Berlin"
          })
          const renamed = yield* campaigns.update(org.id, created.id, { name: "Renamed", startDate: "2026-02-01" })
          assert.deepStrictEqual(renamed, { ...updated, name: "Renamed", startDate: "2026-02-01" })
          assert.deepStrictEqual(yield* campaigns.update(org.id, created.id, {}), renamed)
        }))

      it.effect("update fails with CampaignNameTaken or CampaignNotFound", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const a = yield* Fixtures.campaign(org.id, { name: "A" })
          yield* Fixtures.campaign(org.id, { name: "B" })
          const taken = yield* Effect.flip(campaigns.update(org.id, a.id, { name: "B" }))
          assert.deepStrictEqual([taken._tag, taken._tag === "CampaignNameTaken" && taken.name], [
            "CampaignNameTaken",
            "B"
          ])
          const missing = "00000000-0000-4000-8000-000000000003"
          assert.strictEqual(
            (yield* Effect.flip(campaigns.update(org.id, missing, { name: "C" })))._tag,
            "CampaignNotFound"
          )
          assert.strictEqual((yield* Effect.flip(campaigns.update(org.id, "junk", {})))._tag, "CampaignNotFound")
        }))

      it.effect("counts contacts per status, every status present", () =>
        Effect.gen(function*() {
          const campaigns = yield* CampaignRepository
          const contacts = yield* ContactRepository
          const sql = yield* SqlClient.SqlClient
          const org = yield* Fixtures.organization()
          const created = yield* Fixtures.campaign(org.id)
          assert.deepStrictEqual(yield* campaigns.statusCounts(created.id), {
            TRYING: 0,
            COMPLETED: 0,
            PARTIALLY_COMPLETED: 0,
            FAILED: 0
          })
          yield* contacts.upload(created, [1, 2, 3, 4].map((i) => Fixtures.contact(Fixtures.e164(i))), {
            allowDuplicates: false,
            now
          })
          yield* sql`
            UPDATE contacts SET status = 'FAILED', next_attempt_at = NULL
            WHERE campaign_id = ${created.id} AND phone_number = ${Fixtures.e164(1)}`
          yield* sql`
            UPDATE contacts SET status = 'COMPLETED', next_attempt_at = NULL
            WHERE campaign_id = ${created.id} AND phone_number = ${Fixtures.e164(2)}`
          assert.deepStrictEqual(yield* campaigns.statusCounts(created.id), {
            TRYING: 2,
            COMPLETED: 1,
            PARTIALLY_COMPLETED: 0,
            FAILED: 1
          })
        }))
    })
  })
}
