/**
 * The event webhook worker of `serve` (docs/WEBHOOKS.md): the engine's WebhookDelivery over the
 * storage's queue, POSTing through undici (which follows no redirect), and the retention prune
 * (WebhookRetention). Every `serve` process runs both; on PostgreSQL they share the queue, each
 * delivery claimed by one at a time, and prune side by side.
 *
 * Settings (environment):
 * - `VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE`: the delays before each retry, e.g. the default
 *   `5s,5m,30m,2h,5h,10h,10h` (units ms, s, m, h, d), or `none`;
 * - `VOICE_AGENT_WEBHOOK_TIMEOUT`: how long an attempt may take (default `10s`); a claim holds
 *   for three times that, after which a worker that died mid-attempt is retried by another;
 * - `VOICE_AGENT_WEBHOOK_RETENTION`: how long events, their deliveries and attempts are kept
 *   (default `30d`; `none` keeps them forever); every `serve` process prunes hourly.
 *
 * A malformed one stops the daemon at start with a sentence that names it.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { parseRetrySchedule } from "@voice-agent/core/Webhook"
import * as WebhookDelivery from "@voice-agent/engine/WebhookDelivery"
import * as WebhookRetention from "@voice-agent/engine/WebhookRetention"
import { Config, ConfigProvider, Effect, Layer, Option, Result } from "effect"

const invalid = (message: string) => new Config.ConfigError(new ConfigProvider.SourceError({ message }))

/** One positive duration (`10s`, `30d`: the schedule's units), or a sentence naming the setting. */
const oneDuration = (name: string, example: string, text: string): Effect.Effect<number, Config.ConfigError> => {
  const parsed = parseRetrySchedule(text)
  return Result.isSuccess(parsed) && parsed.success.length === 1 && parsed.success[0]! >= 1
    ? Effect.succeed(parsed.success[0]!)
    : Effect.fail(invalid(`${name} must be one duration such as ${example}, not ${JSON.stringify(text)}`))
}

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
    overrides.timeoutMs = yield* oneDuration("VOICE_AGENT_WEBHOOK_TIMEOUT", "10s", timeout.value)
  }
  return WebhookDelivery.makeSettings(overrides)
})

/**
 * The retention prune's settings from the environment.
 *
 * @category constructors
 */
export const retention: Effect.Effect<WebhookRetention.RetentionSettings, Config.ConfigError> = Effect.gen(
  function*() {
    const text = yield* Config.option(Config.String("VOICE_AGENT_WEBHOOK_RETENTION"))
    if (Option.isNone(text)) return WebhookRetention.makeSettings()
    if (text.value.trim() === "none") return WebhookRetention.makeSettings({ retentionMs: null })
    return WebhookRetention.makeSettings({
      retentionMs: yield* oneDuration("VOICE_AGENT_WEBHOOK_RETENTION", "30d, or none", text.value)
    })
  }
)

/**
 * The worker and the retention prune with the environment's settings; they run while the layer
 * lives.
 *
 * @category layers
 */
export const layer = Layer.unwrap(
  Effect.gen(function*() {
    const worker = WebhookDelivery.layer(yield* settings).pipe(Layer.provide(NodeHttpClient.layerUndici))
    return Layer.merge(worker, WebhookRetention.layer(yield* retention))
  })
)
