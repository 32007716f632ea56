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
 * Applies the storage-free rules to an upload, in request order. A number rejected as a
 * duplicate within the request is reported once per extra copy.
 *
 * @category constructors
 */
export const prepareUpload = (
  entries: ReadonlyArray<ContactUploadEntry>,
  options: { readonly allowDuplicates: boolean }
): PreparedUpload => {
  const contacts: Array<NewContact> = []
  const rejected: Array<RejectedEntry> = []
  const seen = new Set<string>()
  for (const entry of entries) {
    const normalized = PhoneNumber.normalize(entry.phone_number)
    if (Result.isFailure(normalized)) {
      rejected.push({ phone_number: entry.phone_number, reason: "invalid_phone_number" })
      continue
    }
    const phoneNumber = normalized.success
    const data = entry.data ?? {}
    if (serializedSize(data) > MaxContactDataBytes) {
      rejected.push({ phone_number: phoneNumber, reason: "data_too_large" })
      continue
    }
    if (!options.allowDuplicates) {
      if (seen.has(phoneNumber)) {
        rejected.push({ phone_number: phoneNumber, reason: "duplicate" })
        continue
      }
      seen.add(phoneNumber)
    }
    contacts.push({ phoneNumber, data, outreachModalities: entry.outreach_modalities ?? [] })
  }
  return { contacts, rejected }
}
