/**
 * Handlers of the v2 campaign endpoints.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { toCampaign } from "@voice-agent/core/Campaign"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { Api } from "../api/Api.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { FastApiValidationLive } from "../api/Validation.ts"
import {
  campaignStatus,
  deleteCampaign,
  getCampaign,
  hasCallableContacts,
  listCampaigns,
  updateCampaign
} from "./CampaignEndpoints.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"

/**
 * @category layers
 */
export const CampaignsHandlersNoDeps = HttpApiBuilder.group(Api, "campaigns", (handlers) =>
  handlers.handleAll({
    create: ({ payload }) =>
      Effect.gen(function*() {
        const organization = yield* CurrentOrganization
        const service = yield* CampaignService
        return toCampaign(yield* service.create(organization, payload), { withWarning: true })
      }).pipe(mapDomainErrors),
    list: () => listCampaigns,
    get: ({ params }) => getCampaign(params.campaign_code, "code"),
    update: ({ params, payload }) => updateCampaign(params.campaign_code, "code", payload),
    delete: ({ params }) => deleteCampaign(params.campaign_code, "code"),
    status: ({ params }) => campaignStatus(params.campaign_code, "code"),
    hasCallableContacts: ({ params }) => hasCallableContacts(params.campaign_code, "code")
  }))

/**
 * @category layers
 */
export const CampaignsHandlers = CampaignsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive, CampaignService.layer])
)
