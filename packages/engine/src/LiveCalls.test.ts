import { assert, describe, it } from "@effect/vitest"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import { Deferred, Effect, Fiber, Stream } from "effect"
import * as LiveCalls from "./LiveCalls.ts"

const segmentMs = 200
const segmentSamples = segmentMs * CallTimeline.SAMPLES_PER_MS

/** The `index`th 200 ms segment of a call: its samples all `index`, so it is recognizable. */
const segment = (index: number): CallTimeline.Segment => {
  const pcm = new Int16Array(segmentSamples).fill(index)
  return { start: index * segmentSamples, agent: pcm, remote: pcm, mixed: pcm }
}

/** The indexes of the segments a listener got. */
const indexes = (segments: ReadonlyArray<CallTimeline.Segment>) => segments.map((s) => s.start / segmentSamples)

/** Registers a call, publishes `before` segments, then has a listener subscribe and the call go on to `total`. */
const heard = (options: { readonly before: number; readonly total: number; readonly fromAnswer?: boolean }) =>
  Effect.gen(function*() {
    const calls = yield* LiveCalls.make
    const published = yield* Deferred.make<void>()
    const subscribed = yield* Deferred.make<void>()
    const session = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
      const call = yield* calls.register("CA1")
      for (let i = 0; i < options.before; i++) call.publishUnsafe(segment(i))
      yield* Deferred.succeed(published, undefined)
      yield* Deferred.await(subscribed)
      for (let i = options.before; i < options.total; i++) call.publishUnsafe(segment(i))
    })))
    const segments = yield* Effect.scoped(Effect.gen(function*() {
      yield* Deferred.await(published)
      const stream = yield* calls.listen("CA1", Effect.never, { fromAnswer: options.fromAnswer ?? false })
      yield* Deferred.succeed(subscribed, undefined)
      return yield* Stream.runCollect(stream)
    }))
    yield* Fiber.join(session)
    return indexes(segments)
  })

describe("LiveCalls", () => {
  it.live("a listener that asks for the opening gets the call from its answer, each segment once", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* heard({ before: 5, total: 12, fromAnswer: true }), [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11
      ])
    }))

  it.live("any other listener hears the call from when it subscribed", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* heard({ before: 5, total: 12 }), [5, 6, 7, 8, 9, 10, 11])
    }))

  it.live("the opening is let go once the call is older than openingMs", () =>
    Effect.gen(function*() {
      const opening = LiveCalls.openingMs / segmentMs
      // Published past the opening before the listener came: it hears from then on only.
      assert.deepStrictEqual(
        yield* heard({ before: opening + 1, total: opening + 3, fromAnswer: true }),
        [opening + 1, opening + 2]
      )
      // Still within it: the whole opening.
      assert.deepStrictEqual(
        yield* heard({ before: opening, total: opening + 2, fromAnswer: true }),
        Array.from({ length: opening + 2 }, (_, i) => i)
      )
    }))

  it.live("a listener slower than the call loses the oldest segments, never the latest nor the end", () =>
    Effect.gen(function*() {
      const calls = yield* LiveCalls.make
      const total = LiveCalls.capacity + 44
      const segments = yield* Effect.scoped(Effect.gen(function*() {
        const stream = yield* calls.listen("CA1", Effect.never)
        // The session publishes the whole call before the listener reads anything.
        yield* Effect.scoped(Effect.gen(function*() {
          const call = yield* calls.register("CA1")
          for (let i = 0; i < total; i++) call.publishUnsafe(segment(i))
        }))
        return yield* Stream.runCollect(stream)
      }))
      // The queue held `capacity` items: the last segments, then the end marker that ended the stream.
      assert.deepStrictEqual(
        indexes(segments),
        Array.from({ length: LiveCalls.capacity - 1 }, (_, i) => total - LiveCalls.capacity + 1 + i)
      )
    }))
})
