/**
 * The domain's failures: one tagged error class per failure the documented API names.
 *
 * Owns: the error classes and their fields. Does not own HTTP status codes: the same
 * failure maps to different statuses on different endpoints (an unowned number is 400 for
 * send-sms, 404 for the message list and 403 for a campaign's origin numbers), so the
 * http package maps each error to its status in one table per endpoint group.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * @category errors
 */
export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  organizationId: Schema.String
}) {}

/**
 * @category errors
 */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  keyId: Schema.String
}) {}

/**
 * A phone number is already owned (by this or another organization).
 *
 * @category errors
 */
export class PhoneNumberTaken extends Schema.TaggedError<PhoneNumberTaken>()("PhoneNumberTaken", {
  phoneNumber: Schema.String
}) {}

/**
 * A number the request names as the organization's own is not one of its numbers.
 *
 * @category errors
 */
export class PhoneNumberNotOwned extends Schema.TaggedError<PhoneNumberNotOwned>()("PhoneNumberNotOwned", {
  phoneNumbers: Schema.Array(Schema.String)
}) {}

/**
 * A phone number that cannot be parsed or normalized.
 *
 * @category errors
 */
export class InvalidPhoneNumber extends Schema.TaggedError<InvalidPhoneNumber>()("InvalidPhoneNumber", {
  phoneNumber: Schema.String,
  message: Schema.String
}) {}

/**
 * The organization may not place outbound calls (campaign and contact endpoints).
 *
 * @category errors
 */
export class OutboundDialingDisabled
  extends Schema.TaggedError<OutboundDialingDisabled>()("OutboundDialingDisabled", {})
{}

/**
 * The organization has not completed SMS brand and campaign registration.
 *
 * @category errors
 */
export class SmsNotRegistered extends Schema.TaggedError<SmsNotRegistered>()("SmsNotRegistered", {}) {}

/**
 * The organization has an unresolved billing issue.
 *
 * @category errors
 */
export class BillingIssue extends Schema.TaggedError<BillingIssue>()("BillingIssue", {}) {}

/**
 * The sender number is owned but not enabled for SMS.
 *
 * @category errors
 */
export class SmsNotEnabled extends Schema.TaggedError<SmsNotEnabled>()("SmsNotEnabled", {
  phoneNumber: Schema.String
}) {}

/**
 * @category errors
 */
export class CampaignNotFound extends Schema.TaggedError<CampaignNotFound>()("CampaignNotFound", {
  campaignRef: Schema.String
}) {}

/**
 * Another non-deleted campaign of the organization has this name.
 *
 * @category errors
 */
export class CampaignNameTaken extends Schema.TaggedError<CampaignNameTaken>()("CampaignNameTaken", {
  name: Schema.String
}) {}

/**
 * A campaign's `max_concurrency` is above the organization-wide limit.
 *
 * @category errors
 */
export class ConcurrencyLimitExceeded extends Schema.TaggedError<ConcurrencyLimitExceeded>()(
  "ConcurrencyLimitExceeded",
  { requested: Schema.Int, limit: Schema.Int }
) {}

/**
 * An update request that supplies no field.
 *
 * @category errors
 */
export class NoFieldsToUpdate extends Schema.TaggedError<NoFieldsToUpdate>()("NoFieldsToUpdate", {}) {}

/**
 * An upload without `accepted_terms_of_service=true`.
 *
 * @category errors
 */
export class TermsNotAccepted extends Schema.TaggedError<TermsNotAccepted>()("TermsNotAccepted", {}) {}

/**
 * Why one uploaded contact was rejected (docs/DECISIONS.md, "Contacts").
 *
 * @category models
 */
export const RejectionReason = Schema.Literals(["invalid_phone_number", "do_not_call", "duplicate", "data_too_large"])

/**
 * @category models
 */
export type RejectionReason = typeof RejectionReason.Type

/**
 * @category models
 */
export const RejectedEntry = Schema.Struct({
  phone_number: Schema.String,
  reason: RejectionReason
}).annotate({ identifier: "RejectedEntry" })

/**
 * @category models
 */
export type RejectedEntry = typeof RejectedEntry.Type

/**
 * An upload in which at least one contact was rejected; nothing was created.
 *
 * @category errors
 */
export class ContactsRejected extends Schema.TaggedError<ContactsRejected>()("ContactsRejected", {
  rejected: Schema.Array(RejectedEntry)
}) {}

/**
 * @category errors
 */
export class ContactNotFound extends Schema.TaggedError<ContactNotFound>()("ContactNotFound", {
  contactRef: Schema.String
}) {}

/**
 * A contact that is being dialed or is mid-call cannot be deleted.
 *
 * @category errors
 */
export class ContactBusy extends Schema.TaggedError<ContactBusy>()("ContactBusy", {
  contactIds: Schema.Array(Schema.String)
}) {}

/**
 * @category errors
 */
export class ConversationNotFound extends Schema.TaggedError<ConversationNotFound>()("ConversationNotFound", {
  callId: Schema.String
}) {}

/**
 * @category errors
 */
export class RecordingNotFound extends Schema.TaggedError<RecordingNotFound>()("RecordingNotFound", {
  callId: Schema.String,
  channel: Schema.String
}) {}

/**
 * A list cursor that was not issued by this service or was altered.
 *
 * @category errors
 */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {}) {}

/**
 * A query parameter whose value is invalid where the documented API names 400 (limits, dates,
 * filters: docs/DECISIONS.md, "Requests and errors").
 *
 * @category errors
 */
export class InvalidParameter extends Schema.TaggedError<InvalidParameter>()("InvalidParameter", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/**
 * The number to call is on the organization's Do-Not-Call list (a call outside any campaign,
 * `POST /v2/create-outbound`; a campaign's contacts are rejected or failed instead).
 *
 * @category errors
 */
export class NumberOnDoNotCallList extends Schema.TaggedError<NumberOnDoNotCallList>()("NumberOnDoNotCallList", {
  phoneNumber: Schema.String
}) {}

/**
 * A request that needs a language model (text generation, the OpenAI-compatible proxy) on a
 * server where none is configured.
 *
 * @category errors
 */
export class LanguageModelNotConfigured
  extends Schema.TaggedError<LanguageModelNotConfigured>()("LanguageModelNotConfigured", {})
{}

/**
 * No live definition with this id in this organization.
 *
 * @category errors
 */
export class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", {
  agentId: Schema.String
}) {}

/**
 * Another live definition of the organization has this name.
 *
 * @category errors
 */
export class AgentNameTaken extends Schema.TaggedError<AgentNameTaken>()("AgentNameTaken", {
  name: Schema.String
}) {}

/**
 * A definition still attached to live campaigns or to numbers cannot be deleted.
 *
 * @category errors
 */
export class AgentInUse extends Schema.TaggedError<AgentInUse>()("AgentInUse", {
  agentId: Schema.String,
  campaignCodes: Schema.Array(Schema.String),
  phoneNumbers: Schema.Array(Schema.String)
}) {}

/**
 * A definition names a provider that is not configured.
 *
 * @category errors
 */
export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  kind: Schema.Literals(["llm", "stt", "tts"]),
  name: Schema.String,
  configured: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const configured = this.configured.length === 0
      ? `no ${this.kind} providers are configured`
      : `configured: ${this.configured.join(", ")}`
    return `Unknown ${this.kind} provider ${JSON.stringify(this.name)} (${configured})`
  }
}
