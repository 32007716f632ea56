/**
 * Inbound calls in the daemon: the engine's `InboundCalls`, which carriers' webhooks and the
 * admin API's simulated inbound call hand incoming calls to. Calls stream to the media endpoint
 * that `VOICE_AGENT_PUBLIC_URL` names, or else to this daemon's own, known once it listens:
 * `MediaEndpoint` holds that URL until the server is up, and `announce` sets it.
 *
 * @since 0.1.0
 */
import * as EngineInbound from "@voice-agent/engine/InboundCalls"
import { Context, Deferred, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import * as Dialer from "./Dialer.ts"
import * as Media from "./Media.ts"

/**
 * The URL of the media endpoint carriers reach, once known.
 *
 * @category services
 */
export class MediaEndpoint extends Context.Service<MediaEndpoint, Deferred.Deferred<string>>()(
  "voice-agent/Inbound/MediaEndpoint"
) {}

/**
 * @category layers
 */
export const mediaEndpoint: Layer.Layer<MediaEndpoint> = Layer.effect(MediaEndpoint, Deferred.make<string>())

/**
 * Sets the media endpoint's URL: the public one, or this server's own address.
 *
 * @category layers
 */
export const announce: Layer.Layer<never, never, MediaEndpoint | HttpServer.HttpServer> = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const own = `${HttpServer.formatAddress(server.address).replace(/^http/, "ws")}${Media.path}`
    const url = (yield* Dialer.publicMediaUrl.pipe(Effect.orDie)) ?? own
    yield* Deferred.succeed(yield* MediaEndpoint, url)
  })
)

/**
 * The engine's inbound calls, streaming to the media endpoint once it is announced.
 *
 * @category layers
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const endpoint = yield* MediaEndpoint
  return EngineInbound.layer(EngineInbound.defaults(Deferred.await(endpoint)))
}))
