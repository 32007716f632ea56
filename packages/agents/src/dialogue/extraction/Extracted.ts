/**
 * What a reader of one value kind answers: the value, or why there is none, said without the
 * field (which `FieldExtraction.extract` adds, with what the person said unless it is sensitive).
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * Why no value was read: none found, several equally good, or one found that is not valid for
 * the field (February 30, a 5-digit cvv, 3.5 for an integer, 25:00).
 *
 * @category models
 */
export type ExtractionFailureReason = "no-value" | "ambiguous" | "out-of-range"

/**
 * A failure before the field is known.
 *
 * @category models
 */
export interface Failed {
  readonly reason: ExtractionFailureReason
  /** What went wrong, without anything the person said. */
  readonly what: string
  /** Details drawn from what the person said: left out for sensitive fields. */
  readonly detail?: string
}

/**
 * @category models
 */
export type Extracted<A> = Result.Result<A, Failed>

/**
 * @category constructors
 */
export const failed = (reason: ExtractionFailureReason, what: string, detail?: string): Extracted<never> =>
  Result.fail(detail === undefined ? { reason, what } : { reason, what, detail })
