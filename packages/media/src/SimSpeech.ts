/**
 * Simulated speech: a deterministic codec that turns UTF-8 text into speech-like 8 kHz 16-bit
 * PCM and back, so that what the simulated carrier's person and agents say truly crosses the
 * audio path (μ-law over a WebSocket, the call timeline, the recordings) and is recovered on
 * the other side (CONTRACT §7 "Simulated speech").
 *
 * Owns: the waveform of one utterance (`encode`) and a streaming decoder that finds
 * utterances in a signal (`Decoder`, or `decode` for a whole buffer). Does not own framing,
 * μ-law, timestamps or I/O: callers cut the samples into frames and map sample offsets to
 * time.
 *
 * Samples are signed 16-bit linear PCM at 8000 Hz (`Int16Array`). Buffer ownership: `encode`
 * returns a fresh array; the decoder copies what it needs and never keeps or modifies its
 * input.
 *
 * Waveform. Multi-frequency shift keying: each symbol is 25 ms (`SYMBOL_SAMPLES` = 200) of one
 * of 16 tones carrying 4 bits. Tone `b` makes exactly `12 + 3b` cycles per symbol (480 Hz to
 * 2280 Hz, 120 Hz apart), so the tones are orthogonal over a symbol window and the phase is
 * continuous from one symbol to the next. The amplitude follows a syllable-rate envelope: a
 * 5 Hz raised cosine between 35 % and 100 % of 12000, so an energy voice-activity detector sees
 * speech all along (RMS about 6000, −15 dBFS). An utterance is, in symbols:
 *
 * | symbols | field                                                                   |
 * | ------- | ----------------------------------------------------------------------- |
 * | 6       | preamble: tones 0, 15, 3, 12, 6, 9                                      |
 * | 3       | byte length L (12 bits, high nibble first; at most `MAX_BYTES` = 4095) |
 * | 2       | CRC-8 (polynomial 0x07, initial 0) of the length as two bytes           |
 * | 2 L     | the UTF-8 bytes, high nibble first                                      |
 * | 4       | CRC-16/CCITT-FALSE of the two length bytes and the payload              |
 * | 2       | end marker: tones 5, 10                                                 |
 *
 * then 5 ms more of the last tone, fading out (it fades in over the first 5 ms too). That is
 * `(17 + 2 L) × 25 + 5` ms (`encodedSamples`). Measured on the simulated person's answers and
 * an agent's line (pinned by the tests): "Alex Morgan" 0.98 s (11.2 characters per second),
 * "March third twenty twenty seven" 1.98 s (15.7/s), a 93-character greeting 5.08 s (18.3/s).
 * At most 20 ASCII characters per second; fewer for other scripts (2 to 4 bytes a character).
 *
 * Decoding. Silence is not part of any utterance: the decoder drops every sample quieter than
 * ±32 (digital silence: μ-law 0xFF decodes to 0) and works on what is left. No sample of an
 * utterance is that quiet outside its fades: each tone is offset by half a sample step from its
 * zero crossings, so every sample is at least 1.6 % of the envelope, ±64 or more after μ-law.
 * That is what makes the decoder indifferent to frame boundaries and to silence inserted
 * between or inside utterances (a timeline filling the gap of a late frame): dropping the
 * inserted silence restores the utterance's samples exactly. The channel must be clean: noise
 * inserted inside an utterance breaks it (noise between utterances does not).
 *
 * A sliding DFT over the last symbol window of kept samples tracks the six preamble tones; every
 * 4 samples, the share of the window's energy in each of them is recorded, and a preamble is
 * where six windows a symbol apart each hold more than half of their energy in the expected
 * tone. The alignment with the highest sum of shares wins. From there, each symbol is the
 * strongest of the 16 tones (Goertzel) in its window. A candidate utterance is dropped when its
 * header CRC fails, and when its CRC-16, end marker or UTF-8 is wrong at the end: a corrupted
 * utterance decodes to nothing. The preamble search never stops, so several candidates may run
 * at once (at most 4); when one completes, the others overlapped it and are dropped. An
 * utterance cut short and followed by another is thus skipped, and the next one recovered. One
 * second of silence drops every candidate. Memory is bounded: a few kilobytes of windows, and
 * at most 4 candidates of at most 8 KB each.
 *
 * Offsets: an utterance's `start` and `end` count samples from the decoder's first input
 * (silence included), `start` at its first sample and `end` just past its last, within 2
 * samples in the property tests (the 4-sample search step), silence inserted inside included.
 * Silence inserted in the fades is the exception: inside the first 5 ms it moves `start` after
 * it (the fade's first samples are as quiet as silence); `end` is known when the end marker
 * has been read, before the fade-out, so silence inserted there is not counted.
 *
 * Cost, measured on this 2-core machine (Node 24, 20 ms frames, other work loading both cores;
 * `test/bench/media-codecs.ts`): encoding 0.05 ms per second of speech (a table of the
 * envelope, shared by all calls, at most 1 MiB), decoding 0.4 ms per second of speech and next
 * to nothing for silence, which is dropped before any arithmetic.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * Samples per second.
 *
 * @category models
 */
