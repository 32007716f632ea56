/**
 * Handlers of the v2 contact endpoints.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { ContactService } from "@voice-agent/core/ContactService"
import { Api } from "../api/Api.ts"
import { FastApiValidationLive } from "../api/Validation.ts"
import { listContacts, uploadContacts, withCampaign } from "./ContactEndpoints.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"

/**
 * @category layers
 */
export const ContactsHandlersNoDeps = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  handlers.handleAll({
    upload: ({ params, query, payload }) => uploadContacts(params.campaign_code, "code", query, payload),
    list: ({ query }) => listContacts({ ...query, campaignRef: query.campaign_code }, "code"),
    deleteByPhoneNumber: ({ params, query }) =>
      Effect.gen(function*() {
        const service = yield* ContactService
        // The number is checked before the campaign is looked up (400 before 404).
        yield* service.checkDialableUs(query.phone_number)
        const deleted = yield* withCampaign(
          params.campaign_code,
          "code",
          (campaign) => service.deleteByPhoneNumber(campaign, query.phone_number)
        )
        return { deleted }
      }).pipe(mapDomainErrors),
    deleteById: ({ params }) =>
      Effect.flatMap(ContactService, (service) =>
        withCampaign(params.campaign_code, "code", (campaign) => service.deleteById(campaign, params.contact_id))).pipe(
          Effect.as({ deleted: 1 }),
          mapDomainErrors
        )
  }))

/**
 * @category layers
 */
export const ContactsHandlers = ContactsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive, CampaignService.layer, ContactService.layer, CursorCodec.layer])
)
