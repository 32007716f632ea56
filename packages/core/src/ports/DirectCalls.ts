/**
 * Port for one outbound call that belongs to no campaign and no contact: the reference SDK's
 * `POST /v2/create-outbound` (an agent asks for a call to one number and then attaches to it by
 * its call id). Implemented by the engine (`@voice-agent/engine/DirectCalls`), which records the
 * call, asks the carrier to place it and follows it to its end.
 *
 * Owns: the request, its answer and its failures. Does not own: who talks on the call (the
 * media session's agent, chosen per call id) nor the organization's key (the caller has
 * authenticated the organization).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type {
  BillingIssue,
  InvalidPhoneNumber,
  NumberOnDoNotCallList,
  OrganizationNotFound,
  OutboundDialingDisabled,
  PhoneNumberNotOwned
} from "../Errors.ts"

/**
 * A call to place: from one of the organization's numbers to `to`, both E.164.
 *
 * @category models
 */
export interface DirectCallRequest {
  readonly organizationId: string
  readonly from: string
  readonly to: string
}

/**
 * A placed call: its call id (the conversation's `call_id`, the media session's call id, the
 * key of its `CallEvents`) and its conversation record's id.
 *
 * @category models
 */
export interface PlacedCall {
  readonly callId: string
  readonly conversationId: string
}

/**
 * Why a call was not placed: a number that is not E.164, an organization that does not exist,
 * may not dial out or has a billing issue, a `from` it does not own, a `to` on its Do-Not-Call
 * list. Nothing is recorded for a refused call.
 *
 * @category errors
 */
export type DirectCallError =
  | InvalidPhoneNumber
  | OrganizationNotFound
  | OutboundDialingDisabled
  | BillingIssue
  | PhoneNumberNotOwned
  | NumberOnDoNotCallList

/**
 * @category services
 */
export class DirectCalls extends Context.Service<DirectCalls, {
  /**
   * Records the call (an `outbound` conversation without campaign or contact), hands it to the
   * carrier and answers once the carrier has taken it or refused it; the call is then followed
   * to its end in the background. A carrier refusal is not a failure here: the call ends at
   * once as `failed` (as the dialer records it), so the agent that attaches learns it the way it
   * learns of a busy line.
   */
  readonly place: (request: DirectCallRequest) => Effect.Effect<PlacedCall, DirectCallError>
}>()("@voice-agent/core/ports/DirectCalls") {}
