/**
 * Handlers of the deprecated v1 campaign and contact paths: the v2 work, addressed by id.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { ContactService } from "@voice-agent/core/ContactService"
import { Api } from "../api/Api.ts"
import { FastApiValidationLive } from "../api/Validation.ts"
import {
  campaignStatus,
  deleteCampaign,
  getCampaign,
  hasCallableContacts,
  listCampaigns,
  updateCampaign
} from "./CampaignEndpoints.ts"
import { listContacts, uploadContacts } from "./ContactEndpoints.ts"
import { CursorCodec } from "./Cursor.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"

/**
 * @category layers
 */
export const LegacyHandlersNoDeps = HttpApiBuilder.group(Api, "legacy", (handlers) =>
  handlers.handleAll({
    list: () => listCampaigns,
    get: ({ params }) => getCampaign(params.campaign_id, "id"),
    update: ({ params, payload }) => updateCampaign(params.campaign_id, "id", payload),
    delete: ({ params }) => deleteCampaign(params.campaign_id, "id"),
    status: ({ params }) => campaignStatus(params.campaign_id, "id"),
    hasCallableContacts: ({ params }) => hasCallableContacts(params.campaign_id, "id"),
    upload: ({ params, query, payload }) => uploadContacts(params.campaign_id, "id", query, payload),
    listContacts: ({ query }) => listContacts({ ...query, campaignRef: query.campaign_id }, "id")
  }))

/**
 * @category layers
 */
export const LegacyHandlers = LegacyHandlersNoDeps.pipe(
  Layer.provide([
    AuthorizationLive,
    OutboundDialingLive,
    FastApiValidationLive,
    CampaignService.layer,
    ContactService.layer,
    CursorCodec.layer
  ])
)
