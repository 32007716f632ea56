/**
 * Simulated speech: a deterministic codec that lays a text over a voice saying it, as 8 kHz
 * 16-bit PCM, and recovers the text exactly from the audio on the other side. So what the
 * simulated carrier's person and agents say truly crosses the audio path (μ-law over a
 * WebSocket, the call timeline, the recordings), and a person who plays a recording hears
 * people talking (docs/MEDIA.md, "Simulated speech").
 *
 * Owns: the waveform of one utterance (`encode`: a voice and the text's data carrier) and a
 * streaming decoder that finds utterances in a signal (`Decoder`, or `decode` for a whole
 * buffer). Does not own the voice: the caller renders the text with a speech synthesizer
 * (carrier-sim's `SimVoice`, flite) and hands its samples in, since this package does no I/O.
 * Nor framing, μ-law, timestamps or I/O: callers cut the samples into frames and map sample
 * offsets to time.
 *
 * Samples are signed 16-bit linear PCM at 8000 Hz (`Int16Array`). Buffer ownership: `encode`
 * returns a fresh array; the decoder copies what it needs and never keeps or modifies its
 * input.
 *
 * The text is not recovered from the voice (that would take a speech recognizer): it travels
 * in a narrow band above it. An utterance is the sum of:
 *
 * - the speech band, below 2.45 kHz: the voice with its leading and trailing silence trimmed
 *   (10 ms kept on each side of the first and last sample above 1 % of its peak), low-passed
 *   (Kaiser-windowed sinc, −6 dB at 2450 Hz, 2300 to 2600 Hz transition, 70 dB stopband) and
 *   scaled to a peak of `VOICE_PEAK` (20000, −4.3 dBFS), starting at the utterance's first
 *   sample; flite's speech then sits around −20 dBFS RMS;
 * - the data band, 2.8 to 3.4 kHz: the text in 16-tone frequency-shift keying at amplitude
 *   `DATA_AMPLITUDE` (600: −38 dBFS RMS, 14 to 18 dB under flite's speech, pauses
 *   included, and 7 dB above the energy voice-activity detector's stop threshold, so that the
 *   voice's pauses between words and sentences never end a turn). Each symbol is 25 ms (`SYMBOL_SAMPLES` = 200) of one tone carrying 4
 *   bits; tone `b` makes exactly `70 + b` cycles per symbol (2800 Hz to 3400 Hz, 40 Hz
 *   apart), so the tones are orthogonal over a symbol window and the phase is continuous from
 *   one symbol to the next. It fades in over the first 5 ms, and its last tone rings on for
 *   `TAIL_SAMPLES` (7 ms) more, fading out over the last 5 ms.
 *
 * The band edges keep the data inside the telephone band (up to 3.4 kHz, where `Resample`'s
 * anti-aliasing filter is still flat), so the text survives a provider's 24 kHz round trip
 * too. The speech keeps what carries most of its intelligibility (vowels' first two formants,
 * most consonant cues); sibilants lose their top, as on an old telephone line. The data carrier, in symbols:
 *
 * | symbols | field                                                                         |
 * | ------- | ----------------------------------------------------------------------------- |
 * | 6       | preamble: tones 0, 15, 3, 12, 6, 9                                            |
 * | 3       | byte length L (12 bits, high nibble first; at most `MAX_BYTES` = 4095)       |
 * | 3       | filler length F (12 bits, high nibble first; at most 4095: 102 s)            |
 * | 2       | CRC-8 (polynomial 0x07, initial 0) of L and F as four bytes                   |
 * | 2 L     | the UTF-8 bytes, high nibble first                                            |
 * | 4       | CRC-16/CCITT-FALSE of the four length bytes and the payload                   |
 * | F       | filler: tone `(7 i + 3) mod 16` for the i-th, as long as the speech needs     |
 * | 2       | end marker: tones 5, 10                                                       |
 *
 * F is the fewest symbols, an even number (see `TAIL_SAMPLES`), that make the data last as long
 * as the speech: an utterance lasts `max(speech, (20 + 2 L) × 25 ms)`, to the next 50 ms, plus
 * 7 ms, so that the decoder finds its end when the voice has finished.
 * The data alone says about 20 ASCII characters a second, flite 15 to 18 at the pace
 * carrier-sim gives it, so a line lasts as long as its data, 82 ms more than the tones this
 * replaced: the agent's "Hello Ann, this is an automated call. Do you have a moment?" 3.46 s
 * (3.38 s before), the person's "Alex Morgan" 1.06 s (0.98 s), the 93-character voicemail
 * greeting 4.96 s (4.88 s); a scripted call 9 s (8 s).
 *
 * Silence. Every sample of an utterance is ±64 or more (the few quieter ones, where the voice
 * and the data cancel out or fade, are pushed out to ±64: about −54 dBFS, under μ-law's own
 * noise), so it stays 32 or more after μ-law. What the path does to a channel is insert
 * silence: a player waiting for late audio, a timeline filling a gap between frames, a
 * recognizer counting a jump in timestamps. It comes in whole milliseconds (timestamps are in
 * ms, frames 20 ms long, utterances a whole number of ms), 8 samples or more: the decoder drops
 * every run of 8 or more samples quieter than ±32 (digital silence: μ-law 0xFF decodes to 0)
 * and keeps shorter ones, and works on what is left, which is the utterance's samples exactly.
 * That makes it indifferent to frame boundaries and to silence inserted between or inside
 * utterances, and it keeps the odd sample that a resampler's rounding brought under ±32 (a
 * provider's 24 kHz round trip). What no decoder survives is audio lost: a frame dropped or
 * replaced by silence in the middle of an utterance shifts the rest, the CRC fails, and the
 * utterance decodes to nothing (never to a wrong text), as a real recognizer would miss words
 * it never got. The simulated carrier and the timeline lose audio only when a reader falls too
 * far behind (CallTimeline's `late` and `refused`, an agent's full input queue), and count it.
 *
 * Decoding: the streaming decoder's header (`internal/simSpeechDecoder.ts`) says how utterances
 * are found and read, and what their offsets count; the data carrier's layout, tones and
 * filter are in `internal/simSpeechFormat.ts`, which both sides read.
 *
 * Cost, in CPU time on this 2-core machine (Node 24, other work loading both cores;
 * `test/bench/media-codecs.ts` for wall time): `encode` about 1.5 ms per second of speech (the
 * low-pass filter, 59 multiplications a sample; callers cache utterances), decoding about
 * 1.2 ms per second of speech (the high-pass filter, 40 a sample; the tones once a symbol)
 * and next to nothing for silence, which is dropped before any arithmetic.
 *
 * @since 0.1.0
 */
