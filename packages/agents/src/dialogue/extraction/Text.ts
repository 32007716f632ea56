/**
 * `text` fields: the utterance trimmed, without leading fillers ("um", "uh", "er", "erm", "hmm",
 * "mm") and then one lead-in ("my name is", "my name's", "the name is", "name's", "it's", "it
 * is", "this is"), and without trailing sentence punctuation; empty → no-value.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"

const FILLERS = /^(?:(?:um+|uh+|erm?|hmm+|mm+)\b[\s,.;:!-]*)+/i
const LEAD_IN = /^(?:my name is|my name's|the name is|name's|it's|it is|this is)\b[\s,.;:!-]*/i

/** A `text` field's value in `utterance` (the rules: module header). */
export const extract = (utterance: string): Extracted<string> => {
  const text = utterance.trim().replace(/[\u2018\u2019]/g, "'").replace(FILLERS, "").replace(LEAD_IN, "").replace(
    /[\s.!?,;:]+$/,
    ""
  ).trim()
  return text === "" ? failed("no-value", "Nothing was said") : Result.succeed(text)
}
