/**
 * Traces over OTLP/HTTP (docs/OPERATIONS.md), through Effect's own exporter (no OpenTelemetry
 * SDK), configured by the standard variables:
 *
 * - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the URL spans are posted to, as is), or
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` (a base: `/v1/traces` is added); neither set, nothing is made
 *   or exported, and spans stay off as before (Server.ts).
 * - `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/json` sends
 *   JSON; anything else (`http/protobuf`, the default) protobuf.
 * - `OTEL_SERVICE_NAME` (default `voice-agent`); `OTEL_RESOURCE_ATTRIBUTES`,
 *   `OTEL_EXPORTER_OTLP_HEADERS` as the exporter reads them.
 *
 * What is traced: each HTTP request (a server span with `http.request.method`, `http.route`,
 * `http.response.status_code`), and each call, one trace (core Tracing): its `call` span (dial,
 * ring, answer, end), its media session with the recordings, the greeting and each turn with
 * its recognition, model and speech (agents TurnTrace), every span carrying
 * `voice_agent.call_id` (docs/OPERATIONS.md has the table). The daemon's background work (dial
 * loop polls, the webhook worker) makes no spans.
 *
 * @since 0.1.0
 */
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import * as Tracing from "@voice-agent/core/Tracing"
import { Config, Context, Effect, Layer, Option, References, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

/**
 * @category models
 */
export interface Settings {
  readonly url: string
  readonly protocol: "json" | "protobuf"
  readonly serviceName: string
}

const nonEmpty = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

/**
 * The settings, or none when no endpoint is set.
 *
 * @category constructors
 */
export const settings: Config.Config<Option.Option<Settings>> = Config.all({
  traces: nonEmpty("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  base: nonEmpty("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesProtocol: nonEmpty("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  protocol: nonEmpty("OTEL_EXPORTER_OTLP_PROTOCOL"),
  serviceName: nonEmpty("OTEL_SERVICE_NAME")
}).pipe(Config.map(({ base, protocol, serviceName, traces, tracesProtocol }) => {
  const url = Option.orElse(
    traces,
    () => Option.map(base, (b) => `${b.replace(/\/+$/, "")}/v1/traces`)
  )
  return Option.map(url, (u): Settings => ({
    url: u,
    protocol: Option.getOrElse(Option.orElse(tracesProtocol, () => protocol), () => "http/protobuf").trim() ===
        "http/json"
      ? "json"
      : "protobuf",
    serviceName: Option.getOrElse(serviceName, () => "voice-agent")
  }))
}))

/**
 * The exporter: a tracer that posts spans in batches, flushed when the layer is released.
 *
 * @category layers
 */
export const exporter = (s: Settings) =>
  OtlpTracer.layer({ url: s.url, resource: { serviceName: s.serviceName } }).pipe(
    Layer.provide(s.protocol === "json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer)
  )

/**
 * No span is made (the daemon's default: with nothing to export them to, the spans of
 * `Effect.fn` and the HTTP server would cost about 6% of a simple request's CPU).
 *
 * @category combinators
 */
export const withoutSpans = Effect.provideService(References.TracerEnabled, false)

/**
 * Runs the daemon `self` with the exporter when traces are configured, spans off outside calls
 * and requests (and no parent span from the command line around it, so each request and each
 * call starts its own trace); without, spans off altogether.
 *
 * @category combinators
 */
export const around = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | Config.ConfigError, R> =>
  Effect.gen(function*() {
    const configured = yield* settings
    if (Option.isNone(configured)) return yield* withoutSpans(self)
    yield* Effect.logDebug(`Traces go to ${configured.value.url} (${configured.value.protocol})`)
    return yield* self.pipe(
      withoutSpans,
      Effect.updateContext((context: Context.Context<R>) =>
        Context.omit(Tracer.ParentSpan)(context) as Context.Context<R>
      ),
      Effect.provide(exporter(configured.value))
    )
  })

/**
 * The HTTP server's layer, with spans on in its requests when traces are configured.
 *
 * @category layers
 */
export const serving = <A, E, R>(configured: Option.Option<Settings>, layer: Layer.Layer<A, E, R>) =>
  Option.isSome(configured) ? layer.pipe(Layer.provide(Layer.succeed(References.TracerEnabled, true))) : layer

/**
 * The conversation reads a media stream makes before its session (and its span) starts, with
 * the call id on their spans and on the stream's request span (core Tracing `ofCall`).
 *
 * @category layers
 */
export const callPorts: Layer.Layer<ConversationRepository, never, ConversationRepository> = Layer.effect(
  ConversationRepository,
  Effect.map(ConversationRepository, (conversations) =>
    ConversationRepository.of({
      ...conversations,
      callContext: (callId) => conversations.callContext(callId).pipe(Tracing.ofCall(callId)),
      claimStream: (callId, streamId) => conversations.claimStream(callId, streamId).pipe(Tracing.ofCall(callId))
    }))
)
