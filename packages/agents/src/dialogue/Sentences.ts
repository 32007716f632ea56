/**
 * Cuts streamed text into sentences, so the agent can speak the first sentence of a reply
 * while the model is still writing the rest. A sentence ends at `.`, `!`, `?` or `…` (with any
 * closing quotes or brackets) followed by white space, or at a line break; the rest waits for
 * more text or the end of the stream. Abbreviations that end in a period and rarely end a
 * sentence ("Mr.", "Dr.", "e.g.") do not cut. Pure.
 *
 * @since 0.1.0
 */

const ABBREVIATIONS = /\b(?:mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|e\.g|i\.e|no|approx|apt|dept|est|inc|ltd)\.$/i

/**
 * A splitter's state: the text not yet cut.
 *
 * @category models
 */
export interface Splitter {
  readonly pending: string
}

/**
 * @category constructors
 */
export const empty: Splitter = { pending: "" }

const END = /[.!?…]+["'”’)\]]*(?=\s)|\n+/g

/**
 * Adds `text`; answers the sentences it completed.
 *
 * @category combinators
 */
export const push = (
  splitter: Splitter,
  text: string
): { readonly splitter: Splitter; readonly sentences: ReadonlyArray<string> } => {
  const buffer = splitter.pending + text
  const sentences: Array<string> = []
  let start = 0
  END.lastIndex = 0
  for (let match = END.exec(buffer); match !== null; match = END.exec(buffer)) {
    const end = match.index + match[0].length
    const candidate = buffer.slice(start, end)
    if (match[0].startsWith(".") && ABBREVIATIONS.test(candidate.trimEnd())) continue
    const sentence = candidate.trim()
    if (sentence !== "") sentences.push(sentence)
    start = end
  }
  return { splitter: { pending: buffer.slice(start) }, sentences }
}

/**
 * What is left at the end of the stream, if anything.
 *
 * @category combinators
 */
export const flush = (splitter: Splitter): string | undefined => {
  const rest = splitter.pending.trim()
  return rest === "" ? undefined : rest
}
