/**
 * The calls whose media this process serves, for live listening (CONTRACT §7 "Live listen").
 * MediaSession registers each call it runs, publishes every aligned timeline segment to the
 * call's listeners as it writes it, and unregisters the call when the session ends, which ends
 * every listener's stream.
 *
 * In process only: a call whose media another daemon serves is not here.
 *
 * Bounds: each call has one sliding PubSub of `capacity` segments; a listener that reads slower
 * than the call plays loses the oldest segments, never grows memory. The end marker is
 * published last, so a sliding PubSub always keeps it.
 *
 * @since 0.1.0
 */
import type * as CallTimeline from "@voice-agent/media/CallTimeline"
import { Context, Effect, Layer, Option, PubSub, Stream } from "effect"
import type { Scope } from "effect"

type Item =
  | { readonly _tag: "Segment"; readonly segment: CallTimeline.Segment }
  | { readonly _tag: "End" }

/**
 * A registered call, as its session sees it.
 *
 * @category models
 */
export interface LiveCall {
  /** Hands a written segment to the call's listeners (never waits, never fails). */
  readonly publish: (segment: CallTimeline.Segment) => Effect.Effect<void>
}

/**
 * @category services
 */
export class LiveCalls extends Context.Service<LiveCalls, {
  /** Registers the call for the scope; closing the scope ends its listeners' streams. */
  readonly register: (callId: string) => Effect.Effect<LiveCall, never, Scope.Scope>
  /**
   * Subscribes to the call now (for the scope), if this process serves its media: the segments
   * written from now on, ending when the call ends.
   */
  readonly listen: (
    callId: string
  ) => Effect.Effect<Option.Option<Stream.Stream<CallTimeline.Segment>>, never, Scope.Scope>
}>()("@voice-agent/engine/LiveCalls") {}

/**
 * Segments each call's PubSub holds for a slow listener (a segment is at most the timeline's
 * `maxSegmentMs`; usually one frame's worth).
 *
 * @category constructors
 */
export const capacity = 256

interface Entry {
  readonly pubsub: PubSub.PubSub<Item>
  ended: boolean
}

/**
 * @category constructors
 */
export const make: Effect.Effect<LiveCalls["Service"]> = Effect.sync(() => {
  const calls = new Map<string, Entry>()
  return LiveCalls.of({
    register: (callId) =>
      Effect.acquireRelease(
        Effect.gen(function*() {
          const entry: Entry = { pubsub: yield* PubSub.sliding<Item>(capacity), ended: false }
          calls.set(callId, entry)
          return entry
        }),
        (entry) =>
          Effect.suspend(() => {
            if (calls.get(callId) === entry) calls.delete(callId)
            entry.ended = true
            return PubSub.publish(entry.pubsub, { _tag: "End" })
          })
      ).pipe(
        Effect.map((entry): LiveCall => ({
          publish: (segment) => PubSub.publish(entry.pubsub, { _tag: "Segment", segment }).pipe(Effect.asVoid)
        }))
      ),
    listen: (callId) =>
      Effect.gen(function*() {
        const entry = calls.get(callId)
        if (entry === undefined || entry.ended) return Option.none()
        const subscription = yield* PubSub.subscribe(entry.pubsub)
        // Ended between the lookup and the subscription: the end marker was published before.
        const ended = entry.ended
        const items: Stream.Stream<Item> = ended
          ? Stream.empty
          : Stream.fromEffectRepeat(PubSub.take(subscription)).pipe(
            Stream.takeWhile((item) => item._tag === "Segment")
          )
        return Option.some(
          Stream.flatMap(items, (item) => item._tag === "Segment" ? Stream.succeed(item.segment) : Stream.empty)
        )
      })
  })
})

/**
 * @category layers
 */
export const layer: Layer.Layer<LiveCalls> = Layer.effect(LiveCalls, make)
