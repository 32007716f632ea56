/**
 * The event webhook worker of `serve` (docs/WEBHOOKS.md): the engine's WebhookDelivery over the
 * storage's queue, POSTing through undici (which follows no redirect). Every `serve` process
 * runs one; on PostgreSQL they share the queue, each delivery claimed by one at a time.
 *
 * Settings (environment):
 * - `VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE`: the delays before each retry, e.g. the default
 *   `5s,5m,30m,2h,5h,10h,10h` (units ms, s, m, h, d), or `none`;
 * - `VOICE_AGENT_WEBHOOK_TIMEOUT`: how long an attempt may take (default `10s`); a claim holds
 *   for three times that, after which a worker that died mid-attempt is retried by another.
 *
 * A malformed one stops the daemon at start with a sentence that names it.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { parseRetrySchedule } from "@voice-agent/core/Webhook"
import * as WebhookDelivery from "@voice-agent/engine/WebhookDelivery"
import { Config, ConfigProvider, Effect, Layer, Option, Result } from "effect"

const invalid = (message: string) => new Config.ConfigError(new ConfigProvider.SourceError({ message }))

/**
 * The worker's settings from the environment.
 *
 * @category constructors
 */
export const settings: Effect.Effect<WebhookDelivery.WebhookSettings, Config.ConfigError> = Effect.gen(function*() {
  const schedule = yield* Config.option(Config.String("VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE"))
  const timeout = yield* Config.option(Config.String("VOICE_AGENT_WEBHOOK_TIMEOUT"))
  const overrides: { retrySchedule?: ReadonlyArray<number>; timeoutMs?: number } = {}
  if (Option.isSome(schedule)) {
    const parsed = parseRetrySchedule(schedule.value)
    if (Result.isFailure(parsed)) {
      return yield* Effect.fail(invalid(`VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE: ${parsed.failure}`))
    }
    overrides.retrySchedule = parsed.success
  }
  if (Option.isSome(timeout)) {
    const parsed = parseRetrySchedule(timeout.value)
    if (Result.isFailure(parsed) || parsed.success.length !== 1 || parsed.success[0]! < 1) {
      return yield* Effect.fail(
        invalid(`VOICE_AGENT_WEBHOOK_TIMEOUT must be one duration such as 10s, not ${JSON.stringify(timeout.value)}`)
      )
    }
    overrides.timeoutMs = parsed.success[0]!
  }
  return WebhookDelivery.makeSettings(overrides)
})

/**
 * The worker with the environment's settings; it runs while the layer lives.
 *
 * @category layers
 */
export const layer = Layer.unwrap(
  Effect.map(settings, (s) => WebhookDelivery.layer(s).pipe(Layer.provide(NodeHttpClient.layerUndici)))
)
