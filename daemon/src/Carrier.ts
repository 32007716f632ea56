/**
 * Which carrier the daemon talks to (CONTRACT §3): `VOICE_AGENT_CARRIER=sim` (the default, the
 * deterministic simulated carrier of CONTRACT §6) or `twilio`, which this version does not ship
 * yet and refuses at start with a sentence rather than failing on the first call. The carrier
 * reports calls' progress to `CallEvents`, which the daemon's storage provides.
 *
 * @since 0.1.0
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { Config, ConfigProvider, Effect, Layer } from "effect"

/**
 * @category layers
 */
export const layerConfig: Layer.Layer<Carrier, Config.ConfigError, CallEvents> = Layer.unwrap(
  Effect.gen(function*() {
    const name = (yield* Config.String("VOICE_AGENT_CARRIER").pipe(Config.withDefault("sim"))).trim().toLowerCase()
    if (name === "sim") return SimCarrier.layer
    const message = name === "twilio"
      ? "VOICE_AGENT_CARRIER=twilio is not available in this version; use sim"
      : `VOICE_AGENT_CARRIER must be sim or twilio, not ${JSON.stringify(name)}`
    return yield* Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))
  })
)
