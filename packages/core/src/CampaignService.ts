/**
 * Campaign use cases, written against the storage ports: the rules of the documented API and
 * docs/DECISIONS.md that need the organization's data (origin numbers owned, concurrency under the
 * organization's cap, the callable-contact predicate).
 *
 * Check order within a request (docs/DECISIONS.md, "Requests and errors"): 400s (no fields,
 * unparsable origin number, concurrency over the cap), then 404 (no such campaign), then 403 (an
 * origin number the organization does not own), then 409 (name taken).
 *
 * Creating or changing a campaign (any PATCH, a resume included) wakes the dial loops
 * (DialerWakeup) once the change is stored, so new windows, dates or limits apply at once.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Result } from "effect"
import { isOpenAt } from "./CallingSchedule.ts"
import type {
  CampaignPatch,
  CampaignRecord,
  CampaignStatusCounts,
  CreateCampaignRequest,
  UpdateCampaignRequest
} from "./Campaign.ts"
import { callingSchedule, CampaignDefaults } from "./Campaign.ts"
import type { CampaignNameTaken } from "./Errors.ts"
import {
  CampaignNotFound,
  ConcurrencyLimitExceeded,
  InvalidParameter,
  InvalidPhoneNumber,
  NoFieldsToUpdate,
  PhoneNumberNotOwned
} from "./Errors.ts"
import type { Organization } from "./Organization.ts"
import * as PhoneNumber from "./PhoneNumber.ts"
import { CampaignRepository } from "./ports/CampaignRepository.ts"
import { ContactRepository } from "./ports/ContactRepository.ts"
import { ConversationRepository } from "./ports/ConversationRepository.ts"
import { DialerWakeup } from "./ports/DialerWakeup.ts"
import { PhoneNumberRepository } from "./ports/PhoneNumberRepository.ts"
import { fromMillis, nowMillis } from "./Time.ts"
import type { CampaignLatencyRecord } from "./TurnLatency.ts"

/**
 * @category services
 */
