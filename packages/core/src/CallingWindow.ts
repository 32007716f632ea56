/**
 * Calling windows: one weekday and a wall-clock span `[start_time, end_time)` in which calls
 * may be placed.
 *
 * Owns: the request forms of a window (day names or integers, `9am`-style times) and their
 * normalized form (`day` 0 = Monday .. 6 = Sunday, times `HH:MM`), the rule that `end_time` is
 * after `start_time`, and the recommended-range warning. Does not own the time zone a window
 * is read in, nor the "is it open now / when does it open next" math: CallingSchedule does.
 *
 * Decisions:
 * - Days: `monday`..`sunday` in any letter case, the integers 0..6, or the strings "0".."6";
 *   surrounding white space is ignored. No abbreviations.
 * - Times: `H:MM`/`HH:MM` (24-hour, an optional `:00` seconds part), and 12-hour forms with
 *   `am`/`pm` in any case, with or without minutes and a space (`9am`, `9:30 PM`, `12am` = 00:00,
 *   `12pm` = 12:00). `24:00` is accepted and means the end of the day; it is only valid as an
 *   `end_time`. Windows do not cross midnight: `22:00`-`02:00` is rejected with a request to split
 *   it in two (docs/DECISIONS.md, "Campaigns"), and so is an end of `00:00`/`12am` (write `24:00`).
 *
 * @since 0.1.0
 */
import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"

/**
 * A weekday as the API numbers it: 0 = Monday .. 6 = Sunday.
 *
 * @category models
 */
export type DayOfWeek = 0 | 1 | 2 | 3 | 4 | 5 | 6

/**
 * Day names by {@link DayOfWeek}.
 *
 * @category models
 */
export const DayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const

const isDayOfWeek = (n: number): n is DayOfWeek => Number.isInteger(n) && n >= 0 && n <= 6

/**
 * Reads a request day: a name `monday`..`sunday` (any case, white space trimmed), an integer
 * 0..6, or one of the strings "0".."6".
 *
 * @category decoding
 */
export const parseDay = (input: unknown): Result.Result<DayOfWeek, string> => {
  if (typeof input === "number" && isDayOfWeek(input)) return Result.succeed(input)
  if (typeof input === "string") {
    const text = input.trim().toLowerCase()
    const index = DayNames.indexOf(text as (typeof DayNames)[number])
    if (index >= 0 && isDayOfWeek(index)) return Result.succeed(index)
    if (/^[0-6]$/.test(text)) return Result.succeed(Number(text) as DayOfWeek)
  }
  return Result.fail(
    `Invalid day ${describe(input)}: expected a day name (monday to sunday) or an integer 0 (Monday) to 6 (Sunday)`
  )
}

const twentyFourHour = /^(\d{1,2}):(\d{2})(?::00)?$/
const twelveHour = /^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?$/i

const pad = (n: number): string => String(n).padStart(2, "0")

/**
 * Reads a request time and returns it as zero-padded `HH:MM`. Accepts `HH:MM`, `H:MM`
 * (optionally with `:00` seconds), `24:00` (end of day), and 12-hour forms such as `9am`,
 * `9:00AM`, `9:30 pm`, `9 AM`, `12am` (00:00) and `12pm` (12:00).
 *
 * @category decoding
 */
export const parseTime = (input: unknown): Result.Result<string, string> => {
  const invalid = Result.fail(
    `Invalid time ${describe(input)}: expected 24-hour HH:MM (00:00 to 24:00) or a form such as 9am or 9:30 PM`
  )
  if (typeof input !== "string") return invalid
  const text = input.trim()
  const h24 = twentyFourHour.exec(text)
  if (h24 !== null) {
    const hours = Number(h24[1])
    const minutes = Number(h24[2])
    if (minutes > 59 || hours > 24 || (hours === 24 && minutes !== 0)) return invalid
    return Result.succeed(`${pad(hours)}:${pad(minutes)}`)
  }
  const h12 = twelveHour.exec(text)
  if (h12 !== null) {
    const hours = Number(h12[1])
    const minutes = h12[2] === undefined ? 0 : Number(h12[2])
    if (hours < 1 || hours > 12 || minutes > 59) return invalid
    const pm = h12[3]?.toLowerCase() === "p"
    return Result.succeed(`${pad((hours % 12) + (pm ? 12 : 0))}:${pad(minutes)}`)
  }
  return invalid
}

/**
 * Minutes since midnight of a normalized `HH:MM` time (`24:00` is 1440).
 *
 * @category math
 */
export const toMinutes = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

