/**
 * Implementations of the API's middleware (definitions in api/Security.ts).
 *
 * @since 0.1.0
 */
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { Effect, Layer, Option, Redacted } from "effect"
import { Forbidden, Unauthorized } from "../api/HttpErrors.ts"
import { Authorization, CurrentOrganization, OutboundDialing, SmsSending } from "../api/Security.ts"

const invalidCredentials = new Unauthorized({ detail: "Invalid or missing API key" })

/**
 * Looks the bearer key up by its hash; a missing, unknown or revoked key is 401.
 *
 * @category layers
 */
export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const keys = yield* ApiKeyRepository
    return Authorization.of({
      bearer: Effect.fn("Authorization.bearer")(function*(httpEffect, { credential }) {
        const key = Redacted.value(credential)
        if (key.length === 0) return yield* invalidCredentials
        const organization = yield* keys.authenticate(key)
        if (Option.isNone(organization)) return yield* invalidCredentials
        return yield* Effect.provideService(httpEffect, CurrentOrganization, organization.value)
      })
    })
  })
)

/**
 * @category layers
 */
export const OutboundDialingLive = Layer.succeed(
  OutboundDialing,
  OutboundDialing.of(Effect.fnUntraced(function*(httpEffect) {
    const organization = yield* CurrentOrganization
    if (!organization.outboundDialingEnabled) {
      return yield* new Forbidden({ detail: "Outbound dialing is not enabled for this organization" })
    }
    return yield* httpEffect
  }))
)

/**
 * @category layers
 */
export const SmsSendingLive = Layer.succeed(
  SmsSending,
  SmsSending.of(Effect.fnUntraced(function*(httpEffect) {
    const organization = yield* CurrentOrganization
    if (!organization.smsRegistered) {
      return yield* new Forbidden({
        detail: "SMS brand and campaign registration is not complete for this organization"
      })
    }
    if (organization.billingIssue) {
      return yield* new Forbidden({ detail: "The account has an unresolved billing issue" })
    }
    return yield* httpEffect
  }))
)