import * as StreamingDecoder from "./internal/simSpeechDecoder.ts"
import * as Format from "./internal/simSpeechFormat.ts"
import { kaiserLowPass } from "./Resample.ts"

/**
 * Samples per second.
 *
 * @category models
 */
export const SAMPLE_RATE = Format.SAMPLE_RATE

/**
 * Samples per symbol (25 ms).
 *
 * @category models
 */
export const SYMBOL_SAMPLES = Format.SYMBOL_SAMPLES

/**
 * The longest text `encode` takes, in UTF-8 bytes.
 *
 * @category models
 */
export const MAX_BYTES = 4095

/**
 * The voice's peak in an utterance.
 *
 * @category models
 */
export const VOICE_PEAK = 20000

/**
 * The data carrier's amplitude.
 *
 * @category models
 */
export const DATA_AMPLITUDE = 600

/**
 * Where the speech's low-pass filter is at −6 dB, in Hz.
 *
 * @category models
 */
export const SPEECH_CUTOFF_HZ = 2450

/**
 * The quietest an utterance's samples are (in magnitude) before μ-law.
 *
 * @category models
 */
export const MIN_MAGNITUDE = 64

/**
 * The data band: the lowest and highest tone, in Hz. The speech is low-passed below
 * `SPEECH_CUTOFF_HZ`.
 *
 * @category models
 */
export const DATA_BAND_HZ = Format.DATA_BAND_HZ

/**
 * Samples between a kept sample and the filtered sample the decoder reads for it.
 *
 * @category models
 */
export const FILTER_DELAY = Format.FILTER_DELAY

/**
 * Samples the last tone rings on after the end marker (7 ms), so that the decoder reads the end
 * marker within the utterance's last frame (`internal/simSpeechFormat.ts` says why 56).
 *
 * @category models
 */
export const TAIL_SAMPLES = Format.TAIL_SAMPLES

const { FADE_SAMPLES, FIXED_SYMBOLS, MAX_FILLER, N, sine, toneBin } = Format
const TRIM_MARGIN = 80

const speechFilter = kaiserLowPass(SPEECH_CUTOFF_HZ / SAMPLE_RATE, 300 / SAMPLE_RATE, 70)

/**
 * The speech band of an utterance for `voice`: trimmed, low-passed and scaled as the module
 * header says (empty for a silent voice). `encode` adds the data band to it.
 *
 * @category encoding
 */
