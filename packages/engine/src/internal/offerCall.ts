/**
 * How the engine offers a call to SDK agents (the `CallControllers` port) before placing or
 * answering it. The port is optional: an engine composed without it has no SDK agents, and
 * every offer answers `none`, so embedders that do not use them never provide it.
 */
import type { CallOffer, OfferAnswer } from "@voice-agent/core/ports/CallControllers"
import { CallControllers } from "@voice-agent/core/ports/CallControllers"
import { Effect, Option } from "effect"

/**
 * The engine's own bound on an offer. The port's implementation resolves each within a few
 * seconds; this only keeps a faulty one from holding a claim (or an inbound call) for ever. An
 * offer still open then counts as `declined`, as an agent that said nothing in time does.
 */
export const offerLimitMs = 20_000

/** The offering function of the context's `CallControllers`; `none` for every call without one. */
export const offerer: Effect.Effect<(offer: CallOffer) => Effect.Effect<OfferAnswer>> = Effect.map(
  Effect.serviceOption(CallControllers),
  Option.match({
    onNone: () => () => Effect.succeed("none"),
    onSome: (controllers) => (offer) =>
      controllers.offer(offer).pipe(
        Effect.timeoutOption(offerLimitMs),
        Effect.map(Option.getOrElse((): OfferAnswer => "declined"))
      )
  })
)
