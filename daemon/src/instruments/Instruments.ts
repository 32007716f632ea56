/**
 * The instruments of `serve` (docs/OPERATIONS.md), composed for Server.ts: the health routes
 * always; with metrics on (`VOICE_AGENT_METRICS`, default `on`), `GET /metrics`, the HTTP
 * request metrics around the router and the call metrics around the ports.
 *
 * @since 0.1.0
 */
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import type { Providers } from "@voice-agent/core/ports/Providers"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import * as Health from "./Health.ts"
import * as HttpMetrics from "./HttpMetrics.ts"
import * as MetricsEndpoint from "./MetricsEndpoint.ts"
import * as PortMetrics from "./PortMetrics.ts"

/**
 * @category models
 */
export interface Settings {
  /** `VOICE_AGENT_METRICS`: `on` (default) or `off` (no `/metrics`, nothing counted). */
  readonly metrics: boolean
}

/**
 * @category constructors
 */
export const settings: Config.Config<Settings> = Config.String("VOICE_AGENT_METRICS").pipe(
  Config.withDefault("on"),
  Config.mapEffect((value) => {
    const normalized = value.trim().toLowerCase()
    return normalized === "on" || normalized === "off"
      ? Effect.succeed({ metrics: normalized === "on" })
      : Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({
            message: `VOICE_AGENT_METRICS must be on or off, not ${JSON.stringify(value)}`
          })
        )
      )
  })
)

/**
 * The routes of the instruments.
 *
 * @category layers
 */
export const routes = (settings: Settings) =>
  settings.metrics ? Layer.mergeAll(Health.routes, MetricsEndpoint.route) : Health.routes

/**
 * The application's route layers, with every request counted by route and status when metrics
 * are on (a global middleware of the router: the server itself has none).
 *
 * @category layers
 */
export const withRequestMetrics = <A, E, R>(settings: Settings, app: Layer.Layer<A, E, R>) =>
  settings.metrics ? HttpMetrics.counting(app) : app

type Ports = Carrier | ConversationRepository | DialerRepository | Providers | RecordingStore

/**
 * The ports, counted when metrics are on (as they are otherwise).
 *
 * @category layers
 */
export const ports: Layer.Layer<Ports, Config.ConfigError, Ports> = Layer.unwrap(
  Effect.map(settings, (s) => s.metrics ? PortMetrics.layer : Layer.effectContext(Effect.context<Ports>()))
)
