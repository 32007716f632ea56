import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import * as fc from "fast-check"
import type { CallingSchedule } from "./CallingSchedule.ts"
import * as Schedule from "./CallingSchedule.ts"
import type { CallingWindow } from "./CallingWindow.ts"

/** Property-test runs scale with VOICE_AGENT_PROPERTY_SCALE (default 1) for deeper local runs. */
const runs = (n: number): number => Math.round(n * Number(process.env["VOICE_AGENT_PROPERTY_SCALE"] ?? 1))

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds

const window = (day: number, start_time: string, end_time: string): CallingWindow => ({ day, start_time, end_time })

const schedule = (
  timeZone: string,
  windows: ReadonlyArray<CallingWindow>,
  startDate = "2026-01-01",
  endDate: string | null = null
): CallingSchedule => ({ timeZone, windows, startDate, endDate })

// ---------------------------------------------------------------------------------------------
// The oracle: wall-clock readings from Intl (not Temporal, not the module's offset arithmetic),
// and a minute-by-minute scan. Openings happen on whole UTC minutes because every zone under
// test has whole-minute offsets and transitions.
// ---------------------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "short"
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

const wallClock = (epochMs: number, timeZone: string) => {
  const parts: Record<string, string> = {}
  for (const part of formatterFor(timeZone).formatToParts(epochMs)) parts[part.type] = part.value
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: weekdays.indexOf(parts.weekday ?? ""),
    msOfDay: ((Number(parts.hour) * 60 + Number(parts.minute)) * 60 + Number(parts.second)) * 1000 +
      (((epochMs % 1000) + 1000) % 1000)
  }
}

const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

const oracleIsOpen = (s: CallingSchedule, epochMs: number): boolean => {
  const clock = wallClock(epochMs, s.timeZone)
  if (clock.date < s.startDate || (s.endDate !== null && clock.date > s.endDate)) return false
  return s.windows.some((w) =>
    w.day === clock.weekday && minutesOf(w.start_time) * MINUTE <= clock.msOfDay &&
    clock.msOfDay < minutesOf(w.end_time) * MINUTE
  )
}

