/**
 * Handlers of the admin API (api/AdminApi.ts) and its authorization: each handler is a few
 * lines over the storage ports.
 *
 * The token is compared in constant time (sha256 of both sides, `timingSafeEqual`), so neither
 * its content nor its length leaks through response timing.
 *
 * @since 0.1.0
 */
import { InvalidCursor, NoFieldsToUpdate } from "@voice-agent/core/Errors"
import type { OrganizationNotFound } from "@voice-agent/core/Errors"
import { toInboundMessage } from "@voice-agent/core/Message"
import { toPhoneNumberResource } from "@voice-agent/core/Organization"
import type { Organization, OrganizationSettings } from "@voice-agent/core/Organization"
import { pageInfo } from "@voice-agent/core/Page"
import { E164Pattern } from "@voice-agent/core/PhoneNumber"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { InboundSimulator } from "@voice-agent/core/ports/Carrier"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { nowDate, toIso } from "@voice-agent/core/Time"
import * as Webhook from "@voice-agent/core/Webhook"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { createHash, timingSafeEqual } from "node:crypto"
import { AdminAuthorization, organizationDefaults, toOrganizationResource } from "../api/AdminApi.ts"
import { Api } from "../api/Api.ts"
import { BadRequest, Conflict, NotFound, Unauthorized } from "../api/HttpErrors.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseLimit } from "./QueryParams.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * The admin token; `None` disables the admin API (every route answers 404).
 *
 * @category services
 */
export class AdminToken extends Context.Service<AdminToken, Option.Option<Redacted.Redacted>>()(
  "@voice-agent/http/handlers/Admin/AdminToken"
) {
  /** A fixed token, or `None` to disable the admin API. An empty token counts as none. */
  static readonly layer = (token: Option.Option<Redacted.Redacted>): Layer.Layer<AdminToken> =>
    Layer.succeed(AdminToken, Option.filter(token, (t) => Redacted.value(t) !== ""))

  /** From `VOICE_AGENT_ADMIN_TOKEN` (unset or empty: disabled). */
  static readonly layerConfig: Layer.Layer<AdminToken, Config.ConfigError> = Layer.unwrap(
    Effect.map(Config.option(Config.Redacted("VOICE_AGENT_ADMIN_TOKEN")), AdminToken.layer)
  )
}

const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/**
 * Constant-time equality of two secrets (sha256 first, so lengths need not match).
 *
 * @category guards
 */
export const secretsEqual = (a: string, b: string): boolean => timingSafeEqual(sha256(a), sha256(b))

const adminDisabled = new NotFound({ detail: "Not Found" })
const invalidToken = new Unauthorized({ detail: "Invalid or missing admin token" })

/**
 * @category layers
 */
export const AdminAuthorizationLive = Layer.effect(
  AdminAuthorization,
  Effect.map(AdminToken, (token) =>
    AdminAuthorization.of({
      adminToken: (httpEffect, { credential }) =>
        Option.match(token, {
          onNone: () => Effect.fail(adminDisabled),
          onSome: (expected) =>
            secretsEqual(Redacted.value(credential), Redacted.value(expected))
              ? httpEffect
              : Effect.fail(invalidToken)
        })
    }))
)

interface SettingsFields {
  readonly name?: string | null
  readonly outbound_dialing_enabled?: boolean | null
  readonly sms_registered?: boolean | null
  readonly billing_issue?: boolean | null
  readonly max_concurrency?: number | null
}

/** The supplied (present and not null) fields of a create or update body. */
const toSettings = (body: SettingsFields): Partial<OrganizationSettings> => {
  const settings: { -readonly [K in keyof OrganizationSettings]?: OrganizationSettings[K] } = {}
  if (body.name != null) settings.name = body.name
  if (body.outbound_dialing_enabled != null) settings.outboundDialingEnabled = body.outbound_dialing_enabled
  if (body.sms_registered != null) settings.smsRegistered = body.sms_registered
  if (body.billing_issue != null) settings.billingIssue = body.billing_issue
  if (body.max_concurrency != null) settings.maxConcurrency = body.max_concurrency
  return settings
}

/**
 * @category layers
 */
