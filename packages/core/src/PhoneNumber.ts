/**
 * Phone numbers: the E.164 wire form and the normalization of what people type.
 *
 * Owns: the E.164 pattern and schema of the documented API, `normalize` (contact uploads and every
 * other "any formatting, default region US" input) and `normalizeDialableUs` (the stricter check of
 * `DELETE /v2/campaigns/{code}/contacts?phone_number=`). Does not own ownership checks (whether an
 * organization holds a number), DNC lookups, or the simulated carrier's digit rules.
 *
 * Decisions:
 * - Parsing uses libphonenumber-js with `max` metadata (the full per-region number patterns).
 * - "Possible", not "valid", is required. libphonenumber's `isValid()` also checks that the area
 *   code is in service and that the range is allocated; with `max` metadata it accepts
 *   `+12025550123` but rejects the same fictional 555-01XX line under 349 of the 800 NANP area
 *   codes 200..999 (for example `+15555550123`, `+12425550123`). The simulated carrier's outcome
 *   table (packages/carrier-sim/README.md) is 555-0100..0199, so those numbers must pass whatever
 *   the area code.
 * - On top of `isPossible()` (the length fits the country's plan), a +1 number must follow the
 *   NANP structure that every dialable number has: area code and exchange start with 2..9, and
 *   the area code is not an N11 service code (`+11234567890`, `+19115550123` are rejected).
 * - The input may contain only digits, spaces, a leading `+`, and `( ) - . /`; letters
 *   (vanity numbers, `ext.`, `tel:`) are rejected rather than guessed at.
 * - `normalizeDialableUs` also requires country code +1 and a number libphonenumber places in
 *   the US or a US territory (PR, VI, GU, AS, MP), or in no region at all (an area code not in
 *   service, as in the fictional test range); `+14165550123` (Canada) is rejected.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { parsePhoneNumberFromString, validatePhoneNumberLength } from "libphonenumber-js/max"
import type { CountryCode } from "libphonenumber-js/max"

/**
 * The E.164 pattern the documented API gives for phone number fields: `+`, a non-zero digit, at
 * most 15 digits.
 *
 * @category models
 */
export const E164Pattern: RegExp = /^\+[1-9]\d{1,14}$/

/**
 * A string matching {@link E164Pattern}, branded `E164`. Used for fields documented as
 * "E.164, pattern above"; it checks the shape only, not that the number exists.
 *
 * @category schemas
 */
export const E164 = Schema.String.check(
  Schema.isPattern(E164Pattern, {
    message: "Expected an E.164 phone number such as +12025550123",
    expected: "an E.164 phone number"
  })
).pipe(Schema.brand("E164")).annotate({
  identifier: "E164",
  description: "A phone number in E.164 format, matching ^\\+[1-9]\\d{1,14}$"
})

/**
 * An E.164 phone number string.
 *
 * @category models
 */
export type E164 = typeof E164.Type

/**
 * True when `s` matches {@link E164Pattern}.
 *
 * @category guards
 */
export const isE164 = (s: string): s is E164 => E164Pattern.test(s)

const allowedCharacters = /^\+?[\d\s().\-/]+$/
const maxInputLength = 64
const nanpStructure = /^[2-9](?!11)\d{2}[2-9]\d{6}$/
const usRegions: ReadonlySet<string> = new Set(["US", "PR", "VI", "GU", "AS", "MP"])

const lengthMessages: Record<string, string> = {
  TOO_SHORT: "too short",
  TOO_LONG: "too long",
  INVALID_LENGTH: "of an invalid length",
  INVALID_COUNTRY: "unknown or missing country code",
  NOT_A_NUMBER: "not a phone number"
}

interface Parsed {
  readonly e164: E164
  readonly countryCallingCode: string
  readonly nationalNumber: string
  readonly country: string | undefined
}

