import { assert, describe, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue } from "effect"
import * as CallingWindow from "./CallingWindow.ts"

const success = <A>(result: Result.Result<A, unknown>): A => {
  if (Result.isFailure(result)) assert.fail(`expected success, got: ${String(result.failure)}`)
  return result.success
}

const issuesOf = (
  input: unknown
): ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> => {
  const result = Schema.decodeUnknownResult(CallingWindow.CallingWindowInput, { errors: "all" })(input)
  if (Result.isSuccess(result)) assert.fail(`expected failure, got: ${JSON.stringify(result.success)}`)
  return SchemaIssue.makeFormatterStandardSchemaV1()(result.failure.issue).issues.map((i) => ({
    path: (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p)),
    message: i.message
  }))
}

describe("CallingWindow", () => {
  describe("parseDay", () => {
    const good: ReadonlyArray<readonly [unknown, CallingWindow.DayOfWeek]> = [
      ["monday", 0],
      ["Tuesday", 1],
      ["WEDNESDAY", 2],
      [" thursday ", 3],
      ["fRiDaY", 4],
      ["saturday", 5],
      ["sunday", 6],
      [0, 0],
      [6, 6],
      [3, 3],
      ["0", 0],
      ["6", 6],
      [" 2 ", 2]
    ]
    for (const [input, expected] of good) {
      it(`reads ${JSON.stringify(input)} as ${expected}`, () => {
        assert.strictEqual(success(CallingWindow.parseDay(input)), expected)
      })
    }
    const bad: ReadonlyArray<unknown> = [
      "funday",
      "mon",
      "",
      "7",
      "-1",
      "1.0",
      "01",
      7,
      -1,
      1.5,
      Number.NaN,
      null,
      undefined,
      true,
      {},
      ["monday"]
    ]
    for (const input of bad) {
      it(`rejects ${JSON.stringify(input)}`, () => {
        const result = CallingWindow.parseDay(input)
        assert.isTrue(Result.isFailure(result) && result.failure.startsWith("Invalid day"))
      })
    }
  })

  describe("parseTime", () => {
    const good: ReadonlyArray<readonly [string, string]> = [
      ["09:00", "09:00"],
      ["9:00", "09:00"],
      ["00:00", "00:00"],
      ["23:59", "23:59"],
      ["24:00", "24:00"],
      ["17:30", "17:30"],
      ["09:00:00", "09:00"],
      [" 08:15 ", "08:15"],
      ["9am", "09:00"],
      ["9AM", "09:00"],
      ["9 AM", "09:00"],
      ["9 am", "09:00"],
      ["9:00AM", "09:00"],
      ["9:00 am", "09:00"],
      ["9:30 pm", "21:30"],
      ["9:30PM", "21:30"],
      ["12am", "00:00"],
      ["12:30am", "00:30"],
      ["12pm", "12:00"],
      ["12:45 PM", "12:45"],
      ["1pm", "13:00"],
      ["11:59pm", "23:59"],
      ["9 a.m.", "09:00"],
      ["09am", "09:00"]
    ]
    for (const [input, expected] of good) {
      it(`reads ${JSON.stringify(input)} as ${expected}`, () => {
        assert.strictEqual(success(CallingWindow.parseTime(input)), expected)
      })
    }
    const bad: ReadonlyArray<unknown> = [
      "25:00",
      "24:01",
      "24:30",
      "9:60",
      "12:5",
      "123:00",
      "9",
      "900",
      "0900",
      "13pm",
      "0am",
      "0:30am",
      "12:60pm",
      "9:00:30",
      "noon",
      "9 o'clock",
      "",
      "  ",
      "9:00 xm",
      "-1:00",
      900,
      9,
      null,
      undefined
    ]
    for (const input of bad) {
      it(`rejects ${JSON.stringify(input)}`, () => {
        const result = CallingWindow.parseTime(input)
        assert.isTrue(Result.isFailure(result) && result.failure.startsWith("Invalid time"))
      })
    }
  })

  describe("toMinutes", () => {
    it("counts minutes since midnight", () => {
      assert.strictEqual(CallingWindow.toMinutes("00:00"), 0)
      assert.strictEqual(CallingWindow.toMinutes("09:30"), 570)
      assert.strictEqual(CallingWindow.toMinutes("23:59"), 1439)
      assert.strictEqual(CallingWindow.toMinutes("24:00"), 1440)
    })
  })

  describe("CallingWindow schema", () => {
    const decode = Schema.decodeUnknownResult(CallingWindow.CallingWindow)
    it("accepts the normalized form", () => {
      assert.deepStrictEqual(success(decode({ day: 0, start_time: "09:00", end_time: "24:00" })), {
        day: 0,
        start_time: "09:00",
        end_time: "24:00"
      })
    })
    it("rejects request forms and bad windows", () => {
      for (
        const input of [
          { day: "monday", start_time: "09:00", end_time: "17:00" },
          { day: 7, start_time: "09:00", end_time: "17:00" },
          { day: 0, start_time: "9am", end_time: "17:00" },
          { day: 0, start_time: "9:00", end_time: "17:00" },
          { day: 0, start_time: "17:00", end_time: "09:00" },
          { day: 0, start_time: "24:00", end_time: "24:00" }
        ]
      ) {
        assert.isTrue(Result.isFailure(decode(input)), JSON.stringify(input))
      }
    })
    it("has the identifier CallingWindow", () => {
      const document = Schema.toJsonSchemaDocument(Schema.Struct({ w: CallingWindow.CallingWindow }))
      assert.property(document.definitions, "CallingWindow")
    })
  })

  describe("CallingWindowInput", () => {
    const decode = Schema.decodeUnknownResult(CallingWindow.CallingWindowInput)
    const encode = Schema.encodeUnknownResult(CallingWindow.CallingWindowInput)

    it("normalizes day names and 12-hour times", () => {
      assert.deepStrictEqual(success(decode({ day: "Monday", start_time: "9am", end_time: "5:30 PM" })), {
        day: 0,
        start_time: "09:00",
        end_time: "17:30"
      })
      assert.deepStrictEqual(success(decode({ day: 6, start_time: "8:00", end_time: "24:00" })), {
        day: 6,
        start_time: "08:00",
        end_time: "24:00"
      })
      assert.deepStrictEqual(success(decode({ day: "4", start_time: "12pm", end_time: "12:01pm" })), {
        day: 4,
        start_time: "12:00",
        end_time: "12:01"
      })
    })

    it("encodes to the integer day", () => {
      assert.deepStrictEqual(success(encode({ day: 3, start_time: "09:00", end_time: "10:00" })), {
        day: 3,
        start_time: "09:00",
        end_time: "10:00"
      })
    })

    it("points at the bad day", () => {
      const issues = issuesOf({ day: "funday", start_time: "09:00", end_time: "17:00" })
      assert.strictEqual(issues.length, 1)
      assert.deepStrictEqual(issues[0]?.path, ["day"])
      assert.include(issues[0]?.message, "Invalid day \"funday\"")
    })

    it("points at every bad time", () => {
      const issues = issuesOf({ day: 1, start_time: "25:00", end_time: "13pm" })
      assert.deepStrictEqual(issues.map((i) => i.path), [["start_time"], ["end_time"]])
      assert.include(issues[0]?.message, "Invalid time \"25:00\"")
      assert.include(issues[1]?.message, "Invalid time \"13pm\"")
    })

    it("rejects a window that does not end after it starts, at end_time", () => {
      for (
        const [start, end] of [["17:00", "09:00"], ["09:00", "09:00"], ["22:00", "02:00"], ["9pm", "12am"]] as const
      ) {
        const issues = issuesOf({ day: 2, start_time: start, end_time: end })
        assert.deepStrictEqual(issues, [{
          path: ["end_time"],
          message: "end_time must be after start_time; split overnight windows in two"
        }])
      }
    })

    it("rejects 24:00 as a start time", () => {
      const issues = issuesOf({ day: 2, start_time: "24:00", end_time: "24:00" })
      assert.deepStrictEqual(issues.map((i) => i.path), [["start_time"]])
    })

    it("reports missing fields and wrong types", () => {
      assert.deepStrictEqual(issuesOf({ day: 1, start_time: "09:00" }).map((i) => i.path), [["end_time"]])
      assert.deepStrictEqual(issuesOf({ day: true, start_time: 9, end_time: "10:00" }).map((i) => i.path), [
        ["day"],
        ["start_time"]
      ])
      assert.strictEqual(issuesOf("monday 9-5").length, 1)
    })

    it("points into arrays of windows", () => {
      const result = Schema.decodeUnknownResult(Schema.Array(CallingWindow.CallingWindowInput))([
        { day: 0, start_time: "09:00", end_time: "17:00" },
        { day: 1, start_time: "9", end_time: "17:00" }
      ])
      if (Result.isSuccess(result)) assert.fail("expected failure")
      const [issue] = SchemaIssue.makeFormatterStandardSchemaV1()(result.failure.issue).issues
      assert.deepStrictEqual(issue?.path, [1, "start_time"])
    })
  })

  describe("recommended range", () => {
    const w = (day: number, start_time: string, end_time: string): CallingWindow.CallingWindow => ({
      day,
      start_time,
      end_time
    })

    it("isOutsideRecommendedRange", () => {
      assert.isFalse(CallingWindow.isOutsideRecommendedRange(w(0, "08:00", "21:00")))
      assert.isFalse(CallingWindow.isOutsideRecommendedRange(w(0, "09:00", "17:00")))
      assert.isTrue(CallingWindow.isOutsideRecommendedRange(w(0, "07:59", "12:00")))
      assert.isTrue(CallingWindow.isOutsideRecommendedRange(w(0, "12:00", "21:01")))
      assert.isTrue(CallingWindow.isOutsideRecommendedRange(w(0, "20:00", "24:00")))
      assert.isTrue(CallingWindow.isOutsideRecommendedRange(w(0, "00:00", "01:00")))
    })

    it("recommendedRangeWarning names the offending windows", () => {
      assert.isUndefined(CallingWindow.recommendedRangeWarning([]))
      assert.isUndefined(CallingWindow.recommendedRangeWarning([w(0, "08:00", "21:00"), w(4, "10:00", "12:00")]))
      assert.strictEqual(
        CallingWindow.recommendedRangeWarning([w(6, "07:00", "09:00")]),
        "Calling windows outside the recommended range 08:00-21:00: sunday 07:00-09:00"
      )
      assert.strictEqual(
        CallingWindow.recommendedRangeWarning([w(0, "09:00", "17:00"), w(1, "20:00", "22:00"), w(5, "06:30", "24:00")]),
        "Calling windows outside the recommended range 08:00-21:00: tuesday 20:00-22:00, saturday 06:30-24:00"
      )
    })
  })
})
