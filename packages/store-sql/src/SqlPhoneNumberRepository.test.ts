import { assert, describe, layer } from "@effect/vitest"
import { PhoneNumberTaken } from "@voice-agent/core/Errors"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { Effect, Layer, Option } from "effect"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlPhoneNumberRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("adds numbers and lists them in number order", () =>
        Effect.gen(function*() {
          const numbers = yield* PhoneNumberRepository
          const org = yield* Fixtures.organization()
          const [a, b] = [Fixtures.randomE164(), Fixtures.randomE164()].sort()
          const added = yield* numbers.add(org.id, { phoneNumber: b!, smsEnabled: false })
          assert.deepStrictEqual(added, { organizationId: org.id, phoneNumber: b!, smsEnabled: false })
          yield* numbers.add(org.id, { phoneNumber: a!, smsEnabled: true })
          assert.deepStrictEqual(yield* numbers.list(org.id), [
            { organizationId: org.id, phoneNumber: a!, smsEnabled: true },
            added
          ])
        }))

      it.effect("a number has one owner: adding it again fails with PhoneNumberTaken", () =>
        Effect.gen(function*() {
          const numbers = yield* PhoneNumberRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const phoneNumber = Fixtures.randomE164()
          yield* numbers.add(org.id, { phoneNumber, smsEnabled: true })
          const same = yield* Effect.flip(numbers.add(org.id, { phoneNumber, smsEnabled: true }))
          assert.deepStrictEqual(same, new PhoneNumberTaken({ phoneNumber }))
          const elsewhere = yield* Effect.flip(numbers.add(other.id, { phoneNumber, smsEnabled: true }))
          assert.strictEqual(elsewhere._tag, "PhoneNumberTaken")
          assert.deepStrictEqual(yield* numbers.list(other.id), [])
        }))

      it.effect("adding to an unknown organization fails with OrganizationNotFound", () =>
        Effect.gen(function*() {
          const numbers = yield* PhoneNumberRepository
          const missing = "00000000-0000-4000-8000-000000000002"
          const error = yield* Effect.flip(
            numbers.add(missing, { phoneNumber: Fixtures.randomE164(), smsEnabled: true })
          )
          assert.strictEqual(error._tag, "OrganizationNotFound")
        }))

      it.effect("findOwned answers only the organization's own numbers; findOwner finds the owner", () =>
        Effect.gen(function*() {
          const numbers = yield* PhoneNumberRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const mine = Fixtures.randomE164()
          const theirs = Fixtures.randomE164()
          yield* numbers.add(org.id, { phoneNumber: mine, smsEnabled: true })
          yield* numbers.add(other.id, { phoneNumber: theirs, smsEnabled: false })
          const owned = yield* numbers.findOwned(org.id, [mine, theirs, Fixtures.randomE164()])
          assert.deepStrictEqual(owned.map((n) => n.phoneNumber), [mine])
          assert.deepStrictEqual(yield* numbers.findOwned(org.id, []), [])
          assert.deepStrictEqual(
            yield* numbers.findOwner(theirs),
            Option.some({ organizationId: other.id, phoneNumber: theirs, smsEnabled: false })
          )
          assert.isTrue(Option.isNone(yield* numbers.findOwner(Fixtures.randomE164())))
        }))
    })
  })
}