const describe = (input: unknown): string => {
  const text = typeof input === "string" ? JSON.stringify(input) : String(input)
  return text.length > 40 ? `${text.slice(0, 37)}...` : text
}

/**
 * A normalized weekday, 0 (Monday) .. 6 (Sunday).
 *
 * @category schemas
 */
export const Day = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 6 })).annotate({
  description: "Weekday: 0 (Monday) to 6 (Sunday)"
})

/**
 * A normalized time of day: zero-padded 24-hour `HH:MM`, or `24:00` for the end of the day.
 *
 * @category schemas
 */
export const Time = Schema.String.check(
  Schema.isPattern(/^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/, { expected: "a time as HH:MM" })
).annotate({ description: "24-hour HH:MM; 24:00 is the end of the day" })

const endAfterStart = Schema.makeFilter<{ readonly start_time: string; readonly end_time: string }>((w) => {
  if (w.start_time === "24:00") {
    return {
      path: ["start_time"],
      issue: "start_time 24:00 is the end of the day; a window starts at 23:59 at the latest"
    }
  }
  return toMinutes(w.end_time) > toMinutes(w.start_time)
    ? undefined
    : { path: ["end_time"], issue: "end_time must be after start_time; split overnight windows in two" }
})

/**
 * A calling window as responses show it and as it is stored: integer day, `HH:MM` times,
 * `end_time` after `start_time`.
 *
 * @category schemas
 */
export const CallingWindow = Schema.Struct({
  day: Day,
  start_time: Time,
  end_time: Time
}).check(endAfterStart).annotate({ identifier: "CallingWindow" })

/**
 * @category models
 */
export type CallingWindow = typeof CallingWindow.Type

const fromResult = <A>(result: Result.Result<A, string>, input: unknown): Effect.Effect<A, SchemaIssue.Issue> =>
  Result.isSuccess(result)
    ? Effect.succeed(result.success)
    : Effect.fail(new SchemaIssue.InvalidValue({ message: result.failure }, input))

const DayInput = Schema.Union([Schema.String, Schema.Int]).annotate({
  description: "A day name (monday to sunday) or an integer 0 (Monday) to 6 (Sunday)"
}).pipe(
  Schema.decodeTo(
    Day,
    SchemaTransformation.transformEffect<number, string | number>({
      decode: (input) => fromResult(parseDay(input), input),
      encode: (day) => Effect.succeed(day)
    })
  )
)

const TimeInput = Schema.String.annotate({
  description: "24-hour HH:MM (24:00 ends the day); forms such as 9am and 9:00AM are accepted"
}).pipe(
  Schema.decodeTo(
    Time,
    SchemaTransformation.transformEffect<string, string>({
      decode: (input) => fromResult(parseTime(input), input),
      encode: (time) => Effect.succeed(time)
    })
  )
)

/**
 * A calling window as requests send it (`day` a name or an integer, times in any accepted
 * form), decoded to the normalized {@link CallingWindow}. A bad field fails at that field's path
 * (`["start_time"]`, ...); a window that does not end after it starts fails at `["end_time"]`.
 * Encoding gives the normalized form (integer day).
 *
 * @category schemas
 */
export const CallingWindowInput = Schema.Struct({
  day: DayInput,
  start_time: TimeInput,
  end_time: TimeInput
}).pipe(Schema.decodeTo(CallingWindow)).annotate({ identifier: "CallingWindowInput" })

/**
 * The recommended calling range (docs/DECISIONS.md, "Campaigns"); windows outside it are accepted
 * with a warning.
 *
 * @category models
 */
export const RecommendedRange = { start: "08:00", end: "21:00" } as const

/**
 * True when the window starts before 08:00 or ends after 21:00.
 *
 * @category guards
 */
export const isOutsideRecommendedRange = (window: CallingWindow): boolean =>
  toMinutes(window.start_time) < toMinutes(RecommendedRange.start) ||
  toMinutes(window.end_time) > toMinutes(RecommendedRange.end)

/**
 * The `warning` of campaign create and update responses: one sentence naming every window
 * outside the recommended range, or `undefined` when all are inside.
 *
 * @category encoding
 */
export const recommendedRangeWarning = (windows: ReadonlyArray<CallingWindow>): string | undefined => {
  const outside = windows.filter(isOutsideRecommendedRange)
  if (outside.length === 0) return undefined
  const names = outside.map((w) => `${DayNames[w.day] ?? w.day} ${w.start_time}-${w.end_time}`)
  return `Calling windows outside the recommended range ${RecommendedRange.start}-${RecommendedRange.end}: ${
    names.join(", ")
  }`
}
