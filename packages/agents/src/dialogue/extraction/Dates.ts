/**
 * `date` fields → `{year, month, day}`, the first form found, in this order: ISO "2027-03-03";
 * US numeric "3/3/2027" (month first, unless the first number is over 12; two-digit years are
 * 20yy); a month name (full, or "jan", "sept"…) with a day before or after it ("March third
 * twenty twenty seven", "the 3rd of March 2027", "March 3, 2027", "3 March", "March the twenty
 * first") and an optional year in digits or words ("twenty twenty seven", "two thousand and
 * twenty seven", "nineteen ninety", "nineteen oh five"); relative forms "today", "tomorrow",
 * "the day after tomorrow", "yesterday", "in three days", "in two weeks", and a weekday
 * ("Friday", "this Friday", "next Friday", "on Friday": all the first such day strictly after
 * today, 1 to 7 days ahead). A date without a year is its next occurrence on or after today. A
 * day that the month does not have (February 30) is out-of-range.
 *
 * @since 0.1.0
 */
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import { daysInMonth, format, fromEpochDay, toEpochDay } from "@voice-agent/core/CalendarDate"
import { Result } from "effect"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"
import type { Parsed, Token } from "./Words.ts"
import { cardinal, digitsValue, has, normalize, numbered, ORDINALS, TEENS, TENS, tokenize, UNITS } from "./Words.ts"

const MONTHS: Readonly<Record<string, number>> = {
  ...numbered("january february march april may june july august september october november december", 1),
  ...numbered("jan feb mar apr may jun jul aug sep oct nov dec", 1),
  sept: 9
}
const WEEKDAYS = numbered("sunday monday tuesday wednesday thursday friday saturday", 0)

/** Two digits, as in a date or a time. */
export const pad = (n: number) => String(n).padStart(2, "0")

const isValidDate = (date: CivilDate) =>
  Number.isInteger(date.year) && date.month >= 1 && date.month <= 12 && date.day >= 1 &&
  date.day <= daysInMonth(date.year, date.month)

const addDays = (date: CivilDate, days: number) => fromEpochDay(toEpochDay(date) + days)

/** 0 for Sunday … 6 for Saturday. */
const weekdayOf = (date: CivilDate) => (((toEpochDay(date) + 4) % 7) + 7) % 7

const checked = (date: CivilDate): Extracted<CivilDate> =>
  isValidDate(date)
    ? Result.succeed(date)
    : failed("out-of-range", "That day does not exist", `${format(date)}`)

/** A month and day without a year: their next occurrence on or after today. */
const nextOccurrence = (month: number, day: number, today: CivilDate): Extracted<CivilDate> => {
  for (let year = today.year; year <= today.year + 8; year++) {
    const date = { year, month, day }
    if (isValidDate(date) && toEpochDay(date) >= toEpochDay(today)) return Result.succeed(date)
  }
  return checked({ year: today.year, month, day })
}

/** A day of the month: "3", "3rd", "third", "twenty first", "twenty three", "thirty". */
const dayOf = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined => {
  const word = tokens[i]?.text
  const following = tokens[i + 1]?.pause === true ? undefined : tokens[i + 1]?.text
  if (word === undefined) return undefined
  const digits = /^(\d{1,2})(?:st|nd|rd|th)?$/.exec(word)
  if (digits !== null) return { value: Number(digits[1]), next: i + 1 }
  if (word === "twenty" || word === "thirty") {
    if (has(ORDINALS, following) && ORDINALS[following]! < 10) {
      return { value: TENS[word]! + ORDINALS[following]!, next: i + 2 }
    }
    if (has(UNITS, following)) return { value: TENS[word]! + UNITS[following]!, next: i + 2 }
    return { value: TENS[word]!, next: i + 1 }
  }
  if (has(ORDINALS, word)) return { value: ORDINALS[word]!, next: i + 1 }
  if (has(UNITS, word)) return { value: UNITS[word]!, next: i + 1 }
  if (has(TEENS, word)) return { value: TEENS[word]!, next: i + 1 }
  return undefined
}

/**
 * A year: "2027", "twenty twenty seven", "twenty twenty", "nineteen oh five", "nineteen
 * hundred", "two thousand and twenty seven", "two thousand".
 */
const yearOf = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined => {
  const word = tokens[i]?.text
  if (word === undefined) return undefined
  if (/^\d{4}$/.test(word)) return { value: Number(word), next: i + 1 }
  const century = TEENS[word] ?? TENS[word]
  if (century !== undefined) {
    const second = tokens[i + 1]?.text
    const third = tokens[i + 2]?.text
    if (second === "hundred") {
      const rest = cardinal(tokens, i + 2)
      const and = tokens[i + 2]?.text === "and" ? cardinal(tokens, i + 3) : undefined
      const after = rest ?? and
      return after !== undefined && after.value < 100 && digitsValue(tokens[i + 2]?.text) === undefined
        ? { value: century * 100 + after.value, next: after.next }
        : { value: century * 100, next: i + 2 }
    }
    if ((second === "oh" || second === "o") && has(UNITS, third)) {
      return { value: century * 100 + UNITS[third]!, next: i + 3 }
    }
    if (has(TEENS, second)) return { value: century * 100 + TEENS[second]!, next: i + 2 }
    if (has(TENS, second)) {
      return has(UNITS, third)
        ? { value: century * 100 + TENS[second]! + UNITS[third]!, next: i + 3 }
        : { value: century * 100 + TENS[second]!, next: i + 2 }
    }
  }
  const spelled = cardinal(tokens, i)
  if (spelled !== undefined && spelled.next - i >= 2 && spelled.value >= 1000 && spelled.value < 3000) return spelled
  return undefined
}

