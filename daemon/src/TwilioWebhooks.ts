/**
 * Twilio's webhook routes in the daemon (carrier-twilio/TwilioRoutes), mounted when
 * `VOICE_AGENT_CARRIER=twilio`: their media URL is Inbound's `MediaEndpoint` (the public URL's,
 * or this daemon's own once it listens), their stream tokens the engine's media tokens under
 * the server's secret.
 *
 * @since 0.1.0
 */
import * as TwilioRoutes from "@voice-agent/carrier-twilio/TwilioRoutes"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import { Deferred, Effect, Layer } from "effect"
import { MediaEndpoint } from "./Inbound.ts"

export { maxBodyBytes } from "@voice-agent/carrier-twilio/TwilioRoutes"

const streamTokens = Layer.effect(
  TwilioRoutes.StreamTokens,
  Effect.gen(function*() {
    const secrets = yield* ServerSecrets
    return TwilioRoutes.StreamTokens.of({
      sign: (callId, expiresAtMs) =>
        Effect.map(secrets.cursorKey, (secret) => MediaToken.sign(MediaToken.keyFrom(secret), callId, expiresAtMs))
    })
  })
)

/**
 * The four webhook routes.
 *
 * @category layers
 */
export const routes = (settings: Omit<TwilioRoutes.TwilioWebhookSettings, "mediaUrl">) =>
  Layer.unwrap(Effect.gen(function*() {
    const endpoint = yield* MediaEndpoint
    return TwilioRoutes.routes({ ...settings, mediaUrl: Deferred.await(endpoint) })
  })).pipe(Layer.provide(streamTokens))
