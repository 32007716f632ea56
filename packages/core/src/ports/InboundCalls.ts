/**
 * Port for calls coming in to an organization's numbers: the carrier's webhook (or the admin
 * API's simulated inbound call) hands the call over, and gets back what to do with it.
 * Implemented by the engine (`@voice-agent/engine/InboundCalls`).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"

/**
 * An accepted call: our ids, and where and with what token the carrier streams it.
 *
 * @category models
 */
export interface AcceptedCall {
  readonly callId: string
  readonly conversationId: string
  readonly organizationId: string
  readonly mediaUrl: string
  readonly mediaToken: string
}

/**
 * What becomes of a call that comes in:
 *
 * - `Accepted`: answered; the carrier streams it to `mediaUrl` with `mediaToken`.
 * - `Declined`: the call reached one of an organization's numbers, but the SDK agent
 *   listening on it declined it (or did not answer in time). It is recorded, already ended,
 *   as an `inbound` conversation never answered (`no-answer`, 0 s, no transcript, no
 *   recording); the carrier rejects it.
 * - `NotOurs`: the dialed number is none of the organizations' numbers (or either number is not
 *   E.164): nothing is recorded; the carrier rejects the call.
 *
 * @category models
 */
export type InboundAnswer =
  | { readonly _tag: "Accepted"; readonly call: AcceptedCall }
  | { readonly _tag: "Declined"; readonly callId: string; readonly organizationId: string }
  | { readonly _tag: "NotOurs" }

/**
 * @category services
 */
export class InboundCalls extends Context.Service<InboundCalls, {
  /** Takes in a call from `from` to `to` (E.164). */
  readonly accept: (call: { readonly from: string; readonly to: string }) => Effect.Effect<InboundAnswer>
}>()("@voice-agent/core/ports/InboundCalls") {}
