import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import { Result, Schema } from "effect"
import type { CallingSchedule } from "./CallingSchedule.ts"
import * as ContactState from "./ContactState.ts"

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds
const HOUR = 3_600_000

// Weekdays 09:00-17:00 in New York (EST, UTC-5, in January 2026).
const schedule: CallingSchedule = {
  windows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
  timeZone: "America/New_York",
  startDate: "2026-01-01",
  endDate: null
}
const policy = (maxAttempts: number, retryDelayS = 3600, s: CallingSchedule = schedule): ContactState.RetryPolicy => ({
  maxAttempts,
  retryDelayS,
  schedule: s
})
const campaign = (overrides: Partial<ContactState.CampaignDialing> = {}): ContactState.CampaignDialing => ({
  enabled: true,
  deleted: false,
  maxAttempts: 3,
  schedule,
  ...overrides
})

// Monday 2026-01-05 10:00 EST
const monday10 = utc("2026-01-05T15:00:00Z")
const state = (overrides: Partial<ContactState.ContactDialState> = {}): ContactState.ContactDialState => ({
  ...ContactState.initial,
  ...overrides
})
const dialed = (attempts = 1, now = monday10) => ContactState.beginAttempt(state({ attempts: attempts - 1 }), now)

describe("ContactState", () => {
  describe("ContactStatus", () => {
    it("lists the four statuses and decodes only them", () => {
      assert.deepStrictEqual(ContactState.ContactStatuses, ["TRYING", "COMPLETED", "PARTIALLY_COMPLETED", "FAILED"])
      const decode = Schema.decodeUnknownResult(ContactState.ContactStatus)
      for (const status of ContactState.ContactStatuses) assert.isTrue(Result.isSuccess(decode(status)))
      for (const bad of ["trying", "DONE", "", 1, null]) assert.isTrue(Result.isFailure(decode(bad)))
    })
  })

  describe("initial", () => {
    it("is TRYING, never attempted, due at once", () => {
      assert.deepStrictEqual(ContactState.initial, {
        status: "TRYING",
        attempts: 0,
        nextAttemptAt: null,
        dialing: false,
        lastAttemptedAt: null
      })
    })
  })

  describe("beginAttempt", () => {
    it("marks dialing and counts the attempt", () => {
      assert.deepStrictEqual(ContactState.beginAttempt(state({ attempts: 1, nextAttemptAt: monday10 }), monday10 + 5), {
        status: "TRYING",
        attempts: 2,
        nextAttemptAt: monday10,
        dialing: true,
        lastAttemptedAt: monday10 + 5
      })
    })
  })

  describe("applyOutcome", () => {
    const now = monday10 + 60_000

    it("completed and transfer -> COMPLETED", () => {
      for (const outcome of ["completed", "transfer"] as const) {
        const next = ContactState.applyOutcome(dialed(), outcome, policy(3), now)
        assert.strictEqual(next.status, "COMPLETED")
        assert.isFalse(next.dialing)
        assert.isNull(next.nextAttemptAt)
        assert.strictEqual(next.attempts, 1)
      }
    })

    it("cut-short, voicemail and agent-failure -> PARTIALLY_COMPLETED, no retry", () => {
      for (const outcome of ["cut-short", "voicemail", "agent-failure"] as const) {
        const next = ContactState.applyOutcome(dialed(), outcome, policy(3), now)
        assert.strictEqual(next.status, "PARTIALLY_COMPLETED")
        assert.isFalse(next.dialing)
        assert.isNull(next.nextAttemptAt)
      }
    })

    it("not answered with attempts left -> TRYING after retry_delay_s, inside a window", () => {
      for (const outcome of ["busy", "no-answer", "failed"] as const) {
        const next = ContactState.applyOutcome(dialed(1), outcome, policy(3), now)
        assert.deepStrictEqual(next, {
          status: "TRYING",
          attempts: 1,
          nextAttemptAt: now + HOUR,
          dialing: false,
          lastAttemptedAt: monday10
        })
      }
    })

    it("not answered on the last attempt -> FAILED", () => {
      for (const outcome of ["busy", "no-answer", "failed"] as const) {
        const next = ContactState.applyOutcome(dialed(3), outcome, policy(3), now)
        assert.strictEqual(next.status, "FAILED")
        assert.isFalse(next.dialing)
        assert.isNull(next.nextAttemptAt)
      }
      // max_attempts 1 (the default): a single unanswered call fails the contact
      assert.strictEqual(ContactState.applyOutcome(dialed(1), "busy", policy(1), now).status, "FAILED")
    })

    it("a retry landing outside the windows waits for the next window opening", () => {
      // Monday 16:30 EST + 1 h = 17:30, after the window: Tuesday 09:00 EST
      const late = utc("2026-01-05T21:30:00Z")
      const next = ContactState.applyOutcome(dialed(1, late), "no-answer", policy(2), late)
      assert.strictEqual(next.status, "TRYING")
      assert.strictEqual(next.nextAttemptAt, utc("2026-01-06T14:00:00Z"))
      // Friday 16:00 EST + 2 h: Monday 09:00 EST
      const friday = utc("2026-01-09T21:00:00Z")
      const weekend = ContactState.applyOutcome(dialed(1, friday), "busy", policy(2, 7200), friday)
      assert.strictEqual(weekend.nextAttemptAt, utc("2026-01-12T14:00:00Z"))
    })

    it("a retry delay landing inside a window is kept as is", () => {
      const next = ContactState.applyOutcome(dialed(1), "busy", policy(2, 2 * 3600), now)
      assert.strictEqual(next.nextAttemptAt, now + 2 * HOUR)
    })

    it("FAILED when the campaign will never open again", () => {
      const ending: CallingSchedule = { ...schedule, endDate: "2026-01-05" }
      const late = utc("2026-01-05T21:30:00Z")
      const next = ContactState.applyOutcome(dialed(1, late), "busy", policy(3, 3600, ending), late)
      assert.strictEqual(next.status, "FAILED")
      assert.isNull(next.nextAttemptAt)
      const noWindows: CallingSchedule = { ...schedule, windows: [] }
      assert.strictEqual(ContactState.applyOutcome(dialed(1), "busy", policy(3, 3600, noWindows), now).status, "FAILED")
    })

    it("leaves finished contacts finished and clears the dialing flag", () => {
      for (const status of ["COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const) {
        for (const outcome of ContactState.CallOutcomes) {
          const next = ContactState.applyOutcome(state({ status, attempts: 1, dialing: true }), outcome, policy(3), now)
          assert.strictEqual(next.status, status)
          assert.isFalse(next.dialing)
        }
      }
    })

    it("a contact put on the DNC list mid-call stays FAILED", () => {
      const onDnc = ContactState.onDoNotCall(dialed(1))
      assert.strictEqual(onDnc.status, "FAILED")
      assert.isTrue(onDnc.dialing)
      const after = ContactState.applyOutcome(onDnc, "completed", policy(3), now)
      assert.strictEqual(after.status, "FAILED")
      assert.isFalse(after.dialing)
    })
  })

  describe("onDoNotCall", () => {
    it("TRYING -> FAILED with no call placed", () => {
      const next = ContactState.onDoNotCall(state({ nextAttemptAt: monday10 }))
      assert.deepStrictEqual(next, { ...ContactState.initial, status: "FAILED" })
    })
    it("leaves other statuses unchanged", () => {
      for (const status of ["COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const) {
        const before = state({ status, attempts: 1 })
        assert.strictEqual(ContactState.onDoNotCall(before), before)
      }
    })
  })

  describe("isCallable", () => {
    it("a fresh contact of an open, enabled campaign is callable", () => {
      assert.isTrue(ContactState.isCallable(state(), campaign(), false, monday10))
    })

    it("every condition of CONTRACT §5 is required", () => {
      const cases: ReadonlyArray<readonly [string, boolean]> = [
        ["COMPLETED", ContactState.isCallable(state({ status: "COMPLETED" }), campaign(), false, monday10)],
        [
          "PARTIALLY_COMPLETED",
          ContactState.isCallable(state({ status: "PARTIALLY_COMPLETED" }), campaign(), false, monday10)
        ],
        ["FAILED", ContactState.isCallable(state({ status: "FAILED" }), campaign(), false, monday10)],
        ["dialing", ContactState.isCallable(state({ dialing: true }), campaign(), false, monday10)],
        ["attempts used up", ContactState.isCallable(state({ attempts: 3 }), campaign(), false, monday10)],
        ["attempts over", ContactState.isCallable(state({ attempts: 4 }), campaign(), false, monday10)],
        ["not due yet", ContactState.isCallable(state({ nextAttemptAt: monday10 + 1 }), campaign(), false, monday10)],
        ["paused", ContactState.isCallable(state(), campaign({ enabled: false }), false, monday10)],
        ["deleted", ContactState.isCallable(state(), campaign({ deleted: true }), false, monday10)],
        ["on DNC", ContactState.isCallable(state(), campaign(), true, monday10)],
        ["outside windows", ContactState.isCallable(state(), campaign(), false, utc("2026-01-05T23:00:00Z"))],
        ["weekend", ContactState.isCallable(state(), campaign(), false, utc("2026-01-10T15:00:00Z"))],
        [
          "before start date",
          ContactState.isCallable(
            state(),
            campaign({ schedule: { ...schedule, startDate: "2026-01-06" } }),
            false,
            monday10
          )
        ],
        [
          "after end date",
          ContactState.isCallable(
            state(),
            campaign({ schedule: { ...schedule, endDate: "2026-01-04" } }),
            false,
            monday10
          )
        ]
      ]
      for (const [name, callable] of cases) assert.isFalse(callable, name)
    })

    it("due exactly now, and attempts below the maximum, are callable", () => {
      assert.isTrue(
        ContactState.isCallable(state({ nextAttemptAt: monday10, attempts: 2 }), campaign(), false, monday10)
      )
      assert.isTrue(ContactState.isCallable(state({ nextAttemptAt: monday10 - 1 }), campaign(), false, monday10))
    })

    it("a retried contact becomes callable at its next attempt time", () => {
      const late = utc("2026-01-05T21:30:00Z")
      const retried = ContactState.applyOutcome(ContactState.beginAttempt(state(), late), "busy", policy(3), late)
      const at = retried.nextAttemptAt ?? 0
      assert.isFalse(ContactState.isCallable(retried, campaign(), false, at - 1))
      assert.isTrue(ContactState.isCallable(retried, campaign(), false, at))
    })
  })

  describe("canDelete", () => {
    it("is false only while dialing", () => {
      assert.isTrue(ContactState.canDelete(state()))
      assert.isTrue(ContactState.canDelete(state({ status: "COMPLETED" })))
      assert.isFalse(ContactState.canDelete(dialed()))
      assert.isFalse(ContactState.canDelete(state({ status: "FAILED", dialing: true })))
    })
  })

  describe("isAnswered", () => {
    it("separates answered outcomes from the others", () => {
      const answered = ContactState.CallOutcomes.filter(ContactState.isAnswered)
      assert.deepStrictEqual(answered, ["completed", "cut-short", "voicemail", "transfer", "agent-failure"])
    })
  })

  describe("terminationReasonFor", () => {
    it("maps every outcome to a CONTRACT §5 value", () => {
      const expected: Record<ContactState.CallOutcome, string> = {
        "completed": "user-hangup",
        "cut-short": "user-hangup",
        "voicemail": "voicemail",
        "transfer": "bot-transfer",
        "agent-failure": "bot-failure",
        "busy": "busy",
        "no-answer": "no-answer",
        "failed": "failed"
      }
      for (const outcome of ContactState.CallOutcomes) {
        assert.strictEqual(ContactState.terminationReasonFor(outcome), expected[outcome], outcome)
      }
    })
    it("the agent ending the call is bot-hangup", () => {
      assert.strictEqual(ContactState.terminationReasonFor("completed", "agent"), "bot-hangup")
      assert.strictEqual(ContactState.terminationReasonFor("cut-short", "agent"), "bot-hangup")
      assert.strictEqual(ContactState.terminationReasonFor("voicemail", "agent"), "voicemail")
      assert.strictEqual(ContactState.terminationReasonFor("busy", "agent"), "busy")
    })
  })
})
