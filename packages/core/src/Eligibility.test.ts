import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import * as fc from "fast-check"
import type { CallingSchedule } from "./CallingSchedule.ts"
import { isOpenAt } from "./CallingSchedule.ts"
import type { CallingWindow } from "./CallingWindow.ts"
import * as ContactState from "./ContactState.ts"
import type { CampaignDialing, ContactDialState } from "./ContactState.ts"
import * as Eligibility from "./Eligibility.ts"
import type { BlockedReason, DialingLoad } from "./Eligibility.ts"

/** Property-test runs scale with VOICE_AGENT_PROPERTY_SCALE (default 1) for deeper local runs. */
const runs = (n: number): number => Math.round(n * Number(process.env["VOICE_AGENT_PROPERTY_SCALE"] ?? 1))

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const LEASE = 30_000

// Weekdays 09:00-17:00 in New York (EST, UTC-5, in January 2026).
const schedule: CallingSchedule = {
  windows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
  timeZone: "America/New_York",
  startDate: "2026-01-01",
  endDate: null
}
const campaign = (overrides: Partial<CampaignDialing> = {}, s: Partial<CallingSchedule> = {}): CampaignDialing => ({
  enabled: true,
  deleted: false,
  maxAttempts: 3,
  schedule: { ...schedule, ...s },
  ...overrides
})
const idle: DialingLoad = { campaignActive: 0, campaignMax: 5, organizationActive: 0, organizationMax: 10 }

// Monday 2026-01-05 10:00 EST; the contact was uploaded an hour earlier.
const monday10 = utc("2026-01-05T15:00:00Z")
const state = (overrides: Partial<ContactDialState> = {}): ContactDialState => ({
  ...ContactState.initial(monday10 - HOUR),
  ...overrides
})
const final = (status: "COMPLETED" | "PARTIALLY_COMPLETED" | "FAILED") => state({ status, nextAttemptAt: null })

const explain = (
  s: ContactDialState = state(),
  c: CampaignDialing = campaign(),
  options: { readonly dnc?: boolean; readonly load?: DialingLoad; readonly now?: number } = {}
) => Eligibility.explain(s, c, options.dnc ?? false, options.load ?? idle, options.now ?? monday10)

