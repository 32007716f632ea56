/**
 * The one place that reads the current time: from Effect's `Clock`, so tests drive it with
 * `TestClock`. Everything else receives instants as arguments.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"

/**
 * The current instant in epoch milliseconds.
 *
 * @category constructors
 */
export const nowMillis: Effect.Effect<number> = Clock.currentTimeMillis

/**
 * The current instant as a `Date` (for storage adapters whose drivers take `Date`).
 *
 * @category constructors
 */
export const nowDate: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/**
 * ISO 8601 in UTC with millisecond precision, the form every timestamp of the API takes.
 *
 * @category encoding
 */
export const toIso = (date: Date): string => date.toISOString()

/**
 * @category constructors
 */
export const fromMillis = (ms: number): Date => new Date(ms)

const isoInstant =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?$/

/**
 * Parses an ISO 8601 timestamp as clients send it (`2026-11-21T05:10:00Z`, Python's
 * `2026-11-21T05:10:00.123456+00:00`, a bare date) to epoch milliseconds. A timestamp
 * without an offset is UTC. A space where the offset's sign belongs is read as `+`: that is
 * what an unencoded `+` in a query string becomes. Fractions beyond milliseconds are
 * truncated. Answers `undefined` for anything else, including impossible dates.
 *
 * @category decoding
 */
export const parseIsoInstant = (input: string): number | undefined => {
  const m = isoInstant.exec(input.trim() === input ? input : "")
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((p) => Number(p ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Number((m[7] ?? "0").padEnd(3, "0").slice(0, 3))
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  // Not Date.UTC(year, …): it reads the years 0..99 as 1900..1999.
  const check = new Date(0)
  check.setUTCFullYear(year, month - 1, day)
  check.setUTCHours(hour, minute, second, millis)
  const utc = check.getTime()
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined
  if (m[9] === undefined) return utc
  const offsetHours = Number(m[10])
  const offsetMinutes = Number(m[11])
  if (offsetHours > 23 || offsetMinutes > 59) return undefined
  const sign = m[9] === "-" ? -1 : 1
  return utc - sign * (offsetHours * 60 + offsetMinutes) * 60_000
}
