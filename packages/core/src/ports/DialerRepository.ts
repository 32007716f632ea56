/**
 * Storage port of the dialer: claims under the concurrency caps, the lease of each claim, the
 * start and end of each call, and the recovery of leases whose daemon died. Several daemons
 * share one database, and everything here holds across all of them.
 *
 * Transitions are ContactState's: the implementation applies `ContactState.applyOutcome`,
 * `release` and `recover` to the row it has locked, so SQL and the state machine are one
 * behavior. Instants are epoch milliseconds from the caller's `Clock` (one clock for every
 * statement: see docs/DIALER.md).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { CallingSchedule } from "../CallingSchedule.ts"
import type { ContactData } from "../Contact.ts"
import type { CallOutcome, ContactDialState, NotPlacedReason } from "../ContactState.ts"
import type { DialingLoad } from "../Eligibility.ts"
import type { E164 } from "../PhoneNumber.ts"
import type { FinalizeLost } from "./RecordingStore.ts"

/**
 * A campaign the dialer may dial as far as flags go (enabled, not deleted, its organization
 * allowed to dial out); whether it is open now is the caller's (CallingSchedule).
 *
 * @category models
 */
export interface DialableCampaign {
  readonly id: string
  readonly organizationId: string
  readonly schedule: CallingSchedule
  readonly maxAttempts: number
  /** The earliest next attempt time of its idle `TRYING` contacts with attempts left; `null`: none. */
  readonly nextDueAt: number | null
}

/**
 * A contact the caller now holds a lease on.
 *
 * @category models
 */
export interface ClaimedContact {
  readonly contactId: string
  readonly campaignId: string
  readonly organizationId: string
  readonly phoneNumber: E164
  readonly data: ContactData
}

/**
 * What {@link DialerRepository} `startCall` decided: dial (the conversation record exists and
 * the lease carries it, so the attempt counts from here), or not (the number went on the DNC
 * list, and the contact is `FAILED`; the campaign was paused or deleted since the claim, and
 * the contact is released as it was; or the caller no longer holds the lease).
 *
 * @category models
 */
export type CallStart =
  | { readonly _tag: "Dial"; readonly conversationId: string; readonly from: E164 }
  | { readonly _tag: "NotPlaced"; readonly reason: "do-not-call" | "campaign-stopped" | "claim-lost" }

/**
 * @category models
 */
export interface CallEnd {
  readonly contactId: string
  readonly worker: string
  readonly conversationId: string
  readonly outcome: CallOutcome
  /** Who hung up an answered call (for `termination_reason`). */
  readonly endedBy: "remote" | "agent"
  readonly answeredAt: number | null
  readonly endedAt: number
}

/**
 * What the eligibility explainer reads of one contact.
 *
 * @category models
 */
export interface ContactInspection {
  readonly state: ContactDialState
  readonly isOnDnc: boolean
  readonly load: DialingLoad
}

/**
 * @category services
 */
export class DialerRepository extends Context.Service<DialerRepository, {
  /** Campaigns that may be dialed as far as flags go, with their next due contact. */
  readonly dialableCampaigns: (now: number) => Effect.Effect<ReadonlyArray<DialableCampaign>>
  /**
   * Claims up to `limit` callable contacts of the given (open) campaigns, oldest due first,
   * each with a lease until `now + leaseMs`. Never exceeds a campaign's `max_concurrency` nor
   * its organization's, counting the live leases of every daemon on the database.
   */
  readonly claim: (input: {
    readonly worker: string
    readonly campaignIds: ReadonlyArray<string>
    readonly now: number
    readonly leaseMs: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ClaimedContact>>
  /**
   * Just before the dial, in one transaction: checks the caller still holds the lease, the
   * number is not on the DNC list and the campaign may still dial (else the contact is released
   * by ContactState), picks the
   * campaign's next origin number (round-robin), creates the conversation record `callId`,
   * and marks the lease with it.
   */
  readonly startCall: (input: {
    readonly contactId: string
    readonly worker: string
    readonly callId: string
    readonly now: number
  }) => Effect.Effect<CallStart>
  /**
   * The end of a placed call, in one transaction: the conversation's answer and end times,
   * duration (of an answered call, the carrier's figure when `CarrierCalls` has one) and
   * termination reason, and the contact's next state by `ContactState.applyOutcome` (only while
   * the caller still holds the lease on this call).
   */
  readonly endCall: (end: CallEnd) => Effect.Effect<void>
  /**
   * A claim that never became a call (ContactState.release). With `conversationId`, the
   * carrier refused the call before placing it: its record is removed.
   */
  readonly release: (input: {
    readonly contactId: string
    readonly worker: string
    readonly reason: NotPlacedReason
    readonly now: number
    readonly conversationId?: string | undefined
  }) => Effect.Effect<void>
  /** Extends every lease the worker holds to `now + leaseMs`; answers how many. */
  readonly renewLeases: (input: {
    readonly worker: string
    readonly now: number
    readonly leaseMs: number
  }) => Effect.Effect<number>
  /**
   * Takes back up to `limit` contacts whose lease expired (ContactState.recover): the open
   * conversation of each is closed with `bot-failure`, keeping what was recorded of the call
   * (its answer, recordings finalized, a duration covering them and its transcript; docs/DIALER.md).
   * Recordings in the database are finalized by the recovery itself; `finalizeRecordings`
   * (the recording store's `finalizeLost`) runs inside it for those kept elsewhere. Answers
   * how many contacts were taken back.
   */
  readonly recoverExpired: (input: {
    readonly now: number
    readonly limit: number
    readonly finalizeRecordings?: FinalizeLost | undefined
  }) => Effect.Effect<number>
  /** The contact's dialing state, DNC listing and the load on its caps; none when not found. */
  readonly inspect: (
    campaignId: string,
    contactId: string,
    now: number
  ) => Effect.Effect<Option.Option<ContactInspection>>
}>()("@voice-agent/core/ports/DialerRepository") {}
