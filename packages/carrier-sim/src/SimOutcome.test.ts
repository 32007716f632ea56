import { assert, describe, it } from "@effect/vitest"
import { outcomeFor } from "./SimOutcome.ts"

describe("outcomeFor", () => {
  it("follows CONTRACT §6's table of last four digits", () => {
    const cases: Array<[string, string]> = [
      ["+12025550100", "conversation"],
      ["+12025550139", "conversation"],
      ["+12025550140", "voicemail"],
      ["+12025550149", "voicemail"],
      ["+12025550150", "busy"],
      ["+12025550160", "no-answer"],
      ["+12025550170", "carrier-failure"],
      ["+12025550179", "carrier-failure"],
      ["+12025550180", "early-hangup"],
      ["+12025550190", "never-hangs-up"],
      ["+12025550199", "never-hangs-up"],
      ["+12025550200", "conversation"],
      ["+12025551234", "conversation"],
      ["+12024560170", "conversation"],
      ["+442079460958", "conversation"]
    ]
    for (const [n, expected] of cases) assert.strictEqual(outcomeFor(n), expected, n)
  })
})
