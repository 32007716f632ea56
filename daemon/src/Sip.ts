/**
 * The SIP carrier in the daemon (`VOICE_AGENT_CARRIER=sip`, docs/SIP.md, docs/DAEMON.md): the
 * user agent facing the trunk and the `Carrier` over it (`SipCarrier.makeWithUserAgent`), with
 * what it needs from the rest of the daemon.
 *
 * A SIP call's media runs in the process that holds its dialog: the RTP session is bound to this
 * process's sockets, and the engine's media session serves it in memory (`SipMedia`), not over
 * the media WebSocket. So the process that dials (and answers) needs the agent, the recordings
 * and the engine's `InboundCalls`. Those are built above the carrier in `serve` (the engine's
 * inbound calls and the media session's live-listen registry need the carrier, or the server,
 * below them), so the carrier is built with stand-ins that wait for them (`Bindings`), and
 * `bind`, built once they exist, hands them over. No call can use them before: the dialer starts
 * after `bind`, and an inbound INVITE arriving first waits (its 100 and 180 already sent).
 *
 * A UDP socket cannot be shared between processes and still keep each dialog in the one that
 * holds it, so the SIP carrier runs in one process: `serve --workers` is refused above 1 (and
 * its default is 1 with SIP), and `voice-agent dial`, which has no agent, refuses the SIP carrier
 * (`Server.dial`).
 *
 * @since 0.1.0
 */
import * as SipCarrier from "@voice-agent/carrier-sip/SipCarrier"
import type * as SipConfig from "@voice-agent/carrier-sip/SipConfig"
import * as SipMedia from "@voice-agent/carrier-sip/SipMedia"
import type { Agent } from "@voice-agent/core/ports/Agent"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import { Config, ConfigProvider, Context, Deferred, Effect, Layer } from "effect"

/**
 * What the carrier waits for: the media sessions and the engine's inbound calls, once built.
 *
 * @category services
 */
export class Bindings extends Context.Service<Bindings, {
  readonly sessions: Deferred.Deferred<SipMedia.MediaSessions["Service"]>
  readonly inbound: Deferred.Deferred<InboundCalls["Service"]>
}>()("voice-agent/Sip/Bindings") {}

/**
 * @category layers
 */
export const bindings: Layer.Layer<Bindings> = Layer.effect(
  Bindings,
  Effect.all({
    sessions: Deferred.make<SipMedia.MediaSessions["Service"]>(),
    inbound: Deferred.make<InboundCalls["Service"]>()
  })
)

/**
 * The SIP carrier for `config`, listening on `SIP_LISTEN` (logged with the port it got). A
 * listening address that cannot be bound stops the daemon with a sentence naming `SIP_LISTEN`.
 *
 * @category layers
 */
export const carrier = (
  config: SipConfig.SipConfig
): Layer.Layer<Carrier, Config.ConfigError, CallEvents | Bindings> =>
  Layer.effect(
    Carrier,
    Effect.gen(function*() {
      const { inbound, sessions } = yield* Bindings
      const waitingSessions = SipMedia.MediaSessions.of({
        serve: (socket, codec) => Effect.flatMap(Deferred.await(sessions), (bound) => bound.serve(socket, codec))
      })
      const waitingInbound = InboundCalls.of({
        accept: (call) => Effect.flatMap(Deferred.await(inbound), (bound) => bound.accept(call))
      })
      const built = yield* SipCarrier.makeWithUserAgent(config).pipe(
        Effect.provideService(SipMedia.MediaSessions, waitingSessions),
        Effect.provideService(InboundCalls, waitingInbound),
        Effect.mapError((error) =>
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message: `SIP_LISTEN ${config.listen.host}:${config.listen.port} cannot be used: ${error.detail}`
            })
          )
        )
      )
      const trunk = `${config.trunk.host}:${config.trunk.port} over ${config.trunk.transport.toUpperCase()}`
      yield* Effect.logInfo(
        `SIP carrier listening on ${config.listen.host}:${built.calls.port} (UDP and TCP), ` +
          `public address ${config.publicAddress}, RTP ports ${config.rtpPorts.low}-${config.rtpPorts.high}, ` +
          `trunk ${trunk}${config.register ? ", registering" : ""}`
      )
      return built.carrier
    })
  )

/**
 * Hands the carrier its media sessions (the engine's `MediaSession.serve` in this context: the
 * agent, the recordings, live listen's registry when present) and the engine's inbound calls.
 *
 * @category layers
 */
export const bind: Layer.Layer<
  never,
  never,
  Bindings | Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets | InboundCalls
> = Layer.effectDiscard(
  Effect.gen(function*() {
    const { inbound, sessions } = yield* Bindings
    // The whole context, so that the session finds the optional services (LiveCalls) too.
    const context = yield* Effect.context<
      Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets
    >()
    yield* Deferred.succeed(
      sessions,
      SipMedia.MediaSessions.of({
        serve: (socket, codec) => Effect.provide(MediaSession.serve(socket, { codec }), context)
      })
    )
    yield* Deferred.succeed(inbound, yield* InboundCalls)
  })
)
