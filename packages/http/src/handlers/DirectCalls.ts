/**
 * Handler of `POST /v2/create-outbound` and its 403 middleware: the call goes to the
 * `DirectCalls` service (the engine's, provided by the daemon); a server without it answers 501.
 *
 * @since 0.1.0
 */
import { DirectCalls } from "@voice-agent/core/ports/DirectCalls"
import { Effect, Layer, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { OutboundCalling } from "../api/DirectCallsApi.ts"
import { BadRequest, Forbidden } from "../api/HttpErrors.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { NotImplemented } from "../api/ServerErrors.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { AuthorizationLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * @category layers
 */
export const OutboundCallingLive = Layer.succeed(
  OutboundCalling,
  OutboundCalling.of(Effect.fnUntraced(function*(httpEffect) {
    const organization = yield* CurrentOrganization
    if (!organization.outboundDialingEnabled) {
      return yield* new Forbidden({ detail: "Outbound dialing is not enabled for this organization" })
    }
    if (organization.billingIssue) {
      return yield* new Forbidden({ detail: "The account has an unresolved billing issue" })
    }
    return yield* httpEffect
  }))
)

/**
 * @category layers
 */
export const DirectCallsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "outboundCalls",
  (handlers) =>
    handlers.handle("createOutbound", ({ query }) =>
      Effect.gen(function*() {
        const organization = yield* CurrentOrganization
        const calls = yield* Effect.serviceOption(DirectCalls)
        if (Option.isNone(calls)) {
          return yield* new NotImplemented({ detail: "This server does not place outbound calls" })
        }
        const placed = yield* calls.value.place({
          organizationId: organization.id,
          from: query.from_number,
          to: query.to_number
        })
        return { call_id: placed.callId }
      }).pipe(
        Effect.catchTags({
          // As send-sms: a number the request names as the organization's own and is not is 400.
          PhoneNumberNotOwned: (e) =>
            Effect.fail(
              new BadRequest({ detail: `Phone number ${e.phoneNumbers.join(", ")} is not owned by this organization` })
            ),
          // The key's organization exists (organizations are never deleted): a defect, not a 404.
          OrganizationNotFound: (e) => Effect.die(e)
        }),
        mapDomainErrors
      ))
)

/**
 * @category layers
 */
export const DirectCallsHandlers = DirectCallsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundCallingLive, FastApiValidationLive])
)
