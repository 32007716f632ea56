/**
 * Port to the telephone network: place and end calls, observe their progress, send SMS.
 * Implemented by carrier-sim (the default; carrier-twilio is planned). Audio does not pass through this
 * port: an answered call's media arrives on the daemon's media WebSocket.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Effect, Stream } from "effect"

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
  /** Our id for the call; the carrier's own id comes back in the answer. */
  readonly conversationId: string
  /** WebSocket URL the carrier streams the answered call's audio to. */
  readonly mediaUrl: string
}

/**
 * Progress of a placed call as the carrier reports it.
 *
 * @category models
 */
export type CallEvent =
  | { readonly _tag: "Ringing"; readonly callId: string; readonly at: number }
  | { readonly _tag: "Answered"; readonly callId: string; readonly at: number }
  | {
    readonly _tag: "Completed"
    readonly callId: string
    readonly at: number
    /** How it ended when never answered; answered calls end with `answered`. */
    readonly outcome: "answered" | "busy" | "no-answer" | "failed"
  }

/**
 * @category services
 */
export class Carrier extends Context.Service<Carrier, {
  readonly placeCall: (request: PlaceCallRequest) => Effect.Effect<{ readonly callId: string }, CarrierError>
  readonly hangUp: (callId: string) => Effect.Effect<void, CarrierError>
  /** Every call event of this carrier, as they happen. */
  readonly events: Stream.Stream<CallEvent>
  readonly sendSms: (message: {
    readonly from: string
    readonly to: string
    readonly body: string
  }) => Effect.Effect<{ readonly messageId: string; readonly status: string }, CarrierError>
}>()("@voice-agent/core/ports/Carrier") {}
