import { assert, describe, it } from "@effect/vitest"
import { eligibility } from "./Words.ts"

const campaign = {
  timezone: "America/New_York",
  start_date: "2026-11-01",
  end_date: null,
  max_attempts: 3,
  max_concurrency: 2
}
// Sunday 2026-11-29 15:00 UTC.
const now = Date.UTC(2026, 10, 29, 15, 0)

describe("eligibility in words", () => {
  it("names the reason and the next call in the campaign's zone", () => {
    assert.strictEqual(
      eligibility(
        { callable: false, blocked_by: ["outside_calling_window"], next_eligible_at: "2026-12-01T14:00:00.000Z" },
        campaign,
        now
      ),
      "outside its calling window: next call Tue 09:00 America/New_York"
    )
  })

  it("gives a date when the next call is more than six days away", () => {
    assert.strictEqual(
      eligibility(
        { callable: false, blocked_by: ["before_start_date"], next_eligible_at: "2026-12-14T14:00:00.000Z" },
        { ...campaign, start_date: "2026-12-14" },
        now
      ),
      "the campaign starts on 2026-12-14: next call Mon 14 Dec, 09:00 America/New_York"
    )
  })

  it("says when a contact will never be called again", () => {
    assert.strictEqual(
      eligibility({ callable: false, blocked_by: ["attempts_exhausted"], next_eligible_at: null }, campaign, now),
      "all 3 attempts are used: it will not be called again"
    )
  })

  it("says a paused campaign's contact is called once the campaign resumes", () => {
    assert.strictEqual(
      eligibility({ callable: false, blocked_by: ["paused"], next_eligible_at: null }, campaign, now),
      "the campaign is paused: it is called once the campaign resumes"
    )
  })

  it("joins every reason that applies", () => {
    assert.strictEqual(
      eligibility(
        { callable: false, blocked_by: ["paused", "do_not_call"], next_eligible_at: null },
        campaign,
        now
      ),
      "the campaign is paused; the number is on the Do-Not-Call list: it will not be called again"
    )
  })

  it("says a callable contact is called when a line is free", () => {
    assert.strictEqual(
      eligibility({ callable: true, blocked_by: [], next_eligible_at: null }, campaign, now),
      "callable now: it is called as soon as a line is free"
    )
  })
})
