import { assert, describe, it } from "@effect/vitest"
import * as Errors from "@voice-agent/core/Errors"
import { Effect, Exit } from "effect"
import { BadRequest, Conflict, NotFound, Unauthorized } from "../api/HttpErrors.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"

const failureOf = <E>(effect: Effect.Effect<never, E>): Effect.Effect<E> => Effect.flip(effect)

describe("mapDomainErrors", () => {
  it.effect("answers each domain failure with its status and sentence", () =>
    Effect.gen(function*() {
      const busy = yield* failureOf(mapDomainErrors(Effect.fail(new Errors.ContactBusy({ contactIds: ["c1"] }))))
      assert.instanceOf(busy, Conflict)
      assert.strictEqual(busy.detail, "The contact is being dialed or is mid-call")

      const missing = yield* failureOf(
        mapDomainErrors(Effect.fail(new Errors.CampaignNotFound({ campaignRef: "spring-sale" })))
      )
      assert.instanceOf(missing, NotFound)
      assert.strictEqual(missing.detail, "Campaign spring-sale not found")

      const cursor = yield* failureOf(mapDomainErrors(Effect.fail(new Errors.InvalidCursor())))
      assert.instanceOf(cursor, BadRequest)
    }))

  it.effect("passes HTTP errors through unchanged", () =>
    Effect.gen(function*() {
      const original = new Unauthorized({ detail: "Invalid or missing API key" })
      const passed = yield* failureOf(mapDomainErrors(Effect.fail(original)))
      assert.strictEqual(passed, original)
    }))

  it.effect("leaves successes alone", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(mapDomainErrors(Effect.succeed(42)))
      assert.deepStrictEqual(exit, Exit.succeed(42))
    }))
})
