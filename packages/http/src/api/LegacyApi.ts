/**
 * The deprecated v1 campaign and contact paths (docs/DECISIONS.md, "Deprecated v1 paths"): the
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

/** The v2 twin's summary, marked as the deprecated v1 path. */
const deprecated = (summary: string) => OpenApi.annotations({ summary: `${summary} (v1)`, deprecated: true })

/**
 * @category models
 */
export class LegacyApi extends HttpApiGroup.make("legacy")
  .add(
    HttpApiEndpoint.get("list", "/v1/campaigns", { success: Schema.Array(Campaign) }).annotateMerge(
      deprecated("List campaigns")
    ),
    HttpApiEndpoint.get("get", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      success: Campaign,
      error: NotFound
    }).annotateMerge(deprecated("Get a campaign by id")),
    HttpApiEndpoint.patch("update", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      payload: UpdateCampaignPayload,
      success: Campaign,
      error: [BadRequest, Forbidden, NotFound, Conflict]
    }).annotateMerge(deprecated("Update a campaign by id")),
    HttpApiEndpoint.delete("delete", "/v1/campaigns/:campaign_id", {
      params: campaignId,
      success: DeleteCampaignResponse,
      error: NotFound
    }).annotateMerge(deprecated("Delete a campaign by id")),
    HttpApiEndpoint.get("status", "/v1/campaigns/:campaign_id/status", {
      params: campaignId,
      success: CampaignStatus,
      error: NotFound
    }).annotateMerge(deprecated("Campaign status by id")),
    HttpApiEndpoint.get("hasCallableContacts", "/v1/campaigns/:campaign_id/has-callable-contacts", {
      params: campaignId,
      success: HasCallableContacts,
      error: NotFound
    }).annotateMerge(deprecated("Callable contacts by id")),
    HttpApiEndpoint.post("upload", "/v1/campaigns/:campaign_id/contacts", {
      params: campaignId,
      query: UploadQuery,
      payload: UploadContactsPayload,
      success: UploadContactsResponse,
      error: [BadRequest, UploadRejected, NotFound]
    }).annotateMerge(deprecated("Upload contacts by campaign id")),
    HttpApiEndpoint.get("listContacts", "/v1/contacts", {
      query: { campaign_id: Schema.optional(Schema.String), ...ContactListQuery },
      success: ContactList,
      error: [BadRequest, NotFound]
    }).annotateMerge(deprecated("List contacts by campaign id"))
  )
  .middleware(OutboundDialing)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({
    title: "Deprecated v1 campaigns",
    description: "v1 twins of the v2 campaign and contact endpoints, addressing campaigns by internal id"
  }))
{}
