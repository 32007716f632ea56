import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { CalendarDate, isCalendarDate } from "./CalendarDate.ts"

describe("CalendarDate", () => {
  it("accepts real days, leap days included", () => {
    for (const s of ["2026-01-01", "2024-02-29", "2000-02-29", "2026-12-31", "0001-01-01", "9999-12-31"]) {
      assert.isTrue(isCalendarDate(s), s)
    }
  })
  it("rejects impossible days and other formats", () => {
    for (
      const s of [
        "0000-01-01",
        "2026-02-29",
        "1900-02-29",
        "2026-13-01",
        "2026-00-10",
        "2026-04-31",
        "2026-1-1",
        "20260101",
        "2026-01-01T00:00:00Z",
        ""
      ]
    ) {
      assert.isFalse(isCalendarDate(s), s)
    }
  })
  it("fails schema decoding with a message naming the value", () => {
    const result = Schema.decodeUnknownExit(CalendarDate)("2026-02-30")
    assert.isTrue(result._tag === "Failure")
    assert.match(String(result), /YYYY-MM-DD/)
  })
})