/** A year after a day ("…, 2027", "… of 2027", "… in twenty twenty seven"), if any. */
const yearAfter = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined =>
  yearOf(tokens, i) ?? (tokens[i]?.text === "of" || tokens[i]?.text === "in" ? yearOf(tokens, i + 1) : undefined)

const withYear = (month: number, day: number, year: number | undefined, today: CivilDate) =>
  year === undefined ? nextOccurrence(month, day, today) : checked({ year, month, day })

/** A date around a month name, as tokens from `i` on. */
const monthDate = (tokens: ReadonlyArray<Token>, today: CivilDate): Extracted<CivilDate> | undefined => {
  for (let i = 0; i < tokens.length; i++) {
    const month = MONTHS[tokens[i]!.text]
    if (month === undefined) continue
    // [the] day [of] month [year]
    for (let start = Math.max(0, i - 3); start < i; start++) {
      const day = dayOf(tokens, start)
      if (day === undefined || !(day.next === i || (tokens[day.next]?.text === "of" && day.next + 1 === i))) continue
      return withYear(month, day.value, yearAfter(tokens, i + 1)?.value, today)
    }
    // month [the] day [year]; "March twenty twenty seven" is a month and a year, no day
    const from = tokens[i + 1]?.text === "the" ? i + 2 : i + 1
    const day = dayOf(tokens, from)
    const year = day === undefined ? undefined : yearAfter(tokens, day.next)
    if (day !== undefined && year !== undefined) return withYear(month, day.value, year.value, today)
    if (day !== undefined && yearOf(tokens, from) === undefined) return withYear(month, day.value, undefined, today)
  }
  return undefined
}

const relativeDate = (tokens: ReadonlyArray<Token>, today: CivilDate): Extracted<CivilDate> | undefined => {
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!.text
    if (word === "today" || word === "tonight") return Result.succeed(today)
    if (word === "tomorrow") {
      const after = tokens[i - 1]?.text === "after" && tokens[i - 2]?.text === "day"
      return Result.succeed(addDays(today, after ? 2 : 1))
    }
    if (word === "yesterday") return Result.succeed(addDays(today, -1))
    if (word === "in") {
      const count = cardinal(tokens, i + 1)
      const unit = count === undefined ? undefined : tokens[count.next]?.text
      if (count !== undefined && (unit === "day" || unit === "days")) return Result.succeed(addDays(today, count.value))
      if (count !== undefined && (unit === "week" || unit === "weeks")) {
        return Result.succeed(addDays(today, 7 * count.value))
      }
      if (unit === undefined && (tokens[i + 1]?.text === "a") && /^(?:day|week)$/.test(tokens[i + 2]?.text ?? "")) {
        return Result.succeed(addDays(today, tokens[i + 2]!.text === "day" ? 1 : 7))
      }
    }
    const weekday = WEEKDAYS[word.endsWith("s") && has(WEEKDAYS, word.slice(0, -1)) ? word.slice(0, -1) : word]
    if (weekday !== undefined) {
      const ahead = ((weekday - weekdayOf(today) + 6) % 7) + 1
      return Result.succeed(addDays(today, ahead))
    }
  }
  return undefined
}

/** The first date in a normalized utterance (`Words.normalize`). */
export const dateIn = (normalized: string, today: CivilDate): Extracted<CivilDate> => {
  const iso = /(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/.exec(normalized)
  if (iso !== null) return checked({ year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) })
  const numeric = /(?<![\d/])(\d{1,2})\/(\d{1,2})(?:\/(\d{4}|\d{2}))?(?![\d/])/.exec(normalized)
  if (numeric !== null) {
    const first = Number(numeric[1])
    const second = Number(numeric[2])
    const [month, day] = first > 12 && second <= 12 ? [second, first] : [first, second]
    const year = numeric[3] === undefined ? undefined : Number(numeric[3]) + (numeric[3].length === 2 ? 2000 : 0)
    return withYear(month, day, year, today)
  }
  const tokens = tokenize(normalized)
  return monthDate(tokens, today) ?? relativeDate(tokens, today) ?? failed("no-value", "No date was found")
}

/** A `date` field's value in `utterance`, relative dates read from `today` (the rules: module header). */
export const extract = (utterance: string, today: CivilDate): Extracted<CivilDate> =>
  dateIn(normalize(utterance), today)
