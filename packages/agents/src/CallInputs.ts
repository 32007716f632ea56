/**
 * Routing a call's input for a pipeline agent (speech-to-text, a policy, text-to-speech): the
 * person's audio to the recognizer (its queue, or the recognizer itself) in runs (a batch of
 * input at a time, what arrived together), voice activity to the turn-taking's queue and keys to
 * the agent, in order between them; a barge-in interrupts the agent's audio at once. Returns when
 * the person hangs up (the input ends); the audio's route is ended then.
 *
 * @since 0.1.0
 */
import type { AgentCall, CallInput } from "@voice-agent/core/ports/Agent"
import type { PcmFrame } from "@voice-agent/core/ports/SpeechToText"
import { Effect, Queue, Stream } from "effect"
import type { Cause } from "effect"
import type { TurnSignal } from "./AnsweringMachine.ts"

/**
 * Where the person's audio goes: runs of frames, then the end of the input.
 *
 * @category models
 */
export interface AudioRoute {
  readonly offerAll: (frames: ReadonlyArray<PcmFrame>) => Effect.Effect<void>
  readonly end: Effect.Effect<void>
}

/**
 * The audio into `queue`, which is ended with the input.
 *
 * @category constructors
 */
export const toQueue = (queue: Queue.Queue<PcmFrame, Cause.Done>): AudioRoute => ({
  offerAll: (frames) => Effect.asVoid(Queue.offerAll(queue, frames)),
  end: Effect.asVoid(Queue.end(queue))
})

/**
 * @category models
 */
export interface Routes {
  readonly audio: AudioRoute
  readonly signals: Queue.Enqueue<TurnSignal>
  readonly onDtmf: (digit: string, timestampMs: number) => Effect.Effect<void>
}

/**
 * @category combinators
 */
export const route = (call: AgentCall, routes: Routes): Effect.Effect<void> =>
  Stream.runForEachArray(call.input, (items: ReadonlyArray<CallInput>) =>
    Effect.gen(function*() {
      let frames: Array<PcmFrame> = []
      for (const item of items) {
        if (item._tag === "Audio") {
          if (item.frame.encoding === "pcm16") {
            frames.push({ samples: item.frame.samples, timestampMs: item.frame.timestampMs })
          }
          continue
        }
        if (frames.length > 0) {
          yield* routes.audio.offerAll(frames)
          frames = []
        }
        switch (item._tag) {
          case "SpeechStarted":
            yield* Queue.offer(routes.signals, { _tag: "Started" })
            break
          case "SpeechStopped":
            yield* Queue.offer(routes.signals, { _tag: "Stopped" })
            break
          case "BargeIn":
            yield* call.interrupt
            break
          case "Dtmf":
            yield* routes.onDtmf(item.digit, item.timestampMs)
            break
        }
      }
      if (frames.length > 0) yield* routes.audio.offerAll(frames)
    })).pipe(Effect.ensuring(routes.audio.end))
