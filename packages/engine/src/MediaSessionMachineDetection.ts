/**
 * The media session's answering-machine detection, for calls whose carrier cannot tell (its
 * `Answered` says `unknown`: a SIP trunk, the simulated carrier with `machineDetection:
 * "engine"`). The engine then does what Twilio's `MachineDetection=Enable` does before it
 * starts a call's stream: it listens to the first seconds of the person's side
 * (`@voice-agent/media/MachineDetection`) and starts the agent once it knows who answered, with
 * `answeredBy` in the call's context as the carrier would have said it. From there the path is
 * Twilio's: an agent told `machine` waits for the greeting and its beep to end and leaves its
 * voicemail message (`agents/AnsweringMachine.ts`), and the call ends `voicemail`.
 *
 * While undecided, the person's frames are placed on the timeline (so the recordings and live
 * listeners have them) but are held back from the agent: no audio, no voice activity, as a
 * Twilio stream does not exist before its detection is done. The agent's input starts with the
 * frame that decided, and the session's voice activity detection starts then, from silence (a
 * machine's greeting decided halfway gets its `SpeechStarted` at once). The person hanging up
 * first starts the agent as for a person (Twilio's `unknown`: `human`), on an input already
 * ended. A line that carries no frames (a carrier that sends none in silence) is decided
 * `human` after `maxWaitMs` of the session's clock.
 *
 * A carrier that said `human` or `machine` is taken at its word: nothing is held, nothing is
 * computed per frame.
 *
 * @since 0.1.0
 */
import type { AnsweredBy } from "@voice-agent/core/ports/CallEvents"
import * as MachineDetection from "@voice-agent/media/MachineDetection"
import { Deferred, Duration, Effect, Option } from "effect"

/**
 * How long the agent waits for a decision when no frames come: longer than the detector takes
 * on any line that carries audio (a long silence, 5 s; a greeting after up to 5 s of it, 2.4 s
 * more).
 *
 * @category constants
 */
export const maxWaitMs = 10_000

/**
 * One call's detection.
 *
 * @category models
 */
export interface Detection {
  /**
   * The carrier's word for the agent's encoding choice, before the decision: `human` when it
   * had none (the encoding an agent picks does not depend on who answered).
   */
  readonly provisional: "human" | "machine"
  /**
   * Hears a frame of the person's (8 kHz PCM at `timestampMs` from the answer) while undecided;
   * answers whether the agent's input is still held back (the frame too).
   */
  readonly holds: (pcm: Int16Array, timestampMs: number) => boolean
  /** Who answered, once known (at once when the carrier said); logs the engine's decision. */
  readonly answeredBy: Effect.Effect<"human" | "machine">
}

const decided = (by: "human" | "machine"): Detection => ({
  provisional: by,
  holds: () => false,
  answeredBy: Effect.succeed(by)
})

/**
 * The detection of call `callId`, whose carrier said `answeredBy`.
 *
 * @category constructors
 */
export const make = (callId: string, answeredBy: AnsweredBy): Detection => {
  if (answeredBy !== "unknown") return decided(answeredBy)
  const detector = MachineDetection.make()
  const decision = Deferred.makeUnsafe<MachineDetection.Verdict | undefined>()
  let holding = true
  const decide = (verdict: MachineDetection.Verdict | undefined) => {
    holding = false
    Deferred.doneUnsafe(decision, Effect.succeed(verdict))
  }
  return {
    provisional: "human",
    holds: (pcm, timestampMs) => {
      if (!holding) return false
      const event = MachineDetection.feed(detector, pcm, timestampMs)
      if (event === "human" || event === "machine") {
        decide(detector.verdict)
        return false
      }
      return true
    },
    answeredBy: Deferred.await(decision).pipe(
      Effect.timeoutOption(Duration.millis(maxWaitMs)),
      Effect.flatMap((verdict) => {
        const heard = Option.getOrUndefined(verdict)
        if (heard === undefined) {
          decide(undefined)
          return Effect.as(
            Effect.logInfo(`Call ${callId}: no decision from the audio in ${maxWaitMs} ms; answered by a person`),
            "human" as const
          )
        }
        return Effect.as(
          Effect.logInfo(
            `Call ${callId}: answered by ${heard._tag === "human" ? "a person" : "a machine"} (${heard.reason}, ` +
              `decided by the engine ${Math.round(heard.atMs)} ms into the call)`
          ),
          heard._tag
        )
      })
    )
  }
}
