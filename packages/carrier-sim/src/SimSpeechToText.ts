/**
 * The simulated speech-to-text: the `SpeechToText` port over `@voice-agent/media/SimSpeech`.
 * It recovers exactly the text that `SimTextToSpeech` (or the simulated person) spoke, from the
 * audio as it arrived, so a transcript holds what crossed the audio path and nothing else
 * (docs/MEDIA.md, "Simulated speech").
 *
 * Each utterance found gives one transcript, `final: true`, as soon as its last frame has been
 * read; there are no interim ones, and `options` are ignored. `startMs` and `endMs` (exclusive)
 * are the utterance's first and last samples on the frames' time base (milliseconds from the
 * answer), rounded to the millisecond, within a millisecond of where the speech was. A frame
 * that starts later than the previous one ended leaves that much silence; a frame that
 * overlaps the previous one is read as if it followed it. Audio that is not simulated speech
 * (real voices, tones, an utterance cut short or damaged) gives no transcript, and the stream
 * never fails.
 *
 * Memory per stream is bounded (the decoder's, a few tens of kilobytes at most); the cost is
 * about 1.2 ms of CPU per second of speech and next to nothing for silence (SimSpeech's header).
 *
 * @since 0.1.0
 */
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { PcmFrame, Recognizer, Transcript } from "@voice-agent/core/ports/SpeechToText"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Layer, Stream } from "effect"

const samplesPerMs = SimSpeech.SAMPLE_RATE / 1000

/** A decoder whose offset 0 is the first frame's timestamp. */
interface DecoderState {
  readonly decoder: SimSpeech.Decoder
  originMs: number | undefined
}

/** What most frames complete: one shared empty answer, not a new array per frame. */
const none: ReadonlyArray<Transcript> = []

const step = (recognizer: DecoderState, frame: PcmFrame): ReadonlyArray<Transcript> => {
  const { decoder } = recognizer
  const originMs = recognizer.originMs ??= frame.timestampMs
  const gap = Math.round((frame.timestampMs - originMs) * samplesPerMs) - decoder.offset
  if (gap > 0) decoder.pushSilence(gap)
  const utterances = decoder.push(frame.samples)
  if (utterances.length === 0) return none
  return utterances.map((utterance) => ({
    text: utterance.text,
    startMs: Math.round(originMs + utterance.start / samplesPerMs),
    endMs: Math.round(originMs + utterance.end / samplesPerMs),
    final: true
  }))
}

/**
 * A recognizer of simulated speech fed frame by frame, synchronously: each utterance's final
 * transcript as soon as its last frame is pushed (an utterance is complete in its own audio,
 * so `end` has nothing left to add).
 *
 * @category constructors
 */
export const recognizer = (): Recognizer => {
  const state: DecoderState = { decoder: new SimSpeech.Decoder(), originMs: undefined }
  return { push: (frame) => step(state, frame), end: () => [] }
}

/**
 * The transcripts of simulated speech in `audio`, one final transcript per utterance.
 *
 * @category constructors
 */
export const transcribe = (audio: Stream.Stream<PcmFrame>): Stream.Stream<Transcript> =>
  audio.pipe(Stream.mapAccum(recognizer, (recognize, frame) => [recognize, recognize.push(frame)] as const))

/**
 * @category constructors
 */
export const make: SpeechToText["Service"] = SpeechToText.of({
  transcribe: (audio) => transcribe(audio),
  recognizer: () => recognizer()
})

/**
 * @category layers
 */
export const layer: Layer.Layer<SpeechToText> = Layer.succeed(SpeechToText, make)
