/**
 * SDK agents (programs written with an agent SDK that drive calls over the protocol v2): the
 * call sessions, the listeners on the discovery sockets (which are also the engine's
 * `CallControllers`) and their routes, in one layer for a program that composes the engine.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as CallSessions from "./CallSessions.ts"
import * as Listeners from "./Listeners.ts"

export { routes } from "./Routes.ts"

/**
 * The call sessions and the listeners, with the call sessions' settings.
 *
 * @category layers
 */
export const layer = (settings: CallSessions.Settings = CallSessions.defaultSettings) =>
  Listeners.layer().pipe(Layer.provideMerge(CallSessions.layer(settings)))