export const speechOf = (voice: Int16Array): Float64Array => {
  let peak = 0
  for (let i = 0; i < voice.length; i++) peak = Math.max(peak, Math.abs(voice[i]!))
  if (peak === 0) return new Float64Array(0)
  const threshold = peak / 100
  let first = 0
  while (Math.abs(voice[first]!) < threshold) first++
  let last = voice.length - 1
  while (Math.abs(voice[last]!) < threshold) last--
  const from = Math.max(0, first - TRIM_MARGIN)
  const length = Math.min(voice.length, last + 1 + TRIM_MARGIN) - from
  const half = (speechFilter.length - 1) / 2
  // the trimmed voice with `half` zeros on each side, so that the filter centred on any of its
  // samples (no delay) reads no bounds
  const padded = new Float64Array(length + 2 * half)
  for (let n = 0; n < length; n++) padded[n + half] = voice[from + n]!
  const out = new Float64Array(length)
  let filteredPeak = 0
  for (let n = 0; n < length; n++) {
    // the taps are symmetric: padded[n … n + 2 half] pairs up around its centre
    let sum = speechFilter[half]! * padded[n + half]!
    for (let k = 0; k < half; k++) sum += speechFilter[k]! * (padded[n + k]! + padded[n + 2 * half - k]!)
    out[n] = sum
    filteredPeak = Math.max(filteredPeak, Math.abs(sum))
  }
  const scale = filteredPeak === 0 ? 0 : VOICE_PEAK / filteredPeak
  for (let n = 0; n < length; n++) out[n] = out[n]! * scale
  return out
}

/**
 * Encodes a text as one utterance: `voice` (8 kHz PCM of a synthesizer saying it) in the
 * speech band, the text in the data band, with no silence before or after. Lone surrogates
 * become U+FFFD, as `TextEncoder` does. Deterministic: the same text and voice give the same
 * samples. A voice longer than the data can cover (the text's symbols and 4095 of filler,
 * 102 s and more) is cut there. Throws a `RangeError` for a text of more than `MAX_BYTES`
 * UTF-8 bytes (a precondition).
 *
 * @category encoding
 */
export const encode = (text: string, voice: Int16Array): Int16Array => {
  const bytes = Format.utf8Encoder.encode(text)
  if (bytes.length > MAX_BYTES) throw new RangeError(`SimSpeech.encode: ${bytes.length} bytes, more than ${MAX_BYTES}`)
  const bare = (FIXED_SYMBOLS + 2 * bytes.length) * N + TAIL_SAMPLES
  const speech = speechOf(voice).subarray(0, bare + (MAX_FILLER - 1) * N)
  const needed = Math.max(0, Math.ceil((speech.length - bare) / N))
  // an even number of symbols (FIXED_SYMBOLS is even): an utterance that starts on a 20 ms
  // frame's first sample ends 56 or 136 samples into its last frame, so that it is read there
  const filler = needed + (needed % 2)
  const symbols = Format.symbolsOf(bytes, filler)

  const total = symbols.length * N + TAIL_SAMPLES
  const out = new Int16Array(total)
  for (let s = 0; s < symbols.length; s++) {
    const bin = toneBin(symbols[s]!)
    const start = s * N
    const end = s === symbols.length - 1 ? total : start + N
    let phase = 0 // (bin × (t − start)) mod N
    for (let t = start; t < end; t++) {
      const fade = Math.min(1, t / FADE_SAMPLES, (total - 1 - t) / FADE_SAMPLES)
      const value = Math.round((t < speech.length ? speech[t]! : 0) + DATA_AMPLITUDE * fade * sine[phase]!)
      out[t] = value >= MIN_MAGNITUDE || value <= -MIN_MAGNITUDE
        ? Math.max(-32768, Math.min(32767, value))
        : value < 0
        ? -MIN_MAGNITUDE
        : MIN_MAGNITUDE
      phase += bin
      if (phase >= N) phase -= N
    }
  }
  return out
}

/**
 * A text recovered from the signal, with where it was: sample offsets counted from the
 * decoder's first input, `end` exclusive.
 *
 * @category models
 */
export type Utterance = StreamingDecoder.Utterance

/**
 * A streaming decoder: feed it the signal in pieces of any size (`push`, and `pushSilence`
 * for a gap known to be silent) and it answers the utterances that end in each piece. Its
 * state is bounded whatever the input's length.
 *
 * @category decoding
 */
export const Decoder = StreamingDecoder.Decoder

/**
 * @category decoding
 */
export type Decoder = StreamingDecoder.Decoder

/**
 * Decodes a whole buffer: every utterance in it, in order.
 *
 * @category decoding
 */
export const decode = (samples: Int16Array): ReadonlyArray<Utterance> => new Decoder().push(samples)
