import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import * as fc from "fast-check"
import { segmentAt } from "./zoneSegments.ts"

const zones = ["America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", "America/Santiago"]
const from = Date.UTC(2024, 0, 1)
const to = Date.UTC(2030, 0, 1)

const offsetOf = (epochMs: number, timeZone: string) =>
  Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone).offsetNanoseconds / 1_000_000

describe("zoneSegments", () => {
  it("answers the zone's own offset at any instant, whatever was asked before and in whatever order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: from, max: to }), fc.constantFrom(...zones)), {
          minLength: 1,
          maxLength: 40
        }),
        (instants) => {
          for (const [epochMs, timeZone] of instants) {
            const segment = segmentAt(epochMs, timeZone)
            assert.isTrue(segment.from <= epochMs && epochMs < segment.to)
            assert.strictEqual(segment.offsetMs, offsetOf(epochMs, timeZone))
            // The offset holds to the segment's end, and changes there.
            if (Number.isFinite(segment.to)) {
              assert.strictEqual(offsetOf(segment.to - 1, timeZone), segment.offsetMs)
              assert.notStrictEqual(offsetOf(segment.to, timeZone), segment.offsetMs)
            }
          }
        }
      ),
      { numRuns: 200 }
    )
  })

  it("a zone without transitions holds its offset for ever", () => {
    assert.deepStrictEqual(segmentAt(from, "UTC").to, Number.POSITIVE_INFINITY)
  })
})
