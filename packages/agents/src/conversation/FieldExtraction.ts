/**
 * Reads the value of a task field (`Task.FieldItem`) out of what the person said: the
 * deterministic extraction behind the conversation runtime. Pure: a string in, a `Result` out;
 * no clock (the caller passes today's date in the call's timezone), no I/O.
 *
 * Every utterance is lower-cased, "a.m."/"a m" become "am" (same for pm), hyphens between
 * words become spaces ("forty-two"), and it is split into words and numbers ("1,200", "3rd").
 * Then, by field type:
 *
 * - `integer`: the first number of the utterance, in digits ("42", "1,200", "-3") or English
 *   words ("forty two", "one hundred and five", "twelve hundred", "two million three hundred
 *   thousand", "a dozen", "3 million"), negative after "minus"/"negative" or a "-". A number
 *   with a fraction ("3.5") or beyond `Number.MAX_SAFE_INTEGER` is out-of-range.
 * - `date` → `{year, month, day}`, the first form found, in this order: ISO "2027-03-03"; US
 *   numeric "3/3/2027" (month first, unless the first number is over 12; two-digit years are
 *   20yy); a month name (full, or "jan", "sept"…) with a day before or after it ("March third
 *   twenty twenty seven", "the 3rd of March 2027", "March 3, 2027", "3 March", "March the
 *   twenty first") and an optional year in digits or words ("twenty twenty seven", "two
 *   thousand and twenty seven", "nineteen ninety", "nineteen oh five"); relative forms
 *   "today", "tomorrow", "the day after tomorrow", "yesterday", "in three days", "in two
 *   weeks", and a weekday ("Friday", "this Friday", "next Friday", "on Friday": all the first
 *   such day strictly after today, 1 to 7 days ahead). A date without a year is its next
 *   occurrence on or after today. A day that the month does not have (February 30) is
 *   out-of-range.
 * - `digit_sequence` and `cvv`: the longest run of digits, in digits or words ("1234", "1 2 3
 *   4", "one two three four", "oh"/"zero"/"o", "double five" → "55", "triple" likewise,
 *   "twelve" → "12", "thirty four" → "34", "five hundred" → "500", "one hundred twenty" →
 *   "120", "eight hundred and five" → "805", but "eight hundred five" → "8005"); "dash",
 *   "then", "and", "uh", "um" do not break a run. A run that is only "oh" is an
 *   interjection, not a zero. A cvv must have 3 or 4 digits (otherwise out-of-range).
 * - `multiple_choice` → a choice's text exactly as given in `choices`. Case, accents and
 *   punctuation are ignored. In order: the choices that appear in the utterance as whole words
 *   (a choice inside a longer one that also appears is dropped: "mobile phone" picks "Mobile
 *   phone" over "Phone"); else the closest choice within a small edit distance (optimal
 *   string alignment over the letters, spaces ignored, the first letter right, at most 1 for
 *   choices of 4–7 letters, 2 for 8–12, 3 beyond; none for shorter ones); else an ordinal
 *   ("the second one", "second", "the last option", "option two", "number 2"). Several
 *   equally good → ambiguous. Negation is not understood ("not email" picks "Email").
 * - `calendar_slot` → `"YYYY-MM-DDTHH:MM"`: a time ("10:30 pm", "10.30pm", "10am", "ten a
 *   m", "ten thirty p m", "seven oh five in the evening", "noon", "midnight", "half past three",
 *   "quarter to ten", "at ten", "three o'clock") and a date (as for `date`, read from the rest of
 *   the utterance). A time in words or a bare "at 3" needs a marker (am/pm, o'clock, "in the
 *   morning/afternoon/evening", "at night", or "at"/"around"/"by" before it). Without am/pm,
 *   hours 1–6 are afternoon and 7–12 are read as said ("at three" → 15:00); "14:30" is 24-hour.
 *   No time, or no date → no-value.
 * - `text`: the utterance trimmed, without leading fillers ("um", "uh", "er", "erm", "hmm",
 *   "mm") and then one lead-in ("my name is", "my name's", "the name is", "name's",
 *   "it's", "it is", "this is"), and without trailing sentence punctuation; empty → no-value.
 *
 * Failures are an {@link ExtractionFailure} with a `reason` (`no-value`, `ambiguous`,
 * `out-of-range`) and a one-sentence message. Only when the field is not sensitive
 * (`Task.isSensitive`) does the message quote the utterance or anything read from it (an
 * impossible date, a digit count).
 *
 * @since 0.1.0
 */
