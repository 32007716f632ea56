/**
 * One PostgreSQL `LISTEN` per channel per process, fanned out in process by the caller's
 * handler: the notifications of SqlCallEvents and SqlDialerWakeup. The listening connection is
 * taken from the pool on first use (a daemon that never dials holds none) and kept until the
 * layer's scope closes. When it fails (the server restarted, the network dropped) the listener
 * logs, waits a second and listens again; `onListening` runs after every confirmed `LISTEN`,
 * the first included, so the caller can catch up on whatever was sent while nobody listened.
 *
 * Bounds: the driver queues notifications unboundedly per listener, and this drains that queue
 * as fast as they arrive: `onNotification` is synchronous and must not block (the callers hand
 * each notification to bounded in-process queues that never fill; see their headers).
 */
import type { PgClient } from "@effect/sql-pg"
import { Cause, Deferred, Effect, Queue } from "effect"
import type { Scope } from "effect"

/**
 * Starts listening to `channel` on the first run of the returned effect, which completes once
 * the `LISTEN` is confirmed (at once after that). The listener lives in the current scope.
 */
export const make = (
  pg: PgClient.PgClient,
  channel: string,
  handlers: {
    readonly onNotification: (payload: string) => void
    readonly onListening: Effect.Effect<void, unknown>
  }
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const listening = yield* Deferred.make<void>()
    let started = false

    const session = Effect.scoped(Effect.gen(function*() {
      const queue = yield* pg.listen(channel)
      yield* handlers.onListening
      yield* Deferred.succeed(listening, undefined)
      return yield* Effect.forever(
        Effect.flatMap(Queue.take(queue), (notification) =>
          Effect.sync(() => handlers.onNotification(notification.payload)))
      )
    }))

    const listenForever = session.pipe(
      Effect.catchCauseIf(
        (cause) =>
          !Cause.hasInterruptsOnly(cause),
        (cause) => Effect.logWarning(`LISTEN ${channel} failed; listening again in 1 s`, cause)
      ),
      Effect.andThen(Effect.sleep("1 second")),
      Effect.forever
    )

    return Effect.suspend(() => {
      if (started) return Deferred.await(listening)
      started = true
      return Effect.andThen(Effect.forkIn(listenForever, scope), Deferred.await(listening))
    })
  })
