import { assert, describe, layer } from "@effect/vitest"
import * as ContactState from "@voice-agent/core/ContactState"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import * as SqlStorage from "./SqlStorage.ts"
import * as DialStates from "./testing/DialStates.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const now = new Date("2026-03-02T17:00:00.000Z")

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlDncRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("adds numbers, counting only new ones, and finds them", () =>
        Effect.gen(function*() {
          const dnc = yield* DncRepository
          const org = yield* Fixtures.organization()
          const [a, b, c] = [Fixtures.e164(1), Fixtures.e164(2), Fixtures.e164(3)]
          assert.deepStrictEqual(yield* dnc.add(org.id, [a, b, a]), { added: 2, contactsFailed: 0 })
          assert.deepStrictEqual(yield* dnc.add(org.id, [b, c]), { added: 1, contactsFailed: 0 })
          assert.deepStrictEqual(yield* dnc.add(org.id, []), { added: 0, contactsFailed: 0 })
          assert.deepStrictEqual(yield* dnc.findListed(org.id, [c, a, Fixtures.e164(4)]), [a, c])
        }))

      it.effect("lists are per organization", () =>
        Effect.gen(function*() {
          const dnc = yield* DncRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          yield* dnc.add(org.id, [Fixtures.e164(1)])
          assert.deepStrictEqual(yield* dnc.findListed(other.id, [Fixtures.e164(1)]), [])
          assert.deepStrictEqual(yield* dnc.add(other.id, [Fixtures.e164(1)]), { added: 1, contactsFailed: 0 })
        }))

      it.effect("removes a number, answering how many entries went", () =>
        Effect.gen(function*() {
          const dnc = yield* DncRepository
          const org = yield* Fixtures.organization()
          yield* dnc.add(org.id, [Fixtures.e164(1)])
          assert.strictEqual(yield* dnc.remove(org.id, Fixtures.e164(1)), 1)
          assert.strictEqual(yield* dnc.remove(org.id, Fixtures.e164(1)), 0)
          assert.deepStrictEqual(yield* dnc.findListed(org.id, [Fixtures.e164(1)]), [])
        }))

      it.effect("moves the organization's TRYING contacts with a listed number to FAILED, leased ones too", () =>
        Effect.gen(function*() {
          const dnc = yield* DncRepository
          const contacts = yield* ContactRepository
          const sql = yield* SqlClient.SqlClient
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const first = yield* Fixtures.campaign(org.id)
          const second = yield* Fixtures.campaign(org.id)
          const elsewhere = yield* Fixtures.campaign(other.id)
          const listed = Fixtures.e164(10)
          const kept = Fixtures.e164(11)
          const options = { allowDuplicates: true, now }
          yield* contacts.upload(
            first,
            [Fixtures.contact(listed), Fixtures.contact(listed), Fixtures.contact(kept)],
            options
          )
          yield* contacts.upload(second, [Fixtures.contact(listed)], options)
          yield* contacts.upload(elsewhere, [Fixtures.contact(listed)], options)
          // One copy is being dialed (it fails too; its lease stays until its call ends), one is
          // already COMPLETED.
          const copies = yield* sql<{ id: string }>`
            SELECT id::text AS "id" FROM contacts WHERE campaign_id = ${first.id} AND phone_number = ${listed} ORDER BY id`
          yield* sql`
            UPDATE contacts SET dialing_worker = 'w1', dialing_lease_expires_at = ${now} WHERE id = ${
            copies[0]!.id
          }::bigint`
          yield* sql`UPDATE contacts SET status = 'COMPLETED', next_attempt_at = NULL WHERE campaign_id = ${second.id}`
          yield* contacts.upload(second, [Fixtures.contact(listed)], options)

          assert.deepStrictEqual(yield* dnc.add(org.id, [listed]), { added: 1, contactsFailed: 3 })

          const statuses = yield* sql<{ campaignId: string; phoneNumber: string; status: string; dialing: boolean }>`
            SELECT campaign_id::text AS "campaignId", phone_number AS "phoneNumber", status AS "status",
                   dialing_lease_expires_at IS NOT NULL AS "dialing"
            FROM contacts WHERE campaign_id IN (${first.id}, ${second.id}, ${elsewhere.id}) ORDER BY id`
          assert.deepStrictEqual(statuses, [
            { campaignId: first.id, phoneNumber: listed, status: "FAILED", dialing: true },
            { campaignId: first.id, phoneNumber: listed, status: "FAILED", dialing: false },
            { campaignId: first.id, phoneNumber: kept, status: "TRYING", dialing: false },
            { campaignId: second.id, phoneNumber: listed, status: "COMPLETED", dialing: false },
            { campaignId: elsewhere.id, phoneNumber: listed, status: "TRYING", dialing: false },
            { campaignId: second.id, phoneNumber: listed, status: "FAILED", dialing: false }
          ])
        }))

      it.effect("the sweep equals ContactState.onDoNotCall on generated contacts", () =>
        DialStates.property(
          fc.array(fc.record({ state: DialStates.state(now.getTime()), listed: fc.boolean() }), {
            minLength: 1,
            maxLength: 12
          }),
          (contacts) =>
            Effect.gen(function*() {
              const dnc = yield* DncRepository
              const org = yield* Fixtures.organization()
              const campaign = yield* Fixtures.campaign(org.id)
              const numbers = contacts.map((_, i) => Fixtures.e164(i))
              const ids = yield* DialStates.insert(
                campaign,
                contacts.map((c, i) => ({ phoneNumber: numbers[i]!, state: c.state }))
              )
              const listed = numbers.filter((_, i) => contacts[i]!.listed)
              const result = yield* dnc.add(org.id, listed)
              assert.deepStrictEqual(result, {
                added: listed.length,
                contactsFailed: contacts.filter((c) => c.listed && c.state.status === "TRYING").length
              })
              assert.deepStrictEqual(
                yield* DialStates.read(ids),
                contacts.map((c) => c.listed ? ContactState.onDoNotCall(c.state) : c.state)
              )
            })
        ))
    })
  })
}
