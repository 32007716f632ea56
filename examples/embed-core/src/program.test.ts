import { assert, describe, it } from "@effect/vitest"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { Effect } from "effect"
import { EngineLive, program } from "./program.ts"

describe("embed-core example", () => {
  it.effect("creates a campaign, uploads all-or-nothing, and reads the status", () =>
    Effect.gen(function*() {
      const { campaign, created, rejected, status } = yield* program
      assert.match(campaign.code, /^gcmp-/)
      assert.deepStrictEqual(campaign.originPhoneNumbers, ["+12025550100" as E164])
      assert.strictEqual(created, 2)
      assert.strictEqual(rejected._tag, "ContactsRejected")
      assert.deepStrictEqual(rejected._tag === "ContactsRejected" ? rejected.rejected : [], [
        { phone_number: "+12025550123", reason: "duplicate" }
      ])
      assert.deepStrictEqual(status, { TRYING: 2, COMPLETED: 0, PARTIALLY_COMPLETED: 0, FAILED: 0 })
    }).pipe(Effect.provide(EngineLive)), { timeout: 60_000 })
})
