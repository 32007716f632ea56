/**
 * The scheduling math of a campaign, pure: is an instant inside the campaign's calling
 * schedule, and what is the next instant that is.
 *
 * Owns: reading an instant as wall-clock time in the campaign's IANA zone, the date range
 * (`startDate`..`endDate`, inclusive, compared as dates in that zone) and the `[start, end)`
 * window test. Does not own the window formats (CallingWindow), the zone name check
 * (Timezone), reading the clock (instants are passed in as epoch milliseconds), nor contact
 * retry rules (ContactState).
 *
 * Semantics: the schedule is open at an instant when the instant's local date is within the
 * date range and its local wall-clock time `t` satisfies `start <= t < end` for some window of
 * its local weekday (`24:00` ends at the next midnight). Everything follows from that one
 * definition, across DST changes too:
 * - spring forward: wall-clock times in the gap never occur, so a window starting inside the gap
 *   opens at the first instant after it (02:30-04:00 on a 02:00 -> 03:00 day opens at 03:00),
 *   and a window lying wholly inside the gap does not open that day;
 * - fall back: the repeated hour is inside a window both times (a 01:00-01:30 window is open
 *   twice on a 01:59 -> 01:00 day), and a 00:00-24:00 window is open for all 25 hours.
 * Temporal's `disambiguation: "compatible"` would put a 02:30 start at 03:30 instead; it is not
 * used because `nextOpenAt` must agree exactly with `isOpenAt`.
 *
 * Method: time zone offsets come from Temporal (`@js-temporal/polyfill`, ICU data; the segments
 * between transitions are kept, internal/zoneSegments). Between two
 * transitions the offset is constant, so local time is the instant plus that offset and the
 * windows can be intersected with whole segments arithmetically. `nextOpenAt` walks at most a
 * few segments and local days, never minutes. An opening, if any, lies within 15 days of the
 * later of `epochMs` and `startDate` (a weekday recurs within 7 days; a DST gap can swallow one
 * occurrence, never two in a row), so the search covers 17 days (slack for the zone offset)
 * and stops earlier after `endDate`. Measured on Node 24: about 0.01-0.3 ms per call when the
 * polyfill has to look a transition up, a few microseconds once its segment is known.
 *
 * @since 0.1.0
 */
import { fromEpochDay, toEpochDay } from "./CalendarDate.ts"
import type { CallingWindow, DayOfWeek } from "./CallingWindow.ts"
import { toMinutes } from "./CallingWindow.ts"
import { segmentAt } from "./internal/zoneSegments.ts"

/**
 * What the scheduling math needs of a campaign. Dates are `YYYY-MM-DD` in `timeZone`;
 * `endDate` is inclusive, `null` when unset.
 *
 * @category models
 */
export interface CallingSchedule {
  readonly windows: ReadonlyArray<CallingWindow>
  readonly timeZone: string
  readonly startDate: string
  readonly endDate: string | null
}

const MINUTE = 60_000
const DAY = 86_400_000
/** Local midnight of a date lies within [date - 14 h, date + 12 h] in UTC (offsets span -12..+14 h). */
const MAX_OFFSET = 14 * 3_600_000
const SEARCH_DAYS = 17

const daysFromCivil = (year: number, month: number, day: number): number => toEpochDay({ year, month, day })

