/**
 * IANA time zone names, as campaigns carry them (`timezone`, default `America/Los_Angeles`).
 *
 * Owns: the check that a name is a time zone this runtime's IANA database knows. Does not own
 * reading wall-clock times in a zone (CallingSchedule does).
 *
 * Decisions:
 * - A name is valid when Temporal (`@js-temporal/polyfill`, backed by the runtime's ICU tz
 *   data) resolves it and gives it back spelled exactly as written. So `America/Los_Angeles`,
 *   `Europe/Berlin`, `UTC`, `Etc/UTC` and `Etc/GMT+5` are valid, and so are the legacy and
 *   backward-link names the IANA database still ships (`US/Pacific`, `PST8PDT`, `EST`,
 *   `Asia/Calcutta`): they are real IANA identifiers and Python's zoneinfo, which clients are
 *   likely to validate with, accepts them too.
 * - Rejected: unknown names (`Mars/Base`), the empty string, wrong letter case
 *   (`america/los_angeles`, `utc`: stored names stay in their IANA spelling), surrounding
 *   white space, UTC offsets (`+05:00`, which Temporal would accept but which are not IANA
 *   names and have no DST rules), and ISO date strings with a bracketed zone.
 *
 * @since 0.1.0
 */
import { Temporal } from "@js-temporal/polyfill"
import { Result, Schema } from "effect"

const known = new Map<string, boolean>()

const check = (name: string): boolean => {
  if (name === "" || name.length > 64 || !/^[A-Za-z]/.test(name)) return false
  const resolved = Result.try(() =>
    Temporal.ZonedDateTime.from({ year: 2000, month: 1, day: 1, timeZone: name }).timeZoneId
  )
  return Result.isSuccess(resolved) && resolved.success === name
}

/**
 * True when `name` is an IANA time zone identifier known to the runtime, spelled exactly
 * (see the module header for what is accepted).
 *
 * @category guards
 */
export const isValidTimeZone = (name: string): boolean => {
  const cached = known.get(name)
  if (cached !== undefined) return cached
  const valid = check(name)
  if (known.size < 1024) known.set(name, valid)
  return valid
}

/**
 * An IANA time zone name; anything else fails with "Unknown IANA timezone: X".
 *
 * @category schemas
 */
export const TimeZone = Schema.String.check(
  Schema.makeFilter((name: string) => isValidTimeZone(name) || `Unknown IANA timezone: ${name}`)
).annotate({ identifier: "TimeZone", description: "An IANA time zone name such as America/Los_Angeles" })

/**
 * @category models
 */
export type TimeZone = typeof TimeZone.Type
