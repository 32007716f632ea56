/**
 * Remote agents in the daemon (the reference SDK's protocol): the call sessions, the discovery
 * sockets (which are also the engine's `CallControllers`) and their routes, with the settings
 * read from the environment: `VOICE_AGENT_REMOTE_GRACE_MS`, how long an agent has to connect to
 * its call or to come back after a drop before the call ends `bot-failure` (default 30000).
 *
 * @since 0.1.0
 */
import { Config, Effect, Layer } from "effect"
import * as CallSessions from "./CallSessions.ts"
import * as Discovery from "./Discovery.ts"

export { routes } from "./Routes.ts"

const graceMs = Config.Int("VOICE_AGENT_REMOTE_GRACE_MS").pipe(Config.withDefault(CallSessions.defaultSettings.graceMs))

/**
 * The call sessions and the discovery sockets.
 *
 * @category layers
 */
export const layer = Layer.unwrap(Effect.map(graceMs, (grace) =>
  Discovery.layer().pipe(
    Layer.provideMerge(CallSessions.layer({ ...CallSessions.defaultSettings, graceMs: grace }))
  ))).pipe(Layer.orDie)