/** The first open instant in [from, from + horizon), scanning minute by minute; undefined if none. */
const oracleNextOpen = (s: CallingSchedule, from: number, horizon: number): number | undefined => {
  if (oracleIsOpen(s, from)) return from
  for (let t = Math.floor(from / MINUTE) * MINUTE + MINUTE; t < from + horizon; t += MINUTE) {
    if (oracleIsOpen(s, t)) return t
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------

describe("CallingSchedule", () => {
  describe("localDate and localWeekday", () => {
    it("read the date and weekday in the zone", () => {
      const instant = utc("2026-03-08T07:59:00Z")
      assert.strictEqual(Schedule.localDate(instant, "America/Los_Angeles"), "2026-03-07")
      assert.strictEqual(Schedule.localWeekday(instant, "America/Los_Angeles"), 5)
      assert.strictEqual(Schedule.localDate(instant, "UTC"), "2026-03-08")
      assert.strictEqual(Schedule.localWeekday(instant, "UTC"), 6)
      assert.strictEqual(Schedule.localDate(utc("2026-03-08T18:30:00Z"), "Asia/Kolkata"), "2026-03-09")
      assert.strictEqual(Schedule.localWeekday(utc("2026-03-08T18:30:00Z"), "Asia/Kolkata"), 0)
      assert.strictEqual(Schedule.localDate(utc("2026-03-08T18:29:59.999Z"), "Asia/Kolkata"), "2026-03-08")
      assert.strictEqual(Schedule.localDate(utc("2000-02-29T12:00:00Z"), "UTC"), "2000-02-29")
      assert.strictEqual(Schedule.localDate(utc("1999-12-31T23:00:00Z"), "Europe/Berlin"), "2000-01-01")
    })

    it("agree with Temporal at random instants", () => {
      const zones = ["America/Los_Angeles", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"]
      fc.assert(
        fc.property(
          fc.integer({ min: utc("1990-01-01T00:00:00Z"), max: utc("2060-01-01T00:00:00Z") }),
          fc.constantFrom(...zones),
          (ms, zone) => {
            const zdt = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone)
            assert.strictEqual(Schedule.localDate(ms, zone), zdt.toPlainDate().toString())
            assert.strictEqual(Schedule.localWeekday(ms, zone), zdt.dayOfWeek - 1)
          }
        ),
        { numRuns: runs(300) }
      )
    })
  })

  describe("isOpenAt", () => {
    const weekdays9to5 = schedule(
      "America/Los_Angeles",
      [0, 1, 2, 3, 4].map((d) => window(d, "09:00", "17:00")),
      "2026-03-02",
      "2026-03-13"
    )

    it("is open inside a window of today's weekday, [start, end)", () => {
      // Monday 2026-03-02, PST (UTC-8)
      assert.isFalse(Schedule.isOpenAt(weekdays9to5, utc("2026-03-02T16:59:59.999Z")))
      assert.isTrue(Schedule.isOpenAt(weekdays9to5, utc("2026-03-02T17:00:00Z")))
      assert.isTrue(Schedule.isOpenAt(weekdays9to5, utc("2026-03-03T00:59:59.999Z")))
      assert.isFalse(Schedule.isOpenAt(weekdays9to5, utc("2026-03-03T01:00:00Z")))
      // Saturday 2026-03-07
      assert.isFalse(Schedule.isOpenAt(weekdays9to5, utc("2026-03-07T20:00:00Z")))
    })

    it("honours the date range, inclusive, in the campaign's zone", () => {
      // Friday 2026-02-27 is before the start date
      assert.isFalse(Schedule.isOpenAt(weekdays9to5, utc("2026-02-27T20:00:00Z")))
      // Friday 2026-03-13 is the end date: open
      assert.isTrue(Schedule.isOpenAt(weekdays9to5, utc("2026-03-13T20:00:00Z")))
      // Monday 2026-03-16 is after it
      assert.isFalse(Schedule.isOpenAt(weekdays9to5, utc("2026-03-16T20:00:00Z")))
    })

    it("treats 24:00 as the next midnight", () => {
      const evenings = schedule("UTC", [window(0, "20:00", "24:00")])
      assert.isTrue(Schedule.isOpenAt(evenings, utc("2026-03-02T23:59:59.999Z")))
      assert.isFalse(Schedule.isOpenAt(evenings, utc("2026-03-03T00:00:00Z")))
    })

    it("is never open without windows", () => {
      assert.isFalse(Schedule.isOpenAt(schedule("UTC", []), utc("2026-03-02T12:00:00Z")))
    })

    it("is open for all 25 hours of a fall-back day and all 23 of a spring-forward day", () => {
      const sundays = schedule("America/Los_Angeles", [window(6, "00:00", "24:00")])
      // 2026-11-01: 00:00 PDT = 07:00Z .. next midnight PST = 2026-11-02T08:00Z
      assert.isFalse(Schedule.isOpenAt(sundays, utc("2026-11-01T06:59:59Z")))
      for (let t = utc("2026-11-01T07:00:00Z"); t < utc("2026-11-02T08:00:00Z"); t += 15 * MINUTE) {
        assert.isTrue(Schedule.isOpenAt(sundays, t))
      }
      assert.isFalse(Schedule.isOpenAt(sundays, utc("2026-11-02T08:00:00Z")))
      // 2026-03-08: 00:00 PST = 08:00Z .. next midnight PDT = 2026-03-09T07:00Z
      assert.isTrue(Schedule.isOpenAt(sundays, utc("2026-03-09T06:59:59Z")))
      assert.isFalse(Schedule.isOpenAt(sundays, utc("2026-03-09T07:00:00Z")))
    })

    it("matches the oracle at random instants", () => {
      fc.assert(
        fc.property(arbitraryCase, ({ schedule: s, now }) => {
          assert.strictEqual(Schedule.isOpenAt(s, now), oracleIsOpen(s, now))
        }),
        { numRuns: runs(500) }
      )
    })
  })

  describe("nextOpenAt", () => {
    it("returns the instant itself when open", () => {
      const s = schedule("Europe/London", [window(0, "09:00", "17:00")])
      const now = utc("2026-03-02T12:34:56.789Z")
      assert.strictEqual(Schedule.nextOpenAt(s, now), now)
    })

    it("finds the next window later today, tomorrow and next week", () => {
      const s = schedule("Asia/Kolkata", [window(0, "09:00", "17:00"), window(1, "10:30", "11:00")])
      // Monday 2026-03-02 05:30 IST
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-02T00:00:00Z")), utc("2026-03-02T03:30:00Z"))
      // Monday 17:00 IST -> Tuesday 10:30 IST
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-02T11:30:00Z")), utc("2026-03-03T05:00:00Z"))
      // Tuesday 11:00 IST -> next Monday 09:00 IST
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-03T05:30:00Z")), utc("2026-03-09T03:30:00Z"))
    })

    it("waits for the start date and gives up after the end date", () => {
      const s = schedule("UTC", [window(2, "09:00", "10:00")], "2026-06-01", "2026-06-30")
      // first Wednesday on or after 2026-06-01 is 2026-06-03
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2020-01-01T00:00:00Z")), utc("2026-06-03T09:00:00Z"))
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-06-24T10:00:00Z")), undefined)
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2027-01-01T00:00:00Z")), undefined)
      // the end date is inclusive: Tuesday 2026-06-30 is the last day
      const tuesdays = schedule("UTC", [window(1, "09:00", "10:00")], "2026-06-01", "2026-06-30")
      assert.strictEqual(Schedule.nextOpenAt(tuesdays, utc("2026-06-24T00:00:00Z")), utc("2026-06-30T09:00:00Z"))
    })

    it("is undefined without windows", () => {
      assert.strictEqual(Schedule.nextOpenAt(schedule("UTC", []), utc("2026-06-01T00:00:00Z")), undefined)
    })

    it("opens a window that starts inside a spring-forward gap at the end of the gap", () => {
      // America/Los_Angeles, Sunday 2026-03-08: 02:00 PST -> 03:00 PDT at 10:00Z
      const s = schedule("America/Los_Angeles", [window(6, "02:30", "04:00")])
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-08T08:00:00Z")), utc("2026-03-08T10:00:00Z"))
      assert.isFalse(Schedule.isOpenAt(s, utc("2026-03-08T09:59:59Z")))
      assert.isTrue(Schedule.isOpenAt(s, utc("2026-03-08T10:00:00Z")))
    })

    it("skips a window wholly inside a spring-forward gap", () => {
      const s = schedule("America/Los_Angeles", [window(6, "02:00", "02:30")])
      // next Sunday 2026-03-15 02:00 PDT = 09:00Z
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-08T08:00:00Z")), utc("2026-03-15T09:00:00Z"))
      const oneDay = schedule("America/Los_Angeles", [window(6, "02:00", "02:30")], "2026-03-08", "2026-03-08")
      assert.strictEqual(Schedule.nextOpenAt(oneDay, utc("2026-03-08T08:00:00Z")), undefined)
    })

    it("opens the repeated hour of a fall-back day twice", () => {
      // America/Los_Angeles, Sunday 2026-11-01: 02:00 PDT -> 01:00 PST at 09:00Z
      const s = schedule("America/Los_Angeles", [window(6, "01:00", "01:30")])
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-11-01T07:00:00Z")), utc("2026-11-01T08:00:00Z"))
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-11-01T08:30:00Z")), utc("2026-11-01T09:00:00Z"))
      assert.isTrue(Schedule.isOpenAt(s, utc("2026-11-01T09:15:00Z")))
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-11-01T09:30:00Z")), utc("2026-11-08T09:00:00Z"))
    })

    it("handles Lord Howe's 30-minute shift", () => {
      // Australia/Lord_Howe, Sunday 2026-10-04: 02:00 +10:30 -> 02:30 +11:00 at 2026-10-03T15:30Z
      const gap = schedule("Australia/Lord_Howe", [window(6, "02:00", "02:20")])
      assert.strictEqual(Schedule.nextOpenAt(gap, utc("2026-10-03T13:00:00Z")), utc("2026-10-10T15:00:00Z"))
      const across = schedule("Australia/Lord_Howe", [window(6, "02:00", "03:00")])
      assert.strictEqual(Schedule.nextOpenAt(across, utc("2026-10-03T13:00:00Z")), utc("2026-10-03T15:30:00Z"))
      // Sunday 2026-04-05: 02:00 +11:00 -> 01:30 +10:30 at 2026-04-04T15:00Z; 01:30-02:00 happens twice
      const repeated = schedule("Australia/Lord_Howe", [window(6, "01:30", "01:45")])
      assert.strictEqual(Schedule.nextOpenAt(repeated, utc("2026-04-04T14:45:00Z")), utc("2026-04-04T15:00:00Z"))
    })

    it("London: a window across the spring-forward hour", () => {
      // Europe/London, Sunday 2026-03-29: 01:00 GMT -> 02:00 BST at 01:00Z
      const s = schedule("Europe/London", [window(6, "01:30", "02:30")])
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-29T00:00:00Z")), utc("2026-03-29T01:00:00Z"))
      assert.strictEqual(Schedule.nextOpenAt(s, utc("2026-03-29T01:30:00Z")), utc("2026-04-05T00:30:00Z"))
    })

    it("matches the brute-force oracle", () => {
      const horizon = 9 * DAY
      fc.assert(
        fc.property(arbitraryCase, ({ schedule: s, now }) => {
          const expected = oracleNextOpen(s, now, horizon)
          const actual = Schedule.nextOpenAt(s, now)
          if (expected !== undefined) {
            assert.strictEqual(actual, expected)
          } else if (actual !== undefined) {
            assert.isAtLeast(actual, now + horizon)
            assert.isTrue(oracleIsOpen(s, actual))
            assert.isFalse(oracleIsOpen(s, actual - MINUTE))
          }
        }),
        { numRuns: runs(40) }
      )
    }, 120_000)

    it("returns an open instant, and nothing earlier is open (any horizon)", () => {
      fc.assert(
        fc.property(arbitraryCase, ({ schedule: s, now }) => {
          const actual = Schedule.nextOpenAt(s, now)
          if (actual === undefined) return
          assert.isAtLeast(actual, now)
          assert.isTrue(Schedule.isOpenAt(s, actual))
          assert.isTrue(oracleIsOpen(s, actual))
          if (actual > now) assert.isFalse(oracleIsOpen(s, Math.max(now, actual - 1)))
        }),
        { numRuns: runs(300) }
      )
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Generators: zones with and without DST, instants near their 2026-2027 transitions, windows
// biased towards the small hours where transitions happen.
// ---------------------------------------------------------------------------------------------

const zones = ["America/Los_Angeles", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"] as const

const transitionsOf = (timeZone: string): ReadonlyArray<number> => {
  const found: Array<number> = []
  let zdt: Temporal.ZonedDateTime | null = Temporal.Instant.from("2026-01-01T00:00:00Z").toZonedDateTimeISO(timeZone)
  while (zdt !== null && found.length < 4) {
    zdt = zdt.getTimeZoneTransition("next")
    if (zdt !== null) found.push(zdt.epochMilliseconds)
  }
  return found.length > 0 ? found : [utc("2026-06-15T12:00:00Z")]
}
const transitions = new Map(zones.map((zone) => [zone, transitionsOf(zone)]))

const arbitraryTime = fc.oneof(
  fc.integer({ min: 0, max: 23 * 60 + 59 }),
  fc.integer({ min: 0, max: 4 * 60 }),
  fc.constantFrom(0, 60, 90, 120, 150, 180)
)

const pad = (n: number): string => String(n).padStart(2, "0")
const hhmm = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`

const arbitraryWindow = fc
  .record({
    day: fc.integer({ min: 0, max: 6 }),
    start: arbitraryTime,
    length: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 1440 }))
  })
  .map(({ day, start, length }) => window(day, hhmm(start), hhmm(Math.min(1440, start + length))))

const arbitraryCase = fc
  .record({
    zone: fc.constantFrom(...zones),
    windows: fc.array(arbitraryWindow, { minLength: 0, maxLength: 4 }),
    pick: fc.nat(),
    shift: fc.integer({ min: -3 * DAY, max: 3 * DAY }),
    nearTransition: fc.boolean(),
    randomInstant: fc.integer({ min: utc("2026-01-01T00:00:00Z"), max: utc("2027-12-31T00:00:00Z") }),
    startOffsetDays: fc.integer({ min: -10, max: 5 }),
    endOffsetDays: fc.option(fc.integer({ min: -2, max: 12 }), { nil: null })
  })
  .map(({ zone, windows, pick, shift, nearTransition, randomInstant, startOffsetDays, endOffsetDays }) => {
    const candidates = transitions.get(zone) ?? []
    const base = nearTransition ? (candidates[pick % candidates.length] ?? randomInstant) : randomInstant
    const now = Math.floor((base + shift) / 1000) * 1000 + (pick % 3 === 0 ? 0 : pick % 1000)
    const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(zone).toPlainDate()
    const startDate = today.add({ days: startOffsetDays }).toString()
    const endDate = endOffsetDays === null
      ? null
      : today.add({ days: Math.max(startOffsetDays, endOffsetDays) }).toString()
    return { schedule: schedule(zone, windows, startDate, endDate), now }
  })
