/**
 * The v2 campaign endpoints of the documented API, addressed by `{campaign_code}`, and our
 * extension beside them: the campaign's turn latency (docs/HTTP_API.md).
 *
 * @since 0.1.0
 */
import {
  Campaign,
  CampaignStatus,
  CreateCampaignRequest,
  DeleteCampaignResponse,
  HasCallableContacts,
  UpdateCampaignRequest
} from "@voice-agent/core/Campaign"
import { CampaignLatency } from "@voice-agent/core/TurnLatency"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, Forbidden, NotFound } from "./HttpErrors.ts"
import { Authorization, OutboundDialing } from "./Security.ts"
import { storableBody } from "./Storable.ts"

const campaignCode = { campaign_code: Schema.String }

/**
 * The update body as the v2 and deprecated v1 paths take it (one schema: one OpenAPI component).
 *
 * @category schemas
 */
export const UpdateCampaignPayload = storableBody(UpdateCampaignRequest)

/**
 * @category models
 */
export class CampaignsApi extends HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.post("create", "/v2/campaigns", {
      payload: storableBody(CreateCampaignRequest),
      success: Campaign.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, Conflict]
    }).annotate(OpenApi.Summary, "Create a campaign"),
    HttpApiEndpoint.get("list", "/v2/campaigns", {
      success: Schema.Array(Campaign)
    }).annotate(OpenApi.Summary, "List campaigns"),
    HttpApiEndpoint.get("get", "/v2/campaigns/:campaign_code", {
      params: campaignCode,
      success: Campaign,
      error: NotFound
    }).annotate(OpenApi.Summary, "Get a campaign"),
    HttpApiEndpoint.patch("update", "/v2/campaigns/:campaign_code", {
      params: campaignCode,
      payload: UpdateCampaignPayload,
      success: Campaign,
      error: [BadRequest, Forbidden, NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Update a campaign"),
    HttpApiEndpoint.delete("delete", "/v2/campaigns/:campaign_code", {
      params: campaignCode,
      success: DeleteCampaignResponse,
      error: NotFound
    }).annotate(OpenApi.Summary, "Delete a campaign"),
    HttpApiEndpoint.get("status", "/v2/campaigns/:campaign_code/status", {
      params: campaignCode,
      success: CampaignStatus,
      error: NotFound
    }).annotate(OpenApi.Summary, "Campaign status"),
    HttpApiEndpoint.get("hasCallableContacts", "/v2/campaigns/:campaign_code/has-callable-contacts", {
      params: campaignCode,
      success: HasCallableContacts,
      error: NotFound
    }).annotate(OpenApi.Summary, "Callable contacts"),
    HttpApiEndpoint.get("latency", "/v2/campaigns/:campaign_code/latency", {
      params: campaignCode,
      success: CampaignLatency,
      error: NotFound
    }).annotateMerge(OpenApi.annotations({
      summary: "Campaign turn latency",
      description: "The turn latency of the campaign's calls: over every agent reply to the person in them " +
        "(as `GET /v1/conversations/{call_id}/latency` lists them), the count and the nearest-rank p50 and p90 " +
        "and the maximum of voice_to_voice_ms; `calls` is how many of its calls have at least one reply. With " +
        "no reply, count and calls are 0 and the figures are null."
    }))
  )
  .middleware(OutboundDialing)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Campaigns", description: "Outbound calling campaigns" }))
{}
