/**
 * `multiple_choice` fields: a choice's text exactly as given in `choices`. Case, accents and
 * punctuation are ignored. In order: the choices that appear in the utterance as whole words (a
 * choice inside a longer one that also appears is dropped: "mobile phone" picks "Mobile phone"
 * over "Phone"); else the closest choice within a small edit distance (optimal string alignment
 * over the letters, spaces ignored, the first letter right, at most 1 for choices of 4–7
 * letters, 2 for 8–12, 3 beyond; none for shorter ones); else an ordinal ("the second one",
 * "second", "the last option", "option two", "number 2"). Several equally good → ambiguous.
 * Negation is not understood ("not email" picks "Email").
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { Extracted } from "./Extracted.ts"
import { failed } from "./Extracted.ts"
import { digitsValue, numbered, TEENS, UNITS } from "./Words.ts"

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

/** A `multiple_choice` field's value in `utterance`: one of `choices` (the rules: module header). */
export const extract = (choices: ReadonlyArray<string>, utterance: string): Extracted<string> => {
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
