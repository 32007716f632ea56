/**
 * The calls whose media this process serves, for live listening (docs/LISTEN.md).
 * MediaSession registers each call it runs, publishes every aligned timeline segment to the
 * call's listeners as it writes it, and unregisters the call when the session ends, which ends
 * every listener's stream.
 *
 * A listener may come first: a call is listened to from the moment it exists (ringing, or
 * answered with its media not connected yet). The listener then makes the call's entry, and the
 * session that registers later publishes into that same entry, so no segment is lost between
 * the answer and the listener's subscription (there is no look-up to miss). A listener also
 * says when the call has ended (`ended`, from wherever that is known): if no session of this
 * process has registered the call by then (never answered, or its media served by another
 * process), its stream ends there; once a session has registered, the stream ends with the
 * session, after its last segment.
 *
 * In process only: a call whose media another daemon serves has no segments here; a listener
 * there reaches it through this daemon (ListenRelay), which subscribes here on its behalf. Such a
 * subscription may come a little after the answer (the other daemon learns where the media went
 * from the database), so each call keeps its opening, the segments of its first
 * `openingMs`, and a listener that asks for them (`fromAnswer`) gets them first: a relayed
 * listener that came while the call rang hears it from the answer, as a local one does.
 *
 * Bounds: each call has one sliding PubSub of `capacity` segments; a listener that reads slower
 * than the call plays loses the oldest segments, never grows memory. The end marker is
 * published last, so a sliding PubSub always keeps it. An entry a listener made is dropped
 * with its last listener unless a session has registered into it. The opening is held only
 * while the call is younger than `openingMs` (at most that much audio per young call), and let
 * go with the first segment after it.
 *
 * @since 0.1.0
 */
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import { Context, Deferred, Effect, Layer, PubSub, Stream } from "effect"
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
  /** Hands a segment to the call's listeners, synchronously (never waits, never fails). */
  readonly publishUnsafe: (segment: CallTimeline.Segment) => void
}

/**
 * @category services
 */
export class LiveCalls extends Context.Service<LiveCalls, {
  /** Registers the call for the scope; closing the scope ends its listeners' streams. */
  readonly register: (callId: string) => Effect.Effect<LiveCall, never, Scope.Scope>
  /**
   * Subscribes to the call now (for the scope), whether or not its session has registered yet:
   * the segments this process's session writes from now on, ending when that session ends, or
   * when `ended` completes if no session of this process has registered the call by then.
   */
  readonly listen: (
    callId: string,
    ended: Effect.Effect<void>,
    options?: ListenOptions
  ) => Effect.Effect<Stream.Stream<CallTimeline.Segment>, never, Scope.Scope>
}>()("@voice-agent/engine/LiveCalls") {}

/**
 * @category models
 */
export interface ListenOptions {
  /**
   * Starts with the call's opening when it is still held (the call is younger than
   * `openingMs`): for a listener that was waiting before it could subscribe.
   */
  readonly fromAnswer?: boolean
}

/**
 * Segments each call's PubSub holds for a slow listener (a segment is at most the timeline's
 * `maxSegmentMs`; usually one frame's worth).
 *
 * @category constructors
 */
export const capacity = 256

/**
 * How much of a call's start is kept for listeners that subscribe late (`fromAnswer`): the
 * time another daemon may take to learn where the media is and open its relay.
 *
 * @category constructors
 */
export const openingMs = 3_000

const openingSamples = openingMs * CallTimeline.SAMPLES_PER_MS

interface Entry {
  readonly pubsub: PubSub.PubSub<Item>
  /** A session registered the call into this entry. */
  registered: boolean
  /** Done when it did. */
  readonly started: Deferred.Deferred<void>
  /** That session ended (the end marker is published). */
  ended: boolean
  listeners: number
  /** The segments of the call's first `openingMs`, while it is that young (undefined after). */
  opening: Array<CallTimeline.Segment> | undefined
}

const newEntry = (pubsub: PubSub.PubSub<Item>): Entry => ({
  pubsub,
  registered: false,
  started: Deferred.makeUnsafe(),
  ended: false,
  listeners: 0,
  opening: []
})

