/**
 * Media streams in memory: two joined `MediaSocket`s, and a `MediaConnector` that hands the far
 * end of each connection to a server function (the engine's media session) instead of opening a
 * WebSocket. The frames and the code on both ends are the real ones; only the socket is not.
 * Each direction is a bounded queue, so a slow reader makes the sender wait as a socket would.
 *
 * @since 0.1.0
 */
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { incomingOf, MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import type { Cause } from "effect"
import { Effect, Layer, Queue, Scope } from "effect"

/** Frames a direction holds before its sender waits. */
const capacity = 256

/**
 * Two joined sockets: what one sends, the other receives. Closing either ends both streams.
 *
 * @category constructors
 */
export const pair: Effect.Effect<readonly [MediaSocket, MediaSocket]> = Effect.gen(function*() {
  const ab = yield* Queue.bounded<string, Cause.Done>(capacity)
  const ba = yield* Queue.bounded<string, Cause.Done>(capacity)
  const close = Effect.all([Queue.end(ab), Queue.end(ba)], { discard: true })
  const end = (inbox: Queue.Queue<string, Cause.Done>, outbox: Queue.Queue<string, Cause.Done>): MediaSocket => {
    const read = Queue.takeAll(inbox).pipe(Effect.catch(() => Effect.undefined))
    return {
      read,
      incoming: incomingOf(read),
      send: (text) => Queue.offer(outbox, text).pipe(Effect.asVoid),
      close
    }
  }
  return [end(ba, ab), end(ab, ba)] as const
})

/**
 * A connector whose every connection is served by `serve` (forked in `scope`, the server's
 * lifetime), whatever the URL.
 *
 * @category layers
 */
export const connector = <R>(
  serve: (socket: MediaSocket) => Effect.Effect<void, never, R>
): Layer.Layer<MediaConnector, never, R> =>
  Layer.effect(
    MediaConnector,
    Effect.gen(function*() {
      const scope = yield* Scope.Scope
      const context = yield* Effect.context<R>()
      return MediaConnector.of({
        connect: () =>
          Effect.gen(function*() {
            const [client, server] = yield* pair
            yield* Effect.forkIn(Effect.provide(serve(server), context), scope)
            yield* Effect.addFinalizer(() => client.close)
            return client
          })
      })
    })
  )
