/**
 * Phone numbers typed by the operator or answered by the API, as the E.164 values the API
 * definition asks for: typed ones normalized by core's rules (any common formatting, default
 * region US), the API's own taken as they are.
 */
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { normalize } from "@voice-agent/core/PhoneNumber"
import type { Result } from "effect"

/**
 * What the operator typed, normalized; the reason when it cannot be.
 *
 * @category decoding
 */
export const parse = (input: string): Result.Result<E164, string> => normalize(input.trim())

/**
 * A number the API answered (already E.164).
 *
 * @category decoding
 */
export const fromApi = (number: string): E164 => number as E164
