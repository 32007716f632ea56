/**
 * What the simulated carrier does with a number (the table in packages/carrier-sim/README.md):
 * decided by the last four digits of the dialed number within the NANP fictional range
 * 555-0100..0199, and when it happens ({@link timings}, {@link conversationMs}), compressed so that
 * tests stay fast.
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export type SimOutcome =
  | "conversation"
  | "voicemail"
  | "busy"
  | "no-answer"
  | "carrier-failure"
  | "early-hangup"
  | "never-hangs-up"

/**
 * @category constructors
 */
export const outcomeFor = (phoneNumber: string): SimOutcome => {
  const digits = phoneNumber.replace(/\D/g, "")
  const exchange = digits.slice(-7, -4)
  const line = Number(digits.slice(-4))
  if (exchange !== "555" || line < 100 || line > 199) return "conversation"
  if (line < 140) return "conversation"
  if (line < 150) return "voicemail"
  if (line < 160) return "busy"
  if (line < 170) return "no-answer"
  if (line < 180) return "carrier-failure"
  if (line < 190) return "early-hangup"
  return "never-hangs-up"
}

/**
 * The simulated call's timings, in milliseconds: how long a call rings before it is answered
 * (by a person or a machine) or found busy, how long an unanswered call rings before the
 * carrier gives up, and how long after the answer a person who hangs up early does so.
 *
 * @category models
 */
export const timings: {
  readonly ringMs: number
  readonly noAnswerMs: number
  readonly earlyHangupMs: number
  readonly conversationMinMs: number
  readonly conversationMaxMs: number
} = {
  ringMs: 1_000,
  noAnswerMs: 3_000,
  earlyHangupMs: 1_000,
  conversationMinMs: 3_000,
  conversationMaxMs: 6_000
}

/**
 * How long after the answer the scripted person of a `conversation` number hangs up: 3 to 6 s
 * in steps of 100 ms, the same every time for the same number (from its last four digits).
 *
 * @category constructors
 */
export const conversationMs = (phoneNumber: string): number => {
  const line = Number(phoneNumber.replace(/\D/g, "").slice(-4)) || 0
  const steps = (timings.conversationMaxMs - timings.conversationMinMs) / 100 + 1
  return timings.conversationMinMs + (line % steps) * 100
}
