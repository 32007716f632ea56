/**
 * Which carrier the daemon talks to (docs/DAEMON.md): `VOICE_AGENT_CARRIER=sim` (the default, the
 * deterministic simulated carrier of packages/carrier-sim/README.md; with
 * `VOICE_AGENT_SIM_MACHINE_DETECTION=engine` it leaves answering machines to the engine's
 * detection, as a SIP trunk does, instead of telling them itself, `carrier`, the default) or
 * `twilio` (with `TWILIO_ACCOUNT_SID`,
 * `TWILIO_AUTH_TOKEN` (it signs the webhooks), optionally `TWILIO_API_KEY` and `TWILIO_API_SECRET`
 * for the REST API, `TWILIO_API_BASE` and
 * `VOICE_AGENT_PUBLIC_URL`; a missing or malformed one stops the daemon at start with a
 * sentence that names it), or `sip` (a SIP trunk: CONTRACT §8's settings, `SipConfig`, checked
 * the same way; Sip.ts wires it). The carrier reports calls' progress to `CallEvents`, which the
 * daemon's storage provides; with Twilio, the reports arrive at the webhook routes
 * (`TwilioWebhooks`), which `serve` mounts.
 *
 * @since 0.1.0
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import * as SipConfig from "@voice-agent/carrier-sip/SipConfig"
import * as TwilioCarrier from "@voice-agent/carrier-twilio/TwilioCarrier"
import * as TwilioConfig from "@voice-agent/carrier-twilio/TwilioConfig"
import type { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import type { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import * as SimBriefings from "./SimBriefings.ts"
import * as Sip from "./Sip.ts"

/**
 * The configured carrier: the simulated one, or Twilio or a SIP trunk with its settings.
 *
 * @category models
 */
export type Choice =
  | { readonly _tag: "sim"; readonly machineDetection: SimCarrier.MachineDetection }
  | { readonly _tag: "twilio"; readonly config: TwilioConfig.TwilioConfig }
  | { readonly _tag: "sip"; readonly config: SipConfig.SipConfig }

const simMachineDetection = Config.Literals(["carrier", "engine"], "VOICE_AGENT_SIM_MACHINE_DETECTION").pipe(
  Config.withDefault("carrier" as const)
)

/**
 * @category constructors
 */
export const choice: Effect.Effect<Choice, Config.ConfigError> = Effect.gen(function*() {
  const name = (yield* Config.String("VOICE_AGENT_CARRIER").pipe(Config.withDefault("sim"))).trim().toLowerCase()
  if (name === "sim") return { _tag: "sim", machineDetection: yield* simMachineDetection } as const
  if (name === "twilio") return { _tag: "twilio", config: yield* TwilioConfig.config } as const
  if (name === "sip") return { _tag: "sip", config: yield* SipConfig.config } as const
  return yield* Effect.fail(
    new Config.ConfigError(
      new ConfigProvider.SourceError({
        message: `VOICE_AGENT_CARRIER must be sim, twilio or sip, not ${JSON.stringify(name)}`
      })
    )
  )
})

/**
 * The carrier of a choice. The simulated one also provides its `InboundSimulator`; the SIP one
 * waits for its media sessions and inbound calls (`Sip.Bindings`, handed over by `Sip.bind`),
 * and fails when its listening address cannot be bound.
 *
 * @category layers
 */
export const layerOf = (
  chosen: Choice
): Layer.Layer<
  Carrier,
  Config.ConfigError,
  CallEvents | CarrierCalls | AgentRepository | ConversationRepository | Sip.Bindings
> => {
  switch (chosen._tag) {
    case "sim":
      return SimCarrier.layerWith({ machineDetection: chosen.machineDetection }).pipe(
        Layer.provide(SimBriefings.layer)
      )
    case "twilio":
      return TwilioCarrier.layer(TwilioCarrier.optionsFrom(chosen.config))
    case "sip":
      return Sip.carrier(chosen.config)
  }
}

/**
 * The configured carrier.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<
  Carrier,
  Config.ConfigError,
  CallEvents | CarrierCalls | AgentRepository | ConversationRepository | Sip.Bindings
> = Layer.unwrap(
  Effect.map(choice, layerOf)
)
