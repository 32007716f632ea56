/**
 * The turn latency of one OpenAI Realtime call (`OpenAiRealtime`'s module header, point 8): which
 * speech of the person a reply answers, where that speech ended on the call's timeline, and how
 * long the model took to start answering it. No I/O: the adapter tells it what happened, with
 * the times, and asks it for the records.
 *
 * - The end of the speech is the server VAD's: `input_audio_buffer.speech_stopped`'s
 *   `audio_end_ms` is a position in the input buffer that "includes the silence_duration_ms"
 *   the VAD waited for (OpenAI's reference), so the speech ended `silence_duration_ms` before it;
 *   the adapter maps the position to the call's timeline by the frames' own timestamps (the
 *   timeline of the `remote` recording and the HUMAN turns' offsets).
 * - The reply to it is the first assistant audio item that starts after it, in whatever response
 *   (the one the VAD started, or the one asked for after tool outputs or a cancel). A new speech
 *   starting first takes its place: a reply answers the last speech before it.
 * - `llm_first_token_ms`: from when the speech's last audio reached the adapter (the session's
 *   clock when the batch holding it was sent) to the reply's first audio delta, on the session's
 *   clock too: the VAD's silence, the network both ways and the model's first audio (and a first
 *   response that only called tools, the tools and the second response). `engine_ms`: the rest of
 *   voice-to-voice, from the model's first audio to the reply's start where the person heard it.
 *   No speech-to-text or text-to-speech step runs: no `stt_ms`, no `tts_first_byte_ms`.
 *
 * @since 0.1.0
 */
import type { Playback } from "@voice-agent/core/ports/Agent"
import type { TurnLatencyRecord } from "@voice-agent/core/TurnLatency"
import { fromSteps } from "@voice-agent/core/TurnLatency"

/**
 * The speech a reply answers: where it ended on the call's timeline, and when that end reached
 * the adapter and when the reply's first audio did (session clock; absent: not known).
 *
 * @category models
 */
export interface Answered {
  readonly userStoppedMs: number
  readonly heardAtMs: number | undefined
  readonly firstAudioAtMs: number
}

/**
 * @category models
 */
export interface TurnClock {
  /** Input audio up to `endMs` (the call's timeline) was sent at `atMs` (the session's clock). */
  readonly sent: (endMs: number, atMs: number) => void
  /** The person started speaking: a speech still unanswered is superseded. */
  readonly speechStarted: () => void
  /** The person's speech ended at `userStoppedMs` on the call's timeline. */
  readonly speechStopped: (userStoppedMs: number) => void
  /** A reply item's first audio came at `atMs`: the speech it answers, if one waits (taken). */
  readonly replyStarted: (atMs: number) => Answered | undefined
}

/** Batches of input audio remembered, at most (a minute of 20 ms frames). */
const MAX_SENT = 3_000

/**
 * @category constructors
 */
export const make = (): TurnClock => {
  const sent: Array<{ readonly endMs: number; readonly atMs: number }> = []
  let waiting: { readonly userStoppedMs: number; readonly heardAtMs: number | undefined } | undefined
  return {
    sent: (endMs, atMs) => {
      if (sent.length >= MAX_SENT) sent.shift()
      sent.push({ endMs, atMs })
    },
    speechStarted: () => {
      waiting = undefined
    },
    speechStopped: (userStoppedMs) => {
      // the batch that held the speech's end; those before it are no longer needed
      const at = sent.findIndex((batch) => batch.endMs >= userStoppedMs)
      waiting = { userStoppedMs, heardAtMs: at === -1 ? undefined : sent[at]!.atMs }
      if (at > 0) sent.splice(0, at)
    },
    replyStarted: (atMs) => {
      const answered = waiting
      waiting = undefined
      return answered === undefined ? undefined : { ...answered, firstAudioAtMs: atMs }
    }
  }
}

/**
 * The `speech_stopped` event's end of speech: `audio_end_ms` less the VAD's silence, no earlier
 * than the speech's start (`speech_started`'s `audio_start_ms`); all three on one timeline.
 *
 * @category encoding
 */
export const speechEndMs = (audioEndMs: number, silenceMs: number, audioStartMs: number | undefined): number =>
  Math.max(audioStartMs ?? 0, audioEndMs - silenceMs)

/**
 * The reply's turn latency once it has played, or been cut short after some of it was heard;
 * none for a reply the person never heard.
 *
 * @category encoding
 */
export const record = (answered: Answered, playback: Playback): TurnLatencyRecord | undefined => {
  if (playback._tag === "Interrupted" && playback.playedMs <= 0) return undefined
  return fromSteps(
    answered.userStoppedMs,
    playback.startMs,
    answered.heardAtMs === undefined ? {} : { llm_first_token_ms: answered.firstAudioAtMs - answered.heardAtMs }
  )
}
