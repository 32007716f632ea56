/**
 * Downsampling by an integer factor with an anti-aliasing low-pass filter: a provider's audio
 * (24 kHz from OpenAI's and Kokoro's `pcm`, 16 or 48 kHz from others) brought to the 8 kHz of
 * the telephone path.
 *
 * Owns: the filter and the streaming state that carries it across chunk boundaries. Pure: no
 * I/O; a `Downsampler` keeps only the last few milliseconds of input. Does not own bytes
 * (little-endian decoding is `Wav.decodeSamples`'s), framing or timing.
 *
 * Format: signed 16-bit linear PCM, mono (`Int16Array`), in and out. The input rate must be a
 * whole multiple `M` of the output rate (16000, 24000 or 48000 to 8000); 22050 Hz is not
 * supported. Equal rates copy.
 *
 * The filter: a linear-phase FIR, a Kaiser-windowed sinc designed for the output rate `r`:
 * cutoff at 0.4625 r (3700 Hz for 8 kHz), transition band 0.075 r wide (3400 to 4000 Hz),
 * stopband attenuation 60 dB (Kaiser β = 5.65). Everything at or above the output's Nyquist
 * frequency (4 kHz) is attenuated by about 60 dB before decimation, so nothing aliases into
 * the band; the telephone band (300 to 3400 Hz) passes within ±0.01 dB (both pinned by the
 * tests). The length follows Kaiser's estimate: 147 taps at 24 kHz (6 ms), 99 at 16 kHz, 291
 * at 48 kHz. Only every `M`-th output of the filter is computed, and the taps' symmetry halves
 * the multiplications: 74 per output sample at 24 kHz. Measured on this 2-core machine (Node
 * 24, other work loading both cores, 4801-sample chunks): about 2 ms per second of audio.
 *
 * Alignment: output sample `k` is the filter centred on input sample `M × k`, so the output
 * has no delay (the filter's half-length is read ahead instead: an output is answered once
 * 73 input samples past its centre have arrived, 3 ms at 24 kHz). Input before the first
 * sample and after the last (on `flush`) counts as silence. `n` input samples give
 * `ceil(n / M)` output samples in all, however they are cut into chunks: the same inputs in
 * the same order give bit-identical outputs (each output is the same sum of the same terms).
 * Outputs are rounded to the nearest integer and clipped to the 16-bit range.
 *
 * @since 0.1.0
 */

/**
 * The filter's design, relative to the output rate.
 *
 * @category models
 */
export const design = {
  /** Cutoff (the −6 dB point), as a fraction of the output rate. */
  cutoff: 0.4625,
  /** Width of the transition band, as a fraction of the output rate. */
  transition: 0.075,
  /** Stopband attenuation in dB. */
  attenuationDb: 60
} as const

/** Modified Bessel function of the first kind, order 0 (series; converges fast for β < 20). */
const besselI0 = (x: number): number => {
  let sum = 1
  let term = 1
  const quarter = (x * x) / 4
  for (let k = 1; k < 50; k++) {
    term *= quarter / (k * k)
    sum += term
    if (term < sum * 1e-17) break
  }
  return sum
}

/**
 * A Kaiser-windowed sinc low-pass filter: `cutoff` (the −6 dB point) and `transition` (the
 * width of the transition band) as fractions of the sample rate, `attenuationDb` in the
 * stopband. Odd length (Kaiser's estimate), symmetric, summing to 1 (a DC gain of exactly 1):
 * its delay is `(length − 1) / 2` samples. `SimSpeech` uses it for its bands too.
 *
 * @category math
 */
export const kaiserLowPass = (cutoff: number, transition: number, attenuationDb: number): Float64Array => {
  const beta = 0.1102 * (attenuationDb - 8.7)
  const width = 2 * Math.PI * transition
  const estimate = Math.ceil((attenuationDb - 8) / (2.285 * width)) + 1
  const length = estimate % 2 === 1 ? estimate : estimate + 1
  const half = (length - 1) / 2
  const taps = new Float64Array(length)
  const i0Beta = besselI0(beta)
  let sum = 0
  for (let i = 0; i < length; i++) {
    const t = i - half
    const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t)
    const ratio = t / half
    const window = besselI0(beta * Math.sqrt(1 - ratio * ratio)) / i0Beta
    taps[i] = sinc * window
    sum += taps[i]!
  }
  for (let i = 0; i < length; i++) taps[i] = taps[i]! / sum
  return taps
}