import type { FieldItem, FieldValue } from "@voice-agent/core/AgentTask"
import { isSensitive } from "@voice-agent/core/AgentTask"
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import { daysInMonth, format, fromEpochDay, toEpochDay } from "@voice-agent/core/CalendarDate"
import { Data, Result } from "effect"

/**
 * A day of the calendar.
 *
 * @category models
 */
export type CalendarDate = CivilDate

/**
 * What extraction needs besides the utterance: `today`, the date of the call in the call's
 * timezone (relative dates and dates without a year are read from it).
 *
 * @category models
 */
export interface ExtractionContext {
  readonly today: CalendarDate
}

/**
 * Why no value was read: none found, several equally good, or one found that is not valid for
 * the field (February 30, a 5-digit cvv, 3.5 for an integer, 25:00).
 *
 * @category models
 */
export type ExtractionFailureReason = "no-value" | "ambiguous" | "out-of-range"

/**
 * No value could be read from an utterance for a field.
 *
 * @category errors
 */
export class ExtractionFailure extends Data.TaggedError("ExtractionFailure")<{
  readonly reason: ExtractionFailureReason
  readonly key: string
  readonly message: string
}> {}

type Extracted<A> = Result.Result<A, Failed>

/** A failure before the field is known: turned into an {@link ExtractionFailure} by `extract`. */
interface Failed {
  readonly reason: ExtractionFailureReason
  /** What went wrong, without anything the person said. */
  readonly what: string
  /** Details drawn from what the person said: left out for sensitive fields. */
  readonly detail?: string
}

const failed = (reason: ExtractionFailureReason, what: string, detail?: string): Extracted<never> =>
  Result.fail(detail === undefined ? { reason, what } : { reason, what, detail })

/**
 * Reads the value of `field` from `utterance` (module header for the rules).
 *
 * @category decoding
 */
export const extract = (
  field: FieldItem,
  utterance: string,
  context: ExtractionContext
): Result.Result<FieldValue, ExtractionFailure> => {
  const result = extractByType(field, utterance, context)
  if (Result.isSuccess(result)) return Result.succeed(result.success)
  const { detail, reason, what } = result.failure
  const said = utterance.trim().replace(/\s+/g, " ")
  const shown = said.length > 80 ? `${said.slice(0, 77)}...` : said
  const message = isSensitive(field)
    ? `${what} for field "${field.key}".`
    : `${what}${detail === undefined ? "" : ` (${detail})`} for field "${field.key}" in "${shown}".`
  return Result.fail(new ExtractionFailure({ reason, key: field.key, message }))
}

const extractByType = (field: FieldItem, utterance: string, context: ExtractionContext): Extracted<FieldValue> => {
  switch (field.field_type) {
    case "text":
      return extractText(utterance)
    case "integer":
      return extractInteger(utterance)
    case "digit_sequence":
      return extractDigits(utterance)
    case "cvv": {
      const digits = extractDigits(utterance)
      if (Result.isSuccess(digits) && (digits.success.length < 3 || digits.success.length > 4)) {
        return failed("out-of-range", "A security code needs 3 or 4 digits", `${digits.success.length} given`)
      }
      return digits
    }
    case "multiple_choice":
      return extractChoice(field.choices ?? [], utterance)
    case "date":
      return extractDate(utterance, context.today)
    case "calendar_slot":
      return extractSlot(utterance, context.today)
  }
}