const civilFromDays = (days: number): string => {
  const { day, month, year } = fromEpochDay(days)
  const pad = (n: number, width: number) => String(n).padStart(width, "0")
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`
}

const dayNumber = (date: string): number =>
  daysFromCivil(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)))

// 1970-01-01 was a Thursday (3 when Monday is 0).
const weekdayOf = (days: number): DayOfWeek => ((((days + 3) % 7) + 7) % 7) as DayOfWeek

/** Local wall-clock time as epoch milliseconds of the same reading in UTC. */
const localMs = (epochMs: number, timeZone: string): number => epochMs + segmentAt(epochMs, timeZone).offsetMs

/**
 * The date (`YYYY-MM-DD`) in `timeZone` at the instant `epochMs`.
 *
 * @category math
 */
export const localDate = (epochMs: number, timeZone: string): string =>
  civilFromDays(Math.floor(localMs(epochMs, timeZone) / DAY))

/**
 * The weekday (0 = Monday .. 6 = Sunday) in `timeZone` at the instant `epochMs`.
 *
 * @category math
 */
export const localWeekday = (epochMs: number, timeZone: string): DayOfWeek =>
  weekdayOf(Math.floor(localMs(epochMs, timeZone) / DAY))

type Span = readonly [start: number, end: number]

/** Windows per weekday as milliseconds-of-day spans, sorted and merged. */
const spansByWeekday = (windows: ReadonlyArray<CallingWindow>): ReadonlyArray<ReadonlyArray<Span>> =>
  [0, 1, 2, 3, 4, 5, 6].map((day) => {
    const spans = windows
      .filter((w) => w.day === day)
      .map((w): Span => [toMinutes(w.start_time) * MINUTE, toMinutes(w.end_time) * MINUTE])
      .filter(([start, end]) => end > start)
      .sort((a, b) => a[0] - b[0])
    const merged: Array<Span> = []
    for (const span of spans) {
      const last = merged[merged.length - 1]
      if (last !== undefined && span[0] <= last[1]) merged[merged.length - 1] = [last[0], Math.max(last[1], span[1])]
      else merged.push(span)
    }
    return merged
  })

/**
 * True when the campaign may call at `epochMs`: the local date is within `startDate..endDate`
 * and the local wall-clock time is inside a window of the local weekday (`[start, end)`).
 *
 * @category math
 */
export const isOpenAt = (schedule: CallingSchedule, epochMs: number): boolean => {
  const local = localMs(epochMs, schedule.timeZone)
  const days = Math.floor(local / DAY)
  if (days < dayNumber(schedule.startDate)) return false
  if (schedule.endDate !== null && days > dayNumber(schedule.endDate)) return false
  const weekday = weekdayOf(days)
  const msOfDay = local - days * DAY
  return schedule.windows.some((w) =>
    w.day === weekday && toMinutes(w.start_time) * MINUTE <= msOfDay && msOfDay < toMinutes(w.end_time) * MINUTE
  )
}

/**
 * The earliest instant at or after `epochMs` at which {@link isOpenAt} holds (`epochMs` itself
 * when already open), or `undefined` when there is none: no windows, past `endDate`, or
 * windows that only ever fall into DST gaps within the date range.
 *
 * @category math
 */
export const nextOpenAt = (schedule: CallingSchedule, epochMs: number): number | undefined => {
  if (schedule.windows.length === 0) return undefined
  const spans = spansByWeekday(schedule.windows)
  const firstDay = dayNumber(schedule.startDate)
  const lastDay = schedule.endDate === null ? Number.POSITIVE_INFINITY : dayNumber(schedule.endDate)
  let t = Math.max(epochMs, firstDay * DAY - MAX_OFFSET - DAY)
  const horizon = t + SEARCH_DAYS * DAY
  while (t < horizon) {
    // One segment [t, segmentEnd) of constant offset: local time is t + offset throughout.
    const { offsetMs: offset, to } = segmentAt(t, schedule.timeZone)
    const segmentEnd = Math.min(to, horizon)
    const localStart = t + offset
    const localEnd = segmentEnd + offset
    const startDay = Math.floor(localStart / DAY)
    // A fall-back moves local time back by hours, never by a whole day.
    if (startDay > lastDay + 1) return undefined
    for (let day = Math.max(startDay, firstDay); day * DAY < localEnd && day <= lastDay; day++) {
      for (const [start, end] of spans[weekdayOf(day)] ?? []) {
        const from = Math.max(day * DAY + start, localStart)
        const to = Math.min(day * DAY + end, localEnd)
        if (from < to) return from - offset
      }
    }
    t = segmentEnd
  }
  return undefined
}