/**
 * The low-pass filter's taps for decimating `factor` times (odd length, symmetric, summing to
 * 1: a DC gain of exactly 1).
 *
 * @category math
 */
export const lowPassTaps = (factor: number): Float64Array =>
  kaiserLowPass(design.cutoff / factor, design.transition / factor, design.attenuationDb)

const toInt16 = (value: number): number => {
  const rounded = Math.round(value)
  return rounded > 32767 ? 32767 : rounded < -32768 ? -32768 : rounded
}

/**
 * A streaming downsampler from `inputRate` to `outputRate`. `push` answers the output samples
 * that the input so far determines; `flush` ends the input (silence after it) and answers the
 * rest, after which the downsampler starts afresh. Throws a `RangeError` at construction when
 * the rates are not positive integers with `inputRate` a multiple of `outputRate` (caller
 * bugs).
 *
 * Memory: the taps and at most one filter length plus one chunk of pending input.
 *
 * @category constructors
 */
export class Downsampler {
  readonly inputRate: number
  readonly outputRate: number
  readonly factor: number
  private readonly taps: Float64Array
  private readonly half: number
  /** Input samples from absolute index `base` on (the silence before the input included). */
  private pending: Float64Array
  private base: number
  /** Input samples received. */
  private received = 0
  /** Index of the next output sample. */
  private next = 0

  constructor(inputRate: number, outputRate: number) {
    if (!Number.isSafeInteger(inputRate) || !Number.isSafeInteger(outputRate) || inputRate < 1 || outputRate < 1) {
      throw new RangeError(`sample rates must be positive integers, got ${inputRate} and ${outputRate}`)
    }
    if (inputRate % outputRate !== 0) {
      throw new RangeError(`${inputRate} Hz is not a whole multiple of ${outputRate} Hz`)
    }
    this.inputRate = inputRate
    this.outputRate = outputRate
    this.factor = inputRate / outputRate
    this.taps = this.factor === 1 ? new Float64Array([1]) : lowPassTaps(this.factor)
    this.half = (this.taps.length - 1) / 2
    this.pending = new Float64Array(this.half)
    this.base = -this.half
  }

  /** Feeds the next input samples; answers the output samples they complete (a new array). */
  push(samples: Int16Array): Int16Array {
    const joined = new Float64Array(this.pending.length + samples.length)
    joined.set(this.pending)
    for (let i = 0; i < samples.length; i++) joined[this.pending.length + i] = samples[i]!
    this.pending = joined
    this.received += samples.length
    // output k needs input up to M k + half
    const ready = this.received > this.half ? Math.floor((this.received - 1 - this.half) / this.factor) + 1 : 0
    return this.produce(ready)
  }

  /** Ends the input: answers the remaining output samples, then starts afresh. */
  flush(): Int16Array {
    const total = Math.ceil(this.received / this.factor)
    const needed = this.factor * (total - 1) + this.half + 1 - this.base
    if (needed > this.pending.length) {
      const padded = new Float64Array(needed)
      padded.set(this.pending)
      this.pending = padded
    }
    const out = this.produce(total)
    this.pending = new Float64Array(this.half)
    this.base = -this.half
    this.received = 0
    this.next = 0
    return out
  }

  /** Computes outputs up to (excluding) `until` from `pending`, then drops the input they no longer need. */
  private produce(until: number): Int16Array {
    const count = Math.max(0, until - this.next)
    const out = new Int16Array(count)
    const { factor, half, pending, taps } = this
    for (let o = 0; o < count; o++) {
      const centre = factor * (this.next + o) - this.base
      let sum = taps[half]! * pending[centre]!
      for (let i = 1; i <= half; i++) sum += taps[half + i]! * (pending[centre - i]! + pending[centre + i]!)
      out[o] = toInt16(sum)
    }
    this.next += count
    const keepFrom = factor * this.next - half
    const drop = keepFrom - this.base
    if (drop > 0) {
      this.pending = pending.slice(Math.min(drop, pending.length))
      this.base = keepFrom
    }
    return out
  }
}

/**
 * Downsamples a whole buffer (a fresh `Downsampler`, pushed once and flushed).
 *
 * @category math
 */
export const downsample = (samples: Int16Array, inputRate: number, outputRate: number): Int16Array => {
  const downsampler = new Downsampler(inputRate, outputRate)
  const head = downsampler.push(samples)
  const tail = downsampler.flush()
  const out = new Int16Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}
