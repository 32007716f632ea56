/**
 * Handlers of send-sms, the inbound message list and the organization's numbers.
 *
 * @since 0.1.0
 */
import { toInboundMessage } from "@voice-agent/core/Message"
import { MessageService } from "@voice-agent/core/MessageService"
import { toPhoneNumberResource } from "@voice-agent/core/Organization"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { BadRequest, InternalServerError, NotFound } from "../api/HttpErrors.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseInstant, parseLimit } from "./QueryParams.ts"
import { AuthorizationLive, SmsSendingLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * @category layers
 */
export const SendSmsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "sms",
  Effect.fnUntraced(function*(handlers) {
    const service = yield* MessageService
    return handlers.handle(
      "send",
      ({ payload }) =>
        Effect.flatMap(CurrentOrganization, (organization) => service.send(organization, payload)).pipe(
          Effect.catchTags({
            // docs/DECISIONS.md ("SMS"): an unowned sender is 400 on this endpoint.
            PhoneNumberNotOwned: (e) =>
              Effect.fail(
                new BadRequest({
                  detail: `Sender number ${e.phoneNumbers.join(", ")} is not owned by this organization`
                })
              ),
            CarrierError: (e) =>
              Effect.fail(new InternalServerError({ detail: `The carrier did not accept the message: ${e.message}` }))
          }),
          mapDomainErrors
        )
    )
  })
)

/**
 * @category layers
 */
export const MessagesHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "messages",
  Effect.fnUntraced(function*(handlers) {
    const service = yield* MessageService
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const start = yield* parseInstant(query.start, "start")
          const limit = yield* parseLimit(query.limit, { min: 1, max: 100, fallback: 50 })
          yield* service.ownedNumber(organization, query.to_number)
          const page = yield* service.listInbound({
            organizationId: organization.id,
            toNumber: query.to_number,
            start,
            fromNumber: query.from_number,
            modality: query.modality,
            limit
          })
          return { messages: page.messages.map(toInboundMessage), has_more: page.hasMore }
        }).pipe(
          Effect.catchTag("PhoneNumberNotOwned", (e) =>
            // docs/DECISIONS.md ("SMS"): a `to_number` the organization does not own is 404 here.
            Effect.fail(
              new NotFound({ detail: `Phone number ${e.phoneNumbers.join(", ")} not found for this organization` })
            )),
          mapDomainErrors
        ),
      phoneNumbers: () =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          return (yield* service.phoneNumbers(organization)).map(toPhoneNumberResource)
        })
    })
  })
)

/**
 * @category layers
 */
export const MessagesHandlers = Layer.mergeAll(SendSmsHandlersNoDeps, MessagesHandlersNoDeps).pipe(
  Layer.provide([AuthorizationLive, SmsSendingLive, FastApiValidationLive])
)