export class CampaignService extends Context.Service<CampaignService, {
  readonly create: (
    organization: Organization,
    request: CreateCampaignRequest
  ) => Effect.Effect<
    CampaignRecord,
    InvalidPhoneNumber | ConcurrencyLimitExceeded | PhoneNumberNotOwned | CampaignNameTaken
  >
  readonly list: (organization: Organization) => Effect.Effect<ReadonlyArray<CampaignRecord>>
  /** By `gcmp-` code; with `byInternalId` the deprecated v1 paths' internal id is accepted too. */
  readonly get: (
    organization: Organization,
    ref: string,
    options?: { readonly byInternalId?: boolean }
  ) => Effect.Effect<CampaignRecord, CampaignNotFound>
  /**
   * The campaign named by `ref` (as for `get`), changed by the supplied fields. The request's
   * own 400s (no fields, unparsable origin, concurrency over the cap) come before the lookup.
   */
  readonly update: (
    organization: Organization,
    ref: string,
    request: UpdateCampaignRequest,
    options?: { readonly byInternalId?: boolean }
  ) => Effect.Effect<
    CampaignRecord,
    | NoFieldsToUpdate
    | InvalidPhoneNumber
    | ConcurrencyLimitExceeded
    | InvalidParameter
    | PhoneNumberNotOwned
    | CampaignNotFound
    | CampaignNameTaken
  >
  readonly remove: (organization: Organization, campaign: CampaignRecord) => Effect.Effect<void, CampaignNotFound>
  readonly statusCounts: (campaign: CampaignRecord) => Effect.Effect<CampaignStatusCounts>
  /** The callable predicate (docs/DECISIONS.md, "Dialing") at the `Clock`'s instant. */
  readonly hasCallableContacts: (campaign: CampaignRecord) => Effect.Effect<boolean>
  /** The turn latency of the campaign's calls: every agent reply's, summarized (TurnLatency). */
  readonly turnLatency: (campaign: CampaignRecord) => Effect.Effect<CampaignLatencyRecord>
}>()("@voice-agent/core/CampaignService") {
  static readonly layer = Layer.effect(
    CampaignService,
    Effect.gen(function*() {
      const campaigns = yield* CampaignRepository
      const contacts = yield* ContactRepository
      const conversations = yield* ConversationRepository
      const numbers = yield* PhoneNumberRepository
      const wakeup = yield* DialerWakeup

      const normalizeOrigins = Effect.fnUntraced(function*(raw: ReadonlyArray<string>) {
        const normalized: Array<PhoneNumber.E164> = []
        for (const input of raw) {
          const result = PhoneNumber.normalize(input)
          if (Result.isFailure(result)) {
            return yield* new InvalidPhoneNumber({ phoneNumber: input, message: result.failure })
          }
          if (!normalized.includes(result.success)) normalized.push(result.success)
        }
        return normalized
      })

      const checkConcurrency = (organization: Organization, requested: number | undefined) =>
        requested !== undefined && requested > organization.maxConcurrency
          ? Effect.fail(new ConcurrencyLimitExceeded({ requested, limit: organization.maxConcurrency }))
          : Effect.void

      const checkOwned = Effect.fnUntraced(function*(
        organization: Organization,
        origins: ReadonlyArray<PhoneNumber.E164>
      ) {
        const owned = yield* numbers.findOwned(organization.id, origins)
        const ownedSet = new Set<string>(owned.map((n) => n.phoneNumber))
        const missing = origins.filter((n) => !ownedSet.has(n))
        if (missing.length > 0) return yield* new PhoneNumberNotOwned({ phoneNumbers: missing })
      })

      const get = Effect.fn("CampaignService.get")(function*(
        organization: Organization,
        ref: string,
        options?: { readonly byInternalId?: boolean }
      ) {
        const byCode = yield* campaigns.findByCode(organization.id, ref)
        if (Option.isSome(byCode)) return byCode.value
        if (options?.byInternalId === true) {
          const byId = yield* campaigns.findById(organization.id, ref)
          if (Option.isSome(byId)) return byId.value
        }
        return yield* new CampaignNotFound({ campaignRef: ref })
      })

      return CampaignService.of({
        create: Effect.fn("CampaignService.create")(function*(organization, request) {
          const origins = yield* normalizeOrigins(request.origin_phone_numbers)
          yield* checkConcurrency(organization, request.max_concurrency ?? undefined)
          yield* checkOwned(organization, origins)
          const created = yield* campaigns.create(organization.id, {
            name: request.name,
            originPhoneNumbers: origins,
            startDate: request.start_date,
            endDate: request.end_date ?? null,
            callingWindows: request.calling_windows,
            maxAttempts: request.max_attempts ?? CampaignDefaults.maxAttempts,
            retryDelayS: request.retry_delay_s ?? CampaignDefaults.retryDelayS,
            maxConcurrency: request.max_concurrency ?? CampaignDefaults.maxConcurrency,
            timeZone: request.timezone ?? CampaignDefaults.timeZone,
            description: request.description ?? null
          })
          yield* wakeup.notify
          return created
        }),
        list: Effect.fn("CampaignService.list")((organization) => campaigns.list(organization.id)),
        get,
        update: Effect.fn("CampaignService.update")(function*(organization, ref, request, options) {
          if (Object.keys(request).length === 0) return yield* new NoFieldsToUpdate()
          const origins = request.origin_phone_numbers === undefined
            ? undefined
            : yield* normalizeOrigins(request.origin_phone_numbers)
          yield* checkConcurrency(organization, request.max_concurrency)
          const campaign = yield* get(organization, ref, options)
          const startDate = request.start_date ?? campaign.startDate
          const endDate = request.end_date === undefined ? campaign.endDate : request.end_date
          if (endDate !== null && endDate < startDate) {
            return yield* new InvalidParameter({
              parameter: "end_date",
              message: `end_date ${endDate} is before start_date ${startDate}`
            })
          }
          if (origins !== undefined) yield* checkOwned(organization, origins)
          const patch: { -readonly [K in keyof CampaignPatch]: CampaignPatch[K] } = {}
          if (request.enabled !== undefined) patch.enabled = request.enabled
          if (request.name !== undefined) patch.name = request.name
          if (origins !== undefined) patch.originPhoneNumbers = origins
          if (request.start_date !== undefined) patch.startDate = request.start_date
          if (request.end_date !== undefined) patch.endDate = request.end_date
          if (request.calling_windows !== undefined) patch.callingWindows = request.calling_windows
          if (request.max_attempts !== undefined) patch.maxAttempts = request.max_attempts
          if (request.retry_delay_s !== undefined) patch.retryDelayS = request.retry_delay_s
          if (request.max_concurrency !== undefined) patch.maxConcurrency = request.max_concurrency
          if (request.timezone !== undefined) patch.timeZone = request.timezone
          if (request.description !== undefined) patch.description = request.description
          const updated = yield* campaigns.update(organization.id, campaign.id, patch)
          // Resumed, or windows, dates or limits changed: contacts may be callable now.
          yield* wakeup.notify
          return updated
        }),
        remove: Effect.fn("CampaignService.remove")((organization, campaign) =>
          campaigns.softDelete(organization.id, campaign.id)
        ),
        statusCounts: Effect.fn("CampaignService.statusCounts")((campaign) => campaigns.statusCounts(campaign.id)),
        hasCallableContacts: Effect.fn("CampaignService.hasCallableContacts")(function*(campaign) {
          if (!campaign.enabled) return false
          const now = yield* nowMillis
          if (!isOpenAt(callingSchedule(campaign), now)) return false
          return yield* contacts.hasCallable(campaign.id, { maxAttempts: campaign.maxAttempts, now: fromMillis(now) })
        }),
        turnLatency: Effect.fn("CampaignService.turnLatency")((campaign) =>
          conversations.campaignLatency(campaign.organizationId, campaign.id)
        )
      })
    })
  )
}
