/**
 * Why a contact is or is not callable now, and when it will be (docs/DECISIONS.md, "Extensions"):
 * the explainer behind `GET /v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility`.
 *
 * Owns: the reasons, their order, and `next_eligible_at`. It is defined on the same predicate
 * as the dialer's claim ({@link ContactState.isCallable}) plus the two concurrency caps, and is
 * tested against it: `callable` is true exactly when the claim would take the contact now.
 *
 * Decisions:
 * - `callable` includes the caps (the claim would take the contact now); `has-callable-contacts`
 *   (docs/DECISIONS.md, "Dialing") does not, since a full campaign still has contacts to call.
 * - `next_eligible_at` is the earliest instant the contact would be callable if nothing
 *   changes: `now` when callable; the later of now and the next attempt time, moved to the next
 *   window opening; `null` when that never comes (paused, final status, attempts exhausted,
 *   DNC, past `end_date`) and while a call is in progress (how it ends decides). Full caps do
 *   not move it: a slot frees when a call ends, which nothing here can know.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { CallingSchedule } from "./CallingSchedule.ts"
import { isOpenAt, localDate, nextOpenAt } from "./CallingSchedule.ts"
import type { CampaignDialing, ContactDialState } from "./ContactState.ts"
import { isCallable } from "./ContactState.ts"
import { fromMillis, toIso } from "./Time.ts"

/**
 * Every reason of docs/DECISIONS.md ("Extensions"), in the order `blocked_by` lists them.
 *
 * @category models
 */
export const BlockedReasons = [
  "paused",
  "before_start_date",
  "after_end_date",
  "outside_calling_window",
  "retry_delay",
  "attempts_exhausted",
  "do_not_call",
  "in_progress",
  "final_status",
  "campaign_concurrency_full",
  "organization_concurrency_full"
] as const

/**
 * @category schemas
 */
export const BlockedReason = Schema.Literals(BlockedReasons).annotate({ identifier: "BlockedReason" })

/**
 * @category models
 */
export type BlockedReason = typeof BlockedReason.Type

/**
 * Calls in progress and the caps they count against.
 *
 * @category models
 */
export interface DialingLoad {
  readonly campaignActive: number
  readonly campaignMax: number
  readonly organizationActive: number
  readonly organizationMax: number
}

/**
 * @category models
 */
export interface Eligibility {
  readonly callable: boolean
  /** Epoch milliseconds, or `null` when never (see the module header). */
  readonly nextEligibleAt: number | null
  readonly blockedBy: ReadonlyArray<BlockedReason>
}

const windowsOnly = (schedule: CallingSchedule): CallingSchedule => ({
  ...schedule,
  startDate: "0001-01-01",
  endDate: null
})

/**
 * Explains the contact at `now`.
 *
 * @category constructors
 */
export const explain = (
  state: ContactDialState,
  campaign: CampaignDialing,
  isOnDnc: boolean,
  load: DialingLoad,
  now: number
): Eligibility => {
  const { schedule } = campaign
  const today = localDate(now, schedule.timeZone)
  const trying = state.status === "TRYING"
  const checks: ReadonlyArray<readonly [BlockedReason, boolean]> = [
    ["paused", !campaign.enabled || campaign.deleted],
    ["before_start_date", today < schedule.startDate],
    ["after_end_date", schedule.endDate !== null && today > schedule.endDate],
    ["outside_calling_window", !isOpenAt(windowsOnly(schedule), now)],
    ["retry_delay", trying && state.nextAttemptAt !== null && state.nextAttemptAt > now],
    ["attempts_exhausted", trying && state.attempts >= campaign.maxAttempts],
    ["do_not_call", isOnDnc],
    ["in_progress", state.lease !== null],
    ["final_status", !trying],
    ["campaign_concurrency_full", load.campaignActive >= load.campaignMax],
    ["organization_concurrency_full", load.organizationActive >= load.organizationMax]
  ]
  const blockedBy = checks.filter(([, applies]) => applies).map(([reason]) => reason)
  const callable = blockedBy.length === 0
  const never = blockedBy.some((reason) =>
    reason === "paused" || reason === "attempts_exhausted" || reason === "do_not_call" ||
    reason === "in_progress" || reason === "final_status"
  )
  const nextEligibleAt = callable
    ? now
    : never || state.nextAttemptAt === null
    ? null
    : nextOpenAt(schedule, Math.max(now, state.nextAttemptAt)) ?? null
  return { callable, nextEligibleAt, blockedBy }
}

/**
 * The claim's view of the same question: the callable predicate and room under both caps.
 * {@link explain}'s `callable` equals this.
 *
 * @category guards
 */
export const wouldClaim = (
  state: ContactDialState,
  campaign: CampaignDialing,
  isOnDnc: boolean,
  load: DialingLoad,
  now: number
): boolean =>
  isCallable(state, campaign, isOnDnc, now) &&
  load.campaignActive < load.campaignMax &&
  load.organizationActive < load.organizationMax

/**
 * The body of `GET /v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility`
 * (docs/DECISIONS.md, "Extensions").
 *
 * @category schemas
 */
export const ContactEligibility = Schema.Struct({
  callable: Schema.Boolean.annotate({ description: "Whether the dialer would call the contact now" }),
  next_eligible_at: Schema.NullOr(Schema.String).annotate({
    description: "The earliest instant (ISO 8601, UTC) the contact would be callable if nothing changes; " +
      "null when never (campaign paused, final status, attempts exhausted, DNC, after end_date) or while a call " +
      "is in progress"
  }),
  blocked_by: Schema.Array(BlockedReason).annotate({
    description: "Every reason that applies now; empty exactly when callable is true"
  })
}).annotate({
  identifier: "ContactEligibility",
  description: "Why a contact is or is not callable now, and when it will be"
})

/**
 * @category models
 */
export type ContactEligibility = typeof ContactEligibility.Type

/**
 * @category encoding
 */
export const toContactEligibility = (eligibility: Eligibility): ContactEligibility => ({
  callable: eligibility.callable,
  next_eligible_at: eligibility.nextEligibleAt === null ? null : toIso(fromMillis(eligibility.nextEligibleAt)),
  blocked_by: eligibility.blockedBy
})
