/**
 * Storage port for campaigns. Deleted (soft-deleted) campaigns are invisible through it.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { CampaignPatch, CampaignRecord, CampaignStatusCounts, NewCampaign } from "../Campaign.ts"
import type { CampaignNameTaken, CampaignNotFound } from "../Errors.ts"

/**
 * @category services
 */
export class CampaignRepository extends Context.Service<CampaignRepository, {
  /** Stores an enabled campaign with a fresh internal id and `gcmp-` code. */
  readonly create: (
    organizationId: string,
    campaign: NewCampaign
  ) => Effect.Effect<CampaignRecord, CampaignNameTaken>
  /** The organization's campaigns, oldest first. */
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<CampaignRecord>>
  readonly findByCode: (organizationId: string, code: string) => Effect.Effect<Option.Option<CampaignRecord>>
  /** By internal id; an id that is not a well-formed internal id finds nothing. */
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<CampaignRecord>>
  readonly update: (
    organizationId: string,
    id: string,
    patch: CampaignPatch
  ) => Effect.Effect<CampaignRecord, CampaignNotFound | CampaignNameTaken>
  readonly softDelete: (organizationId: string, id: string) => Effect.Effect<void, CampaignNotFound>
  /** Contacts per status, every status present (zero when none). */
  readonly statusCounts: (campaignId: string) => Effect.Effect<CampaignStatusCounts>
}>()("@voice-agent/core/ports/CampaignRepository") {}
