/**
 * Storage port for contacts.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { ContactData, ContactRecord, NewContact } from "../Contact.ts"
import type { ContactStatus } from "../ContactState.ts"
import type { ContactBusy, ContactNotFound, ContactsRejected, RejectedEntry } from "../Errors.ts"
import type { E164 } from "../PhoneNumber.ts"

/**
 * Filters and page of `GET /v2/contacts`, newest first.
 *
 * @category models
 */
export interface ContactQuery {
  readonly organizationId: string
  readonly campaignId?: string | undefined
  readonly statuses?: ReadonlyArray<ContactStatus> | undefined
  /** Exact-match filters: the contact's data contains this object (JSONB containment). */
  readonly data?: ContactData | undefined
  readonly attemptedAfter?: Date | undefined
  readonly attemptedBefore?: Date | undefined
  readonly limit: number
  /** Keyset position: only contacts older than this contact id. */
  readonly afterId?: string | undefined
}

/**
 * @category models
 */
export interface ContactPage {
  readonly contacts: ReadonlyArray<ContactRecord>
  readonly hasMore: boolean
}

/**
 * @category services
 */
export class ContactRepository extends Context.Service<ContactRepository, {
  /**
   * Inserts all contacts in one transaction, or none: a contact whose number is on the
   * organization's DNC list, or (unless `allowDuplicates`) already in the campaign, fails
   * the whole upload with every rejection listed. Concurrent uploads to one campaign are
   * serialized, so two uploads of one number cannot both succeed without `allowDuplicates`.
   */
  readonly upload: (
    campaign: { readonly id: string; readonly organizationId: string },
    contacts: ReadonlyArray<NewContact>,
    options: { readonly allowDuplicates: boolean; readonly now: Date }
  ) => Effect.Effect<{ readonly created: number }, ContactsRejected>
  /**
   * What `upload` would reject for these numbers, without inserting: those on the DNC list
   * and (unless `allowDuplicates`) those already in the campaign, in the given order.
   */
  readonly findConflicts: (
    campaign: { readonly id: string; readonly organizationId: string },
    phoneNumbers: ReadonlyArray<E164>,
    options: { readonly allowDuplicates: boolean }
  ) => Effect.Effect<ReadonlyArray<RejectedEntry>>
  readonly list: (query: ContactQuery) => Effect.Effect<ContactPage>
  /**
   * Removes every copy of the number in the campaign; none if any copy is being dialed at
   * `now` (epoch milliseconds): its lease has not expired (`ContactState.canDelete`). A copy
   * whose lease expired is deleted, and the conversation of its call, if any, is closed with
   * `bot-failure`.
   */
  readonly deleteByPhoneNumber: (
    campaignId: string,
    phoneNumber: E164,
    now: number
  ) => Effect.Effect<number, ContactNotFound | ContactBusy>
  /** Removes the contact, as {@link deleteByPhoneNumber} does each copy. */
  readonly deleteById: (
    campaignId: string,
    contactId: string,
    now: number
  ) => Effect.Effect<void, ContactNotFound | ContactBusy>
  /**
   * Whether some contact of the campaign is callable at `now` as far as the contact goes
   * (TRYING, not dialing, attempts left, next attempt due, number not on the DNC list).
   * The campaign-level conditions (enabled, dates, windows) are the caller's.
   */
  readonly hasCallable: (
    campaignId: string,
    options: { readonly maxAttempts: number; readonly now: Date }
  ) => Effect.Effect<boolean>
}>()("@voice-agent/core/ports/ContactRepository") {}
