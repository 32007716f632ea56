/**
 * Contacts of a campaign: the stored record, the documented resource, the upload request and
 * its responses, and the list response.
 *
 * Owns: the shapes. The upload's per-contact rules live in ContactUpload; the status
 * transitions in ContactState.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContactStatus } from "./ContactState.ts"
import { RejectedEntry } from "./Errors.ts"
import { PageFields } from "./Page.ts"
import type { E164 } from "./PhoneNumber.ts"

/**
 * Contacts per upload request (docs/DECISIONS.md, "Contacts").
 *
 * @category constructors
 */
export const MaxContactsPerUpload = 10_000

/**
 * Serialized size limit of a contact's `data`, in UTF-8 bytes: 16 KB (docs/DECISIONS.md,
 * "Contacts").
 *
 * @category constructors
 */
export const MaxContactDataBytes = 16 * 1024

/**
 * @category models
 */
export type ContactData = { readonly [key: string]: unknown }

/**
 * The stored contact, as the API and the dialer see it.
 *
 * @category models
 */
export interface ContactRecord {
  readonly id: string
  readonly campaignId: string
  readonly organizationId: string
  readonly phoneNumber: E164
  readonly status: ContactStatus
  readonly data: ContactData
  readonly outreachModalities: ReadonlyArray<string>
  readonly attempts: number
  readonly nextAttemptAt: Date | null
  readonly lastAttemptedAt: Date | null
  readonly dialing: boolean
  readonly createdAt: Date
}

/**
 * A contact ready to insert: number normalized, data checked.
 *
 * @category models
 */
export interface NewContact {
  readonly phoneNumber: E164
  readonly data: ContactData
  readonly outreachModalities: ReadonlyArray<string>
}

/**
 * @category schemas
 */
export const ContactDataSchema = Schema.Record(Schema.String, Schema.Unknown).annotate({
  identifier: "ContactData",
  description: "Arbitrary key/value data merged into the agent's context for this contact"
})

/**
 * One entry of an upload body. `null` for `data` or `outreach_modalities` means absent.
 * The number stays a string: an invalid one is a rejection entry (400), not a 422.
 *
 * @category schemas
 */
export const ContactUploadEntry = Schema.Struct({
  phone_number: Schema.String,
  data: Schema.optionalKey(Schema.NullOr(ContactDataSchema)),
  outreach_modalities: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String)))
}).annotate({ identifier: "ContactUpload" })

/**
 * @category models
 */
export type ContactUploadEntry = typeof ContactUploadEntry.Type

/**
 * Body of `POST /v2/campaigns/{campaign_code}/contacts`.
 *
 * @category schemas
 */
export const UploadContactsRequest = Schema.Struct({
  contacts: Schema.Array(ContactUploadEntry).check(Schema.isMaxLength(MaxContactsPerUpload))
}).annotate({ identifier: "UploadContactsRequest" })

/**
 * @category models
 */
export type UploadContactsRequest = typeof UploadContactsRequest.Type

/**
 * @category schemas
 */
export const UploadContactsResponse = Schema.Struct({
  created: Schema.Int
}).annotate({ identifier: "UploadContactsResponse" })

/**
 * The 400 body of an upload in which contacts were rejected.
 *
 * @category schemas
 */
export const UploadRejectedResponse = Schema.Struct({
  created: Schema.Int,
  rejected: Schema.Int,
  rejected_entries: Schema.Array(RejectedEntry)
}).annotate({ identifier: "UploadRejectedResponse" })

/**
 * The Contact resource: exactly the four documented fields.
 *
 * @category schemas
 */
export const Contact = Schema.Struct({
  id: Schema.String,
  phone_number: Schema.String,
  status: ContactStatus,
  data: ContactDataSchema
}).annotate({ identifier: "Contact" })

/**
 * @category models
 */
export type Contact = typeof Contact.Type

/**
 * @category encoding
 */
export const toContact = (record: ContactRecord): Contact => ({
  id: record.id,
  phone_number: record.phoneNumber,
  status: record.status,
  data: record.data
})

/**
 * Response of `GET /v2/contacts`.
 *
 * @category schemas
 */
export const ContactList = Schema.Struct({
  contacts: Schema.Array(Contact),
  ...PageFields
}).annotate({ identifier: "ContactList" })

/**
 * Response of the contact delete endpoints.
 *
 * @category schemas
 */
export const DeleteContactsResponse = Schema.Struct({
  deleted: Schema.Int
}).annotate({ identifier: "DeleteContactsResponse" })
