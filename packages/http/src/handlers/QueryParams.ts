/**
 * Parsing of list parameters for which the documented API names 400 rather than 422
 * (docs/DECISIONS.md, "Requests and errors") (limits, dates, cursors, filters): they are declared
 * as plain strings in the API and checked here.
 *
 * @since 0.1.0
 */
import { InvalidParameter } from "@voice-agent/core/Errors"
import { fromMillis, parseIsoInstant } from "@voice-agent/core/Time"
import { Effect } from "effect"

/**
 * An integer in `min..max`, `fallback` when absent.
 *
 * @category decoding
 */
export const parseLimit = (
  raw: string | undefined,
  bounds: { readonly min: number; readonly max: number; readonly fallback: number },
  parameter = "limit"
): Effect.Effect<number, InvalidParameter> => {
  if (raw === undefined) return Effect.succeed(bounds.fallback)
  const value = /^\s*[+]?\d{1,9}\s*$/.test(raw) ? Number(raw) : Number.NaN
  return Number.isInteger(value) && value >= bounds.min && value <= bounds.max
    ? Effect.succeed(value)
    : Effect.fail(
      new InvalidParameter({
        parameter,
        message: `must be an integer from ${bounds.min} to ${bounds.max}, got ${JSON.stringify(raw)}`
      })
    )
}

/**
 * An ISO 8601 timestamp, `undefined` when absent.
 *
 * @category decoding
 */
export const parseInstant = (
  raw: string | undefined,
  parameter: string
): Effect.Effect<Date | undefined, InvalidParameter> => {
  if (raw === undefined) return Effect.succeed(undefined)
  const ms = parseIsoInstant(raw)
  return ms === undefined
    ? Effect.fail(
      new InvalidParameter({ parameter, message: `expected an ISO 8601 timestamp, got ${JSON.stringify(raw)}` })
    )
    : Effect.succeed(fromMillis(ms))
}
