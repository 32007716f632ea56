/**
 * DialerWakeup on SQL: on PostgreSQL a `NOTIFY` on {@link channel}, which reaches every daemon
 * on the database through its one `LISTEN` on the channel (started on first use, see
 * internal/listener); on the embedded database (one process) an in-process signal.
 *
 * Wake-ups carry nothing, so they coalesce: each subscriber keeps at most one pending
 * (a sliding PubSub of capacity 1); a loop busy while several arrive wakes once after, which
 * is all it needs (it looks for itself). When the `LISTEN` connection is lost and comes back,
 * subscribers get one wake-up, for whatever was sent in between.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { Effect, Layer, PubSub, Stream } from "effect"
import { isEmbedded } from "./Database.ts"
import * as Listener from "./internal/listener.ts"

/**
 * The PostgreSQL notification channel of wake-ups.
 *
 * @category constructors
 */
export const channel = "voice_agent_dialer_wakeup"

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const pg = yield* PgClient.PgClient
  const embedded = isEmbedded(pg)
  const pubsub = yield* Effect.acquireRelease(PubSub.sliding<void>(1), PubSub.shutdown)
  const wake = PubSub.publish(pubsub, undefined)

  const listening = embedded ? Effect.void : yield* Listener.make(pg, channel, {
    onNotification: () => {
      PubSub.publishUnsafe(pubsub, undefined)
    },
    onListening: wake
  })

  return DialerWakeup.of({
    notify: (embedded ? wake : pg.notify(channel, "")).pipe(
      Effect.asVoid,
      Effect.orDie,
      Effect.withSpan("DialerWakeup.notify")
    ),
    wakeups: Effect.gen(function*() {
      yield* listening
      return Stream.fromSubscription(yield* PubSub.subscribe(pubsub))
    }).pipe(Effect.withSpan("DialerWakeup.wakeups"))
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(DialerWakeup, make)
