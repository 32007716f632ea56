/**
 * `calendar_slot` fields → `"YYYY-MM-DDTHH:MM"`: a time ("10:30 pm", "10.30pm", "10am", "ten a
 * m", "ten thirty p m", "seven oh five in the evening", "noon", "midnight", "half past three",
 * "quarter to ten", "at ten", "three o'clock") and a date (as for `date` fields, read from the
 * rest of the utterance). A time in words or a bare "at 3" needs a marker (am/pm, o'clock, "in
 * the morning/afternoon/evening", "at night", or "at"/"around"/"by" before it). Without am/pm,
 * hours 1–6 are afternoon and 7–12 are read as said ("at three" → 15:00); "14:30" is 24-hour. No
 * time, or no date → no-value.
 *
 * @since 0.1.0
 */
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import { format } from "@voice-agent/core/CalendarDate"
import { Result } from "effect"
import { dateIn, pad } from "./Dates.ts"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"
import type { Parsed, Token } from "./Words.ts"
import { has, normalize, TEENS, TENS, tokenize, UNITS } from "./Words.ts"

interface TimeOfDay {
  readonly hour: number
  readonly minute: number
}

interface Found {
  readonly time: Extracted<TimeOfDay>
  readonly start: number
  readonly end: number
}

type Meridiem = "am" | "pm" | undefined

const toHour = (hour: number, meridiem: Meridiem, twentyFour: boolean): number =>
  meridiem === "am"
    ? hour === 12 ? 0 : hour
    : meridiem === "pm"
    ? hour < 12 ? hour + 12 : hour
    : twentyFour
    ? hour
    : hour >= 1 && hour <= 6
    ? hour + 12
    : hour

const checkedTime = (hour: number, minute: number, meridiem: Meridiem, twentyFour: boolean): Extracted<TimeOfDay> => {
  const valid = minute >= 0 && minute < 60 &&
    (meridiem === undefined ? hour >= 0 && hour < (twentyFour ? 24 : 13) : hour >= 1 && hour <= 12)
  return valid
    ? Result.succeed({ hour: toHour(hour, meridiem, twentyFour), minute })
    : failed("out-of-range", "That is not a time of day", `${hour}:${pad(minute)}`)
}

/** A meridiem after token `i` ("am", "pm", "in the morning", "at night"), and where it ends. */
const meridiemAt = (tokens: ReadonlyArray<Token>, i: number): Parsed<Meridiem> => {
  const word = tokens[i]?.text
  if (word === "am" || word === "pm") return { value: word, next: i + 1 }
  if (word === "in" && tokens[i + 1]?.text === "the") {
    const part = tokens[i + 2]?.text
    if (part === "morning") return { value: "am", next: i + 3 }
    if (part === "afternoon" || part === "evening") return { value: "pm", next: i + 3 }
  }
  if (word === "at" && tokens[i + 1]?.text === "night") return { value: "pm", next: i + 2 }
  return { value: undefined, next: i }
}

/** An hour said as a word or in digits (1–12). */
const hourAt = (tokens: ReadonlyArray<Token>, i: number): number | undefined => {
  const word = tokens[i]?.text
  if (word === undefined) return undefined
  const value = UNITS[word] ?? TEENS[word] ?? (/^\d{1,2}$/.test(word) ? Number(word) : undefined)
  return value !== undefined && value >= 1 && value <= 12 ? value : undefined
}

/** Minutes said after an hour: "oh five", "fifteen", "thirty", "forty five". */
const minutesAt = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined => {
  const word = tokens[i]?.text
  const following = tokens[i + 1]?.text
  if ((word === "oh" || word === "o") && has(UNITS, following)) return { value: UNITS[following]!, next: i + 2 }
  if (has(TEENS, word)) return { value: TEENS[word]!, next: i + 1 }
  if (has(TENS, word) && TENS[word]! < 60) {
    return has(UNITS, following)
      ? { value: TENS[word]! + UNITS[following]!, next: i + 2 }
      : { value: TENS[word]!, next: i + 1 }
  }
  return undefined
}

