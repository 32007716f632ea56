/**
 * Handlers of the v2 contact endpoints.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import * as ContactEndpoints from "./ContactEndpoints.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * @category layers
 */
export const ContactsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "contacts",
  Effect.fnUntraced(function*(handlers) {
    const contacts = yield* ContactEndpoints.make
    return handlers.handleAll({
      upload: ({ params, query, payload }) => contacts.upload(params.campaign_code, "code", query, payload),
      list: ({ query }) => contacts.list({ ...query, campaignRef: query.campaign_code }, "code"),
      deleteByPhoneNumber: ({ params, query }) =>
        contacts.deleteByPhoneNumber(params.campaign_code, query.phone_number),
      deleteById: ({ params }) => contacts.deleteById(params.campaign_code, params.contact_id),
      eligibility: ({ params }) => contacts.eligibility(params.campaign_code, params.contact_id)
    })
  })
)

/**
 * @category layers
 */
export const ContactsHandlers = ContactsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive])
)
