import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import type { CallingSchedule } from "./CallingSchedule.ts"
import * as ContactState from "./ContactState.ts"
import type { ContactDialState } from "./ContactState.ts"

const runs = (n: number): number => Math.round(n * Number(process.env["VOICE_AGENT_PROPERTY_SCALE"] ?? 1))

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds
const HOUR = 3_600_000
const LEASE = 30_000

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
const uploadedAt = utc("2026-01-05T14:00:00Z")
const state = (overrides: Partial<ContactDialState> = {}): ContactDialState => ({
  ...ContactState.initial(uploadedAt),
  ...overrides
})
/** Claimed by worker "w1" at `at`, with `attempts` calls before this one. */
const claimed = (attempts = 0, at = monday10) => ContactState.claim(state({ attempts }), "w1", at, LEASE)
/** Claimed at `at` and handed to the carrier as call "call-1" a moment later. */
const dialed = (attempts = 0, at = monday10) => ContactState.dial(claimed(attempts, at), "call-1", at + 5)

const statuses = ["COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const
const notPlacedReasons: ReadonlyArray<ContactState.NotPlacedReason> = [
  "do-not-call",
  "campaign-stopped",
  "carrier-retryable",
  "agent-declined",
  "shutdown",
  "claim-lost"
]

/** The invariant the table's CHECK also holds: `nextAttemptAt` is null exactly when the status is final. */
const assertConsistent = (s: ContactDialState, message?: string) =>
  assert.strictEqual(s.nextAttemptAt === null, s.status !== "TRYING", message)

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
    it("is TRYING, never attempted, due at the upload instant, held by no one", () => {
      assert.deepStrictEqual(ContactState.initial(uploadedAt), {
        status: "TRYING",
        attempts: 0,
        nextAttemptAt: uploadedAt,
        lastAttemptedAt: null,
        lease: null
      })
    })
  })

  describe("leases", () => {
    it("a lease is live until its expiry (exclusive), then expired", () => {
      const held = claimed()
      const expiry = monday10 + LEASE
      assert.isTrue(ContactState.isBeingDialed(held, monday10))
      assert.isTrue(ContactState.isBeingDialed(held, expiry - 1))
      assert.isFalse(ContactState.isBeingDialed(held, expiry))
      assert.isFalse(ContactState.isBeingDialed(held, expiry + HOUR))
      assert.isFalse(ContactState.hasExpiredLease(held, expiry - 1))
      assert.isTrue(ContactState.hasExpiredLease(held, expiry))
      assert.isTrue(ContactState.hasExpiredLease(held, expiry + HOUR))
    })

    it("no lease is neither live nor expired", () => {
      for (const now of [0, monday10, monday10 + 10 * HOUR]) {
        assert.isFalse(ContactState.isBeingDialed(state(), now))
        assert.isFalse(ContactState.hasExpiredLease(state(), now))
      }
    })

    it("a dialed lease is judged by its expiry too", () => {
      assert.isTrue(ContactState.isBeingDialed(dialed(), monday10 + LEASE - 1))
      assert.isTrue(ContactState.hasExpiredLease(dialed(), monday10 + LEASE))
    })
  })

  describe("claim", () => {
    it("takes a lease until now + leaseMs, with no call yet; nothing else changes", () => {
      const before = state({ attempts: 1, nextAttemptAt: monday10 - HOUR, lastAttemptedAt: monday10 - 2 * HOUR })
      assert.deepStrictEqual(ContactState.claim(before, "worker-a", monday10, LEASE), {
        ...before,
        lease: { worker: "worker-a", expiresAt: monday10 + LEASE, conversationId: null }
      })
    })

    it("is not an attempt", () => {
      assert.strictEqual(claimed(2).attempts, 2)
      assert.isNull(claimed().lastAttemptedAt)
    })
  })

  describe("dial", () => {
    it("marks the lease with the call and stamps the attempt time; the attempt is not counted yet", () => {
      assert.deepStrictEqual(ContactState.dial(claimed(1), "call-9", monday10 + 100), {
        status: "TRYING",
        attempts: 1,
        nextAttemptAt: uploadedAt,
        lastAttemptedAt: monday10 + 100,
        lease: { worker: "w1", expiresAt: monday10 + LEASE, conversationId: "call-9" }
      })
    })

    it("without a lease changes nothing", () => {
      const idle = state()
      assert.strictEqual(ContactState.dial(idle, "call-1", monday10), idle)
    })
  })

  describe("applyOutcome", () => {
    const end = monday10 + 60_000

    it("completed and transfer: COMPLETED, the attempt counted, the lease cleared", () => {
      for (const outcome of ["completed", "transfer"] as const) {
        assert.deepStrictEqual(ContactState.applyOutcome(dialed(), outcome, policy(3), end), {
          status: "COMPLETED",
          attempts: 1,
          nextAttemptAt: null,
          lastAttemptedAt: monday10 + 5,
          lease: null
        }, outcome)
      }
    })

    it("cut-short, voicemail and agent-failure: PARTIALLY_COMPLETED, never retried", () => {
      for (const outcome of ["cut-short", "voicemail", "agent-failure"] as const) {
        // Attempts left and a retry delay that would land in a window: still final.
        const next = ContactState.applyOutcome(dialed(0), outcome, policy(5, 3600), end)
        assert.deepStrictEqual(next, {
          status: "PARTIALLY_COMPLETED",
          attempts: 1,
          nextAttemptAt: null,
          lastAttemptedAt: monday10 + 5,
          lease: null
        }, outcome)
      }
    })

    it("busy, no-answer, failed and lost with attempts left: TRYING, due at end + retry_delay_s", () => {
      for (const outcome of ["busy", "no-answer", "failed", "lost"] as const) {
        assert.deepStrictEqual(ContactState.applyOutcome(dialed(0), outcome, policy(3), end), {
          status: "TRYING",
          attempts: 1,
          nextAttemptAt: end + HOUR,
          lastAttemptedAt: monday10 + 5,
          lease: null
        }, outcome)
      }
    })

    it("the retry time is end + delay even when it falls outside the windows (the claim applies them)", () => {
      // Monday 16:30 EST + 1 h = 17:30, after the window; the contact still records 17:30.
      const late = utc("2026-01-05T21:30:00Z")
      const next = ContactState.applyOutcome(dialed(0, late), "no-answer", policy(2), late)
      assert.strictEqual(next.status, "TRYING")
      assert.strictEqual(next.nextAttemptAt, late + HOUR)
      // Friday 16:00 EST + 2 h lands on Friday evening; the weekend is the claim's business.
      const friday = utc("2026-01-09T21:00:00Z")
      assert.strictEqual(
        ContactState.applyOutcome(dialed(0, friday), "busy", policy(2, 7200), friday).nextAttemptAt,
        friday + 2 * HOUR
      )
    })

    it("the last attempt: FAILED", () => {
      for (const outcome of ["busy", "no-answer", "failed", "lost"] as const) {
        assert.deepStrictEqual(ContactState.applyOutcome(dialed(2), outcome, policy(3), end), {
          status: "FAILED",
          attempts: 3,
          nextAttemptAt: null,
          lastAttemptedAt: monday10 + 5,
          lease: null
        }, outcome)
      }
      // max_attempts 1 (the default): a single unanswered call fails the contact.
      assert.strictEqual(ContactState.applyOutcome(dialed(0), "busy", policy(1), end).status, "FAILED")
      // Attempts already over a lowered maximum: FAILED too.
      assert.strictEqual(ContactState.applyOutcome(dialed(4), "busy", policy(2), end).status, "FAILED")
    })

    it("FAILED when the campaign will never be open at or after end + delay", () => {
      // end_date is today: the retry at 17:30 has no window left.
      const late = utc("2026-01-05T21:30:00Z")
      const ending: CallingSchedule = { ...schedule, endDate: "2026-01-05" }
      const failed = ContactState.applyOutcome(dialed(0, late), "busy", policy(3, 3600, ending), late)
      assert.strictEqual(failed.status, "FAILED")
      assert.isNull(failed.nextAttemptAt)
      assert.strictEqual(failed.attempts, 1)
      // The same call ending earlier leaves a window today: retried.
      const early = ContactState.applyOutcome(dialed(0), "busy", policy(3, 3600, ending), end)
      assert.strictEqual(early.status, "TRYING")
      assert.strictEqual(early.nextAttemptAt, end + HOUR)
      // No windows at all.
      const noWindows: CallingSchedule = { ...schedule, windows: [] }
      assert.strictEqual(ContactState.applyOutcome(dialed(0), "busy", policy(3, 3600, noWindows), end).status, "FAILED")
      // Windows only on a day that a DST gap swallows every time it comes within the dates:
      // 2026-03-08 is New York's spring-forward Sunday (02:00 -> 03:00).
      const gapOnly: CallingSchedule = {
        windows: [{ day: 6, start_time: "02:00", end_time: "03:00" }],
        timeZone: "America/New_York",
        startDate: "2026-03-08",
        endDate: "2026-03-08"
      }
      const saturday = utc("2026-03-07T20:00:00Z")
      assert.strictEqual(
        ContactState.applyOutcome(dialed(0, saturday), "busy", policy(3, 3600, gapOnly), saturday).status,
        "FAILED"
      )
    })

    it("a contact that is no longer TRYING only counts the attempt and clears the lease", () => {
      for (const status of statuses) {
        for (const outcome of ContactState.CallOutcomes) {
          const before: ContactDialState = { ...dialed(1), status, nextAttemptAt: null }
          assert.deepStrictEqual(
            ContactState.applyOutcome(before, outcome, policy(3), end),
            { ...before, attempts: 2, lease: null },
            `${status} ${outcome}`
          )
        }
      }
    })

    it("a contact put on the DNC list mid-call stays FAILED, keeping its lease until the call ends", () => {
      const onDnc = ContactState.onDoNotCall(dialed(0))
      assert.strictEqual(onDnc.status, "FAILED")
      assert.deepStrictEqual(onDnc.lease, dialed(0).lease)
      assert.isTrue(ContactState.isBeingDialed(onDnc, monday10 + 10))
      const after = ContactState.applyOutcome(onDnc, "completed", policy(3), end)
      assert.deepStrictEqual(after, { ...onDnc, attempts: 1, lease: null })
    })
  })

  describe("release", () => {
    const now = monday10 + 1000

    it("do-not-call: FAILED, no attempt used, the lease cleared", () => {
      assert.deepStrictEqual(ContactState.release(claimed(1), "do-not-call", policy(3), now), {
        status: "FAILED",
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptedAt: null,
        lease: null
      })
    })

    it("carrier-retryable: due again after the carrier back-off, no attempt used", () => {
      assert.strictEqual(ContactState.carrierBackoffMs, 30_000)
      assert.deepStrictEqual(ContactState.release(claimed(1), "carrier-retryable", policy(3), now), {
        status: "TRYING",
        attempts: 1,
        nextAttemptAt: now + ContactState.carrierBackoffMs,
        lastAttemptedAt: null,
        lease: null
      })
      // Even with no attempt left after this one would have been: the refusal used none.
      assert.strictEqual(ContactState.release(claimed(2), "carrier-retryable", policy(3), now).status, "TRYING")
    })

    it("carrier-retryable when the campaign will never open again after the back-off: FAILED", () => {
      // Monday 16:59:50 EST on the last day: the back-off ends after the last window.
      const lastSeconds = utc("2026-01-05T21:59:50Z")
      const ending: CallingSchedule = { ...schedule, endDate: "2026-01-05" }
      const next = ContactState.release(
        claimed(0, lastSeconds),
        "carrier-retryable",
        policy(3, 3600, ending),
        lastSeconds
      )
      assert.strictEqual(next.status, "FAILED")
      assert.isNull(next.nextAttemptAt)
      assert.strictEqual(next.attempts, 0)
    })

    it("agent-declined: as a retryable carrier refusal, due again after the back-off, no attempt used", () => {
      for (const attempts of [0, 1, 2]) {
        for (const at of [now, utc("2026-01-05T21:59:50Z")]) {
          const ending = policy(3, 3600, { ...schedule, endDate: "2026-01-05" })
          for (const p of [policy(3), ending]) {
            assert.deepStrictEqual(
              ContactState.release(claimed(attempts, at), "agent-declined", p, at),
              ContactState.release(claimed(attempts, at), "carrier-retryable", p, at)
            )
          }
        }
      }
      assert.deepStrictEqual(ContactState.release(claimed(1), "agent-declined", policy(3), now), {
        status: "TRYING",
        attempts: 1,
        nextAttemptAt: now + ContactState.carrierBackoffMs,
        lastAttemptedAt: null,
        lease: null
      })
    })

    it("campaign-stopped, shutdown and claim-lost: left due as it was, no attempt used", () => {
      for (const reason of ["campaign-stopped", "shutdown", "claim-lost"] as const) {
        const before = claimed(2)
        assert.deepStrictEqual(ContactState.release(before, reason, policy(3), now), { ...before, lease: null }, reason)
      }
    })

    it("a contact that is no longer TRYING only loses its lease, whatever the reason", () => {
      for (const status of statuses) {
        for (const reason of notPlacedReasons) {
          const before: ContactDialState = { ...claimed(1), status, nextAttemptAt: null }
          assert.deepStrictEqual(
            ContactState.release(before, reason, policy(3), now),
            { ...before, lease: null },
            `${status} ${reason}`
          )
        }
      }
    })

    it("a released contact is callable again when due (except after the DNC re-check)", () => {
      for (const reason of ["campaign-stopped", "shutdown", "claim-lost"] as const) {
        assert.isTrue(
          ContactState.isCallable(ContactState.release(claimed(), reason, policy(3), now), campaign(), false, now),
          reason
        )
      }
      const backedOff = ContactState.release(claimed(), "carrier-retryable", policy(3), now)
      assert.isFalse(ContactState.isCallable(backedOff, campaign(), false, now + ContactState.carrierBackoffMs - 1))
      assert.isTrue(ContactState.isCallable(backedOff, campaign(), false, now + ContactState.carrierBackoffMs))
    })
  })

  describe("recover", () => {
    const now = monday10 + LEASE + 5000

    it("a lease with a conversation: the call is lost, the attempt counts, retried while attempts remain", () => {
      assert.deepStrictEqual(ContactState.recover(dialed(0), policy(3), now), {
        status: "TRYING",
        attempts: 1,
        nextAttemptAt: now + HOUR,
        lastAttemptedAt: monday10 + 5,
        lease: null
      })
      assert.deepStrictEqual(
        ContactState.recover(dialed(1), policy(3), now),
        ContactState.applyOutcome(dialed(1), "lost", policy(3), now)
      )
    })

    it("a lease with a conversation on the last attempt: FAILED", () => {
      const next = ContactState.recover(dialed(2), policy(3), now)
      assert.strictEqual(next.status, "FAILED")
      assert.strictEqual(next.attempts, 3)
      assert.isNull(next.lease)
    })

    it("a lease without a conversation: released, no attempt used, due as it was", () => {
      const before = claimed(1)
      assert.deepStrictEqual(ContactState.recover(before, policy(3), now), { ...before, lease: null })
      assert.deepStrictEqual(
        ContactState.recover(before, policy(3), now),
        ContactState.release(before, "claim-lost", policy(3), now)
      )
    })

    it("a contact failed by DNC mid-call: the attempt counts and the lease goes, still FAILED", () => {
      const onDnc = ContactState.onDoNotCall(dialed(0))
      assert.deepStrictEqual(ContactState.recover(onDnc, policy(3), now), { ...onDnc, attempts: 1, lease: null })
    })

    it("no lease: unchanged", () => {
      assert.deepStrictEqual(ContactState.recover(state(), policy(3), now), state())
    })
  })

  describe("onDoNotCall", () => {
    it("TRYING -> FAILED with no call placed and no attempt used", () => {
      assert.deepStrictEqual(ContactState.onDoNotCall(state({ attempts: 1 })), {
        ...state({ attempts: 1 }),
        status: "FAILED",
        nextAttemptAt: null
      })
    })

    it("keeps a lease, claimed or in a call", () => {
      for (const held of [claimed(), dialed()]) {
        const next = ContactState.onDoNotCall(held)
        assert.strictEqual(next.status, "FAILED")
        assert.isNull(next.nextAttemptAt)
        assert.strictEqual(next.lease, held.lease)
        assert.isFalse(ContactState.canDelete(next, monday10 + 10))
      }
    })

    it("leaves other statuses unchanged", () => {
      for (const status of statuses) {
        const before = state({ status, attempts: 1, nextAttemptAt: null })
        assert.strictEqual(ContactState.onDoNotCall(before), before)
      }
    })
  })

  describe("isCallable", () => {
    it("a fresh contact of an open, enabled campaign is callable", () => {
      assert.isTrue(ContactState.isCallable(state(), campaign(), false, monday10))
    })

    it("every condition of the callable predicate is required (docs/DECISIONS.md, Dialing)", () => {
      const cases: ReadonlyArray<
        readonly [string, ContactDialState, ContactState.CampaignDialing, boolean, number]
      > = [
        ["COMPLETED", state({ status: "COMPLETED", nextAttemptAt: null }), campaign(), false, monday10],
        [
          "PARTIALLY_COMPLETED",
          state({ status: "PARTIALLY_COMPLETED", nextAttemptAt: null }),
          campaign(),
          false,
          monday10
        ],
        ["FAILED", state({ status: "FAILED", nextAttemptAt: null }), campaign(), false, monday10],
        ["claimed (live lease)", claimed(), campaign(), false, monday10 + 1],
        ["in a call (live lease)", dialed(), campaign(), false, monday10 + 10],
        ["expired lease (recovered first)", claimed(), campaign(), false, monday10 + LEASE + 1],
        ["attempts used up", state({ attempts: 3 }), campaign(), false, monday10],
        ["attempts over", state({ attempts: 4 }), campaign(), false, monday10],
        ["not due yet", state({ nextAttemptAt: monday10 + 1 }), campaign(), false, monday10],
        ["paused", state(), campaign({ enabled: false }), false, monday10],
        ["deleted", state(), campaign({ deleted: true }), false, monday10],
        ["on DNC", state(), campaign(), true, monday10],
        ["after the window", state(), campaign(), false, utc("2026-01-05T22:00:00Z")],
        ["before the window", state(), campaign(), false, utc("2026-01-05T13:59:59.999Z")],
        ["weekend", state(), campaign(), false, utc("2026-01-10T15:00:00Z")],
        [
          "before start date",
          state(),
          campaign({ schedule: { ...schedule, startDate: "2026-01-06" } }),
          false,
          monday10
        ],
        ["after end date", state(), campaign({ schedule: { ...schedule, endDate: "2026-01-04" } }), false, monday10]
      ]
      for (const [name, s, c, dnc, now] of cases) assert.isFalse(ContactState.isCallable(s, c, dnc, now), name)
    })

    it("boundaries: due exactly now, attempts one below the maximum, the window's first instant, the end date", () => {
      assert.isTrue(
        ContactState.isCallable(state({ nextAttemptAt: monday10, attempts: 2 }), campaign(), false, monday10)
      )
      assert.isTrue(ContactState.isCallable(state({ nextAttemptAt: monday10 - 1 }), campaign(), false, monday10))
      assert.isTrue(ContactState.isCallable(state(), campaign(), false, utc("2026-01-05T14:00:00Z")))
      assert.isTrue(ContactState.isCallable(state(), campaign(), false, utc("2026-01-05T21:59:59.999Z")))
      assert.isTrue(
        ContactState.isCallable(
          state(),
          campaign({ schedule: { ...schedule, endDate: "2026-01-05" } }),
          false,
          monday10
        )
      )
    })

    it("windows are read in the campaign's zone", () => {
      // 15:00 UTC is 10:00 in New York but 07:00 in Los Angeles.
      const la = campaign({ schedule: { ...schedule, timeZone: "America/Los_Angeles" } })
      assert.isFalse(ContactState.isCallable(state(), la, false, monday10))
      assert.isTrue(ContactState.isCallable(state(), la, false, monday10 + 2 * HOUR))
    })

    it("a retried contact becomes callable at its next attempt time", () => {
      const retried = ContactState.applyOutcome(dialed(), "busy", policy(3), monday10 + 60_000)
      const at = retried.nextAttemptAt ?? 0
      assert.isFalse(ContactState.isCallable(retried, campaign(), false, at - 1))
      assert.isTrue(ContactState.isCallable(retried, campaign(), false, at))
    })
  })

  describe("canDelete", () => {
    it("is false only while a lease is live", () => {
      assert.isTrue(ContactState.canDelete(state(), monday10))
      for (const status of statuses) {
        assert.isTrue(ContactState.canDelete(state({ status, nextAttemptAt: null }), monday10), status)
      }
      for (const held of [claimed(), dialed(), ContactState.onDoNotCall(dialed())]) {
        assert.isFalse(ContactState.canDelete(held, monday10 + 10))
        assert.isFalse(ContactState.canDelete(held, monday10 + LEASE - 1))
        // Its daemon died: an expired lease blocks nothing.
        assert.isTrue(ContactState.canDelete(held, monday10 + LEASE))
      }
    })
  })

  describe("isAnswered", () => {
    it("separates answered outcomes from the others", () => {
      const answered = ContactState.CallOutcomes.filter(ContactState.isAnswered)
      assert.deepStrictEqual(answered, ["completed", "cut-short", "voicemail", "transfer", "agent-failure"])
    })
  })

  describe("terminationReasonFor", () => {
    it("maps every outcome to a documented termination_reason (docs/DECISIONS.md, Dialing)", () => {
      const expected: Record<ContactState.CallOutcome, string> = {
        "completed": "user-hangup",
        "cut-short": "user-hangup",
        "voicemail": "voicemail",
        "transfer": "bot-transfer",
        "agent-failure": "bot-failure",
        "busy": "busy",
        "no-answer": "no-answer",
        "failed": "failed",
        "lost": "bot-failure"
      }
      for (const outcome of ContactState.CallOutcomes) {
        assert.strictEqual(ContactState.terminationReasonFor(outcome), expected[outcome], outcome)
      }
    })

    it("the agent ending an answered call is bot-hangup; other outcomes do not depend on who ended it", () => {
      assert.strictEqual(ContactState.terminationReasonFor("completed", "agent"), "bot-hangup")
      assert.strictEqual(ContactState.terminationReasonFor("cut-short", "agent"), "bot-hangup")
      for (
        const outcome of ["voicemail", "transfer", "agent-failure", "busy", "no-answer", "failed", "lost"] as const
      ) {
        assert.strictEqual(
          ContactState.terminationReasonFor(outcome, "agent"),
          ContactState.terminationReasonFor(outcome, "remote"),
          outcome
        )
      }
    })
  })

  describe("transitions (property)", () => {
    // Valid states: nextAttemptAt null exactly when final; a lease with or without a call.
    const arbitraryLease = fc.option(
      fc.record({
        worker: fc.constantFrom("w1", "w2"),
        expiresAt: fc.integer({ min: monday10 - HOUR, max: monday10 + HOUR }),
        conversationId: fc.option(fc.constant("call-1"), { nil: null })
      }),
      { nil: null }
    )
    const arbitraryState: fc.Arbitrary<ContactDialState> = fc
      .record({
        status: fc.constantFrom(...ContactState.ContactStatuses),
        attempts: fc.integer({ min: 0, max: 6 }),
        nextAttemptAt: fc.integer({ min: monday10 - 7 * 24 * HOUR, max: monday10 + 7 * 24 * HOUR }),
        lastAttemptedAt: fc.option(fc.integer({ min: monday10 - 7 * 24 * HOUR, max: monday10 }), { nil: null }),
        lease: arbitraryLease
      })
      .map((s) => ({ ...s, nextAttemptAt: s.status === "TRYING" ? s.nextAttemptAt : null }))
    const arbitraryPolicy = fc.record({
      maxAttempts: fc.integer({ min: 1, max: 5 }),
      retryDelayS: fc.integer({ min: 3600, max: 2_592_000 }),
      schedule: fc.constantFrom<CallingSchedule>(
        schedule,
        { ...schedule, endDate: "2026-01-05" },
        { ...schedule, windows: [] },
        { ...schedule, timeZone: "Europe/London", startDate: "2026-02-01" }
      )
    })
    const now = fc.integer({ min: monday10 - HOUR, max: monday10 + 3 * 24 * HOUR })

    it("every transition keeps nextAttemptAt null exactly when final, and never moves a final status", () => {
      fc.assert(
        fc.property(
          arbitraryState,
          arbitraryPolicy,
          now,
          fc.constantFrom(...ContactState.CallOutcomes),
          fc.constantFrom(...notPlacedReasons),
          (s, p, at, outcome, reason) => {
            const results: ReadonlyArray<readonly [string, ContactDialState]> = [
              ["claim", ContactState.claim(s, "w3", at, LEASE)],
              ["dial", ContactState.dial(s, "call-2", at)],
              ["applyOutcome", ContactState.applyOutcome(s, outcome, p, at)],
              ["release", ContactState.release(s, reason, p, at)],
              ["recover", ContactState.recover(s, p, at)],
              ["onDoNotCall", ContactState.onDoNotCall(s)]
            ]
            for (const [name, next] of results) {
              assertConsistent(next, name)
              if (s.status !== "TRYING") assert.strictEqual(next.status, s.status, name)
            }
          }
        ),
        { numRuns: runs(500) }
      )
    }, 120_000)

    it("the attempt counts exactly when a call was placed: applyOutcome and recovering a dialed lease", () => {
      fc.assert(
        fc.property(
          arbitraryState,
          arbitraryPolicy,
          now,
          fc.constantFrom(...ContactState.CallOutcomes),
          fc.constantFrom(...notPlacedReasons),
          (s, p, at, outcome, reason) => {
            assert.strictEqual(ContactState.applyOutcome(s, outcome, p, at).attempts, s.attempts + 1)
            assert.strictEqual(ContactState.release(s, reason, p, at).attempts, s.attempts)
            assert.strictEqual(
              ContactState.recover(s, p, at).attempts,
              s.attempts + (s.lease?.conversationId != null ? 1 : 0)
            )
            for (const next of [ContactState.applyOutcome(s, outcome, p, at), ContactState.release(s, reason, p, at)]) {
              assert.isNull(next.lease)
            }
          }
        ),
        { numRuns: runs(500) }
      )
    }, 120_000)
  })
})
