import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Logging from "./Logging.ts"

describe("Logging", () => {
  it.effect("stack traces: kept at debug and below, off above (the daemon's processes only)", () =>
    Effect.gen(function*() {
      const before = Error.stackTraceLimit
      try {
        yield* Logging.stackTraces({ format: "text", level: "Debug" })
        assert.strictEqual(Error.stackTraceLimit, before)
        yield* Logging.stackTraces({ format: "text", level: "Info" })
        assert.strictEqual(Error.stackTraceLimit, 0)
        assert.isUndefined(new Error("no trace").stack?.split("\n")[1])
      } finally {
        Error.stackTraceLimit = before
      }
    }))

  it("per-request lines and stack traces come with the same levels", () => {
    for (const level of ["Info", "Warn", "Error"] as const) {
      assert.isFalse(Logging.keepsStackTraces({ format: "text", level }))
      assert.isFalse(Logging.logsRequests({ format: "text", level }))
    }
    for (const level of ["Debug", "Trace", "All"] as const) {
      assert.isTrue(Logging.keepsStackTraces({ format: "text", level }))
      assert.isTrue(Logging.logsRequests({ format: "text", level }))
    }
  })
})
