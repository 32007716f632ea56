/**
 * Port for streaming speech synthesis: a text in, telephone audio out, frame by frame as it is
 * synthesized. Implemented by carrier-sim's `SimTextToSpeech` (simulated speech); planned:
 * cloud synthesizers (OpenAI audio, Deepgram, ElevenLabs) and local ones, each an adapter with
 * a configurable base URL.
 *
 * What a provider implements, `synthesize(text, options)`:
 *
 * - Output: frames of 16-bit linear PCM, mono, 8 kHz, each exactly 20 ms (160 samples); the
 *   last one is padded with silence. Resampling from the provider's rate (16, 22.05, 24 kHz),
 *   decoding its format and cutting into frames are the adapter's job. Frames carry no
 *   timestamps: the caller places them when they are played. A frame is the caller's to read,
 *   never to write: an adapter may hand out views of audio it keeps (a cache of its lines).
 * - Lifetime: the stream is lazy (nothing is requested before the first pull) and should
 *   answer its first frame as soon as the provider does, not after the whole text. The caller
 *   pulls at its own pace, typically a little ahead of playout. Interrupting the stream (the
 *   person barged in, the call ended) cancels the synthesis and closes the provider's request.
 * - Input: one utterance, typically a sentence or a few; a caller that wants to speak sooner
 *   splits a long answer into sentences. The text is said as written (no markup).
 * - Failure: the stream fails with a `SpeechError` (from `SpeechToText`); `rejected` for a text
 *   or voice the provider refuses. Frames already sent stay valid.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Stream } from "effect"
import type { SpeechError } from "./SpeechToText.ts"

/**
 * @category models
 */
export interface SynthesizeOptions {
  /** The provider's name for the voice (the agent's `persona.voice`); absent: its default. */
  readonly voice?: string
  /** BCP 47 language tag (`en-US`); absent: the provider's default or the voice's language. */
  readonly language?: string
}

/**
 * A streaming speech synthesizer (see the module header for the contract).
 *
 * @category services
 */
export class TextToSpeech extends Context.Service<TextToSpeech, {
  /** Speaks `text` as 20 ms frames of 8 kHz 16-bit PCM. */
  readonly synthesize: (text: string, options?: SynthesizeOptions) => Stream.Stream<Int16Array, SpeechError>
}>()("@voice-agent/core/ports/TextToSpeech") {}
