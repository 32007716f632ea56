/**
 * The retention prune of event webhooks (docs/WEBHOOKS.md): every `everyMs`, and once at start,
 * each process deletes the events older than `retentionMs` with their deliveries and attempts
 * (`WebhookRepository.prune`), `batch` events per statement until a statement finds fewer. An
 * event with a pending delivery stays until the delivery ends.
 *
 * Several processes on one database prune side by side: each statement skips the events another
 * is deleting, so none waits and none deletes twice. Time is the application's `Clock`.
 *
 * @since 0.1.0
 */
import type { Pruned } from "@voice-agent/core/ports/WebhookRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { Clock, Duration, Effect, Layer } from "effect"
import type { Scope } from "effect"

/**
 * @category models
 */
export interface RetentionSettings {
  /** How long an event and its deliveries are kept after the event; `null`: forever. */
  readonly retentionMs: number | null
  /** How often each process prunes. */
  readonly everyMs: number
  /** Most events one statement deletes (a short transaction, short locks). */
  readonly batch: number
}

/**
 * Settings with the defaults of docs/WEBHOOKS.md: 30 days, pruned hourly, 1,000 events per
 * statement.
 *
 * @category constructors
 */
export const makeSettings = (overrides: Partial<RetentionSettings> = {}): RetentionSettings => ({
  retentionMs: 30 * 86_400_000,
  everyMs: 3_600_000,
  batch: 1_000,
  ...overrides
})

/**
 * One prune: batches until one deletes fewer events than `batch`; answers the totals.
 *
 * @category constructors
 */
export const prune = (
  settings: RetentionSettings & { readonly retentionMs: number }
): Effect.Effect<Pruned, never, WebhookRepository> =>
  Effect.gen(function*() {
    const repository = yield* WebhookRepository
    const before = (yield* Clock.currentTimeMillis) - settings.retentionMs
    let events = 0
    let deliveries = 0
    while (true) {
      const pruned = yield* repository.prune({ before, limit: settings.batch })
      events += pruned.events
      deliveries += pruned.deliveries
      if (pruned.events < settings.batch) return { events, deliveries }
    }
  })

/**
 * Prunes now and every `everyMs` until the scope closes (nothing with `retentionMs` null).
 *
 * @category constructors
 */
export const run = (settings: RetentionSettings): Effect.Effect<void, never, WebhookRepository | Scope.Scope> => {
  const { retentionMs } = settings
  if (retentionMs === null) return Effect.logInfo("Webhook events are kept forever (no retention period)")
  const once = prune({ ...settings, retentionMs }).pipe(
    Effect.tap((pruned) =>
      pruned.events === 0 ? Effect.void : Effect.logInfo(
        `Pruned ${pruned.events} webhook events and ${pruned.deliveries} deliveries older than ${
          Duration.format(Duration.millis(retentionMs))
        }`
      )
    ),
    Effect.catchCause((cause) => Effect.logError("Pruning webhook events failed; trying again later", cause))
  )
  return Effect.asVoid(
    Effect.forkScoped(Effect.forever(Effect.andThen(once, Effect.sleep(Duration.millis(settings.everyMs)))))
  )
}

/**
 * The prune as a layer: it runs while the layer lives.
 *
 * @category layers
 */
export const layer = (settings: RetentionSettings): Layer.Layer<never, never, WebhookRepository> =>
  Layer.effectDiscard(run(settings))
