/**
 * Port for calls coming in to an organization's numbers: the carrier's webhook (or the admin
 * API's simulated inbound call) hands the call over, and gets back what it needs to stream it
 * to the media endpoint. Implemented by the engine (`@voice-agent/engine/InboundCalls`).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"

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
 * @category services
 */
export class InboundCalls extends Context.Service<InboundCalls, {
  /**
   * Accepts a call from `from` to `to` (E.164), or answers none when `to` is none of the
   * organizations' numbers (or either number is not E.164): the carrier then rejects the call.
   */
  readonly accept: (call: { readonly from: string; readonly to: string }) => Effect.Effect<Option.Option<AcceptedCall>>
}>()("@voice-agent/core/ports/InboundCalls") {}
