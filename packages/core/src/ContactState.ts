/**
 * The contact state machine (docs/DECISIONS.md, "Dialing"), as pure functions: the one definition
 * of what a contact's next state is. The dialer computes every transition here and the store writes
 * the result; where SQL must decide by itself over many rows (the claim's callable condition, the
 * DNC sweep), its statements are tested against these functions.
 *
 * Owns: the four statuses, the dialing state of a contact (status, attempts, next attempt
 * time, last attempt time, the dialing lease), the transitions (claim, dial, call outcome, an
 * attempt that never became a call, recovery of an expired lease, DNC), the callable
 * predicate, and the `termination_reason` of each outcome. Does not own storage, the clock
 * (instants are epoch milliseconds passed in), nor the calling schedule math (CallingSchedule).
 *
 * Decisions:
 * - A dialer holds a contact through a lease: its worker id, an expiry it renews while the
 *   call lives, and the conversation id once the call was handed to the carrier. A contact is
 *   being dialed while it holds a lease that has not expired. An expired lease blocks nothing:
 *   deletes go ahead, and any dialer recovers the contact ({@link recover}) before claiming.
 * - `attempts` counts calls handed to the carrier. A claim is not an attempt; {@link dial}
 *   marks the lease with the call just before the carrier is asked, and the attempt is counted
 *   when the call ends ({@link applyOutcome}) or when its lease is recovered. So a call the
 *   carrier may have placed always counts, and one it surely did not place never does.
 * - `nextAttemptAt` is the earliest instant of the next attempt as far as the contact goes
 *   (upload time, or the end of the last call plus `retry_delay_s`); the campaign's windows
 *   and dates apply when the dialer claims. The retry therefore happens at
 *   `max(end + retry_delay_s, next window opening)`, and a change of windows, zone or dates
 *   reschedules every waiting contact by itself. It is `null` exactly when the status is final
 *   (the table's CHECK holds the same rule).
 * - Not answered (`busy`, `no-answer`, `failed`) and `lost` (the daemon holding the call died):
 *   retried while attempts remain, else `FAILED`; also `FAILED` when the campaign will never be
 *   open again (past `end_date`, no windows): a contact that can never be called is not pending.
 * - Answered: `completed` and `transfer` are `COMPLETED`; `cut-short`, `voicemail` and
 *   `agent-failure` are `PARTIALLY_COMPLETED`. No retries after an answered call.
 * - An attempt that never became a call ({@link release}) uses up nothing: the DNC re-check just
 *   before the dial fails the contact (docs/DECISIONS.md, "Dialing"); a retryable carrier refusal,
 *   and an SDK agent declining the call it was offered, wait {@link carrierBackoffMs}; a shutdown
 *   or a lost claim leaves it due as it was.
 * - Only `TRYING` moves. A number put on the DNC list fails its `TRYING` contacts at once, also
 *   one whose call is in flight (its lease stays until the call ends; the outcome then only
 *   counts the attempt and clears the lease).
 * - `termination_reason`: the person hanging up is `user-hangup`; the agent ending the call is
 *   `bot-hangup`; `transfer` is `bot-transfer`; `agent-failure` and `lost` are `bot-failure`;
 *   the rest map to the value of the same name.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { CallingSchedule } from "./CallingSchedule.ts"
import { isOpenAt, nextOpenAt } from "./CallingSchedule.ts"
import type { TerminationReason } from "./Conversation.ts"

/**
 * The contact statuses of the documented API, in lifecycle order.
 *
 * @category models
 */
