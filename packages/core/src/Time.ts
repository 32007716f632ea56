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
