/**
 * Handlers of the deprecated v1 campaign and contact paths: the v2 work, addressed by id.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import * as CampaignEndpoints from "./CampaignEndpoints.ts"
import * as ContactEndpoints from "./ContactEndpoints.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * @category layers
 */
export const LegacyHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "legacy",
  Effect.fnUntraced(function*(handlers) {
    const campaigns = yield* CampaignEndpoints.make
    const contacts = yield* ContactEndpoints.make
    return handlers.handleAll({
      list: () => campaigns.list,
      get: ({ params }) => campaigns.get(params.campaign_id, "id"),
      update: ({ params, payload }) => campaigns.update(params.campaign_id, "id", payload),
      delete: ({ params }) => campaigns.remove(params.campaign_id, "id"),
      status: ({ params }) => campaigns.status(params.campaign_id, "id"),
      hasCallableContacts: ({ params }) => campaigns.hasCallableContacts(params.campaign_id, "id"),
      upload: ({ params, query, payload }) => contacts.upload(params.campaign_id, "id", query, payload),
      listContacts: ({ query }) => contacts.list({ ...query, campaignRef: query.campaign_id }, "id")
    })
  })
)

/**
 * @category layers
 */
export const LegacyHandlers = LegacyHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive])
)
