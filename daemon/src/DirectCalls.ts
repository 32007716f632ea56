/**
 * Outbound calls outside any campaign in the daemon (`POST /v2/create-outbound`): the engine's
 * `DirectCalls`, streaming to the same media endpoint as inbound calls (the public URL's, or
 * this daemon's own once it listens: Inbound's `MediaEndpoint`), with the dialer's ring
 * timeout, call limit and verdict grace, and its drain on shutdown.
 *
 * @since 0.1.0
 */
import * as EngineDirectCalls from "@voice-agent/engine/DirectCalls"
import { Deferred, Effect, Layer } from "effect"
import * as Dialer from "./Dialer.ts"
import { MediaEndpoint } from "./Inbound.ts"

/**
 * The engine's direct calls. Needs Inbound's `MediaEndpoint` (announced once the server
 * listens), the storage ports, `CallEvents`, the `Carrier` and `ServerSecrets`.
 *
 * @category layers
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const endpoint = yield* MediaEndpoint
  return EngineDirectCalls.layer({
    ...EngineDirectCalls.defaults(Deferred.await(endpoint)),
    drainMs: Dialer.drainSeconds * 1000
  })
}))
