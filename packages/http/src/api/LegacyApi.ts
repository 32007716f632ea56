/**
 * The deprecated v1 campaign and contact paths (API.md "Versioning" 2, CONTRACT §5): the
 * reference service's own SDKs still call them, so each answers exactly like its v2 twin,
 * addressing the campaign by its internal `id` (a `gcmp-` code is accepted too), with a
 * `Deprecation: true` header (added by the router middleware in handlers/Deprecation.ts).
 *
 * @since 0.1.0
 */
import { Campaign, CampaignStatus, DeleteCampaignResponse, HasCallableContacts } from "@voice-agent/core/Campaign"
import { ContactList, UploadContactsResponse } from "@voice-agent/core/Contact"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { UpdateCampaignPayload } from "./CampaignsApi.ts"
import { ContactListQuery, UploadContactsPayload, UploadQuery, UploadRejected } from "./ContactsApi.ts"
import { BadRequest, Conflict, Forbidden, NotFound } from "./HttpErrors.ts"
import { Authorization, OutboundDialing } from "./Security.ts"

const campaignId = { campaign_id: Schema.String }

/**
 * @category models
 */
export class LegacyApi extends HttpApiGroup.make("legacy")
  .add(
    HttpApiEndpoint.get("list", "/v1/campaigns", { success: Schema.Array(Campaign) }).annotate(
      OpenApi.Deprecated,
      true
    ),
    HttpApiEndpoint.get("get", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      success: Campaign,
      error: NotFound
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.patch("update", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      payload: UpdateCampaignPayload,
      success: Campaign,
      error: [BadRequest, Forbidden, NotFound, Conflict]
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.delete("delete", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      success: DeleteCampaignResponse,
      error: NotFound
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.get("status", "/v1/campaigns/:campaign_id/status", {
      params: campaignId,
      success: CampaignStatus,
      error: NotFound
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.get("hasCallableContacts", "/v1/campaigns/:campaign_id/has-callable-contacts", {
      params: campaignId,
      success: HasCallableContacts,
      error: NotFound
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.post("upload", "/v1/campaigns/:campaign_id/contacts", {
      params: campaignId,
      query: UploadQuery,
      payload: UploadContactsPayload,
      success: UploadContactsResponse,
      error: [BadRequest, UploadRejected, NotFound]
    }).annotate(OpenApi.Deprecated, true),
    HttpApiEndpoint.get("listContacts", "/v1/contacts", {
      query: { campaign_id: Schema.optional(Schema.String), ...ContactListQuery },
      success: ContactList,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Deprecated, true)
  )
  .middleware(OutboundDialing)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({
    title: "Deprecated v1 campaigns",
    description: "v1 twins of the v2 campaign and contact endpoints, addressing campaigns by internal id"
  }))
{}
