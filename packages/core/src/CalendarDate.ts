/**
 * Calendar dates as the API writes them: `YYYY-MM-DD`, no time, no zone.
 *
 * Owns: the format check (a real date: `2026-02-30` is rejected) and ordering. Does not own
 * which zone a date is read in (CallingSchedule reads them in the campaign's zone).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const pattern = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * True when `s` is `YYYY-MM-DD` and names a day that exists in the proleptic Gregorian calendar,
 * from 0001-01-01 on.
 *
 * @category guards
 */
export const isCalendarDate = (s: string): boolean => {
  const match = pattern.exec(s)
  if (match === null) return false
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  // Year 0000 (1 BC) is not a date PostgreSQL's `date` accepts.
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
  return day <= days
}

/**
 * A `YYYY-MM-DD` string naming a real day.
 *
 * @category schemas
 */
export const CalendarDate = Schema.String.check(
  Schema.makeFilter((s: string) => isCalendarDate(s) || `Expected a date as YYYY-MM-DD, got ${JSON.stringify(s)}`)
).annotate({ identifier: "CalendarDate", description: "A date as YYYY-MM-DD" })

/**
 * @category models
 */
export type CalendarDate = typeof CalendarDate.Type