export const AdminHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "admin",
  Effect.fn(function*(handlers) {
    const organizations = yield* OrganizationRepository
    const keys = yield* ApiKeyRepository
    const numbers = yield* PhoneNumberRepository
    const dnc = yield* DncRepository
    const messages = yield* MessageRepository
    const cursors = yield* CursorCodec
    const existing = (id: string) => organizations.get(id).pipe(mapDomainErrors)
    return handlers.handleAll({
      listOrganizations: () => Effect.map(organizations.list, (list) => list.map(toOrganizationResource)),
      getOrganization: ({ params }) => Effect.map(existing(params.org_id), toOrganizationResource),
      listApiKeys: ({ params }) =>
        existing(params.org_id).pipe(
          Effect.andThen(keys.list(params.org_id)),
          Effect.map((list) =>
            list.map((key) => ({
              id: key.id,
              created_datetime: toIso(key.createdAt),
              revoked_datetime: key.revokedAt === null ? null : toIso(key.revokedAt)
            }))
          )
        ),
      listPhoneNumbers: ({ params }) =>
        existing(params.org_id).pipe(
          Effect.andThen(numbers.list(params.org_id)),
          Effect.map((list) => list.map(toPhoneNumberResource))
        ),
      listDnc: Effect.fn("Admin.listDnc")(function*({ params, query }) {
        yield* existing(params.org_id)
        const limit = yield* parseLimit(query.limit, { min: 1, max: 1000, fallback: 100 }).pipe(mapDomainErrors)
        let after: E164 | undefined
        if (query.after !== undefined) {
          const position = yield* cursors.decode("dnc", params.org_id, query.after).pipe(mapDomainErrors)
          if (typeof position.n !== "string" || !E164Pattern.test(position.n)) {
            return yield* mapDomainErrors(Effect.fail(new InvalidCursor()))
          }
          after = position.n as E164
        }
        const page = yield* dnc.list({ organizationId: params.org_id, after, limit })
        return {
          phone_numbers: page.entries.map((entry) => ({
            phone_number: entry.phoneNumber,
            created_datetime: toIso(entry.createdAt)
          })),
          ...pageInfo(
            page.entries,
            page.hasMore,
            (last) => cursors.encode("dnc", params.org_id, { n: last.phoneNumber })
          )
        }
      }),
      createOrganization: ({ payload }) =>
        organizations.create({ ...organizationDefaults, ...toSettings(payload), name: payload.name }).pipe(
          Effect.map(toOrganizationResource)
        ),
      updateOrganization: ({ params, payload }) => {
        const patch = toSettings(payload)
        const updated: Effect.Effect<Organization, NoFieldsToUpdate | OrganizationNotFound> =
          Object.keys(patch).length === 0
            ? Effect.fail(new NoFieldsToUpdate())
            : organizations.update(params.org_id, patch)
        return updated.pipe(Effect.map(toOrganizationResource), mapDomainErrors)
      },
      createApiKey: ({ params }) =>
        keys.issue(params.org_id).pipe(
          Effect.map((issued) => ({ id: issued.id, api_key: issued.apiKey })),
          mapDomainErrors
        ),
      revokeApiKey: ({ params }) =>
        existing(params.org_id).pipe(
          Effect.andThen(keys.revoke(params.org_id, params.key_id).pipe(mapDomainErrors)),
          Effect.as({ ok: true as const })
        ),
      addPhoneNumber: ({ params, payload }) =>
        numbers.add(params.org_id, {
          phoneNumber: payload.phone_number,
          smsEnabled: payload.sms_enabled ?? true
        }).pipe(Effect.map(toPhoneNumberResource), mapDomainErrors),
      addDnc: ({ params, payload }) =>
        existing(params.org_id).pipe(
          Effect.andThen(dnc.add(params.org_id, payload.phone_numbers)),
          Effect.map(({ added }) => ({ added }))
        ),
      removeDnc: ({ params, query }) =>
        existing(params.org_id).pipe(
          Effect.andThen(dnc.remove(params.org_id, query.phone_number)),
          Effect.map((deleted) => ({ deleted }))
        ),
      createInboundMessage: Effect.fn("Admin.createInboundMessage")(function*({ params, payload }) {
        yield* existing(params.org_id)
        const owned = yield* numbers.findOwned(params.org_id, [payload.to_number])
        if (owned.length === 0) {
          return yield* new BadRequest({
            detail: `Phone number ${payload.to_number} is not one of this organization's numbers`
          })
        }
        const record = yield* messages.insert({
          organizationId: params.org_id,
          direction: "inbound",
          modality: "sms",
          fromNumber: payload.from_number,
          toNumber: payload.to_number,
          content: payload.content,
          receivedAt: payload.received_at ?? (yield* nowDate),
          status: "received"
        })
        yield* Webhook.emitMessageReceived(record)
        return toInboundMessage(record)
      }),
      createInboundCall: Effect.fn("Admin.createInboundCall")(function*({ params, payload }) {
        yield* existing(params.org_id)
        const owned = yield* numbers.findOwned(params.org_id, [payload.to_number])
        if (owned.length === 0) {
          return yield* new BadRequest({
            detail: `Phone number ${payload.to_number} is not one of this organization's numbers`
          })
        }
        const simulator = yield* Effect.serviceOption(InboundSimulator)
        const inbound = yield* Effect.serviceOption(InboundCalls)
        if (Option.isNone(simulator) || Option.isNone(inbound)) {
          return yield* new Conflict({
            detail: "Simulated inbound calls need the simulated carrier (VOICE_AGENT_CARRIER=sim)"
          })
        }
        const answer = yield* inbound.value.accept({ from: payload.from_number, to: payload.to_number })
        // The call reached the number whatever the agents decide: a declined one is recorded
        // (never answered), and the simulated caller hears it rejected.
        if (answer._tag === "Declined") return { call_id: answer.callId }
        if (answer._tag === "NotOurs") {
          return yield* new BadRequest({ detail: `Phone number ${payload.to_number} cannot take calls` })
        }
        const { callId, mediaToken, mediaUrl } = answer.call
        yield* simulator.value.callIn({
          from: payload.from_number,
          to: payload.to_number,
          callId,
          mediaUrl,
          mediaToken
        })
          .pipe(Effect.orDie)
        return { call_id: callId }
      })
    })
  })
)

/**
 * The admin handlers with their middleware; needs the storage ports and {@link AdminToken}.
 *
 * @category layers
 */
export const AdminHandlers = AdminHandlersNoDeps.pipe(
  Layer.provide([AdminAuthorizationLive, FastApiValidationLive])
)
