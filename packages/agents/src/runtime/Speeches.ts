/**
 * The pipeline's queue of the agent's speeches, in the order they are said: each speech with
 * its audio, synthesized from the moment it was queued, and drain markers, which complete once
 * everything queued before them has played (or was dropped by an interruption).
 *
 * @since 0.1.0
 */
import type { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import type { Cause, Fiber } from "effect"
import { Deferred, Effect, Queue } from "effect"
import type * as TurnTrace from "../TurnTrace.ts"

/**
 * Audio buffered ahead per queued speech: 2 s of 20 ms frames.
 *
 * @category constants
 */
export const SYNTHESIS_AHEAD_FRAMES = 100

/**
 * @category models
 */
export type Spoken =
  | {
    readonly _tag: "Speech"
    readonly id: number
    readonly text: string
    readonly sensitiveFree: boolean
    /** Its audio, synthesized from the moment it was queued. */
    readonly audio: Queue.Dequeue<Int16Array, SpeechError | Cause.Done>
    readonly synthesis: Fiber.Fiber<void>
    /** Ms from the request to the speech's first audio, once it came. */
    readonly timing: { firstByteMs?: number }
    /** The turn it was said in (TurnTrace). */
    readonly turn: TurnTrace.Turn | undefined
  }
  | { readonly _tag: "Drained"; readonly done: Deferred.Deferred<void> }

/**
 * Waits until what is queued has played, or until `hungUp` (the caller gone, nothing plays).
 *
 * @category combinators
 */
export const drain = (
  speeches: Queue.Enqueue<Spoken>,
  hungUp: Deferred.Deferred<void>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const drained = yield* Deferred.make<void>()
    yield* Queue.offer(speeches, { _tag: "Drained", done: drained })
    yield* Effect.raceFirst(Deferred.await(drained), Deferred.await(hungUp))
  })
