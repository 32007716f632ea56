/**
 * Port for what a carrier says of our calls under its own id (Twilio's `CallSid`): which call
 * of ours it is, so that a report without our call id (a Twilio number's console status
 * callback, which hears incoming calls too) still finds its call, and how long the carrier
 * says the call lasted, which the call's `duration_sec` takes over the engine's own measure.
 *
 * The carrier's duration may be reported before the call ends (then the end takes it) or after
 * (then the ended call's `duration_sec` becomes it): either way the record ends with the
 * carrier's figure. A call never answered keeps `duration_sec` 0 (docs/DECISIONS.md, "Dialing").
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"

/**
 * @category services
 */
export class CarrierCalls extends Context.Service<CarrierCalls, {
  /**
   * Records that the carrier's call `carrierCallId` is our call `callId`. A call keeps the first
   * carrier id it is given; an unknown `callId` changes nothing.
   */
  readonly link: (callId: string, carrierCallId: string) => Effect.Effect<void>
  /** Our call id of the carrier's call `carrierCallId`, when one was linked to it. */
  readonly callIdOf: (carrierCallId: string) => Effect.Effect<Option.Option<string>>
  /**
   * The carrier's id of our call `callId`, when one was linked to it (a transfer of a call this
   * process did not place: an inbound one, or one placed by another daemon).
   */
  readonly carrierCallIdOf: (callId: string) => Effect.Effect<Option.Option<string>>
  /**
   * Records the carrier's duration of the call `callId`, in whole seconds (the last report
   * wins). An unknown `callId` changes nothing.
   */
  readonly recordDuration: (callId: string, durationSec: number) => Effect.Effect<void>
}>()("@voice-agent/core/ports/CarrierCalls") {}
