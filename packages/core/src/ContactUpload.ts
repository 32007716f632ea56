/**
 * The per-contact rules of an upload that need no storage: the number normalizes to E.164
 * (default region US), `data` serializes to at most 16 KB, and (unless duplicates are
 * allowed) a number appears once in the request.
 *
 * Owns: those rules and the order of rejection entries. Does not own the Do-Not-Call and
 * already-in-campaign checks: the store does those in one set-based statement.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { ContactUploadEntry, NewContact } from "./Contact.ts"
import { MaxContactDataBytes } from "./Contact.ts"
import type { RejectedEntry } from "./Errors.ts"
import * as PhoneNumber from "./PhoneNumber.ts"

/**
 * @category models
 */
export interface PreparedUpload {
  /** Contacts that passed, in request order. */
  readonly contacts: ReadonlyArray<NewContact>
  readonly rejected: ReadonlyArray<RejectedEntry>
}

const encoder = new TextEncoder()

/**
 * Size of `data` as JSON in UTF-8 bytes; `Infinity` for a value JSON cannot hold (a cycle, a
 * bigint, nesting deep enough to exhaust the stack), which an embedder can pass in.
 *
 * @category math
 */
export const serializedSize = (data: unknown): number => {
  try {
    return encoder.encode(JSON.stringify(data)).length
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/**
 * Whether `data` serializes to at most {@link MaxContactDataBytes}. A UTF-16 code unit takes at
 * most 3 bytes in UTF-8, so JSON text of up to a third of the limit fits without encoding it
 * (nearly every contact; encoding each one was a sixth of checking a 100,000-row file).
 *
 * @category math
 */
export const fitsDataLimit = (data: unknown): boolean => {
  let json: string
  try {
    json = JSON.stringify(data)
  } catch {
    return false
  }
  return json.length * 3 <= MaxContactDataBytes || encoder.encode(json).length <= MaxContactDataBytes
}

/**
 * The storage-free rules for one entry at a time, in request order: the answer for each entry
 * depends on the entries checked before it (a number's second copy is a duplicate). A fresh
 * check per request; `prepareUpload` and contact files (ContactFile) both use it.
 *
 * @category constructors
 */
export const makeEntryCheck = (
  options: { readonly allowDuplicates: boolean }
): (entry: ContactUploadEntry) => Result.Result<NewContact, RejectedEntry> => {
  const seen = new Set<string>()
  return (entry) => {
    const normalized = PhoneNumber.normalize(entry.phone_number)
    if (Result.isFailure(normalized)) {
      return Result.fail({ phone_number: entry.phone_number, reason: "invalid_phone_number" })
    }
    const phoneNumber = normalized.success
    const data = entry.data ?? {}
    if (!fitsDataLimit(data)) {
      return Result.fail({ phone_number: phoneNumber, reason: "data_too_large" })
    }
    if (!options.allowDuplicates) {
      if (seen.has(phoneNumber)) return Result.fail({ phone_number: phoneNumber, reason: "duplicate" })
      seen.add(phoneNumber)
    }
    return Result.succeed({ phoneNumber, data, outreachModalities: entry.outreach_modalities ?? [] })
  }
}

/**
 * Applies the storage-free rules to an upload, in request order. A number rejected as a
 * duplicate within the request is reported once per extra copy.
 *
 * @category constructors
 */
export const prepareUpload = (
  entries: ReadonlyArray<ContactUploadEntry>,
  options: { readonly allowDuplicates: boolean }
): PreparedUpload => {
  const check = makeEntryCheck(options)
  const contacts: Array<NewContact> = []
  const rejected: Array<RejectedEntry> = []
  for (const entry of entries) {
    const checked = check(entry)
    if (Result.isSuccess(checked)) contacts.push(checked.success)
    else rejected.push(checked.failure)
  }
  return { contacts, rejected }
}