// ---------------------------------------------------------------------------------------------
// words and numbers

interface Token {
  readonly text: string
  readonly start: number
  readonly end: number
  /** Whether punctuation separates it from the token before ("twenty, two"). */
  readonly pause: boolean
}

const normalize = (utterance: string): string =>
  utterance
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\b([ap])\.?\s?m\b\.?/g, "$1m")
    .replace(/\bo'?\s?clock\b/g, "oclock")
    .replace(/([a-z])-(?=[a-z])/g, "$1 ")

const TOKEN = /\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:\.\d+)?(?:st|nd|rd|th)?|[a-z]+(?:'[a-z]+)?/g

const tokenize = (normalized: string): ReadonlyArray<Token> => {
  let previousEnd = 0
  return Array.from(normalized.matchAll(TOKEN), (m) => {
    const pause = /[,.;:!?]/.test(normalized.slice(previousEnd, m.index))
    previousEnd = m.index + m[0].length
    return { text: m[0], start: m.index, end: previousEnd, pause }
  })
}

const numbered = (words: string, from: number): Readonly<Record<string, number>> =>
  Object.fromEntries(words.split(" ").map((word, i) => [word, from + i]))

const UNITS = numbered("one two three four five six seven eight nine", 1)
const TEENS = numbered("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen", 10)
const TENS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90
}
const SCALES: Readonly<Record<string, number>> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 }
const ORDINALS: Readonly<Record<string, number>> = {
  ...numbered(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth",
    1
  ),
  thirtieth: 30
}

const has = (table: Readonly<Record<string, number>>, word: string | undefined): word is string =>
  word !== undefined && Object.hasOwn(table, word)

const isNumberWord = (word: string | undefined) => has(UNITS, word) || has(TEENS, word) || has(TENS, word)

const INTEGER_DIGITS = /^\d{1,3}(?:,\d{3})+$|^\d+$/

/** A token's value when it is a whole number in digits ("1,200", "42"). */
const digitsValue = (word: string | undefined): number | undefined =>
  word !== undefined && INTEGER_DIGITS.test(word) ? Number(word.replaceAll(",", "")) : undefined

interface Parsed<A> {
  readonly value: A
  /** The index of the first token after the parsed ones. */
  readonly next: number
}

type NumberState = "none" | "zero" | "unit" | "teen" | "tens" | "hundred" | "scale" | "digits" | "dozen"

/**
 * A cardinal number starting at token `i`: words ("one hundred and five", "twelve hundred", "a
 * dozen"), or digits optionally followed by a scale ("3 million"). Stops at the first token that
 * cannot continue the number ("twenty twenty" is 20, then 20).
 */
const cardinal = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined => {
  let total = 0
  let current = 0
  let state: NumberState = "none"
  let lastScale = Infinity
  let next = i
  for (let j = i; j < tokens.length; j++) {
    const word = tokens[j]!.text
    const following = tokens[j + 1]?.text
    const digits = digitsValue(word)
    if (
      state === "none" && word === "a" && (following === "hundred" || has(SCALES, following) || following === "dozen")
    ) {
      current = 1
      state = "unit"
      continue
    }
    if (state === "none" && digits !== undefined) {
      current = digits
      state = "digits"
    } else if (state === "none" && word === "zero") {
      state = "zero"
    } else if (has(UNITS, word) && (state === "none" || state === "tens" || state === "hundred" || state === "scale")) {
      current += UNITS[word]!
      state = "unit"
    } else if (
      (has(TEENS, word) || has(TENS, word)) && (state === "none" || state === "hundred" || state === "scale")
    ) {
      current += has(TEENS, word) ? TEENS[word]! : TENS[word]!
      state = has(TEENS, word) ? "teen" : "tens"
    } else if (
      word === "hundred" && (state === "unit" || state === "teen" || state === "tens" || state === "digits") &&
      current >= 1 && current < 100
    ) {
      current *= 100
      state = "hundred"
    } else if (word === "dozen" && (state === "unit" || state === "teen" || state === "tens") && current < 100) {
      current *= 12
      state = "dozen"
    } else if (
      has(SCALES, word) && state !== "none" && state !== "zero" && state !== "scale" && current > 0 &&
      SCALES[word]! < lastScale && (state !== "digits" || current < 1000)
    ) {
      total += current * SCALES[word]!
      current = 0
      lastScale = SCALES[word]!
      state = "scale"
    } else if (word === "and" && (state === "hundred" || state === "scale") && isNumberWord(following)) {
      continue
    } else {
      break
    }
    next = j + 1
  }
  return state === "none" ? undefined : { value: total + current, next }
}

