/**
 * Port to the telephone network: place, transfer and end calls, observe their progress, send SMS.
 * Implemented by carrier-sim (the default), carrier-twilio and carrier-sip. Audio does not pass
 * through this port: an answered call's media arrives on the daemon's media WebSocket.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"

/**
 * Why the carrier refused or failed a request. `retryable` tells the dialer whether to try
 * the same request again later.
 *
 * @category errors
 */
export class CarrierError extends Schema.TaggedError<CarrierError>()("CarrierError", {
  reason: Schema.Literals(["rejected", "unreachable", "rate-limited"]),
  message: Schema.String
}) {
  get isRetryable(): boolean {
    return this.reason !== "rejected"
  }
}

/**
 * @category models
 */
export interface PlaceCallRequest {
  readonly from: string
  readonly to: string
  /**
   * Our id for the call (the conversation's `call_id`): the carrier reports the call's
   * progress under it through `CallEvents`, and `hangUp` takes it.
   */
  readonly callId: string
  /** WebSocket URL the carrier streams the answered call's audio to. */
  readonly mediaUrl: string
  /**
   * The call's media token: the carrier passes it as the stream's custom parameter `token`
   * (Twilio: `<Parameter name="token">`), and the media endpoint accepts nothing without it.
   */
  readonly mediaToken: string
}

/**
 * The telephone network. A carrier publishes the progress of each call it placed to
 * `CallEvents` (under our call id), from wherever its reports arrive.
 *
 * @category services
 */
export class Carrier extends Context.Service<Carrier, {
  /** Asks the carrier to place the call; answers the carrier's own id for it. */
  readonly placeCall: (request: PlaceCallRequest) => Effect.Effect<{ readonly carrierCallId: string }, CarrierError>
  /** Ends a call we placed (by our call id); a call already ended is no error. */
  readonly hangUp: (callId: string) => Effect.Effect<void, CarrierError>
  /**
   * Moves the answered call `callId` (placed or taken) to the number `to` (E.164): the carrier
   * connects the person to it and the call leaves us (its media stream stops), so nothing of
   * ours may hang it up afterwards (CONTRACT §8, "Transfer"). Succeeds once the carrier has
   * taken the call over; a carrier that cannot (the call is not in progress, the target refused
   * or is unreachable) fails, and the call stays with us as it was.
   */
  readonly transfer: (callId: string, to: string) => Effect.Effect<void, CarrierError>
  readonly sendSms: (message: {
    readonly from: string
    readonly to: string
    readonly body: string
  }) => Effect.Effect<{ readonly messageId: string; readonly status: string }, CarrierError>
}>()("@voice-agent/core/ports/Carrier") {}

/**
 * The simulated network's callers (docs/ADMIN.md, the simulated inbound call): a carrier that can
 * make a call come in provides it. The call is already accepted on our side (it has our call id and
 * its media token); the carrier answers it at once and streams it to `mediaUrl` like an answered
 * outbound call, with a person on the line chosen by the caller's number
 * (packages/carrier-sim/README.md), and reports its progress to `CallEvents`. `Carrier.hangUp` ends
 * it. Real carriers do not provide this: their calls come in through their webhooks.
 *
 * @category services
 */
export class InboundSimulator extends Context.Service<InboundSimulator, {
  readonly callIn: (call: PlaceCallRequest) => Effect.Effect<void, CarrierError>
}>()("@voice-agent/core/ports/Carrier/InboundSimulator") {}