const parse = (input: string, defaultRegion: CountryCode): Result.Result<Parsed, string> => {
  const text = input.trim()
  const quoted = JSON.stringify(input)
  if (text === "") return Result.fail("Phone number is empty")
  if (text.length > maxInputLength || !allowedCharacters.test(text)) {
    return Result.fail(`Invalid phone number ${quoted}: only digits, spaces, a leading + and ( ) - . / are allowed`)
  }
  const number = parsePhoneNumberFromString(text, { defaultCountry: defaultRegion })
  if (number === undefined || !number.isPossible()) {
    const reason = validatePhoneNumberLength(text, { defaultCountry: defaultRegion }) ?? "INVALID_LENGTH"
    return Result.fail(`Invalid phone number ${quoted}: ${lengthMessages[reason] ?? "not a phone number"}`)
  }
  const nationalNumber = number.nationalNumber
  const countryCallingCode = number.countryCallingCode
  if (countryCallingCode === "1" && !nanpStructure.test(nationalNumber)) {
    return Result.fail(
      `Invalid phone number ${quoted}: a +1 number needs a 3-digit area code and exchange that start with 2-9`
    )
  }
  const e164 = `+${countryCallingCode}${nationalNumber}`
  if (!isE164(e164)) return Result.fail(`Invalid phone number ${quoted}: not representable in E.164`)
  return Result.succeed({ e164, countryCallingCode, nationalNumber, country: number.country })
}

/**
 * Parses a phone number in any common formatting (`(202) 555-0123`, `202.555.0123`,
 * `+1 202 555 0123`, `12025550123`, `+44 20 7946 0958`) and returns its E.164 form. Numbers
 * without a leading `+` are read in `defaultRegion` (US unless given). Fails with a sentence for
 * empty input, letters, a wrong length, or a +1 number outside the NANP structure; see the
 * module header for why "possible" rather than "valid" is required.
 *
 * @category decoding
 */
export const normalize = (input: string, defaultRegion: CountryCode = "US"): Result.Result<E164, string> => {
  if (isNanpE164(input)) return Result.succeed(input)
  if (defaultRegion === "US") {
    const formatted = usFormatted.exec(input)
    if (formatted !== null) return Result.succeed(`+1${formatted[1]}${formatted[2]}${formatted[3]}` as E164)
  }
  return Result.map(parse(input, defaultRegion), (parsed) => parsed.e164)
}

/**
 * A +1 number already in E.164 with the NANP structure, as uploads mostly carry them.
 * libphonenumber reads it back unchanged (country code 1, its 10 national digits, a possible
 * length for every NANP region and for none), so `normalize` answers it without parsing: the
 * same answer (checked against the parser on random numbers in the tests) at a fraction of the
 * cost, which was a fifth of a 10,000-contact upload.
 */
const nanpE164 = /^\+1[2-9](?!11)\d{2}[2-9]\d{6}$/
const isNanpE164 = (input: string): input is E164 => nanpE164.test(input)

/**
 * A NANP number in the ways people write it in the US (`(202) 555-0123`, `202-555-0123`,
 * `202.555.0123`, `1 202 555 0123`, `+1 (202) 555-0123`), read without parsing: libphonenumber
 * reads these, in region US, as +1 and the ten digits (checked against the parser on random
 * formattings in the tests). Spreadsheet exports carry numbers this way, and the parser took
 * four fifths of the time to check a 100,000-row contact file.
 */
const usFormatted = /^(?:\+?1[ .-]?)?\(?([2-9](?!11)\d{2})\)?[ .-]?([2-9]\d{2})[ .-]?(\d{4})$/

/**
 * The check of "a valid, dialable US number" (delete contacts by phone number): any common
 * formatting, with or without `+1`; the number must be a possible NANP number placed in the US
 * or a US territory (or in no region, like the fictional 555-01XX test range). Returns E.164.
 *
 * @category decoding
 */
export const normalizeDialableUs = (input: string): Result.Result<E164, string> =>
  Result.flatMap(parse(input, "US"), (parsed) => {
    const quoted = JSON.stringify(input)
    if (parsed.countryCallingCode !== "1") {
      return Result.fail(`${quoted} is not a US phone number: country code +${parsed.countryCallingCode}`)
    }
    if (parsed.country !== undefined && !usRegions.has(parsed.country)) {
      return Result.fail(`${quoted} is not a US phone number: it belongs to ${parsed.country}`)
    }
    return Result.succeed(parsed.e164)
  })