export const SAMPLE_RATE = 8000

/**
 * Samples per symbol (25 ms).
 *
 * @category models
 */
export const SYMBOL_SAMPLES = 200

/**
 * The longest text `encode` takes, in UTF-8 bytes.
 *
 * @category models
 */
export const MAX_BYTES = 4095

const N = SYMBOL_SAMPLES
const PREAMBLE = [0, 15, 3, 12, 6, 9] as const
const END_MARKER = [5, 10] as const
const HEADER_SYMBOLS = 5
const CRC_SYMBOLS = 4
const AMPLITUDE = 12000
const ENVELOPE_FLOOR = 0.35
const SYLLABLE_SAMPLES = 1600
const FADE_SAMPLES = 40

const QUIET = 32
const RESET_QUIET_RUN = SAMPLE_RATE
const MAX_FADE_DROPPED = 16
const STEP = 4
const PREAMBLE_SHARE = 0.5
const MAX_CANDIDATES = 4

/** Cycles per symbol window of each of the 16 tones. */
const toneBin = (symbol: number): number => 12 + 3 * symbol

// Half a table step after each zero crossing: no sample of a tone is ever near zero
// (at least 1.6 % of its amplitude, so at least ±64 after μ-law).
const sine = Float64Array.from({ length: N }, (_, m) => Math.sin((2 * Math.PI * (m + 0.5)) / N))

const crc8 = (bytes: ArrayLike<number>): number => {
  let crc = 0
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]!
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x80) !== 0 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff
  }
  return crc
}

const crc16 = (bytes: ArrayLike<number>): number => {
  let crc = 0xffff
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]! << 8
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The amplitude envelope at sample `t` of an utterance of `total` samples: syllables and fades. */
const envelope = (t: number, total: number): number => {
  const syllable = Math.sin((Math.PI * t) / SYLLABLE_SAMPLES)
  const fade = Math.min(1, t / FADE_SAMPLES, (total - 1 - t) / FADE_SAMPLES)
  return (ENVELOPE_FLOOR + (1 - ENVELOPE_FLOOR) * syllable * syllable) * fade
}

// `AMPLITUDE × envelope(t, total)` at every `t` where the fade is 1, which does not depend on
// the utterance: cached, up to ENVELOPE_CACHE_SAMPLES (16.4 s, 1 MiB) and grown as longer
// utterances come; later samples are computed as they go. The cached values are the very
// doubles `envelope` gives (a product by a fade of 1 is exact), so every sample is the same
// as without the cache, and `encode` costs a multiplication and a rounding per sample instead
// of a sine, two divisions and a `Math.min`.
const ENVELOPE_CACHE_SAMPLES = 1 << 17
let envelopeCache = new Float64Array(0)

