/**
 * Calendar dates as the API writes them: `YYYY-MM-DD`, no time, no zone.
 *
 * Owns: the format check (a real date: `2026-02-30` is rejected) and writing one, ordering, and the
 * arithmetic of proleptic Gregorian days (days in a month, days since 1970-01-01 and back,
 * after Howard Hinnant's `days_from_civil`/`civil_from_days`). Does not own
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
  return day <= daysInMonth(year, month)
}

/**
 * A day of the proleptic Gregorian calendar as numbers.
 *
 * @category models
 */
export interface CivilDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

/**
 * A date as the API writes it, `YYYY-MM-DD`.
 *
 * @category constructors
 */
export const format = ({ day, month, year }: CivilDate): string =>
  `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`

/**
 * Days in `month` (1-12) of `year`.
 *
 * @category constructors
 */
export const daysInMonth = (year: number, month: number): number => {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
}

/**
 * Days since 1970-01-01 of a date.
 *
 * @category constructors
 */
export const toEpochDay = ({ day, month, year }: CivilDate): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/**
 * The date `days` days after 1970-01-01.
 *
 * @category constructors
 */
export const fromEpochDay = (days: number): CivilDate => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
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
