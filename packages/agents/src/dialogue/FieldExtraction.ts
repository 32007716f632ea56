/**
 * Reads the value of a task field (`Task.FieldItem`) out of what the person said: the
 * deterministic extraction behind the conversation runtime. Pure: a string in, a `Result` out;
 * no clock (the caller passes today's date in the call's timezone), no I/O.
 *
 * One reader per field type, each in its own module under `extraction/` with its rules in its
 * header: `integer` (`extraction/Integers`), `date` → `{year, month, day}` (`extraction/Dates`),
 * `digit_sequence` and `cvv` (`extraction/Digits`), `multiple_choice` → a choice's text exactly as
 * given (`extraction/Choices`), `calendar_slot` → `"YYYY-MM-DDTHH:MM"` (`extraction/Slots`),
 * `text` (`extraction/Text`). Every utterance is first read as words and numbers the same way
 * (`extraction/Words`: lower-cased, "a.m." as "am", "forty-two" as "forty two", "1,200" and
 * "3rd" as numbers).
 *
 * Failures are an {@link ExtractionFailure} with a `reason` (`no-value`, `ambiguous`,
 * `out-of-range`) and a one-sentence message. Only when the field is not sensitive
 * (`Task.isSensitive`) does the message quote the utterance or anything read from it (an
 * impossible date, a digit count).
 *
 * @since 0.1.0
 */
import type { FieldItem, FieldValue } from "@voice-agent/core/AgentTask"
import { isSensitive } from "@voice-agent/core/AgentTask"
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import { Data, Result } from "effect"
import * as Choices from "./extraction/Choices.ts"
import * as Dates from "./extraction/Dates.ts"
import * as Digits from "./extraction/Digits.ts"
import type { Extracted, ExtractionFailureReason } from "./extraction/Extracted.ts"
import * as Integers from "./extraction/Integers.ts"
import * as Slots from "./extraction/Slots.ts"
import * as Text from "./extraction/Text.ts"

/**
 * What extraction needs besides the utterance: `today`, the date of the call in the call's
 * timezone (relative dates and dates without a year are read from it).
 *
 * @category models
 */
export interface ExtractionContext {
  readonly today: CivilDate
}

export type { ExtractionFailureReason } from "./extraction/Extracted.ts"

/**
 * No value could be read from an utterance for a field.
 *
 * @category errors
 */
export class ExtractionFailure extends Data.TaggedError("ExtractionFailure")<{
  readonly reason: ExtractionFailureReason
  readonly key: string
  readonly message: string
}> {}

/**
 * Reads the value of `field` from `utterance` (module header for the rules).
 *
 * @category decoding
 */
export const extract = (
  field: FieldItem,
  utterance: string,
  context: ExtractionContext
): Result.Result<FieldValue, ExtractionFailure> => {
  const result = extractByType(field, utterance, context)
  if (Result.isSuccess(result)) return Result.succeed(result.success)
  const { detail, reason, what } = result.failure
  const said = utterance.trim().replace(/\s+/g, " ")
  const shown = said.length > 80 ? `${said.slice(0, 77)}...` : said
  const message = isSensitive(field)
    ? `${what} for field "${field.key}".`
    : `${what}${detail === undefined ? "" : ` (${detail})`} for field "${field.key}" in "${shown}".`
  return Result.fail(new ExtractionFailure({ reason, key: field.key, message }))
}

const extractByType = (field: FieldItem, utterance: string, context: ExtractionContext): Extracted<FieldValue> => {
  switch (field.field_type) {
    case "text":
      return Text.extract(utterance)
    case "integer":
      return Integers.extract(utterance)
    case "digit_sequence":
      return Digits.extract(utterance)
    case "cvv":
      return Digits.extractCvv(utterance)
    case "multiple_choice":
      return Choices.extract(field.choices ?? [], utterance)
    case "date":
      return Dates.extract(utterance, context.today)
    case "calendar_slot":
      return Slots.extract(utterance, context.today)
  }
}
