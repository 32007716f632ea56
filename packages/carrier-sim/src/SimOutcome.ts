/**
 * What the simulated carrier does with a number (CONTRACT §6): decided by the last four
 * digits of the dialed number within the NANP fictional range 555-0100..0199.
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
