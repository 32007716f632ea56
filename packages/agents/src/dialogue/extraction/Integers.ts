/**
 * `integer` fields: the first number of the utterance, in digits ("42", "1,200", "-3") or
 * English words ("forty two", "one hundred and five", "twelve hundred", "two million three
 * hundred thousand", "a dozen", "3 million"), negative after "minus"/"negative" or a "-". A number
 * with a fraction ("3.5") or beyond `Number.MAX_SAFE_INTEGER` is out-of-range.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"
import { cardinal, normalize, tokenize } from "./Words.ts"

/** An `integer` field's value in `utterance` (the rules: module header). */
export const extract = (utterance: string): Extracted<number> => {
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
