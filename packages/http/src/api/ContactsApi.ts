/**
 * The contact endpoints of the documented API: upload, list, delete by phone number, delete by id;
 * and our extension, the eligibility explainer (docs/DECISIONS.md, "Extensions").
 *
 * @since 0.1.0
 */
import {
  ContactList,
  DeleteContactsResponse,
  UploadContactsRequest,
  UploadContactsResponse,
  UploadRejectedResponse
} from "@voice-agent/core/Contact"
import { ContactEligibility } from "@voice-agent/core/Eligibility"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "./HttpErrors.ts"
import { QueryBoolean } from "./Params.ts"
import { Authorization, OutboundDialing } from "./Security.ts"
import { storableBody } from "./Storable.ts"

/**
 * The 400 body of an upload in which contacts were rejected (nothing was created).
 *
 * @category errors
 */
export class UploadRejected extends Schema.Error<UploadRejected>("UploadRejected")(
  // core's struct, whose identifier names the OpenAPI component UploadRejectedResponse.
  UploadRejectedResponse,
  { httpApiStatus: 400, description: "One or more contacts rejected" }
) {}

/**
 * Query of the contact list (v2 by `campaign_code`; the deprecated v1 by `campaign_id`).
 * Values that the documented API answers with 400 stay strings here and are checked by the handler.
 *
 * @category schemas
 */
export const ContactListQuery = {
  status: Schema.optional(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
  data: Schema.optional(Schema.String),
  attempted_after: Schema.optional(Schema.String),
  attempted_before: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.String),
  after: Schema.optional(Schema.String)
}

/**
 * @category schemas
 */
export const UploadQuery = {
  accepted_terms_of_service: Schema.optional(Schema.String),
  allow_duplicates: Schema.optional(QueryBoolean)
}

/**
 * The upload body as the v2 and deprecated v1 paths take it (one schema: one OpenAPI component).
 *
 * @category schemas
 */
export const UploadContactsPayload = storableBody(UploadContactsRequest)

/**
 * @category models
 */
export class ContactsApi extends HttpApiGroup.make("contacts")
  .add(
    HttpApiEndpoint.post("upload", "/v2/campaigns/:campaign_code/contacts", {
      params: { campaign_code: Schema.String },
      query: UploadQuery,
      payload: UploadContactsPayload,
      success: UploadContactsResponse,
      error: [BadRequest, UploadRejected, NotFound]
    }).annotate(OpenApi.Summary, "Upload contacts"),
    HttpApiEndpoint.get("list", "/v2/contacts", {
      query: { campaign_code: Schema.optional(Schema.String), ...ContactListQuery },
      success: ContactList,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "List contacts"),
    HttpApiEndpoint.delete("deleteByPhoneNumber", "/v2/campaigns/:campaign_code/contacts", {
      params: { campaign_code: Schema.String },
      query: { phone_number: Schema.String },
      success: DeleteContactsResponse,
      error: [BadRequest, NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Delete contacts by phone number"),
    HttpApiEndpoint.delete("deleteById", "/v2/campaigns/:campaign_code/contacts/:contact_id", {
      params: { campaign_code: Schema.String, contact_id: Schema.String },
      success: DeleteContactsResponse,
      error: [NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Delete one contact"),
    HttpApiEndpoint.get("eligibility", "/v2/campaigns/:campaign_code/contacts/:contact_id/eligibility", {
      params: { campaign_code: Schema.String, contact_id: Schema.String },
      success: ContactEligibility,
      error: NotFound
    })
      .annotate(OpenApi.Summary, "Explain a contact's eligibility")
      .annotate(
        OpenApi.Description,
        "Why the contact is or is not callable now (blocked_by), and the earliest instant it will be if nothing " +
          "changes (next_eligible_at). An extension of this engine."
      )
  )
  .middleware(OutboundDialing)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Contacts", description: "Contacts of outbound campaigns" }))
{}