const scaledEnvelopes = (samples: number): Float64Array => {
  const wanted = Math.min(samples, ENVELOPE_CACHE_SAMPLES)
  if (envelopeCache.length < wanted) {
    const grown = new Float64Array(Math.min(ENVELOPE_CACHE_SAMPLES, Math.max(wanted, 2 * envelopeCache.length)))
    grown.set(envelopeCache)
    for (let t = envelopeCache.length; t < grown.length; t++) {
      const syllable = Math.sin((Math.PI * t) / SYLLABLE_SAMPLES)
      grown[t] = AMPLITUDE * (ENVELOPE_FLOOR + (1 - ENVELOPE_FLOOR) * syllable * syllable)
    }
    envelopeCache = grown
  }
  return envelopeCache
}

/**
 * Number of samples `encode` produces for a text of `bytes` UTF-8 bytes.
 *
 * @category encoding
 */
export const encodedSamples = (bytes: number): number =>
  (PREAMBLE.length + HEADER_SYMBOLS + 2 * bytes + CRC_SYMBOLS + END_MARKER.length) * N + FADE_SAMPLES

/**
 * Encodes a text as one utterance of simulated speech, with no silence before or after.
 * Lone surrogates become U+FFFD, as `TextEncoder` does. Throws a `RangeError` for a text of
 * more than `MAX_BYTES` UTF-8 bytes (a precondition: about 3.5 minutes of speech).
 *
 * @category encoding
 */
