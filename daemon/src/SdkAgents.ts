/**
 * SDK agents in the daemon (packages/sdk-agents), with their settings read from the environment:
 * `VOICE_AGENT_REMOTE_GRACE_MS`, how long an SDK agent has to connect to its call or to come
 * back after a drop before the call ends `bot-failure` (default 30000). The variable keeps its
 * name from before "remote" was kept for the person on the call (docs/VOCABULARY.md).
 *
 * @since 0.1.0
 */
import * as CallSessions from "@voice-agent/sdk-agents/CallSessions"
import * as SdkAgents from "@voice-agent/sdk-agents/SdkAgents"
import { Config, Effect, Layer } from "effect"

export { routes } from "@voice-agent/sdk-agents/SdkAgents"

const graceMs = Config.Int("VOICE_AGENT_REMOTE_GRACE_MS").pipe(Config.withDefault(CallSessions.defaultSettings.graceMs))

/**
 * The call sessions and the listeners.
 *
 * @category layers
 */
export const layer = Layer.unwrap(
  Effect.map(graceMs, (grace) => SdkAgents.layer({ ...CallSessions.defaultSettings, graceMs: grace }))
).pipe(Layer.orDie)
