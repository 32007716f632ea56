/**
 * The words and numbers of an utterance, as every value reader sees them: lower-cased,
 * "a.m."/"a m" read as "am" (same for pm), "o'clock" as one word, hyphens between words as
 * spaces ("forty-two"), then split into tokens that are words or numbers ("1,200", "3rd"); the
 * English number words; and cardinal numbers in words or digits ("one hundred and five",
 * "twelve hundred", "a dozen", "3 million").
 *
 * @since 0.1.0
 */

export interface Token {
  readonly text: string
  readonly start: number
  readonly end: number
  /** Whether punctuation separates it from the token before ("twenty, two"). */
  readonly pause: boolean
}

export const normalize = (utterance: string): string =>
  utterance
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\b([ap])\.?\s?m\b\.?/g, "$1m")
    .replace(/\bo'?\s?clock\b/g, "oclock")
    .replace(/([a-z])-(?=[a-z])/g, "$1 ")

const TOKEN = /\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:\.\d+)?(?:st|nd|rd|th)?|[a-z]+(?:'[a-z]+)?/g

export const tokenize = (normalized: string): ReadonlyArray<Token> => {
  let previousEnd = 0
  return Array.from(normalized.matchAll(TOKEN), (m) => {
    const pause = /[,.;:!?]/.test(normalized.slice(previousEnd, m.index))
    previousEnd = m.index + m[0].length
    return { text: m[0], start: m.index, end: previousEnd, pause }
  })
}

export const numbered = (words: string, from: number): Readonly<Record<string, number>> =>
  Object.fromEntries(words.split(" ").map((word, i) => [word, from + i]))

export const UNITS = numbered("one two three four five six seven eight nine", 1)
export const TEENS = numbered("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen", 10)
export const TENS: Readonly<Record<string, number>> = {
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
export const ORDINALS: Readonly<Record<string, number>> = {
  ...numbered(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth",
    1
  ),
  thirtieth: 30
}

export const has = (table: Readonly<Record<string, number>>, word: string | undefined): word is string =>
  word !== undefined && Object.hasOwn(table, word)

export const isNumberWord = (word: string | undefined) => has(UNITS, word) || has(TEENS, word) || has(TENS, word)

const INTEGER_DIGITS = /^\d{1,3}(?:,\d{3})+$|^\d+$/

/** A token's value when it is a whole number in digits ("1,200", "42"). */
export const digitsValue = (word: string | undefined): number | undefined =>
  word !== undefined && INTEGER_DIGITS.test(word) ? Number(word.replaceAll(",", "")) : undefined

export interface Parsed<A> {
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
export const cardinal = (tokens: ReadonlyArray<Token>, i: number): Parsed<number> | undefined => {
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