describe("Eligibility", () => {
  describe("BlockedReasons", () => {
    it("lists the documented reasons in blocked_by order (docs/DECISIONS.md, Extensions)", () => {
      assert.deepStrictEqual(Eligibility.BlockedReasons, [
        "paused",
        "before_start_date",
        "after_end_date",
        "outside_calling_window",
        "retry_delay",
        "attempts_exhausted",
        "do_not_call",
        "in_progress",
        "final_status",
        "campaign_concurrency_full",
        "organization_concurrency_full"
      ])
    })
  })

  describe("explain", () => {
    it("a fresh contact of an open campaign is callable now", () => {
      assert.deepStrictEqual(explain(), { callable: true, nextEligibleAt: monday10, blockedBy: [] })
    })

    it("paused (disabled or deleted campaign): never, until it changes", () => {
      for (const c of [campaign({ enabled: false }), campaign({ deleted: true })]) {
        assert.deepStrictEqual(explain(state(), c), { callable: false, nextEligibleAt: null, blockedBy: ["paused"] })
      }
    })

    it("before_start_date: eligible at the first window opening on the start date", () => {
      // Starts Wednesday: 09:00 EST that day.
      assert.deepStrictEqual(explain(state(), campaign({}, { startDate: "2026-01-07" })), {
        callable: false,
        nextEligibleAt: utc("2026-01-07T14:00:00Z"),
        blockedBy: ["before_start_date"]
      })
      // Starts on a Saturday: the first opening is Monday's.
      assert.strictEqual(
        explain(state(), campaign({}, { startDate: "2026-01-10" })).nextEligibleAt,
        utc("2026-01-12T14:00:00Z")
      )
    })

    it("after_end_date: never", () => {
      assert.deepStrictEqual(explain(state(), campaign({}, { endDate: "2026-01-04" })), {
        callable: false,
        nextEligibleAt: null,
        blockedBy: ["after_end_date"]
      })
    })

    it("the end date is inclusive, read in the campaign's zone", () => {
      assert.isTrue(explain(state(), campaign({}, { endDate: "2026-01-05" })).callable)
      // 2026-01-06 03:00 UTC is still Monday evening in New York: outside the window, not past the end.
      const evening = utc("2026-01-06T03:00:00Z")
      assert.deepStrictEqual(explain(state(), campaign({}, { endDate: "2026-01-05" }), { now: evening }), {
        callable: false,
        nextEligibleAt: null,
        blockedBy: ["outside_calling_window"]
      })
    })

    it("outside_calling_window: eligible at the next window opening", () => {
      // Monday 18:00 EST: Tuesday 09:00.
      assert.deepStrictEqual(explain(state(), campaign(), { now: utc("2026-01-05T23:00:00Z") }), {
        callable: false,
        nextEligibleAt: utc("2026-01-06T14:00:00Z"),
        blockedBy: ["outside_calling_window"]
      })
      // Saturday noon: Monday 09:00.
      assert.strictEqual(
        explain(state(), campaign(), { now: utc("2026-01-10T17:00:00Z") }).nextEligibleAt,
        utc("2026-01-12T14:00:00Z")
      )
      // Monday 08:59:59.999: one millisecond later.
      const justBefore = utc("2026-01-05T13:59:59.999Z")
      assert.strictEqual(explain(state(), campaign(), { now: justBefore }).nextEligibleAt, justBefore + 1)
      // Windows that never open: never.
      assert.deepStrictEqual(explain(state(), campaign({}, { windows: [] })), {
        callable: false,
        nextEligibleAt: null,
        blockedBy: ["outside_calling_window"]
      })
    })

    it("retry_delay inside a window: eligible at the next attempt time", () => {
      const at = monday10 + 90 * MINUTE
      assert.deepStrictEqual(explain(state({ attempts: 1, nextAttemptAt: at })), {
        callable: false,
        nextEligibleAt: at,
        blockedBy: ["retry_delay"]
      })
      // Due exactly now is not a delay.
      assert.isTrue(explain(state({ attempts: 1, nextAttemptAt: monday10 })).callable)
    })

    it("retry_delay ending outside the windows: the later time moved to the next window opening", () => {
      // Due Monday 18:00: Tuesday 09:00.
      assert.strictEqual(
        explain(state({ attempts: 1, nextAttemptAt: utc("2026-01-05T23:00:00Z") })).nextEligibleAt,
        utc("2026-01-06T14:00:00Z")
      )
      // Due Friday 20:00: Monday 09:00.
      assert.strictEqual(
        explain(state({ attempts: 1, nextAttemptAt: utc("2026-01-10T01:00:00Z") })).nextEligibleAt,
        utc("2026-01-12T14:00:00Z")
      )
      // Due before the start date: the start date's opening.
      assert.strictEqual(
        explain(state({ attempts: 1, nextAttemptAt: monday10 + HOUR }), campaign({}, { startDate: "2026-01-08" }))
          .nextEligibleAt,
        utc("2026-01-08T14:00:00Z")
      )
      // Due after the end date: never.
      assert.deepStrictEqual(
        explain(
          state({ attempts: 1, nextAttemptAt: utc("2026-01-06T15:00:00Z") }),
          campaign({}, { endDate: "2026-01-05" })
        ),
        { callable: false, nextEligibleAt: null, blockedBy: ["retry_delay"] }
      )
    })

    it("retry_delay while outside the window: both reasons, the later of the two", () => {
      // Monday 18:00, due Tuesday 11:00 (inside Tuesday's window).
      const due = utc("2026-01-06T16:00:00Z")
      assert.deepStrictEqual(
        explain(state({ attempts: 1, nextAttemptAt: due }), campaign(), {
          now: utc("2026-01-05T23:00:00Z")
        }),
        { callable: false, nextEligibleAt: due, blockedBy: ["outside_calling_window", "retry_delay"] }
      )
      // Monday 18:00, due Monday 20:00: the window's opening wins.
      assert.strictEqual(
        explain(state({ attempts: 1, nextAttemptAt: utc("2026-01-06T01:00:00Z") }), campaign(), {
          now: utc("2026-01-05T23:00:00Z")
        }).nextEligibleAt,
        utc("2026-01-06T14:00:00Z")
      )
    })

    it("attempts_exhausted: never", () => {
      for (const attempts of [3, 4]) {
        assert.deepStrictEqual(explain(state({ attempts })), {
          callable: false,
          nextEligibleAt: null,
          blockedBy: ["attempts_exhausted"]
        })
      }
      assert.isTrue(explain(state({ attempts: 2 })).callable)
    })

    it("do_not_call: never", () => {
      assert.deepStrictEqual(explain(state(), campaign(), { dnc: true }), {
        callable: false,
        nextEligibleAt: null,
        blockedBy: ["do_not_call"]
      })
    })

    it("in_progress (claimed, in a call, or an expired lease not yet recovered): null, how it ends decides", () => {
      const claimed = ContactState.claim(state(), "w1", monday10 - 1000, LEASE)
      const dialed = ContactState.dial(claimed, "call-1", monday10 - 900)
      const expired = ContactState.claim(state(), "w1", monday10 - 2 * LEASE, LEASE)
      for (const s of [claimed, dialed, expired]) {
        assert.deepStrictEqual(explain(s), { callable: false, nextEligibleAt: null, blockedBy: ["in_progress"] })
      }
    })

    it("final_status: never; a FAILED contact on the DNC list says both", () => {
      for (const status of ["COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const) {
        assert.deepStrictEqual(explain(final(status)), {
          callable: false,
          nextEligibleAt: null,
          blockedBy: ["final_status"]
        }, status)
      }
      assert.deepStrictEqual(explain(final("FAILED"), campaign(), { dnc: true }).blockedBy, [
        "do_not_call",
        "final_status"
      ])
      // A final contact with attempts used up is final, not exhausted; nor does it wait for a retry.
      assert.deepStrictEqual(explain({ ...final("FAILED"), attempts: 3 }).blockedBy, ["final_status"])
    })

    it("full caps: not callable, but eligible now (a slot frees when a call ends)", () => {
      const full = { ...idle, campaignActive: 5 }
      assert.deepStrictEqual(explain(state(), campaign(), { load: full }), {
        callable: false,
        nextEligibleAt: monday10,
        blockedBy: ["campaign_concurrency_full"]
      })
      const orgFull = { ...idle, organizationActive: 10 }
      assert.deepStrictEqual(explain(state(), campaign(), { load: orgFull }), {
        callable: false,
        nextEligibleAt: monday10,
        blockedBy: ["organization_concurrency_full"]
      })
      assert.deepStrictEqual(
        explain(state(), campaign(), { load: { ...idle, campaignActive: 6, organizationActive: 11 } }).blockedBy,
        ["campaign_concurrency_full", "organization_concurrency_full"]
      )
      // One slot left on each: callable.
      assert.isTrue(
        explain(state(), campaign(), { load: { ...idle, campaignActive: 4, organizationActive: 9 } }).callable
      )
      // Outside the window with full caps: the window decides when.
      assert.strictEqual(
        explain(state(), campaign(), { load: full, now: utc("2026-01-05T23:00:00Z") }).nextEligibleAt,
        utc("2026-01-06T14:00:00Z")
      )
    })

    it("blocked_by lists every reason that applies, in the documented order", () => {
      const everything = Eligibility.explain(
        ContactState.claim(state({ attempts: 3, nextAttemptAt: utc("2026-01-20T15:00:00Z") }), "w1", monday10, LEASE),
        campaign({ enabled: false }, { startDate: "2026-01-07" }),
        true,
        { campaignActive: 5, campaignMax: 5, organizationActive: 10, organizationMax: 10 },
        utc("2026-01-05T23:00:00Z")
      )
      assert.deepStrictEqual(everything, {
        callable: false,
        nextEligibleAt: null,
        blockedBy: [
          "paused",
          "before_start_date",
          "outside_calling_window",
          "retry_delay",
          "attempts_exhausted",
          "do_not_call",
          "in_progress",
          "campaign_concurrency_full",
          "organization_concurrency_full"
        ]
      })
      const ended = Eligibility.explain(
        ContactState.onDoNotCall(ContactState.claim(state(), "w1", monday10, LEASE)),
        campaign({ deleted: true }, { endDate: "2026-01-04" }),
        true,
        { campaignActive: 5, campaignMax: 5, organizationActive: 0, organizationMax: 10 },
        utc("2026-01-05T23:00:00Z")
      )
      assert.deepStrictEqual(ended.blockedBy, [
        "paused",
        "after_end_date",
        "outside_calling_window",
        "do_not_call",
        "in_progress",
        "final_status",
        "campaign_concurrency_full"
      ])
    })

    it("across a DST change: the opening is read in the campaign's zone", () => {
      // New York springs forward on Sunday 2026-03-08 at 02:00. A Sunday window from 02:30
      // opens at the first instant after the gap, 03:00 EDT (07:00 UTC).
      const sunday = campaign({}, { windows: [{ day: 6, start_time: "02:30", end_time: "05:00" }] })
      assert.deepStrictEqual(
        explain(state({ nextAttemptAt: utc("2026-03-07T12:00:00Z") }), sunday, {
          now: utc("2026-03-07T12:00:00Z")
        }),
        {
          callable: false,
          nextEligibleAt: utc("2026-03-08T07:00:00Z"),
          blockedBy: ["outside_calling_window"]
        }
      )
      // The weekday window after the change opens at 09:00 EDT (13:00 UTC), not 14:00 UTC.
      assert.strictEqual(
        explain(state(), campaign(), { now: utc("2026-03-07T12:00:00Z") }).nextEligibleAt,
        utc("2026-03-09T13:00:00Z")
      )
    })
  })

  describe("wouldClaim", () => {
    it("is the callable predicate with room under both caps", () => {
      assert.isTrue(Eligibility.wouldClaim(state(), campaign(), false, idle, monday10))
      assert.isFalse(Eligibility.wouldClaim(state(), campaign(), true, idle, monday10))
      assert.isFalse(Eligibility.wouldClaim(state(), campaign(), false, { ...idle, campaignActive: 5 }, monday10))
      assert.isFalse(
        Eligibility.wouldClaim(state(), campaign(), false, { ...idle, organizationActive: 10 }, monday10)
      )
    })
  })

  // -------------------------------------------------------------------------------------------
  // Properties on random campaigns and contacts. Schedules as CallingSchedule.test.ts makes
  // them (zones with DST changes, half-hour and quarter-hour offsets, instants near the
  // transitions).
  // -------------------------------------------------------------------------------------------

  const zones = ["America/Los_Angeles", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"] as const

  const transitionsOf = (timeZone: string): ReadonlyArray<number> => {
    const found: Array<number> = []
    let zdt: Temporal.ZonedDateTime | null = Temporal.Instant.from("2026-01-01T00:00:00Z").toZonedDateTimeISO(
      timeZone
    )
    while (zdt !== null && found.length < 4) {
      zdt = zdt.getTimeZoneTransition("next")
      if (zdt !== null) found.push(zdt.epochMilliseconds)
    }
    return found.length > 0 ? found : [utc("2026-06-15T12:00:00Z")]
  }
  const transitions = new Map(zones.map((zone) => [zone, transitionsOf(zone)]))

  const pad = (n: number): string => String(n).padStart(2, "0")
  const hhmm = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`

  const arbitraryTime = fc.oneof(
    fc.integer({ min: 0, max: 23 * 60 + 59 }),
    fc.integer({ min: 0, max: 4 * 60 }),
    fc.constantFrom(0, 60, 90, 120, 150, 180)
  )
  const arbitraryWindow = fc
    .record({
      day: fc.integer({ min: 0, max: 6 }),
      start: arbitraryTime,
      length: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 1440 }))
    })
    .map(({ day, start, length }): CallingWindow => ({
      day,
      start_time: hhmm(start),
      end_time: hhmm(Math.min(1440, start + length))
    }))

  /** A window of the local weekday around the local time of `now` (the minutes either side may be 0). */
  const windowAround = (now: number, timeZone: string, before: number, after: number): CallingWindow => {
    const local = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(timeZone)
    const minute = local.hour * 60 + local.minute
    return {
      day: local.dayOfWeek - 1,
      start_time: hhmm(Math.max(0, minute - before)),
      end_time: hhmm(Math.min(1440, minute + 1 + after))
    }
  }

  /**
   * The dimensions of the callable predicate. A case starts from values that pass every one
   * and redraws a random few from their whole range (where they may still pass), so callable
   * and blocked cases are both common and most blocked ones fail on one or two reasons.
   */
  const dimensions = [
    "enabled",
    "deleted",
    "schedule",
    "status",
    "attempts",
    "due",
    "lease",
    "dnc",
    "campaignCap",
    "organizationCap"
  ] as const
  type Dimension = (typeof dimensions)[number]

  const arbitraryCase = fc
    .record({
      redrawn: fc.oneof(
        fc.constant<ReadonlyArray<Dimension>>([]),
        fc.subarray([...dimensions], { maxLength: 2 }),
        fc.subarray([...dimensions])
      ),
      zone: fc.constantFrom(...zones),
      windows: fc.array(arbitraryWindow, { minLength: 0, maxLength: 4 }),
      aroundNow: fc.tuple(fc.integer({ min: 0, max: 180 }), fc.integer({ min: 0, max: 180 })),
      pick: fc.nat(),
      shift: fc.integer({ min: -3 * DAY, max: 3 * DAY }),
      nearTransition: fc.boolean(),
      randomInstant: fc.integer({ min: utc("2026-01-01T00:00:00Z"), max: utc("2027-12-31T00:00:00Z") }),
      startOffsetDays: fc.integer({ min: -10, max: 5 }),
      endOffsetDays: fc.option(fc.integer({ min: -2, max: 12 }), { nil: null }),
      enabled: fc.boolean(),
      deleted: fc.boolean(),
      maxAttempts: fc.integer({ min: 1, max: 4 }),
      status: fc.constantFrom(...ContactState.ContactStatuses),
      attempts: fc.integer({ min: 0, max: 5 }),
      dueIn: fc.oneof(
        fc.integer({ min: -5 * DAY, max: 10 * DAY }),
        fc.integer({ min: -HOUR, max: HOUR }),
        fc.integer({ min: -1000, max: 1000 })
      ),
      lease: fc.option(
        fc.record({
          expiresIn: fc.integer({ min: -2 * LEASE, max: 2 * LEASE }),
          conversationId: fc.option(fc.constant("call-1"), { nil: null })
        }),
        { nil: null }
      ),
      dnc: fc.boolean(),
      campaignMax: fc.integer({ min: 1, max: 5 }),
      campaignActive: fc.integer({ min: 0, max: 6 }),
      organizationMax: fc.integer({ min: 1, max: 10 }),
      organizationActive: fc.integer({ min: 0, max: 11 })
    })
    .map((r) => {
      const redraw = (dimension: Dimension) => r.redrawn.includes(dimension)
      const candidates = transitions.get(r.zone) ?? []
      const base = r.nearTransition ? (candidates[r.pick % candidates.length] ?? r.randomInstant) : r.randomInstant
      const now = Math.floor((base + r.shift) / 1000) * 1000 + (r.pick % 3 === 0 ? 0 : r.pick % 1000)
      const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(r.zone).toPlainDate()
      // The schedule passes with a window around now and dates around today; redrawn, it has
      // random windows and dates.
      const startOffsetDays = redraw("schedule") ? r.startOffsetDays : Math.min(0, r.startOffsetDays)
      const endOffsetDays = r.endOffsetDays === null || redraw("schedule")
        ? r.endOffsetDays
        : Math.max(0, r.endOffsetDays)
      const startDate = today.add({ days: startOffsetDays }).toString()
      const endDate = endOffsetDays === null
        ? null
        : today.add({ days: Math.max(startOffsetDays, endOffsetDays) }).toString()
      const windows = redraw("schedule")
        ? r.windows
        : [...r.windows, windowAround(now, r.zone, r.aroundNow[0], r.aroundNow[1])]
      const campaign: CampaignDialing = {
        enabled: redraw("enabled") ? r.enabled : true,
        deleted: redraw("deleted") ? r.deleted : false,
        maxAttempts: r.maxAttempts,
        schedule: { timeZone: r.zone, windows, startDate, endDate }
      }
      const status = redraw("status") ? r.status : "TRYING"
      const attempts = redraw("attempts") ? r.attempts : Math.min(r.attempts, r.maxAttempts - 1)
      const dueIn = redraw("due") ? r.dueIn : -Math.abs(r.dueIn)
      const state: ContactDialState = {
        status,
        attempts,
        // The table's invariant: null exactly when the status is final.
        nextAttemptAt: status === "TRYING" ? now + dueIn : null,
        lastAttemptedAt: attempts > 0 ? now - DAY : null,
        lease: r.lease === null || !redraw("lease")
          ? null
          : { worker: "w1", expiresAt: now + r.lease.expiresIn, conversationId: r.lease.conversationId }
      }
      const load: DialingLoad = {
        campaignActive: redraw("campaignCap") ? r.campaignActive : Math.min(r.campaignActive, r.campaignMax - 1),
        campaignMax: r.campaignMax,
        organizationActive: redraw("organizationCap")
          ? r.organizationActive
          : Math.min(r.organizationActive, r.organizationMax - 1),
        organizationMax: r.organizationMax
      }
      return { campaign, state, dnc: redraw("dnc") && r.dnc, load, now }
    })

  const describeCase = (c: { readonly campaign: CampaignDialing; readonly state: ContactDialState }) =>
    JSON.stringify({ campaign: c.campaign, state: c.state })

  describe("explain (property)", () => {
    it("callable equals wouldClaim, and blocked_by is empty exactly when callable, in order, without repeats", () => {
      let callable = 0
      let blocked = 0
      fc.assert(
        fc.property(arbitraryCase, ({ campaign, state, dnc, load, now }) => {
          const result = Eligibility.explain(state, campaign, dnc, load, now)
          const claim = Eligibility.wouldClaim(state, campaign, dnc, load, now)
          assert.strictEqual(result.callable, claim, JSON.stringify({ result, now, load, dnc }))
          assert.strictEqual(result.blockedBy.length === 0, result.callable)
          const positions = result.blockedBy.map((reason) => Eligibility.BlockedReasons.indexOf(reason))
          assert.deepStrictEqual(positions, [...new Set(positions)].sort((a, b) => a - b))
          assert.isFalse(positions.includes(-1))
          if (result.callable) callable++
          else blocked++
        }),
        { numRuns: runs(2000) }
      )
      // Both sides of the equivalence were exercised.
      assert.isAbove(callable, runs(2000) / 50)
      assert.isAbove(blocked, runs(2000) / 50)
    }, 120_000)

    it("the date and window reasons apply exactly when the schedule is closed now", () => {
      const scheduleReasons: ReadonlyArray<BlockedReason> = [
        "before_start_date",
        "after_end_date",
        "outside_calling_window"
      ]
      fc.assert(
        fc.property(arbitraryCase, ({ campaign, state, dnc, load, now }) => {
          const { blockedBy } = Eligibility.explain(state, campaign, dnc, load, now)
          assert.strictEqual(
            blockedBy.some((reason) => scheduleReasons.includes(reason)),
            !isOpenAt(campaign.schedule, now),
            describeCase({ campaign, state }) + ` now ${now}`
          )
          assert.isFalse(blockedBy.includes("before_start_date") && blockedBy.includes("after_end_date"))
        }),
        { numRuns: runs(2000) }
      )
    }, 120_000)

    it("next_eligible_at is now when callable, else the first instant the contact is callable, null when none", () => {
      fc.assert(
        fc.property(
          arbitraryCase,
          fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 3, maxLength: 3 }),
          ({ campaign, state, dnc, load, now }, fractions) => {
            const { blockedBy, callable, nextEligibleAt } = Eligibility.explain(state, campaign, dnc, load, now)
            const message = describeCase({ campaign, state }) + ` now ${now} dnc ${dnc} next ${nextEligibleAt}`
            const callableAt = (t: number) => ContactState.isCallable(state, campaign, dnc, t)
            if (callable) assert.strictEqual(nextEligibleAt, now, message)
            if (nextEligibleAt === null) {
              // Never, as long as nothing changes: not now, not at any later instant we probe.
              assert.isFalse(callableAt(now), message)
              for (const f of fractions) assert.isFalse(callableAt(now + Math.floor(f * 40 * DAY)), message)
              const never = ["paused", "attempts_exhausted", "do_not_call", "in_progress", "final_status"]
              if (!blockedBy.some((reason) => never.includes(reason))) {
                // Only the schedule (and the retry time) stand in the way, and they never open.
                const waiting = [
                  "before_start_date",
                  "after_end_date",
                  "outside_calling_window",
                  "retry_delay",
                  "campaign_concurrency_full",
                  "organization_concurrency_full"
                ]
                assert.isTrue(blockedBy.every((reason) => waiting.includes(reason)), message)
              }
            } else {
              // The earliest instant: callable then (caps aside), not a millisecond before nor
              // at any probed instant before.
              assert.isAtLeast(nextEligibleAt, now, message)
              assert.isTrue(callableAt(nextEligibleAt), message)
              if (nextEligibleAt > now) {
                assert.isFalse(callableAt(nextEligibleAt - 1), message)
                for (const f of fractions) {
                  assert.isFalse(callableAt(now + Math.floor(f * (nextEligibleAt - now))), message)
                }
              }
              for (const reason of ["paused", "attempts_exhausted", "do_not_call", "in_progress", "final_status"]) {
                assert.isFalse(blockedBy.includes(reason as BlockedReason), message)
              }
            }
          }
        ),
        { numRuns: runs(2000) }
      )
    }, 120_000)
  })
})
