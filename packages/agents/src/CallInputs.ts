/**
 * Routing a call's input for a pipeline agent (speech-to-text, a policy, text-to-speech): the
 * person's audio to the recognizer's queue in runs (a batch of input at a time, what arrived
 * together), voice activity to the turn-taking's queue and keys to the agent, in order between
 * them; a barge-in interrupts the agent's audio at once. Returns when the person hangs up (the
 * input ends); the recognizer's queue is ended then.
 *
 * @since 0.1.0
 */
import type { AgentCall, CallInput } from "@voice-agent/core/ports/Agent"
import type { PcmFrame } from "@voice-agent/core/ports/SpeechToText"
import { Effect, Queue, Stream } from "effect"
import type { Cause } from "effect"
import type { TurnSignal } from "./AnsweringMachine.ts"

/**
 * @category models
 */
export interface Routes {
  readonly audio: Queue.Queue<PcmFrame, Cause.Done>
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
          yield* Queue.offerAll(routes.audio, frames)
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
      if (frames.length > 0) yield* Queue.offerAll(routes.audio, frames)
    })).pipe(Effect.ensuring(Queue.end(routes.audio)))
