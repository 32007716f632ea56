/**
 * The contact state machine of CONTRACT §5, as pure functions.
 *
 * Owns: the four statuses, the dialing-relevant state of a contact (status, attempts, next
 * attempt time, the dialing flag, last attempt time), the transitions (claim, call outcome,
 * DNC), the callable predicate, and the `termination_reason` of each outcome. Does not own
 * storage (repositories apply these rules in SQL too; this module is the reference they are
 * tested against), the clock (instants are epoch milliseconds passed in), nor the calling
 * schedule math (CallingSchedule).
 *
 * Decisions:
 * - `attempts` counts placed calls: `beginAttempt` (claim/dial time) increments it, so after
 *   a call `attempts < maxAttempts` means another call is allowed.
 * - Not answered (`busy`, `no-answer`, `failed`): retried at the first instant the campaign is
 *   open at or after `now + retryDelayS` (that is `max(now + retry_delay_s, next window)`), while
 *   attempts remain; otherwise `FAILED`. It is also `FAILED` when the schedule will never open
 *   again (past `end_date`, no windows): a contact that can never be called is not pending.
 * - Answered: `completed` and `transfer` (the agent handed the call on) are `COMPLETED`;
 *   `cut-short`, `voicemail` and `agent-failure` (the agent broke mid-call) are
 *   `PARTIALLY_COMPLETED`. No retries after an answered call.
 * - Only `TRYING` moves. A contact put on the DNC list while its call is in flight is already
 *   `FAILED`; the outcome of that call then only clears the dialing flag.
 * - `termination_reason`: the person hanging up (after the agent's last turn, or early) is
 *   `user-hangup`; the agent ending the call is `bot-hangup`. `transfer` is `bot-transfer`,
 *   `agent-failure` is `bot-failure`; the rest map to the value of the same name.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { CallingSchedule } from "./CallingSchedule.ts"
import { isOpenAt, nextOpenAt } from "./CallingSchedule.ts"
import type { TerminationReason } from "./Conversation.ts"

/**
 * The contact statuses of API.md, in lifecycle order.
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
 * `busy`, `no-answer`, `failed` (carrier failure).
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
  "failed"
] as const

/**
 * @category models
 */
export type CallOutcome = (typeof CallOutcomes)[number]

/**
 * The dialing-relevant state of one contact. Instants are epoch milliseconds;
 * `nextAttemptAt: null` means due at once.
 *
 * @category models
 */
export interface ContactDialState {
  readonly status: ContactStatus
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly dialing: boolean
  readonly lastAttemptedAt: number | null
}

/**
 * A campaign's retry settings and schedule, as `applyOutcome` reads them.
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
 * A freshly uploaded contact: `TRYING`, never attempted, due at once.
 *
 * @category constructors
 */
export const initial: ContactDialState = {
  status: "TRYING",
  attempts: 0,
  nextAttemptAt: null,
  dialing: false,
  lastAttemptedAt: null
}

/**
 * True when the outcome means the call was answered.
 *
 * @category guards
 */
export const isAnswered = (outcome: CallOutcome): boolean =>
  outcome !== "busy" && outcome !== "no-answer" && outcome !== "failed"

/**
 * The claim (just before dialing): marks the contact as being dialed and counts the attempt.
 *
 * @category constructors
 */
export const beginAttempt = (state: ContactDialState, now: number): ContactDialState => ({
  ...state,
  dialing: true,
  attempts: state.attempts + 1,
  lastAttemptedAt: now
})

const finish = (state: ContactDialState, status: ContactStatus): ContactDialState => ({
  ...state,
  status,
  dialing: false,
  nextAttemptAt: null
})

/**
 * The state after a placed call ended with `outcome` at `now`; clears the dialing flag.
 * See the module header for the transitions and the retry time.
 *
 * @category constructors
 */
export const applyOutcome = (
  state: ContactDialState,
  outcome: CallOutcome,
  policy: RetryPolicy,
  now: number
): ContactDialState => {
  if (state.status !== "TRYING") return { ...state, dialing: false }
  switch (outcome) {
    case "completed":
    case "transfer":
      return finish(state, "COMPLETED")
    case "cut-short":
    case "voicemail":
    case "agent-failure":
      return finish(state, "PARTIALLY_COMPLETED")
    case "busy":
    case "no-answer":
    case "failed": {
      if (state.attempts >= policy.maxAttempts) return finish(state, "FAILED")
      const retryAt = nextOpenAt(policy.schedule, now + policy.retryDelayS * 1000)
      if (retryAt === undefined) return finish(state, "FAILED")
      return { ...state, dialing: false, nextAttemptAt: retryAt }
    }
  }
}

/**
 * The number was added to the organization's DNC list: `TRYING` becomes `FAILED` with no call
 * placed; other statuses are unchanged.
 *
 * @category constructors
 */
export const onDoNotCall = (state: ContactDialState): ContactDialState =>
  state.status === "TRYING" ? { ...state, status: "FAILED", nextAttemptAt: null } : state

/**
 * CONTRACT §5's predicate: `TRYING`, not being dialed, attempts left, next attempt due, the
 * campaign enabled and not deleted, `now` inside its dates and one of its windows (in its
 * zone), and the number not on the DNC list.
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
  !state.dialing &&
  state.attempts < campaign.maxAttempts &&
  (state.nextAttemptAt === null || state.nextAttemptAt <= now) &&
  campaign.enabled &&
  !campaign.deleted &&
  !isOnDnc &&
  isOpenAt(campaign.schedule, now)

/**
 * A contact being dialed or mid-call cannot be deleted.
 *
 * @category guards
 */
export const canDelete = (state: ContactDialState): boolean => !state.dialing

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
      return "bot-failure"
    case "busy":
    case "no-answer":
    case "failed":
      return outcome
  }
}