const markRegistered = (entry: Entry): Entry => {
  entry.registered = true
  Deferred.doneUnsafe(entry.started, Effect.void)
  return entry
}

/**
 * @category constructors
 */
export const make: Effect.Effect<LiveCalls["Service"]> = Effect.sync(() => {
  const calls = new Map<string, Entry>()

  /** The call's current entry, made when there is none (or only one whose session ended). */
  const entryOf = (callId: string): Effect.Effect<Entry> =>
    Effect.suspend(() => {
      const current = calls.get(callId)
      if (current !== undefined && !current.ended) return Effect.succeed(current)
      return Effect.map(PubSub.sliding<Item>(capacity), (pubsub) => {
        // Made while the PubSub was: take the entry that won, if another did.
        const winner = calls.get(callId)
        if (winner !== undefined && !winner.ended) return winner
        const entry = newEntry(pubsub)
        calls.set(callId, entry)
        return entry
      })
    })

  const register = (callId: string) =>
    Effect.acquireRelease(
      Effect.flatMap(entryOf(callId), (found) =>
        found.registered
          // A second session of one call (refused upstream; kept apart here all the same).
          ? Effect.map(PubSub.sliding<Item>(capacity), (pubsub) => {
            const entry = markRegistered(newEntry(pubsub))
            calls.set(callId, entry)
            return entry
          })
          : Effect.sync(() => markRegistered(found))),
      (entry) =>
        Effect.suspend(() => {
          if (calls.get(callId) === entry) calls.delete(callId)
          entry.ended = true
          return PubSub.publish(entry.pubsub, { _tag: "End" })
        })
    ).pipe(
      Effect.map((entry): LiveCall => ({
        publishUnsafe: (segment) => {
          if (entry.opening !== undefined) {
            if (segment.start < openingSamples) entry.opening.push(segment)
            else entry.opening = undefined
          }
          const item: Item = { _tag: "Segment", segment }
          // Full (a listener reads slower than the call plays): the sliding PubSub drops its
          // oldest segment, which only its effectful publish does.
          if (!PubSub.publishUnsafe(entry.pubsub, item)) Effect.runSync(PubSub.publish(entry.pubsub, item))
        }
      }))
    )

  const listen = (callId: string, ended: Effect.Effect<void>, options?: ListenOptions) =>
    Effect.gen(function*() {
      const entry = yield* Effect.acquireRelease(
        Effect.tap(entryOf(callId), (entry) =>
          Effect.sync(() => {
            entry.listeners++
          })),
        (entry) =>
          Effect.sync(() => {
            entry.listeners--
            if (entry.listeners === 0 && !entry.registered && calls.get(callId) === entry) calls.delete(callId)
          })
      )
      const subscription = yield* PubSub.subscribe(entry.pubsub)
      // Taken after subscribing: a segment published in between is in both, and is let through
      // once (segments start where the previous one ended, so `start` orders them).
      const opening = options?.fromAnswer === true && entry.opening !== undefined ? entry.opening.slice() : []
      const replayedTo = opening.length === 0 ? -1 : opening[opening.length - 1]!.start
      // Ended between the look-up and the subscription: the end marker was published before.
      if (entry.ended) return Stream.fromIterable(opening)
      // The call ended with no session here: nothing will be published. Once a session has
      // registered, its end marker ends the stream, and `ended` is no longer waited for.
      const endedWithoutMedia = Effect.raceFirst(ended, Deferred.await(entry.started)).pipe(
        Effect.andThen(Effect.suspend(() => entry.registered ? Effect.never : Effect.void))
      )
      const live = Stream.fromEffectRepeat(PubSub.take(subscription)).pipe(
        Stream.takeWhile((item) => item._tag === "Segment"),
        Stream.flatMap((item) =>
          item._tag === "Segment" && item.segment.start > replayedTo ? Stream.succeed(item.segment) : Stream.empty
        )
      )
      return Stream.concat(Stream.fromIterable(opening), live).pipe(Stream.interruptWhen(endedWithoutMedia))
    })

  return LiveCalls.of({ register, listen })
})

/**
 * @category layers
 */
export const layer: Layer.Layer<LiveCalls> = Layer.effect(LiveCalls, make)
