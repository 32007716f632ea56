import { assert, describe, it } from "@effect/vitest"
import { conversationMs, outcomeFor } from "./SimOutcome.ts"

describe("SimOutcome", () => {
  it("outcomeFor follows the README's table of last four digits", () => {
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

  it("conversation lengths are 3 to 6 s, the same for the same number", () => {
    const lengths = Array.from({ length: 200 }, (_, i) => conversationMs(`+1202555${String(i).padStart(4, "0")}`))
    for (const ms of lengths) assert.isTrue(ms >= 3_000 && ms <= 6_000 && ms % 100 === 0, String(ms))
    assert.strictEqual(Math.min(...lengths), 3_000)
    assert.strictEqual(Math.max(...lengths), 6_000)
    assert.strictEqual(conversationMs("+12025550123"), conversationMs("+12025550123"))
  })
})
