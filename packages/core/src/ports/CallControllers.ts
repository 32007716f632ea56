/**
 * Port for SDK agents that take calls as they come (the reference SDK's discovery sockets:
 * `v1/serve-campaign/{campaign_id}` and `v2/listen-inbound`). Before the engine places a
 * campaign's call or answers an inbound one, it offers the call here; a connected agent that
 * takes it controls the call's conversation (over its own call socket, by call id).
 *
 * - A campaign call (`Campaign`): offered to the agents serving the campaign with the contact's
 *   phone number and `data`. `taken`: an agent is ready; the engine places the call as usual.
 *   `declined`: the agent could not get ready (or said nothing in time); the engine releases the
 *   claim without using an attempt. `none`: no agent serves the campaign; the call goes ahead
 *   with the campaign's own agent.
 * - An inbound call (`Inbound`): offered to the agents listening on the dialed number, which
 *   compete for it (the first to claim it is assigned it). `taken`: the engine answers it with
 *   the SDK agent. `declined`: every listener that claimed it declined: the call is
 *   rejected. `none`: nobody listens; the number's own agent answers.
 *
 * An offer resolves within a few seconds whatever the agents do (the implementation bounds it).
 * The default implementation, `none`, is the engine without SDK agents.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { ContactData } from "../Contact.ts"

/**
 * @category models
 */
export type CallOffer =
  | {
    readonly _tag: "Campaign"
    readonly callId: string
    readonly organizationId: string
    readonly campaignId: string
    readonly contactId: string
    readonly phoneNumber: string
    readonly data: ContactData
  }
  | {
    readonly _tag: "Inbound"
    readonly callId: string
    readonly organizationId: string
    readonly from: string
    readonly to: string
  }

/**
 * @category models
 */
export type OfferAnswer = "taken" | "declined" | "none"

/**
 * @category services
 */
export class CallControllers extends Context.Service<CallControllers, {
  readonly offer: (offer: CallOffer) => Effect.Effect<OfferAnswer>
}>()("@voice-agent/core/ports/CallControllers") {
  /** No SDK agents: every offer answers `none`. */
  static readonly none: Layer.Layer<CallControllers> = Layer.succeed(
    CallControllers,
    CallControllers.of({ offer: () => Effect.succeed("none") })
  )
}
