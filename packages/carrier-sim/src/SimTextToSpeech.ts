/**
 * The simulated text-to-speech: the `TextToSpeech` port over `SimVoice`. It speaks a text in
 * the agent's voice as one utterance of simulated speech (flite saying it, the text in a band
 * above the voice), which `SimSpeechToText` turns back into the same text on the other side of
 * the audio path (docs/MEDIA.md, "Simulated speech").
 *
 * Frames are 20 ms (160 samples) of 8 kHz 16-bit PCM, the last one padded with silence. The
 * utterance is made when the stream starts (`SimVoice.speakShared`: cached by text, 20 to 50 ms
 * for a new line of a few seconds) and cut into frames as they are pulled, half a second of them
 * (25 frames) per chunk of the stream. Each frame but a padded last one is a view of the cached
 * utterance itself, not of a copy (an agent says the same lines on every call, and a copy per
 * frame, then a copy per line, was most of what a cached line cost): frames are read, never
 * changed, by those who play them. The stream does not pace itself (the caller plays them out).
 * It lasts as long as flite takes to say the text, or as long as its data takes when that is
 * longer (about 20 characters a second): 13 to 16 characters a second on most lines.
 * `options` are ignored: the agent has one voice. A text longer than `SimSpeech.MAX_BYTES`
 * (4095) UTF-8 bytes fails with a `SpeechError` `rejected` before any frame.
 *
 * @since 0.1.0
 */
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Layer, Stream } from "effect"
import * as SimVoice from "./SimVoice.ts"

/**
 * Samples per frame: 20 ms at 8 kHz.
 *
 * @category models
 */
export const FRAME_SAMPLES = 160

/** Frames per chunk of the stream: half a second (a reader pays its per-chunk cost 25 times less). */
const FRAMES_PER_CHUNK = 25

const utf8 = new TextEncoder()

function* frames(samples: Int16Array): Generator<Int16Array> {
  const whole = samples.length - (samples.length % FRAME_SAMPLES)
  for (let at = 0; at < whole; at += FRAME_SAMPLES) yield samples.subarray(at, at + FRAME_SAMPLES)
  if (whole < samples.length) {
    const last = new Int16Array(FRAME_SAMPLES)
    last.set(samples.subarray(whole))
    yield last
  }
}

/**
 * Speaks `text` as frames of simulated speech.
 *
 * @category constructors
 */
export const synthesize = (text: string): Stream.Stream<Int16Array, SpeechError> =>
  Stream.suspend(() => {
    const bytes = utf8.encode(text).length
    return bytes > SimSpeech.MAX_BYTES
      ? Stream.fail(
        new SpeechError({
          reason: "rejected",
          message: `simulated speech takes at most ${SimSpeech.MAX_BYTES} UTF-8 bytes, the text has ${bytes}`
        })
      )
      : Stream.fromIterable(frames(SimVoice.speakShared(text, "agent")), { chunkSize: FRAMES_PER_CHUNK })
  })

/**
 * @category constructors
 */
export const make: TextToSpeech["Service"] = TextToSpeech.of({ synthesize: (text) => synthesize(text) })

/**
 * The simulated text-to-speech, flite made ready when the layer is built (`SimVoice.warmUp`).
 *
 * @category layers
 */
export const layer: Layer.Layer<TextToSpeech> = Layer.sync(TextToSpeech, () => {
  SimVoice.warmUp()
  return make
})