// ---------------------------------------------------------------------------------------------
// integer

const extractInteger = (utterance: string): Extracted<number> => {
  const normalized = normalize(utterance)
  const tokens = tokenize(normalized)
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const negative = tokens[i - 1]?.text === "minus" || tokens[i - 1]?.text === "negative" ||
      (/^\d/.test(token.text) && normalized[token.start - 1] === "-" &&
        !/[\da-z]/.test(normalized[token.start - 2] ?? ""))
    if (/^\d+\.\d+$/.test(token.text)) {
      const value = Number(token.text)
      if (!Number.isInteger(value)) return failed("out-of-range", "A whole number was expected", token.text)
      return Result.succeed(negative ? -value : value)
    }
    const parsed = cardinal(tokens, i)
    if (parsed === undefined) continue
    if (!Number.isSafeInteger(parsed.value)) return failed("out-of-range", "The number is too large")
    return Result.succeed(negative && parsed.value !== 0 ? -parsed.value : parsed.value)
  }
  return failed("no-value", "No number was found")
}

// ---------------------------------------------------------------------------------------------
// digit sequences

const DIGIT_WORDS: Readonly<Record<string, string>> = {
  zero: "0",
  oh: "0",
  o: "0",
  nought: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9"
}
const DIGIT_CONNECTORS = new Set(["dash", "hyphen", "then", "and", "uh", "um", "er", "space", "point", "dot"])

/** The digits spoken from token `i`, and how many tokens they take. */
const digitGroup = (tokens: ReadonlyArray<Token>, i: number): Parsed<string> | undefined => {
  const word = tokens[i]!.text
  const following = tokens[i + 1]?.text
  if (/^\d+$/.test(word)) return { value: word, next: i + 1 }
  if ((word === "double" || word === "triple") && following !== undefined) {
    const repeated = /^\d$/.test(following) ? following : DIGIT_WORDS[following]
    if (repeated !== undefined) return { value: repeated.repeat(word === "double" ? 2 : 3), next: i + 2 }
  }
  if (has(TENS, word)) {
    return has(UNITS, following)
      ? { value: String(TENS[word]! + UNITS[following]!), next: i + 2 }
      : { value: String(TENS[word]!), next: i + 1 }
  }
  if (has(TEENS, word)) return { value: String(TEENS[word]!), next: i + 1 }
  if (Object.hasOwn(DIGIT_WORDS, word)) return { value: DIGIT_WORDS[word]!, next: i + 1 }
  return undefined
}

const extractDigits = (utterance: string): Extracted<string> => {
  const tokens = tokenize(normalize(utterance))
  let best = ""
  let run = ""
  let onlyOh = true
  const close = () => {
    if (!(onlyOh && /^0+$/.test(run)) && run.length > best.length) best = run
    run = ""
    onlyOh = true
  }
  // the zeros of a "hundred" just said, that a following tens word or "and" and a number fill
  // ("one hundred twenty" → 120, "eight hundred and five" → 805, "eight hundred five" → 8005)
  let zeros = 0
  for (let i = 0; i < tokens.length;) {
    const word = tokens[i]!.text
    if (run !== "" && (word === "hundred" || word === "thousand")) {
      zeros = word === "hundred" ? 2 : 3
      run += "0".repeat(zeros)
      i += 1
      continue
    }
    const group = digitGroup(tokens, i)
    if (group !== undefined) {
      const fills = zeros > 0 && (isNumberWord(word) && !has(UNITS, word) || tokens[i - 1]?.text === "and") &&
        isNumberWord(word) && group.value.length <= zeros
      run = fills ? run.slice(0, -zeros) + group.value.padStart(zeros, "0") : run + group.value
      zeros = 0
      if (word !== "oh" && word !== "o") onlyOh = false
      i = group.next
      continue
    }
    if (!(run !== "" && DIGIT_CONNECTORS.has(word))) close()
    if (word !== "and") zeros = 0
    i += 1
  }
  close()
  return best === "" ? failed("no-value", "No digits were found") : Result.succeed(best)
}

