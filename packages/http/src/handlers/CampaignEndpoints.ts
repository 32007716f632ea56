/**
 * The campaign endpoints' work, shared by the v2 paths (by `gcmp-` code) and their
 * deprecated v1 twins (by internal id): each is a few lines around CampaignService.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { UpdateCampaignRequest } from "@voice-agent/core/Campaign"
import { toCampaign } from "@voice-agent/core/Campaign"
import { CampaignService } from "@voice-agent/core/CampaignService"
import { CurrentOrganization } from "../api/Security.ts"
import type { CampaignRefKind } from "./ContactEndpoints.ts"
import { findCampaign } from "./ContactEndpoints.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"

const withCampaignService = Effect.all([CurrentOrganization, CampaignService])

/**
 * @category constructors
 */
export const listCampaigns = withCampaignService.pipe(
  Effect.flatMap(([organization, service]) => service.list(organization)),
  Effect.map((records) => records.map((record) => toCampaign(record)))
)

/**
 * @category constructors
 */
export const getCampaign = (ref: string, kind: CampaignRefKind) =>
  Effect.flatMap(CurrentOrganization, (organization) => findCampaign(organization, ref, kind)).pipe(
    Effect.map((record) => toCampaign(record)),
    mapDomainErrors
  )

/**
 * @category constructors
 */
export const updateCampaign = (ref: string, kind: CampaignRefKind, payload: UpdateCampaignRequest) =>
  Effect.gen(function*() {
    const [organization, service] = yield* withCampaignService
    const campaign = yield* findCampaign(organization, ref, kind)
    const updated = yield* service.update(organization, campaign, payload)
    return toCampaign(updated, { withWarning: payload.calling_windows !== undefined })
  }).pipe(mapDomainErrors)

/**
 * @category constructors
 */
export const deleteCampaign = (ref: string, kind: CampaignRefKind) =>
  Effect.gen(function*() {
    const [organization, service] = yield* withCampaignService
    const campaign = yield* findCampaign(organization, ref, kind)
    yield* service.remove(organization, campaign)
    return { ok: true }
  }).pipe(mapDomainErrors)

/**
 * @category constructors
 */
export const campaignStatus = (ref: string, kind: CampaignRefKind) =>
  Effect.gen(function*() {
    const [organization, service] = yield* withCampaignService
    const campaign = yield* findCampaign(organization, ref, kind)
    const counts = yield* service.statusCounts(campaign)
    return { campaign: campaign.name, status_counts: counts }
  }).pipe(mapDomainErrors)

/**
 * @category constructors
 */
export const hasCallableContacts = (ref: string, kind: CampaignRefKind) =>
  Effect.gen(function*() {
    const [organization, service] = yield* withCampaignService
    const campaign = yield* findCampaign(organization, ref, kind)
    return { has_callable_contacts: yield* service.hasCallableContacts(campaign) }
  }).pipe(mapDomainErrors)
