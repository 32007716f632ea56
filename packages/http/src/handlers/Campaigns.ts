/**
 * Handlers of the v2 campaign endpoints: each delegates to CampaignService.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { toCampaign } from "@voice-agent/core/Campaign"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { Api } from "../api/Api.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"
import { FastApiValidationLive } from "../api/Validation.ts"

/**
 * @category layers
 */
export const CampaignsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "campaigns",
  Effect.fn(function*(handlers) {
    const service = yield* CampaignService
    const lookup = (code: string) =>
      Effect.flatMap(CurrentOrganization, (organization) => service.get(organization, code))
    return handlers.handleAll({
      create: ({ payload }) =>
        CurrentOrganization.pipe(
          Effect.flatMap((organization) => service.create(organization, payload)),
          Effect.map((record) => toCampaign(record, { withWarning: true })),
          mapDomainErrors
        ),
      list: () =>
        CurrentOrganization.pipe(
          Effect.flatMap(service.list),
          Effect.map((records) => records.map((record) => toCampaign(record)))
        ),
      get: ({ params }) => lookup(params.campaign_code).pipe(Effect.map((r) => toCampaign(r)), mapDomainErrors),
      update: ({ params, payload }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const campaign = yield* service.get(organization, params.campaign_code)
          const updated = yield* service.update(organization, campaign, payload)
          return toCampaign(updated, { withWarning: payload.calling_windows !== undefined })
        }).pipe(mapDomainErrors),
      delete: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const campaign = yield* service.get(organization, params.campaign_code)
          yield* service.remove(organization, campaign)
          return { ok: true }
        }).pipe(mapDomainErrors),
      status: ({ params }) =>
        lookup(params.campaign_code).pipe(
          Effect.flatMap((campaign) =>
            Effect.map(service.statusCounts(campaign), (counts) => ({ campaign: campaign.name, status_counts: counts }))
          ),
          mapDomainErrors
        ),
      hasCallableContacts: ({ params }) =>
        lookup(params.campaign_code).pipe(
          Effect.flatMap(service.hasCallableContacts),
          Effect.map((has) => ({ has_callable_contacts: has })),
          mapDomainErrors
        )
    })
  })
)

/**
 * @category layers
 */
export const CampaignsHandlers = CampaignsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive, CampaignService.layer])
)
