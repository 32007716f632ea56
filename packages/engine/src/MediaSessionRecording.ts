/**
 * The media session's recording tap: the call's timeline, and what it hands out as it settles,
 * aligned audio of both channels, going to the call's two recordings (`agent`, `remote`) and
 * to its live listeners (LiveCalls, when the process has the registry).
 *
 * Live listeners get each segment as it is handed out (synchronously, from the person's side
 * or the session's clock). The recordings get them a second at a time (one write per channel
 * per second: writes are the costliest step of a frame's path under load, each a system call on
 * a worker thread whose wake-up competes for the cores; a daemon killed mid-call loses at most
 * this much), and everything at the end. A recording that cannot start,
 * or whose write fails, is logged and dropped; the call goes on.
 *
 * Traced (core Tracing), the recordings are the call's span `call.recording`, from their opening
 * to their end (the writers finalized), with what was written: `voice_agent.recording.bytes`
 * (the audio of both channels, headers aside), `voice_agent.recording.seconds` (the recorded
 * length of the call), `voice_agent.recording.channels` (those that were started), and an event
 * `recording.failed` (channel, reason) for each that failed.
 *
 * @since 0.1.0
 */
import type { RecordingStore, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Tracing from "@voice-agent/core/Tracing"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import { Clock, Effect, Option, Result } from "effect"
import type { Scope } from "effect"
import { concat } from "./internal/pcm.ts"
import { LiveCalls } from "./LiveCalls.ts"

/** Audio the timeline hands out at a time to live listeners: 200 ms. */
const batchSamples = 200 * CallTimeline.SAMPLES_PER_MS

/** Audio appended to the recordings at a time: a second (module header). */
const recordSamples = 1000 * CallTimeline.SAMPLES_PER_MS

/**
 * One call's tap.
 *
 * @category models
 */
export interface RecordingTap {
  /** The call's timeline: the person's side places frames on it, playout the agent's audio. */
  readonly timeline: CallTimeline.CallTimeline
  /** Hands out what settled, once 200 ms or more has, synchronously. */
  readonly handOutSettled: () => void
  /** Hands out up to `position` (samples), at least to the cursor. */
  readonly handOutTo: (position: number) => void
  /** Writes what was handed out to the recordings, once a second or more of it waits. */
  readonly record: Effect.Effect<void>
  /** Hands out the rest of the timeline and writes all of it to the recordings. */
  readonly finish: Effect.Effect<void>
}

/**
 * Opens the call's recordings and registers it with the live listeners, for the scope.
 *
 * @category constructors
 */
export const make = (
  recordings: RecordingStore["Service"],
  callId: string
): Effect.Effect<RecordingTap, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Opened first, so that it ends last: after the writers are finalized.
    const span = (yield* Tracing.traced) ? yield* Effect.makeSpanScoped("call.recording") : undefined
    const clock = yield* Clock.Clock
    const failed = (channel: CallTimeline.Channel, reason: string) =>
      span?.event("recording.failed", clock.currentTimeNanosUnsafe(), {
        "voice_agent.recording.channel": channel,
        "voice_agent.recording.failure": reason
      })
    /** The store's own spans (a database's statements) go under the recording's. */
    const underSpan = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      span === undefined ? self : Effect.withParentSpan(self, span)
    const open = (channel: CallTimeline.Channel) =>
      recordings.openWriter(callId, channel).pipe(
        underSpan,
        Effect.catch((error) => {
          failed(channel, error.reason)
          return Effect.as(
            Effect.logError(`Recording ${channel} of call ${callId} not started: ${error.message}`),
            undefined
          )
        })
      )
    const writers: Record<CallTimeline.Channel, RecordingWriter | undefined> = {
      agent: yield* open("agent"),
      remote: yield* open("remote")
    }
    span?.attribute("voice_agent.recording.channels", (["agent", "remote"] as const).filter((c) => writers[c]))
    // What was written, for the span: bytes of both channels, samples of each.
    let bytes = 0
    const samples: Record<CallTimeline.Channel, number> = { agent: 0, remote: 0 }
    const timeline = CallTimeline.make()
    // Live listeners (when the process has the registry): every written segment, until the end.
    const live = yield* Effect.serviceOption(LiveCalls).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.undefined, onSome: (calls) => calls.register(callId) }))
    )
    // What was handed out and not yet appended to the recordings (at most about `recordSamples`).
    let unrecorded: Array<CallTimeline.Segment> = []
    let unrecordedSamples = 0
    const recordingDue = () => unrecordedSamples >= recordSamples
    const writeUnrecorded = Effect.gen(function*() {
      // Taken before anything waits: segments handed out meanwhile are the next write's.
      const segments = unrecorded
      unrecorded = []
      unrecordedSamples = 0
      for (const channel of ["agent", "remote"] as const) {
        const writer = writers[channel]
        if (writer === undefined || segments.length === 0) continue
        const audio = concat(segments.map((segment) => segment[channel]))
        const written = yield* Effect.result(underSpan(writer.write(audio)))
        if (Result.isFailure(written)) {
          writers[channel] = undefined
          failed(channel, written.failure.reason)
          yield* Effect.logError(`Recording ${channel} of call ${callId} stopped: ${written.failure.message}`)
        } else if (span !== undefined) {
          bytes += audio.byteLength
          samples[channel] += audio.length
        }
      }
      if (span !== undefined) {
        span.attribute("voice_agent.recording.bytes", bytes)
        span.attribute(
          "voice_agent.recording.seconds",
          Math.max(samples.agent, samples.remote) / (1000 * CallTimeline.SAMPLES_PER_MS)
        )
      }
    })
    /**
     * Hands segments to live listeners at once, and keeps them for the recordings, which get
     * them a second at a time (all at the end). Synchronous: the person's side hands out on the
     * socket's callbacks.
     */
    const handOut = (advance: Iterable<CallTimeline.Segment>) => {
      for (const segment of advance) {
        live?.publishUnsafe(segment)
        unrecorded.push(segment)
        unrecordedSamples += segment.remote.length
      }
    }
    const handOutSettled = () => {
      const settled = CallTimeline.settled(timeline)
      if (settled - timeline.cursor >= batchSamples) handOut(CallTimeline.advance(timeline, settled))
    }
    return {
      timeline,
      handOutSettled,
      handOutTo: (position) => handOut(CallTimeline.advance(timeline, Math.max(timeline.cursor, position))),
      record: Effect.suspend(() => recordingDue() ? writeUnrecorded : Effect.void),
      finish: Effect.suspend(() => {
        handOut(CallTimeline.finish(timeline))
        return writeUnrecorded
      })
    }
  })