export const encode = (text: string): Int16Array => {
  const bytes = utf8Encoder.encode(text)
  const length = bytes.length
  if (length > MAX_BYTES) throw new RangeError(`SimSpeech.encode: ${length} bytes, more than ${MAX_BYTES}`)
  const lengthBytes = [length >> 8, length & 0xff]
  const check = crc16([...lengthBytes, ...bytes])
  const headerCheck = crc8(lengthBytes)
  const symbols: Array<number> = [...PREAMBLE, length >> 8, (length >> 4) & 15, length & 15]
  symbols.push(headerCheck >> 4, headerCheck & 15)
  for (const byte of bytes) symbols.push(byte >> 4, byte & 15)
  symbols.push(check >> 12, (check >> 8) & 15, (check >> 4) & 15, check & 15, ...END_MARKER)

  // the last tone rings on for the fade-out, so that the end marker's window is whole
  const total = symbols.length * N + FADE_SAMPLES
  const out = new Int16Array(total)
  const scaled = scaledEnvelopes(total)
  // samples in [FADE_SAMPLES, unfaded) have a fade of 1 and a cached scaled envelope
  const unfaded = Math.min(total - FADE_SAMPLES, scaled.length)
  for (let s = 0; s < symbols.length; s++) {
    const bin = toneBin(symbols[s]!)
    const start = s * N
    const end = start + (s === symbols.length - 1 ? N + FADE_SAMPLES : N)
    const fastStart = Math.min(end, Math.max(start, FADE_SAMPLES))
    const fastEnd = Math.max(fastStart, Math.min(end, unfaded))
    // (bin × (t − start)) mod N, one step of `bin` per sample
    let phase = 0
    for (let t = start; t < fastStart; t++) {
      out[t] = Math.round(AMPLITUDE * envelope(t, total) * sine[phase]!)
      phase += bin
      if (phase >= N) phase -= N
    }
    for (let t = fastStart; t < fastEnd; t++) {
      out[t] = Math.round(scaled[t]! * sine[phase]!)
      phase += bin
      if (phase >= N) phase -= N
    }
    for (let t = fastEnd; t < end; t++) {
      out[t] = Math.round(AMPLITUDE * envelope(t, total) * sine[phase]!)
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
export interface Utterance {
  readonly text: string
  readonly start: number
  readonly end: number
}

interface Candidate {
  /** Offset of the utterance's first sample in the decoder's input. */
  readonly start: number
  /** Index (among the samples kept) that ends the window of the preamble's last symbol. */
  readonly end: number
  /** Index (among the samples kept) that ends the window of the next symbol to read. */
  next: number
  symbols: Uint8Array
  count: number
}

const preambleBins = PREAMBLE.map(toneBin)
const preambleCos = Float64Array.from(preambleBins, (k) => Math.cos((2 * Math.PI * k) / N))
const preambleSin = Float64Array.from(preambleBins, (k) => Math.sin((2 * Math.PI * k) / N))
const goertzelCoefficients = Float64Array.from({ length: 16 }, (_, b) => 2 * Math.cos((2 * Math.PI * toneBin(b)) / N))
const STEPS_PER_SYMBOL = N / STEP
const STEP_RING = (PREAMBLE.length - 1) * STEPS_PER_SYMBOL + 1
const OFFSET_RING = 2048

/**
 * A streaming decoder: feed it the signal in pieces of any size (`push`, and `pushSilence`
 * for a gap known to be silent) and it answers the utterances that end in each piece. Its
 * state is bounded whatever the input's length.
 *
 * @category decoding
 */
export class Decoder {
  private consumed = 0

  /** Samples consumed so far (silence included): the offset of the next input sample. */
  get offset(): number {
    return this.consumed
  }

  /** Quiet samples dropped since the last kept one. */
  private quietRun = 0

  // the last symbol window of kept samples, their input offsets, and a sliding DFT
  private kept = 0
  private readonly window = new Float64Array(N)
  /** `window` in time order, oldest first (scratch of `strongestTone`). */
  private readonly ordered = new Float64Array(N)
  private energy = 0
  private readonly re = new Float64Array(PREAMBLE.length)
  private readonly im = new Float64Array(PREAMBLE.length)
  private readonly offsets = new Float64Array(OFFSET_RING)
  /** 1 for a kept sample that came right after dropped ones (or first of all), else 0. */
  private readonly afterQuiet = new Uint8Array(OFFSET_RING)

  // per search step: which preamble tone held most of the window's energy (-1: none), its share
  private readonly stepTone = new Int8Array(STEP_RING).fill(-1)
  private readonly stepShare = new Float64Array(STEP_RING)

  private pending: { end: number; score: number; since: number } | undefined = undefined
  private candidates: Array<Candidate> = []

  /** Decodes the next samples; answers the utterances that ended in them, in order. */
  push(samples: Int16Array): ReadonlyArray<Utterance> {
    const out: Array<Utterance> = []
    for (let i = 0; i < samples.length; i++) {
      const sample = samples[i]!
      const at = this.consumed++
      if (sample > -QUIET && sample < QUIET) {
        this.quiet(1)
        continue
      }
      const afterQuiet = this.quietRun > 0 || this.kept === 0
      this.quietRun = 0
      this.keep(sample, at, afterQuiet, out)
    }
    return out
  }

  /** Consumes `count` samples of silence without their data (a gap in the input's timestamps). */
  pushSilence(count: number): void {
    if (count > 0) this.quiet(count)
    this.consumed += count
  }

  private quiet(count: number): void {
    const before = this.quietRun
    this.quietRun += count
    if (before < RESET_QUIET_RUN && this.quietRun >= RESET_QUIET_RUN) this.reset()
  }

  private reset(): void {
    this.window.fill(0)
    this.energy = 0
    this.re.fill(0)
    this.im.fill(0)
    this.stepTone.fill(-1)
    this.pending = undefined
    this.candidates = []
  }

  private keep(sample: number, at: number, afterQuiet: boolean, out: Array<Utterance>): void {
    const index = this.kept++
    const slot = index % N
    const window = this.window
    const old = window[slot]!
    window[slot] = sample
    const ring = index % OFFSET_RING
    this.offsets[ring] = at
    this.afterQuiet[ring] = afterQuiet ? 1 : 0
    this.energy += sample * sample - old * old
    const delta = sample - old
    const re = this.re
    const im = this.im
    for (let p = 0; p < PREAMBLE.length; p++) {
      const r = re[p]! + delta
      const m = im[p]!
      const c = preambleCos[p]!
      const s = preambleSin[p]!
      re[p] = r * c - m * s
      im[p] = r * s + m * c
    }
    if (index % STEP === STEP - 1) this.step(index, out)
  }

  /** One search step at the window ending at kept sample `index`. */
  private step(index: number, out: Array<Utterance>): void {
    const stepIndex = (index - (STEP - 1)) / STEP
    const scale = (this.energy * N) / 2
    let tone = -1
    let share = 0
    if (scale > 0) {
      for (let p = 0; p < PREAMBLE.length; p++) {
        const power = (this.re[p]! * this.re[p]! + this.im[p]! * this.im[p]!) / scale
        if (power > PREAMBLE_SHARE) {
          tone = p
          share = power
        }
      }
    }
    this.stepTone[stepIndex % STEP_RING] = tone
    this.stepShare[stepIndex % STEP_RING] = share

    let score = 0
    if (tone === PREAMBLE.length - 1) {
      score = share
      for (let p = 0; p < PREAMBLE.length - 1 && score > 0; p++) {
        const earlier = (stepIndex - (PREAMBLE.length - 1 - p) * STEPS_PER_SYMBOL) % STEP_RING
        if (earlier < 0 || this.stepTone[earlier] !== p) score = 0
        else score += this.stepShare[earlier]!
      }
    }
    const pending = this.pending
    if (score > 0 && (pending === undefined || index - pending.since < (3 * N) / 4)) {
      if (pending === undefined) this.pending = { end: index, score, since: index }
      else if (score > pending.score) this.pending = { end: index, score, since: pending.since }
    } else if (pending !== undefined) {
      this.pending = undefined
      this.open(pending.end)
    }

    for (let c = 0; c < this.candidates.length; c++) {
      const candidate = this.candidates[c]!
      if (candidate.next > index) continue
      if (candidate.next < index) {
        // its preamble was found after its first symbol went by (a preamble cut short by silence)
        this.candidates.splice(c--, 1)
        continue
      }
      const done = this.read(candidate, this.strongestTone())
      if (done === "reading") continue
      if (done === "failed") {
        this.candidates.splice(c--, 1)
        continue
      }
      out.push({ text: done.text, start: candidate.start, end: this.offsets[index % OFFSET_RING]! + 1 + FADE_SAMPLES })
      this.candidates = []
      this.pending = undefined
      return
    }
  }

  /** Starts a candidate whose preamble's last window ends at kept sample `end`. */
  private open(end: number): void {
    // the same preamble found twice (its matches flickered at the edge of their range)
    if (this.candidates.some((candidate) => Math.abs(candidate.end - end) < N)) return
    if (this.candidates.length === MAX_CANDIDATES) this.candidates.shift()
    // The preamble's first sample. When the sound began a few samples after it, the kept
    // samples before are another sound's, and the preamble's were its fade-in, dropped as
    // silence: count back from where the sound began.
    const first = end - PREAMBLE.length * N + 1
    let start = first >= 0 ? this.offsets[first % OFFSET_RING]! : this.offsets[0]! + first
    for (let index = Math.max(first + 1, 0); index <= first + MAX_FADE_DROPPED && index < this.kept; index++) {
      if (this.afterQuiet[index % OFFSET_RING] === 1) {
        start = this.offsets[index % OFFSET_RING]! - (index - first)
        break
      }
    }
    this.candidates.push({
      start: Math.max(0, start),
      end,
      next: end + N,
      symbols: new Uint8Array(HEADER_SYMBOLS),
      count: 0
    })
  }

  /**
   * The strongest of the 16 tones in the current window (Goertzel). The window is first put in
   * time order; then four tones run side by side, four independent recurrences the processor
   * overlaps (each one alone waits on its previous step). Each tone's arithmetic is the
   * textbook loop's, operation for operation, so the powers are the same doubles.
   */
  private strongestTone(): number {
    const window = this.window
    const x = this.ordered
    const first = this.kept % N
    for (let n = first; n < N; n++) x[n - first] = window[n]!
    for (let n = 0; n < first; n++) x[N - first + n] = window[n]!
    let best = 0
    let bestPower = -1
    for (let b = 0; b < 16; b += 4) {
      const c0 = goertzelCoefficients[b]!
      const c1 = goertzelCoefficients[b + 1]!
      const c2 = goertzelCoefficients[b + 2]!
      const c3 = goertzelCoefficients[b + 3]!
      let s01 = 0
      let s02 = 0
      let s11 = 0
      let s12 = 0
      let s21 = 0
      let s22 = 0
      let s31 = 0
      let s32 = 0
      for (let n = 0; n < N; n++) {
        const sample = x[n]!
        const s00 = sample + c0 * s01 - s02
        const s10 = sample + c1 * s11 - s12
        const s20 = sample + c2 * s21 - s22
        const s30 = sample + c3 * s31 - s32
        s02 = s01
        s01 = s00
        s12 = s11
        s11 = s10
        s22 = s21
        s21 = s20
        s32 = s31
        s31 = s30
      }
      const p0 = s01 * s01 + s02 * s02 - c0 * s01 * s02
      const p1 = s11 * s11 + s12 * s12 - c1 * s11 * s12
      const p2 = s21 * s21 + s22 * s22 - c2 * s21 * s22
      const p3 = s31 * s31 + s32 * s32 - c3 * s31 * s32
      if (p0 > bestPower) {
        bestPower = p0
        best = b
      }
      if (p1 > bestPower) {
        bestPower = p1
        best = b + 1
      }
      if (p2 > bestPower) {
        bestPower = p2
        best = b + 2
      }
      if (p3 > bestPower) {
        bestPower = p3
        best = b + 3
      }
    }
    return best
  }

  private read(candidate: Candidate, symbol: number): "reading" | "failed" | { readonly text: string } {
    candidate.symbols[candidate.count++] = symbol
    candidate.next += N
    const s = candidate.symbols
    if (candidate.count === HEADER_SYMBOLS) {
      const length = (s[0]! << 8) | (s[1]! << 4) | s[2]!
      if (crc8([length >> 8, length & 0xff]) !== ((s[3]! << 4) | s[4]!)) return "failed"
      const symbols = new Uint8Array(HEADER_SYMBOLS + 2 * length + CRC_SYMBOLS + END_MARKER.length)
      symbols.set(s)
      candidate.symbols = symbols
      return "reading"
    }
    if (candidate.count < HEADER_SYMBOLS || candidate.count < s.length) return "reading"
    const length = (s[0]! << 8) | (s[1]! << 4) | s[2]!
    const bytes = new Uint8Array(2 + length)
    bytes[0] = length >> 8
    bytes[1] = length & 0xff
    for (let i = 0; i < length; i++) {
      bytes[2 + i] = (s[HEADER_SYMBOLS + 2 * i]! << 4) | s[HEADER_SYMBOLS + 2 * i + 1]!
    }
    const c = HEADER_SYMBOLS + 2 * length
    const check = (s[c]! << 12) | (s[c + 1]! << 8) | (s[c + 2]! << 4) | s[c + 3]!
    if (check !== crc16(bytes)) return "failed"
    if (s[c + 4] !== END_MARKER[0] || s[c + 5] !== END_MARKER[1]) return "failed"
    const text = Result.try(() => utf8Decoder.decode(bytes.subarray(2)))
    return Result.isSuccess(text) ? { text: text.success } : "failed"
  }
}

/**
 * Decodes a whole buffer: every utterance in it, in order.
 *
 * @category decoding
 */
export const decode = (samples: Int16Array): ReadonlyArray<Utterance> => new Decoder().push(samples)