// ---------------------------------------------------------------------------------------------
// multiple choice

const wordsOf = (text: string): ReadonlyArray<string> =>
  text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim().split(
    " "
  ).filter((word) => word !== "")

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = d
    }
  }
  return rows[a.length]![b.length]!
}

const allowedEdits = (letters: number) => letters < 4 ? 0 : letters < 8 ? 1 : letters < 13 ? 2 : 3

/** Where `needle` occurs in `haystack` as whole words, or -1. */
const indexOfWords = (haystack: ReadonlyArray<string>, needle: ReadonlyArray<string>): number => {
  if (needle.length === 0) return -1
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((word, k) => haystack[i + k] === word)) return i
  }
  return -1
}

const ORDINAL_CHOICE: Readonly<Record<string, number>> = {
  ...numbered("first second third fourth fifth sixth seventh eighth ninth tenth", 1),
  ...numbered("1st 2nd 3rd 4th 5th 6th 7th 8th 9th 10th", 1)
}
const FILLER_WORDS = new Set([
  "um",
  "uh",
  "er",
  "erm",
  "hmm",
  "ah",
  "oh",
  "well",
  "please",
  "i",
  "d",
  "ll",
  "like",
  "take"
])

/** The position (1-based, or `-1` for last) an utterance names: "the second one", "option 2". */
const ordinalOf = (words: ReadonlyArray<string>): number | undefined => {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const following = words[i + 1]
    if (word === "option" || word === "number" || word === "choice") {
      const n = following === undefined ? undefined : digitsValue(following) ?? UNITS[following] ?? TEENS[following]
      if (n !== undefined) return n
    }
    const n = word === "last" ? -1 : ORDINAL_CHOICE[word]
    if (n === undefined) continue
    const rest = words.filter((w, k) => k !== i && w !== "the" && !FILLER_WORDS.has(w))
    const marked = words[i - 1] === "the" || following === "one" || following === "option" || following === "choice"
    if (marked || rest.length === 0) return n
  }
  return undefined
}

const extractChoice = (choices: ReadonlyArray<string>, utterance: string): Extracted<string> => {
  if (choices.length === 0) return failed("no-value", "The field has no choices to pick from")
  const said = wordsOf(utterance)
  const options = choices.map((choice) => ({ choice, words: wordsOf(choice) }))

  // 1. whole-word containment, a choice inside a longer contained one dropped
  const contained = options.flatMap((option) => {
    const at = indexOfWords(said, option.words)
    return at < 0 ? [] : [{ ...option, from: at, to: at + option.words.length }]
  })
  const outermost = contained.filter((a) =>
    !contained.some((b) => b !== a && b.from <= a.from && a.to <= b.to && b.words.length > a.words.length)
  )
  const distinct = [...new Set(outermost.map((o) => o.choice))]
  if (distinct.length === 1) return Result.succeed(distinct[0]!)
  if (distinct.length > 1) return failed("ambiguous", "Several choices were named", distinct.join(", "))

  // 2. the closest within a small edit distance, over windows of the utterance's words
  let bestDistance = Infinity
  let best: Array<string> = []
  for (const option of options) {
    const target = option.words.join("")
    const allowed = allowedEdits(target.length)
    if (allowed === 0) continue
    for (let size = Math.max(1, option.words.length - 1); size <= option.words.length + 1; size++) {
      for (let i = 0; i + size <= said.length; i++) {
        if (said[i]![0] !== target[0]) continue
        const distance = editDistance(said.slice(i, i + size).join(""), target)
        if (distance > allowed || distance > bestDistance) continue
        if (distance < bestDistance) best = []
        bestDistance = distance
        if (!best.includes(option.choice)) best.push(option.choice)
      }
    }
  }
  if (best.length === 1) return Result.succeed(best[0]!)
  if (best.length > 1) return failed("ambiguous", "Several choices are equally close", best.join(", "))

  // 3. an ordinal
  const position = ordinalOf(said)
  if (position !== undefined) {
    const index = position === -1 ? choices.length - 1 : position - 1
    if (index < 0 || index >= choices.length) {
      return failed("out-of-range", `There are only ${choices.length} choices`, `number ${position} asked`)
    }
    return Result.succeed(choices[index]!)
  }
  return failed("no-value", "None of the choices was named")
}

