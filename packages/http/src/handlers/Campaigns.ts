/**
 * Handlers of the v2 campaign endpoints.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import * as CampaignEndpoints from "./CampaignEndpoints.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * @category layers
 */
export const CampaignsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "campaigns",
  Effect.fnUntraced(function*(handlers) {
    const campaigns = yield* CampaignEndpoints.make
    return handlers.handleAll({
      create: ({ payload }) => campaigns.create(payload),
      list: () => campaigns.list,
      get: ({ params }) => campaigns.get(params.campaign_code, "code"),
      update: ({ params, payload }) => campaigns.update(params.campaign_code, "code", payload),
      delete: ({ params }) => campaigns.remove(params.campaign_code, "code"),
      status: ({ params }) => campaigns.status(params.campaign_code, "code"),
      hasCallableContacts: ({ params }) => campaigns.hasCallableContacts(params.campaign_code, "code"),
      latency: ({ params }) => campaigns.latency(params.campaign_code, "code")
    })
  })
)

/**
 * @category layers
 */
export const CampaignsHandlers = CampaignsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive])
)
