/**
 * The campaign endpoints' work, shared by the v2 paths (by `gcmp-` code) and their
 * deprecated v1 twins (by internal id): each is a few lines around CampaignService.
 *
 * @since 0.1.0
 */
import type { UpdateCampaignRequest } from "@voice-agent/core/Campaign"
import { toCampaign } from "@voice-agent/core/Campaign"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { toCampaignLatency } from "@voice-agent/core/TurnLatency"
import { Effect } from "effect"
import { CurrentOrganization } from "../api/Security.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"

/**
 * How a path or query names a campaign: by `gcmp-` code (v2) or internal id (deprecated v1).
 *
 * @category models
 */
export type CampaignRefKind = "code" | "id"

/**
 * Built once per group; every method runs in a request (it reads CurrentOrganization).
 *
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const service = yield* CampaignService

  /** The organization's campaign named by `ref` (404 when there is none). */
  const find = (ref: string, kind: CampaignRefKind) =>
    Effect.flatMap(
      CurrentOrganization,
      (organization) => service.get(organization, ref, { byInternalId: kind === "id" })
    )

  return {
    find,
    create: (payload: Parameters<typeof service.create>[1]) =>
      Effect.flatMap(CurrentOrganization, (organization) => service.create(organization, payload)).pipe(
        Effect.map((record) => toCampaign(record, { withWarning: true })),
        mapDomainErrors
      ),
    list: Effect.flatMap(CurrentOrganization, service.list).pipe(
      Effect.map((records) => records.map((record) => toCampaign(record)))
    ),
    get: (ref: string, kind: CampaignRefKind) =>
      find(ref, kind).pipe(Effect.map((record) => toCampaign(record)), mapDomainErrors),
    update: (ref: string, kind: CampaignRefKind, payload: UpdateCampaignRequest) =>
      Effect.gen(function*() {
        const organization = yield* CurrentOrganization
        // The service checks the request (400) before it looks the campaign up (404).
        const updated = yield* service.update(organization, ref, payload, { byInternalId: kind === "id" })
        return toCampaign(updated, { withWarning: payload.calling_windows !== undefined })
      }).pipe(mapDomainErrors),
    remove: (ref: string, kind: CampaignRefKind) =>
      Effect.gen(function*() {
        const organization = yield* CurrentOrganization
        yield* service.remove(organization, yield* find(ref, kind))
        return { ok: true }
      }).pipe(mapDomainErrors),
    status: (ref: string, kind: CampaignRefKind) =>
      Effect.gen(function*() {
        const campaign = yield* find(ref, kind)
        return { campaign: campaign.name, status_counts: yield* service.statusCounts(campaign) }
      }).pipe(mapDomainErrors),
    hasCallableContacts: (ref: string, kind: CampaignRefKind) =>
      Effect.gen(function*() {
        const campaign = yield* find(ref, kind)
        return { has_callable_contacts: yield* service.hasCallableContacts(campaign) }
      }).pipe(mapDomainErrors),
    latency: (ref: string, kind: CampaignRefKind) =>
      Effect.gen(function*() {
        const campaign = yield* find(ref, kind)
        return toCampaignLatency(yield* service.turnLatency(campaign))
      }).pipe(mapDomainErrors)
  }
})
