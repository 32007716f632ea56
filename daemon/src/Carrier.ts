/**
 * Which carrier the daemon talks to (docs/DAEMON.md): `VOICE_AGENT_CARRIER=sim` (the default, the
 * deterministic simulated carrier of packages/carrier-sim/README.md; with
 * `VOICE_AGENT_SIM_MACHINE_DETECTION=engine` it leaves answering machines to the engine's
 * detection, as a SIP trunk does, instead of telling them itself, `carrier`, the default) or
 * `twilio` (with `TWILIO_ACCOUNT_SID`,
 * `TWILIO_AUTH_TOKEN` (it signs the webhooks), optionally `TWILIO_API_KEY` and `TWILIO_API_SECRET`
 * for the REST API, `TWILIO_API_BASE` and
 * `VOICE_AGENT_PUBLIC_URL`; a missing or malformed one stops the daemon at start with a
 * sentence that names it). The carrier reports calls' progress to `CallEvents`, which the
 * daemon's storage provides; with Twilio, the reports arrive at the webhook routes
 * (`TwilioWebhooks`), which `serve` mounts.
 *
 * @since 0.1.0
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import * as TwilioCarrier from "@voice-agent/carrier-twilio/TwilioCarrier"
import * as TwilioConfig from "@voice-agent/carrier-twilio/TwilioConfig"
import type { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import type { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import * as SimBriefings from "./SimBriefings.ts"

/**
 * The configured carrier: the simulated one, or Twilio with its settings.
 *
 * @category models
 */
export type Choice =
  | { readonly _tag: "sim"; readonly machineDetection: SimCarrier.MachineDetection }
  | { readonly _tag: "twilio"; readonly config: TwilioConfig.TwilioConfig }

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
  return yield* Effect.fail(
    new Config.ConfigError(
      new ConfigProvider.SourceError({
        message: `VOICE_AGENT_CARRIER must be sim or twilio, not ${JSON.stringify(name)}`
      })
    )
  )
})

/**
 * The carrier of a choice. The simulated one also provides its `InboundSimulator`.
 *
 * @category layers
 */
export const layerOf = (
  chosen: Choice
): Layer.Layer<Carrier, never, CallEvents | CarrierCalls | AgentRepository | ConversationRepository> =>
  chosen._tag === "sim"
    ? SimCarrier.layerWith({ machineDetection: chosen.machineDetection }).pipe(Layer.provide(SimBriefings.layer))
    : TwilioCarrier.layer(TwilioCarrier.optionsFrom(chosen.config))

/**
 * The configured carrier.
 *
 * @category layers
 */
export const layerConfig: Layer.Layer<
  Carrier,
  Config.ConfigError,
  CallEvents | CarrierCalls | AgentRepository | ConversationRepository
> = Layer.unwrap(
  Effect.map(choice, layerOf)
)