export const ContactStatuses = ["TRYING", "COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const

/**
 * @category schemas
 */
export const ContactStatus = Schema.Literals(ContactStatuses).annotate({ identifier: "ContactStatus" })

/**
 * @category models
 */
export type ContactStatus = typeof ContactStatus.Type

/**
 * How a placed call ended. Answered: `completed` (the conversation reached its end),
 * `cut-short` (hung up early), `voicemail`, `transfer`, `agent-failure`. Never answered:
 * `busy`, `no-answer`, `failed` (carrier failure). `lost`: the daemon that held the call
 * stopped before it ended, so how it ended is unknown (its lease expired).
 *
 * @category models
 */
export const CallOutcomes = [
  "completed",
  "cut-short",
  "voicemail",
  "transfer",
  "agent-failure",
  "busy",
  "no-answer",
  "failed",
  "lost"
] as const

/**
 * @category models
 */
export type CallOutcome = (typeof CallOutcomes)[number]

/**
 * Why an attempt never became a call: the number went on the DNC list after the claim, the
 * campaign was paused or deleted (or its organization's dialing switched off) after the claim,
 * the carrier refused with a retryable error (rate limit, unreachable), the SDK agent the
 * call was offered to declined it (CallControllers), the daemon shut down before dialing, or
 * the claim was lost (its lease expired before the dial).
 *
 * @category models
 */
export type NotPlacedReason =
  | "do-not-call"
  | "campaign-stopped"
  | "carrier-retryable"
  | "agent-declined"
  | "shutdown"
  | "claim-lost"

/**
 * A dialer's hold on a contact. `conversationId` is set once the call is handed to the
 * carrier ({@link dial}); `null` while the contact is only claimed.
 *
 * @category models
 */
export interface Lease {
  readonly worker: string
  readonly expiresAt: number
  readonly conversationId: string | null
}

/**
 * The dialing state of one contact. Instants are epoch milliseconds.
 *
 * @category models
 */
export interface ContactDialState {
  readonly status: ContactStatus
  readonly attempts: number
  /** Earliest next attempt as far as the contact goes; `null` exactly when the status is final. */
  readonly nextAttemptAt: number | null
  readonly lastAttemptedAt: number | null
  readonly lease: Lease | null
}

/**
 * A campaign's retry settings and schedule, as the outcome transitions read them.
 *
 * @category models
 */
export interface RetryPolicy {
  readonly maxAttempts: number
  readonly retryDelayS: number
  readonly schedule: CallingSchedule
}

/**
 * The campaign conditions of the callable predicate.
 *
 * @category models
 */
export interface CampaignDialing {
  readonly enabled: boolean
  readonly deleted: boolean
  readonly maxAttempts: number
  readonly schedule: CallingSchedule
}

/**
 * How long a retryable carrier refusal (rate limit, unreachable) puts the contact back before
 * it is due again. No attempt is used up. An SDK agent declining the call waits the same: it
 * could not get ready now, and due at once the contact would be claimed and offered again on
 * the next tick.
 *
 * @category models
 */
export const carrierBackoffMs = 30_000

/**
 * A contact uploaded at `now`: `TRYING`, never attempted, due at once.
 *
 * @category constructors
 */
export const initial = (now: number): ContactDialState => ({
  status: "TRYING",
  attempts: 0,
  nextAttemptAt: now,
  lastAttemptedAt: null,
  lease: null
})

/**
 * True when the outcome means the call was answered.
 *
 * @category guards
 */
export const isAnswered = (outcome: CallOutcome): boolean =>
  outcome !== "busy" && outcome !== "no-answer" && outcome !== "failed" && outcome !== "lost"

/**
 * A dialer holds the contact: it has a lease that has not expired at `now`.
 *
 * @category guards
 */
export const isBeingDialed = (state: ContactDialState, now: number): boolean =>
  state.lease !== null && state.lease.expiresAt > now

/**
 * The contact's lease expired: the dialer that held it is presumed dead, and any dialer may
 * {@link recover} it.
 *
 * @category guards
 */
export const hasExpiredLease = (state: ContactDialState, now: number): boolean =>
  state.lease !== null && state.lease.expiresAt <= now

/**
 * The callable predicate (docs/DECISIONS.md, "Dialing"): `TRYING`, not held by a dialer (no lease
 * at all: an expired one is recovered first), attempts left, next attempt due, the campaign enabled
 * and not deleted, `now` inside its dates and one of its windows (in its zone), and the number not
 * on the DNC list. Concurrency caps are the claim's, not the contact's.
 *
 * @category guards
 */
export const isCallable = (
  state: ContactDialState,
  campaign: CampaignDialing,
  isOnDnc: boolean,
  now: number
): boolean =>
  state.status === "TRYING" &&
  state.lease === null &&
  state.attempts < campaign.maxAttempts &&
  state.nextAttemptAt !== null && state.nextAttemptAt <= now &&
  campaign.enabled &&
  !campaign.deleted &&
  !isOnDnc &&
  isOpenAt(campaign.schedule, now)

/**
 * A dialer claims a callable contact: it holds it until `now + leaseMs` unless renewed.
 *
 * @category constructors
 */
export const claim = (state: ContactDialState, worker: string, now: number, leaseMs: number): ContactDialState => ({
  ...state,
  lease: { worker, expiresAt: now + leaseMs, conversationId: null }
})

/**
 * The claimed contact's call is about to be handed to the carrier as `conversationId`: from
 * here on the attempt counts however the call ends.
 *
 * @category constructors
 */
export const dial = (state: ContactDialState, conversationId: string, now: number): ContactDialState =>
  state.lease === null ? state : {
    ...state,
    lastAttemptedAt: now,
    lease: { ...state.lease, conversationId }
  }

const final = (state: ContactDialState, status: ContactStatus): ContactDialState => ({
  ...state,
  status,
  nextAttemptAt: null,
  lease: null
})

const retryOrFail = (state: ContactDialState, policy: RetryPolicy, earliest: number): ContactDialState => {
  if (state.attempts >= policy.maxAttempts) return final(state, "FAILED")
  if (nextOpenAt(policy.schedule, earliest) === undefined) return final(state, "FAILED")
  return { ...state, nextAttemptAt: earliest, lease: null }
}

/**
 * The state after a placed call ended with `outcome` at `now`: the attempt counts and the
 * lease is released. See the module header for the transitions and the retry time.
 *
 * @category constructors
 */
export const applyOutcome = (
  state: ContactDialState,
  outcome: CallOutcome,
  policy: RetryPolicy,
  now: number
): ContactDialState => {
  const counted: ContactDialState = { ...state, attempts: state.attempts + 1, lease: null }
  if (state.status !== "TRYING") return counted
  switch (outcome) {
    case "completed":
    case "transfer":
      return final(counted, "COMPLETED")
    case "cut-short":
    case "voicemail":
    case "agent-failure":
      return final(counted, "PARTIALLY_COMPLETED")
    case "busy":
    case "no-answer":
    case "failed":
    case "lost":
      return retryOrFail(counted, policy, now + policy.retryDelayS * 1000)
  }
}

/**
 * The claimed contact was not called (see {@link NotPlacedReason}): the lease is released and
 * no attempt is used up.
 *
 * @category constructors
 */
export const release = (
  state: ContactDialState,
  reason: NotPlacedReason,
  policy: RetryPolicy,
  now: number
): ContactDialState => {
  const released: ContactDialState = { ...state, lease: null }
  if (state.status !== "TRYING") return released
  switch (reason) {
    case "do-not-call":
      return final(released, "FAILED")
    case "carrier-retryable":
    case "agent-declined":
      return retryOrFail(released, policy, now + carrierBackoffMs)
    case "campaign-stopped":
    case "shutdown":
    case "claim-lost":
      return released
  }
}

/**
 * Any dialer takes back a contact whose lease expired: a call that had been handed to the
 * carrier ends as `lost` (the attempt counts, retried while attempts remain); a mere claim is
 * released without using an attempt.
 *
 * @category constructors
 */
export const recover = (state: ContactDialState, policy: RetryPolicy, now: number): ContactDialState =>
  state.lease?.conversationId == null
    ? release(state, "claim-lost", policy, now)
    : applyOutcome(state, "lost", policy, now)

/**
 * The number was added to the organization's DNC list: `TRYING` becomes `FAILED` with no call
 * placed; a lease in flight is kept until its call ends. Other statuses are unchanged.
 *
 * @category constructors
 */
export const onDoNotCall = (state: ContactDialState): ContactDialState =>
  state.status === "TRYING" ? { ...state, status: "FAILED", nextAttemptAt: null } : state

/**
 * A contact that a dialer holds cannot be deleted (409); one whose lease expired can.
 *
 * @category guards
 */
export const canDelete = (state: ContactDialState, now: number): boolean => !isBeingDialed(state, now)

/**
 * The conversation's `termination_reason` for an outcome. `endedBy` says who hung up an
 * answered call (default `"remote"`, the person): `"agent"` turns `completed` and `cut-short`
 * into `bot-hangup`.
 *
 * @category encoding
 */
export const terminationReasonFor = (
  outcome: CallOutcome,
  endedBy: "remote" | "agent" = "remote"
): TerminationReason => {
  switch (outcome) {
    case "completed":
    case "cut-short":
      return endedBy === "agent" ? "bot-hangup" : "user-hangup"
    case "voicemail":
      return "voicemail"
    case "transfer":
      return "bot-transfer"
    case "agent-failure":
    case "lost":
      return "bot-failure"
    case "busy":
    case "no-answer":
    case "failed":
      return outcome
  }
}
