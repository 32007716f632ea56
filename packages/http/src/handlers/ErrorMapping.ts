/**
 * The one table from domain errors (core/Errors.ts) to HTTP errors, with the detail sentence
 * each answers. A failure whose status differs between endpoints (an unowned number is 400
 * for send-sms, 404 for the message list, 403 for campaigns) is resolved by the handler
 * before it reaches this table.
 *
 * @since 0.1.0
 */
import type * as Errors from "@voice-agent/core/Errors"
import { Effect } from "effect"
import { BadRequest, Conflict, Forbidden, NotFound } from "../api/HttpErrors.ts"

/**
 * @category models
 */
export type DomainError =
  | Errors.OrganizationNotFound
  | Errors.ApiKeyNotFound
  | Errors.PhoneNumberTaken
  | Errors.PhoneNumberNotOwned
  | Errors.InvalidPhoneNumber
  | Errors.SmsNotEnabled
  | Errors.CampaignNotFound
  | Errors.CampaignNameTaken
  | Errors.ConcurrencyLimitExceeded
  | Errors.NoFieldsToUpdate
  | Errors.TermsNotAccepted
  | Errors.ContactNotFound
  | Errors.ContactBusy
  | Errors.ConversationNotFound
  | Errors.RecordingNotFound
  | Errors.InvalidCursor
  | Errors.InvalidParameter

/**
 * @category encoding
 */
export const toHttpError = (error: DomainError): BadRequest | Forbidden | NotFound | Conflict => {
  switch (error._tag) {
    case "OrganizationNotFound":
      return new NotFound({ detail: `Organization ${error.organizationId} not found` })
    case "ApiKeyNotFound":
      return new NotFound({ detail: `API key ${error.keyId} not found` })
    case "PhoneNumberTaken":
      return new Conflict({ detail: `Phone number ${error.phoneNumber} is already registered` })
    case "PhoneNumberNotOwned":
      return new Forbidden({
        detail: `Phone number not owned by this account: ${error.phoneNumbers.join(", ")}`
      })
    case "InvalidPhoneNumber":
      return new BadRequest({ detail: `Invalid phone number ${JSON.stringify(error.phoneNumber)}: ${error.message}` })
    case "SmsNotEnabled":
      return new BadRequest({ detail: `Phone number ${error.phoneNumber} is not enabled for SMS` })
    case "CampaignNotFound":
      return new NotFound({ detail: `Campaign ${error.campaignRef} not found` })
    case "CampaignNameTaken":
      return new Conflict({ detail: `A campaign named ${JSON.stringify(error.name)} already exists` })
    case "ConcurrencyLimitExceeded":
      return new BadRequest({
        detail: `max_concurrency ${error.requested} exceeds the organization limit of ${error.limit}`
      })
    case "NoFieldsToUpdate":
      return new BadRequest({ detail: "No fields supplied to update" })
    case "TermsNotAccepted":
      return new BadRequest({ detail: "accepted_terms_of_service must be true" })
    case "ContactNotFound":
      return new NotFound({ detail: `Contact ${error.contactRef} not found in this campaign` })
    case "ContactBusy":
      return new Conflict({ detail: "The contact is being dialed or is mid-call" })
    case "ConversationNotFound":
      return new NotFound({ detail: `Conversation ${error.callId} not found` })
    case "RecordingNotFound":
      return new NotFound({ detail: `No ${error.channel} recording for call ${error.callId}` })
    case "InvalidCursor":
      return new BadRequest({ detail: "Invalid cursor" })
    case "InvalidParameter":
      return new BadRequest({ detail: `Invalid ${error.parameter}: ${error.message}` })
  }
}

const domainTags: ReadonlySet<string> = new Set<DomainError["_tag"]>([
  "OrganizationNotFound",
  "ApiKeyNotFound",
  "PhoneNumberTaken",
  "PhoneNumberNotOwned",
  "InvalidPhoneNumber",
  "SmsNotEnabled",
  "CampaignNotFound",
  "CampaignNameTaken",
  "ConcurrencyLimitExceeded",
  "NoFieldsToUpdate",
  "TermsNotAccepted",
  "ContactNotFound",
  "ContactBusy",
  "ConversationNotFound",
  "RecordingNotFound",
  "InvalidCursor",
  "InvalidParameter"
])

const isDomainError = (e: unknown): e is DomainError =>
  typeof e === "object" && e !== null && "_tag" in e && typeof e._tag === "string" && domainTags.has(e._tag)

/**
 * Maps every domain failure of an effect to its HTTP error; other failures (already HTTP
 * errors) pass through.
 *
 * @category encoding
 */
export const mapDomainErrors = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, DomainError> | BadRequest | Forbidden | NotFound | Conflict, R> =>
  Effect.mapError(effect, (e) => (isDomainError(e) ? toHttpError(e) : (e as Exclude<E, DomainError>)))
