/**
 * How far an upload has come, on standard error: a bar redrawn in place when standard error is
 * a terminal, one plain line per batch otherwise (no carriage returns, so a log or a pipe reads
 * it line by line).
 *
 * @since 0.1.0
 */
import { Effect, Stdio } from "effect"
import * as Stderr from "./Stderr.ts"

/**
 * @category models
 */
export interface Totals {
  readonly batches: number
  readonly contacts: number
}

/**
 * @category models
 */
export interface Reporter {
  /** After each created batch: how many batches and contacts are done. */
  readonly update: (batches: number, contacts: number) => Effect.Effect<void>
  /** Ends the bar's line (on a terminal). */
  readonly finish: Effect.Effect<void>
}

const barWidth = 30

const grouped = (n: number) => n.toLocaleString("en-US")

/**
 * The bar's text: `[██████░░░░] 60%  2/3 batches  20,000/25,000 contacts`.
 *
 * @category encoding
 */
export const barLine = (totals: Totals, batches: number, contacts: number): string => {
  const fraction = totals.contacts === 0 ? 1 : contacts / totals.contacts
  const filled = Math.round(fraction * barWidth)
  return `[${"█".repeat(filled)}${"░".repeat(barWidth - filled)}] ${Math.floor(fraction * 100)}%  ` +
    `${batches}/${totals.batches} batches  ${grouped(contacts)}/${grouped(totals.contacts)} contacts`
}

/**
 * The plain line for a created batch.
 *
 * @category encoding
 */
export const plainLine = (totals: Totals, batches: number, contacts: number): string =>
  `batch ${batches}/${totals.batches} created: ${grouped(contacts)}/${grouped(totals.contacts)} contacts`

/**
 * A reporter for `totals`: a bar (drawn at 0% at once) when standard error is a terminal.
 *
 * @category constructors
 */
export const make = (totals: Totals): Effect.Effect<Reporter, never, Stdio.Stdio> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const write = yield* Stderr.writer
    if (!(yield* stdio.stderrIsTerminal)) {
      return {
        update: (batches, contacts) => write(`${plainLine(totals, batches, contacts)}\n`),
        finish: Effect.void
      }
    }
    // \r back to the line's start; \x1b[K clears what a longer earlier line left.
    const draw = (batches: number, contacts: number) => write(`\r${barLine(totals, batches, contacts)}\x1b[K`)
    yield* draw(0, 0)
    return { update: draw, finish: write("\n") }
  })
