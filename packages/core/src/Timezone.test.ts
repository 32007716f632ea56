import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Timezone from "./Timezone.ts"

describe("Timezone", () => {
  describe("isValidTimeZone", () => {
    const valid = [
      "America/Los_Angeles",
      "America/New_York",
      "Europe/Berlin",
      "Europe/London",
      "Europe/Kyiv",
      "Asia/Kolkata",
      "Asia/Calcutta",
      "Australia/Lord_Howe",
      "America/Argentina/Buenos_Aires",
      "UTC",
      "Etc/UTC",
      "Etc/GMT+5",
      "US/Pacific",
      "PST8PDT",
      "EST"
    ]
    for (const name of valid) {
      it(`accepts ${name}`, () => {
        assert.isTrue(Timezone.isValidTimeZone(name))
        assert.isTrue(Timezone.isValidTimeZone(name), "cached answer")
      })
    }
    const invalid = [
      "",
      "Mars/Base",
      "America/New York",
      "america/los_angeles",
      "utc",
      " UTC",
      "Asia/Kolkata ",
      "+05:00",
      "-08:00",
      "Z",
      "UTC+1",
      "2020-01-01T00:00Z[UTC]",
      "Pacific Standard Time",
      "America/".padEnd(100, "x")
    ]
    for (const name of invalid) {
      it(`rejects ${JSON.stringify(name)}`, () => {
        assert.isFalse(Timezone.isValidTimeZone(name))
      })
    }
  })

  describe("TimeZone schema", () => {
    const decode = Schema.decodeUnknownResult(Timezone.TimeZone)
    it("decodes known names unchanged", () => {
      const result = decode("Europe/Berlin")
      assert.isTrue(Result.isSuccess(result) && result.success === "Europe/Berlin")
    })
    it("fails with the documented message", () => {
      const result = decode("Mars/Base")
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.strictEqual(result.failure.message, "Unknown IANA timezone: Mars/Base")
    })
    it("rejects non-strings", () => {
      assert.isTrue(Result.isFailure(decode(42)))
      assert.isTrue(Result.isFailure(decode(null)))
    })
  })
})
