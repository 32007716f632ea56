/**
 * The one table from domain errors (core/Errors.ts, and core/AgentDefinition.ts's) to HTTP
 * errors, with the detail sentence
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
  | Errors.NumberOnDoNotCallList
  | Errors.OutboundDialingDisabled
  | Errors.BillingIssue
  | Errors.AgentNotFound
  | Errors.AgentNameTaken
  | Errors.AgentInUse
  | Errors.UnknownProvider

/**
 * @category models
 */
export type HttpError = BadRequest | Forbidden | NotFound | Conflict

const inUseDetail = (error: Errors.AgentInUse): string => {
  const where = [
    ...error.campaignCodes.map((code) => `campaign ${code}`),
    ...error.phoneNumbers.map((number) => `phone number ${number}`)
  ]
  return `Agent ${error.agentId} is attached to ${where.join(", ")}; detach it first (PUT .../agent with ` +
    `{"agent_id": null})`
}

/**
 * One entry per domain error: a tag added to {@link DomainError} without its entry here (or an
 * entry left behind) does not compile, so no domain failure can fall through to a 500.
 */
const httpErrors: { readonly [Tag in DomainError["_tag"]]: (error: Extract<DomainError, { _tag: Tag }>) => HttpError } =
  {
    OrganizationNotFound: (error) => new NotFound({ detail: `Organization ${error.organizationId} not found` }),
    ApiKeyNotFound: (error) => new NotFound({ detail: `API key ${error.keyId} not found` }),
    PhoneNumberTaken: (error) => new Conflict({ detail: `Phone number ${error.phoneNumber} is already registered` }),
    PhoneNumberNotOwned: (error) =>
      new Forbidden({
        detail: `Phone number not owned by this account: ${error.phoneNumbers.join(", ")}`
      }),
    InvalidPhoneNumber: (error) =>
      new BadRequest({ detail: `Invalid phone number ${JSON.stringify(error.phoneNumber)}: ${error.message}` }),
    SmsNotEnabled: (error) => new BadRequest({ detail: `Phone number ${error.phoneNumber} is not enabled for SMS` }),
    CampaignNotFound: (error) => new NotFound({ detail: `Campaign ${error.campaignRef} not found` }),
    CampaignNameTaken: (error) =>
      new Conflict({ detail: `A campaign named ${JSON.stringify(error.name)} already exists` }),
    ConcurrencyLimitExceeded: (error) =>
      new BadRequest({
        detail: `max_concurrency ${error.requested} exceeds the organization limit of ${error.limit}`
      }),
    NoFieldsToUpdate: () => new BadRequest({ detail: "No fields supplied to update" }),
    TermsNotAccepted: () => new BadRequest({ detail: "accepted_terms_of_service must be true" }),
    ContactNotFound: (error) => new NotFound({ detail: `Contact ${error.contactRef} not found in this campaign` }),
    ContactBusy: () => new Conflict({ detail: "The contact is being dialed or is mid-call" }),
    ConversationNotFound: (error) => new NotFound({ detail: `Conversation ${error.callId} not found` }),
    RecordingNotFound: (error) => new NotFound({ detail: `No ${error.channel} recording for call ${error.callId}` }),
    InvalidCursor: () => new BadRequest({ detail: "Invalid cursor" }),
    InvalidParameter: (error) => new BadRequest({ detail: `Invalid ${error.parameter}: ${error.message}` }),
    NumberOnDoNotCallList: (error) =>
      new BadRequest({ detail: `Phone number ${error.phoneNumber} is on this organization's Do-Not-Call list` }),
    OutboundDialingDisabled: () => new Forbidden({ detail: "Outbound dialing is not enabled for this organization" }),
    BillingIssue: () => new Forbidden({ detail: "The account has an unresolved billing issue" }),
    AgentNotFound: (error) => new NotFound({ detail: `Agent ${error.agentId} not found` }),
    AgentNameTaken: (error) => new Conflict({ detail: `An agent named ${JSON.stringify(error.name)} already exists` }),
    AgentInUse: (error) => new Conflict({ detail: inUseDetail(error) }),
    UnknownProvider: (error) => new BadRequest({ detail: error.message })
  }

/**
 * @category encoding
 */
export const toHttpError = (error: DomainError): HttpError =>
  (httpErrors[error._tag] as (error: DomainError) => HttpError)(error)

const isDomainError = (e: unknown): e is DomainError =>
  typeof e === "object" && e !== null && "_tag" in e && typeof e._tag === "string" && Object.hasOwn(httpErrors, e._tag)

/**
 * Maps every domain failure of an effect to its HTTP error; other failures (already HTTP
 * errors) pass through.
 *
 * @category encoding
 */
export const mapDomainErrors = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, DomainError> | HttpError, R> =>
  Effect.mapError(effect, (e) => (isDomainError(e) ? toHttpError(e) : (e as Exclude<E, DomainError>)))
