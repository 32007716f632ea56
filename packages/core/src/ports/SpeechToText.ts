/**
 * Port for streaming speech recognition: a call's audio in, transcripts out, as the audio
 * arrives. Implemented by carrier-sim's `SimSpeechToText` (simulated speech, exact); planned:
 * streaming cloud recognizers (Deepgram, OpenAI audio) and a local one (whisper), each an
 * adapter with a configurable base URL.
 *
 * Also owns `SpeechError`, which `TextToSpeech` fails with too.
 *
 * What a provider implements, `transcribe(audio, options)`:
 *
 * - Input: 16-bit linear PCM, mono, 8 kHz (telephone audio), normally 20 ms (160 samples) a
 *   frame, though any length must be accepted. `timestampMs` is the frame's first sample in
 *   milliseconds from the moment the call was answered; frames come in order. A frame that
 *   starts later than the previous one ends leaves a gap of silence (audio the carrier never
 *   delivered): an adapter keeps its times aligned, for example by sending that much silence
 *   to its provider. Resampling to the provider's rate (16 or 24 kHz) and encoding it are the
 *   adapter's job.
 * - Output: `Transcript`s with `startMs`/`endMs` on the same time base as the frames (a
 *   provider's times relative to the start of its stream are offset by the first frame's
 *   `timestampMs`). A `final: true` transcript is settled: its text for that span never
 *   changes. `final: false` ones are interim hypotheses, sent only when
 *   `options.interimResults` is true; each replaces the previous interim one until a final one
 *   covers the span (Deepgram's `is_final`, OpenAI's transcription deltas then `completed`).
 *   A recognizer that only knows whole segments (whisper after voice activity detection) sends
 *   finals only. A final transcript is not a turn: deciding that the person has finished
 *   speaking is the agent's.
 * - Lifetime: the transcript stream pulls the audio as it comes; it ends once the audio stream
 *   has ended and the last final transcript has been sent. Interrupting it (the call ended,
 *   the agent stopped listening) closes the provider's connection and stops reading audio.
 * - Failure: the stream fails with a `SpeechError` whose `reason` says whether retrying may
 *   help (`isRetryable`). The audio consumed before the failure is lost to recognition; a
 *   caller that retries transcribes from where the audio stands.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Stream } from "effect"

/**
 * A frame of telephone audio: 16-bit linear PCM, mono, 8 kHz (160 samples for 20 ms), and
 * when it starts, in milliseconds from the moment the call was answered. The `Agent` port's
 * `pcm16` audio frames are `PcmFrame`s: an agent that asked for `pcm16` can hand the audio of
 * its `Audio` inputs to `transcribe` as it is.
 *
 * @category models
 */
export interface PcmFrame {
  readonly samples: Int16Array
  readonly timestampMs: number
}

/**
 * What was said over a span of the audio, in milliseconds from the answer (`endMs`
 * exclusive). `final` transcripts are settled; others are interim hypotheses that the next
 * transcript of the same span replaces.
 *
 * @category models
 */
export interface Transcript {
  readonly text: string
  readonly startMs: number
  readonly endMs: number
  readonly final: boolean
}

/**
 * A recognizer that runs in process, fed frame by frame synchronously (`SpeechToText.recognizer`):
 * `push` answers the transcripts the frame completes, `end` the rest once the audio has ended.
 * The same rules as `transcribe` for times, gaps and finals; neither call blocks nor throws.
 * @category models
 */
export interface Recognizer {
  readonly push: (frame: PcmFrame) => ReadonlyArray<Transcript>
  readonly end: () => ReadonlyArray<Transcript>
}

/**
 * @category models
 */
export interface TranscribeOptions {
  /** BCP 47 language tag of the speech (`en-US`); absent: the provider's default or detection. */
  readonly language?: string
  /** Also send interim (`final: false`) transcripts; default false. */
  readonly interimResults?: boolean
  /** Words and names to favour (names of people and products, the answers a question expects). */
  readonly keywords?: ReadonlyArray<string>
}

/**
 * Why a speech provider failed (recognition or synthesis). `unauthorized`: the credentials were
 * refused; `rejected`: the provider refused this request (unsupported language or voice, text
 * too long, malformed audio); `rate-limited`: too many requests or streams at once;
 * `unavailable`: the provider could not be reached or failed on its side, or the connection was
 * lost; `timeout`: it did not answer in time. The message says what happened without repeating
 * the audio or text.
 *
 * @category errors
 */
export class SpeechError extends Schema.TaggedError<SpeechError>()("SpeechError", {
  reason: Schema.Literals(["unauthorized", "rejected", "rate-limited", "unavailable", "timeout"]),
  message: Schema.String
}) {
  /** Whether the same request may succeed later. */
  get isRetryable(): boolean {
    return this.reason === "rate-limited" || this.reason === "unavailable" || this.reason === "timeout"
  }
}

/**
 * A streaming speech recognizer (see the module header for the contract).
 *
 * @category services
 */
export class SpeechToText extends Context.Service<SpeechToText, {
  /** Transcribes the audio as it arrives. */
  readonly transcribe: (
    audio: Stream.Stream<PcmFrame>,
    options?: TranscribeOptions
  ) => Stream.Stream<Transcript, SpeechError>
  /**
   * A recognizer fed synchronously, for providers that run in process (no network, no
   * waiting): the agent hands it frames on the session's read loop (`AgentCall.takeAudio`).
   * Absent: `transcribe` is the only way.
   */
  readonly recognizer?: ((options?: TranscribeOptions) => Recognizer) | undefined
}>()("@voice-agent/core/ports/SpeechToText") {}