// ---------------------------------------------------------------------------------------------
// text

const FILLERS = /^(?:(?:um+|uh+|erm?|hmm+|mm+)\b[\s,.;:!-]*)+/i
const LEAD_IN = /^(?:my name is|my name's|the name is|name's|it's|it is|this is)\b[\s,.;:!-]*/i

const extractText = (utterance: string): Extracted<string> => {
  const text = utterance.trim().replace(/[\u2018\u2019]/g, "'").replace(FILLERS, "").replace(LEAD_IN, "").replace(
    /[\s.!?,;:]+$/,
    ""
  ).trim()
  return text === "" ? failed("no-value", "Nothing was said") : Result.succeed(text)
}

// ---------------------------------------------------------------------------------------------
// dates

const MONTHS: Readonly<Record<string, number>> = {
  ...numbered("january february march april may june july august september october november december", 1),
  ...numbered("jan feb mar apr may jun jul aug sep oct nov dec", 1),
  sept: 9
}
const WEEKDAYS = numbered("sunday monday tuesday wednesday thursday friday saturday", 0)

const pad = (n: number) => String(n).padStart(2, "0")

const isValidDate = (date: CalendarDate) =>
  Number.isInteger(date.year) && date.month >= 1 && date.month <= 12 && date.day >= 1 &&
  date.day <= daysInMonth(date.year, date.month)

const addDays = (date: CalendarDate, days: number) => fromEpochDay(toEpochDay(date) + days)

/** 0 for Sunday … 6 for Saturday. */
const weekdayOf = (date: CalendarDate) => (((toEpochDay(date) + 4) % 7) + 7) % 7

const checked = (date: CalendarDate): Extracted<CalendarDate> =>
  isValidDate(date)
    ? Result.succeed(date)
    : failed("out-of-range", "That day does not exist", `${format(date)}`)

/** A month and day without a year: their next occurrence on or after today. */
const nextOccurrence = (month: number, day: number, today: CalendarDate): Extracted<CalendarDate> => {
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

const withYear = (month: number, day: number, year: number | undefined, today: CalendarDate) =>
  year === undefined ? nextOccurrence(month, day, today) : checked({ year, month, day })

/** A date around a month name, as tokens from `i` on. */
const monthDate = (tokens: ReadonlyArray<Token>, today: CalendarDate): Extracted<CalendarDate> | undefined => {
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

const relativeDate = (tokens: ReadonlyArray<Token>, today: CalendarDate): Extracted<CalendarDate> | undefined => {
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

const dateIn = (normalized: string, today: CalendarDate): Extracted<CalendarDate> => {
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

const extractDate = (utterance: string, today: CalendarDate): Extracted<CalendarDate> =>
  dateIn(normalize(utterance), today)

// ---------------------------------------------------------------------------------------------
// calendar slots

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

const extractSlot = (utterance: string, today: CalendarDate): Extracted<string> => {
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