const timeIn = (normalized: string): Found | undefined => {
  const found: Array<Found> = []
  for (const m of normalized.matchAll(/(?<![\d:/.])(\d{1,2})[:.](\d{2})(?![\d:.])(?:\s*(am|pm)\b)?/g)) {
    const meridiem = m[3] as Meridiem
    found.push({
      time: checkedTime(Number(m[1]), Number(m[2]), meridiem, meridiem === undefined),
      start: m.index,
      end: m.index + m[0].length
    })
  }
  for (const m of normalized.matchAll(/(?<![\d:/.,])(\d{1,2})\s*(am|pm)\b/g)) {
    found.push({
      time: checkedTime(Number(m[1]), 0, m[2] as Meridiem, false),
      start: m.index,
      end: m.index + m[0].length
    })
  }
  const tokens = tokenize(normalized)
  const span = (from: number, to: number, time: Extracted<TimeOfDay>): Found => ({
    time,
    start: tokens[from]!.start,
    end: tokens[to - 1]!.end
  })
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!.text
    if (word === "noon" || word === "midday") found.push(span(i, i + 1, Result.succeed({ hour: 12, minute: 0 })))
    if (word === "midnight") found.push(span(i, i + 1, Result.succeed({ hour: 0, minute: 0 })))
    // half past three, quarter to ten, twenty past four
    const offset = word === "half"
      ? { value: 30, next: i + 1 }
      : word === "quarter"
      ? { value: 15, next: i + 1 }
      : minutesAt(tokens, i)
    const relation = tokens[offset?.next ?? -1]?.text
    if (offset !== undefined && (relation === "past" || relation === "to" || relation === "after")) {
      const hour = hourAt(tokens, offset.next + 1)
      if (hour !== undefined) {
        const meridiem = meridiemAt(tokens, offset.next + 2)
        const [h, minute] = relation === "to" ? [hour === 1 ? 12 : hour - 1, 60 - offset.value] : [hour, offset.value]
        found.push(span(i, Math.max(meridiem.next, offset.next + 2), checkedTime(h, minute, meridiem.value, false)))
        continue
      }
    }
    // [at] ten [thirty] [am|pm|o'clock|in the morning]
    const hour = hourAt(tokens, i)
    if (hour === undefined || normalized[tokens[i]!.end] === ":" || /^\d+\.\d+$/.test(word)) continue
    const minutes = /^\d/.test(word) ? undefined : minutesAt(tokens, i + 1)
    const afterMinutes = minutes?.next ?? i + 1
    const oclock = tokens[afterMinutes]?.text === "oclock"
    const meridiem = meridiemAt(tokens, oclock ? afterMinutes + 1 : afterMinutes)
    const marked = /^(?:at|around|by|about)$/.test(tokens[i - 1]?.text ?? "")
    if (meridiem.value === undefined && !oclock && !marked) continue
    if (/^\d/.test(word) && meridiem.value !== undefined) continue // "10 am" is matched above
    found.push(
      span(
        i,
        Math.max(meridiem.next, afterMinutes + (oclock ? 1 : 0)),
        checkedTime(hour, minutes?.value ?? 0, meridiem.value, false)
      )
    )
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end)[0]
}

/** A `calendar_slot` field's value in `utterance`, dates read from `today` (the rules: module header). */
export const extract = (utterance: string, today: CivilDate): Extracted<string> => {
  const normalized = normalize(utterance)
  const found = timeIn(normalized)
  if (found === undefined) return failed("no-value", "No time of day was found")
  if (Result.isFailure(found.time)) return Result.fail(found.time.failure)
  const rest = normalized.slice(0, found.start) + " ".repeat(found.end - found.start) + normalized.slice(found.end)
  const date = dateIn(rest, today)
  if (Result.isFailure(date)) return Result.fail(date.failure)
  const { day, month, year } = date.success
  const { hour, minute } = found.time.success
  return Result.succeed(`${format({ year, month, day })}T${pad(hour)}:${pad(minute)}`)
}
