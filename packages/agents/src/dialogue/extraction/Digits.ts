/**
 * `digit_sequence` and `cvv` fields: the longest run of digits, in digits or words ("1234", "1 2
 * 3 4", "one two three four", "oh"/"zero"/"o", "double five" → "55", "triple" likewise, "twelve"
 * → "12", "thirty four" → "34", "five hundred" → "500", "one hundred twenty" → "120", "eight
 * hundred and five" → "805", but "eight hundred five" → "8005"); "dash", "then", "and", "uh",
 * "um" do not break a run. A run that is only "oh" is an interjection, not a zero. A cvv must
 * have 3 or 4 digits (otherwise out-of-range).
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"
import type { Parsed, Token } from "./Words.ts"
import { has, isNumberWord, normalize, TEENS, TENS, tokenize, UNITS } from "./Words.ts"

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

/** A `digit_sequence` field's value in `utterance` (the rules: module header). */
export const extract = (utterance: string): Extracted<string> => {
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

/**
 * A security code: the digits as for a digit sequence, 3 or 4 of them.
 */
export const extractCvv = (utterance: string): Extracted<string> => {
  const digits = extract(utterance)
  if (Result.isSuccess(digits) && (digits.success.length < 3 || digits.success.length > 4)) {
    return failed("out-of-range", "A security code needs 3 or 4 digits", `${digits.success.length} given`)
  }
  return digits
}
