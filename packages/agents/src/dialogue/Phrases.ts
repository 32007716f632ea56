/**
 * What the deterministic policy recognizes in what it is told: a caller asking to stop, asking
 * for a person, asking a question or asking for something, and an instruction to hang up.
 * Plain English patterns over the normalized text (lower case, letters, digits and apostrophes).
 *
 * @since 0.1.0
 */

const stopPatterns: ReadonlyArray<RegExp> = [
  /\bstop (calling|call(ing)? me|this)\b/,
  /\b(do not|don't|dont|never) call\b/,
  /\bnot interested\b/,
  /\bgood ?bye\b/,
  /\bbye\b/,
  /\bremove me\b/,
  /\btake me off\b/,
  /\bleave me alone\b/,
  /\bunsubscribe\b/
]

/**
 * Text as the patterns read it: lower case, letters, digits and apostrophes, single spaces.
 *
 * @category constructors
 */
export const normalize = (text: string) =>
  text.toLowerCase().replace(/[’']/g, "'").replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim()

/**
 * The stop phrase in `text`, if the caller asks to stop ("stop calling", "not interested",
 * "goodbye", "remove me", …).
 *
 * @category predicates
 */
export const stopPhrase = (text: string): string | undefined => {
  const normalized = normalize(text)
  for (const pattern of stopPatterns) {
    const match = pattern.exec(normalized)
    if (match !== null) return match[0]
  }
  return undefined
}

const humanPatterns: ReadonlyArray<RegExp> = [
  /\b(speak|talk) (to|with) (a |an )?(human|real person|person|someone|representative|agent|operator|manager)\b/,
  /\b(a |an )?(real person|human being|live agent|representative|operator)\b/
]

/**
 * Whether the caller asks for a human ("can I speak to a person", "representative", …).
 *
 * @category predicates
 */
export const asksForHuman = (text: string): boolean => {
  const normalized = normalize(text)
  return humanPatterns.some((pattern) => pattern.test(normalized))
}

/**
 * Whether an utterance is a question: it ends with a question mark, or opens as one does.
 *
 * @category predicates
 */
export const isQuestion = (text: string): boolean =>
  /\?\s*$/.test(text) ||
  /^(what|when|where|who|whom|whose|why|how|which|can you|could you|do you|does|is it|is there|are you|are there|will you|would you)\b/
    .test(normalize(text))

/**
 * Whether the caller asks for something ("I'd like to…", "I want to…", "I need to…", "can I…",
 * "could I…"): a request an SDK agent may act on (`action-request`).
 *
 * @category predicates
 */
export const isRequest = (text: string): boolean =>
  /\b(i'd like to|i would like to|i want to|i wanna|i need to|i'd like a|i want a|i need a|can i|could i|may i)\b/
    .test(normalize(text))

/**
 * Whether an instruction asks to end the call (the reference SDK's `hangup`: "… naturally end
 * the conversation and hang up the call").
 *
 * @category predicates
 */
export const isHangUp = (instruction: string): boolean => /\bhang up\b|\bend the call\b/i.test(instruction)
