/**
 * Simulated speech's streaming decoder (`SimSpeech.Decoder`): finds utterances in a signal fed
 * in pieces of any size, and recovers their text exactly or not at all. The format is
 * `SimSpeech`'s (its module header); how it is read:
 *
 * Decoding. The kept samples go through a high-pass filter (Kaiser, −6 dB at 2650 Hz, 2500 to
 * 2800 Hz transition, 50 dB stopband: 79 taps, a delay of `FILTER_DELAY` = 39 samples), which
 * leaves the data band and removes the speech. On the filtered samples, a sliding DFT over
 * the last symbol window tracks the six preamble tones; every 4 samples, the share of the
 * window's energy in each of them is recorded, and a preamble is where six windows a symbol
 * apart each hold more than half of their energy in the expected tone, the highest sum of
 * shares within three quarters of a symbol. The shares hardly change over several samples
 * about the true alignment, so the preamble's own waveform, correlated with the signal half a
 * symbol each way, puts it on the very sample. From there, each symbol is the strongest of
 * the 16 tones (Goertzel) in its window, and the window of the next one is put where that
 * tone's waveform correlates best, a sample each way at most, so that the reading follows an
 * utterance that lost a sample. A candidate utterance is dropped when its header CRC fails,
 * and when its CRC-16, end marker or UTF-8 is wrong at the end: a corrupted utterance decodes
 * to nothing. The preamble search never stops, so several candidates may run at once (at
 * most 4); when one completes, the others overlapped it and are dropped. An utterance cut
 * short and followed by another is thus skipped, and the next one recovered. One second of
 * silence drops every candidate. Memory is bounded: a few kilobytes of windows and rings, and
 * at most 4 candidates of at most 8 KB each.
 *
 * Offsets: an utterance's `start` and `end` count samples from the decoder's first input
 * (silence included), `start` at its first sample and `end` just past its last, silence
 * inserted inside included: to the sample in the property tests (μ-law, any cuts, gaps of
 * silence), within 2 samples after a 24 kHz round trip. `end` is counted from the end
 * marker's last sample, the tail assumed whole: silence inserted in the tail is not counted.
 * The two sides of a call's `mixed` channel decode as well where they take turns; where both
 * speak at once their data bands collide, and what was overlapped does not decode (never to a
 * wrong text).
 */
import { Result } from "effect"
import {
  crc16,
  crc8,
  CRC_SYMBOLS,
  dataFilter,
  END_MARKER,
  FADE_SAMPLES,
  FILTER_DELAY,
  HEADER_SYMBOLS,
  N,
  PREAMBLE,
  SAMPLE_RATE,
  sine,
  TAIL_SAMPLES,
  toneBin,
  utf8Decoder
} from "./simSpeechFormat.ts"

const QUIET = 32
/** Quiet samples in a row that are silence (dropped); fewer are the signal's (kept). */
const SILENCE_RUN = 8
const RESET_QUIET_RUN = SAMPLE_RATE
const STEP = 4
const PREAMBLE_SHARE = 0.5
const MAX_CANDIDATES = 4

/**
 * A text recovered from the signal, with where it was: sample offsets counted from the
 * decoder's first input, `end` exclusive.
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
  /** Index (among the samples kept) that ends the window of the next symbol to read, as far as known. */
  next: number
  /** The symbols read (the header's, then all but the filler's). */
  symbols: Uint8Array
  count: number
  /** Filler symbols still to let go. */
  filler: number
}

const preambleBins = PREAMBLE.map(toneBin)
const preambleCos = Float64Array.from(preambleBins, (k) => Math.cos((2 * Math.PI * k) / N))
const preambleSin = Float64Array.from(preambleBins, (k) => Math.sin((2 * Math.PI * k) / N))
const goertzelCoefficients = Float64Array.from({ length: 16 }, (_, b) => 2 * Math.cos((2 * Math.PI * toneBin(b)) / N))
/** The preamble's waveform (amplitude 1, faded in as `encode` does), to align on it exactly. */
const preambleWaveform = (() => {
  const out = new Float64Array(PREAMBLE.length * N)
  for (let s = 0; s < PREAMBLE.length; s++) {
    const bin = toneBin(PREAMBLE[s]!)
    for (let m = 0, phase = 0; m < N; m++, phase = (phase + bin) % N) {
      out[s * N + m] = Math.min(1, (s * N + m) / FADE_SAMPLES) * sine[phase]!
    }
  }
  return out
})()
/** Each tone's waveform over one symbol, as `encode` starts it (amplitude 1). */
const toneWaveforms = Array.from(
  { length: 16 },
  (_, b) => Float64Array.from({ length: N }, (_, m) => sine[(toneBin(b) * m) % N]!)
)
/** How far the matched filter looks each side of where the preamble search put a preamble. */
const ALIGN_SAMPLES = N / 2
const STEPS_PER_SYMBOL = N / STEP
const STEP_RING = (PREAMBLE.length - 1) * STEPS_PER_SYMBOL + 1
const OFFSET_RING = 2048
const TAPS = dataFilter.length

/** The preamble's waveform against the filtered samples from `first` on (silence before 0). */
const correlation = (ring: Float64Array, first: number): number => {
  let sum = 0
  for (let n = Math.max(0, -first); n < preambleWaveform.length; n++) {
    sum += preambleWaveform[n]! * ring[(first + n) % OFFSET_RING]!
  }
  return sum
}

/**
 * Where a preamble found near filtered sample `found` really ends: the lag within half a symbol
 * whose samples correlate best with the preamble's waveform (`ring` holds the last
 * `OFFSET_RING` filtered samples, `filtered` of them so far). Run once per utterance, too
 * seldom to be compiled as a whole, so each lag's correlation is a call of its own, compiled
 * once: with both loops in one function, the inner loop's code compiled on the stack was left,
 * deoptimized, at every use (measured under load).
 */
const alignedEnd = (ring: Float64Array, filtered: number, found: number): number => {
  let end = found
  let best = -Infinity
  for (let lag = -ALIGN_SAMPLES; lag <= ALIGN_SAMPLES; lag++) {
    const first = found + lag - preambleWaveform.length + 1
    if (filtered - first > OFFSET_RING) continue
    const sum = correlation(ring, first)
    if (sum > best) {
      best = sum
      end = found + lag
    }
  }
  return end
}

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

  /** Quiet samples since the last loud one; the first `SILENCE_RUN` of them, held. */
  private quietRun = 0
  private readonly held = new Int16Array(SILENCE_RUN)

  /** Samples kept; the filtered sample of kept sample `i` is read when `i + FILTER_DELAY` is kept. */
  private kept = 0
  /** The last `TAPS` kept samples, twice over (so that they are always contiguous). */
  private readonly history = new Float64Array(2 * TAPS)
  /** Input offsets of the kept samples, by index modulo `OFFSET_RING`. */
  private readonly offsets = new Float64Array(OFFSET_RING)

  // the filtered samples (the last `OFFSET_RING`), the last symbol window of them, and a sliding DFT
  private filtered = 0
  private readonly filteredRing = new Float64Array(OFFSET_RING)
  private readonly window = new Float64Array(N)
  /** A symbol window in time order (scratch of `strongestTone`). */
  private readonly ordered = new Float64Array(N)
  private energy = 0
  private readonly re = new Float64Array(PREAMBLE.length)
  private readonly im = new Float64Array(PREAMBLE.length)

  // per search step: which preamble tone held most of the window's energy (-1: none), its share
  private readonly stepTone = new Int8Array(STEP_RING).fill(-1)
  private readonly stepShare = new Float64Array(STEP_RING)

  private pending: { end: number; score: number; since: number } | undefined = undefined
  /** Where the search put a preamble's end, until it can be aligned. */
  private opening: number | undefined = undefined
  private candidates: Array<Candidate> = []

  /** Decodes the next samples; answers the utterances that ended in them, in order. */
  push(samples: Int16Array): ReadonlyArray<Utterance> {
    const out: Array<Utterance> = []
    for (let i = 0; i < samples.length; i++) {
      const sample = samples[i]!
      const at = this.consumed++
      if (sample > -QUIET && sample < QUIET) {
        if (this.quietRun < SILENCE_RUN) this.held[this.quietRun] = sample
        this.quiet(1)
        continue
      }
      // a run of quiet samples too short to be silence is the signal's
      if (this.quietRun > 0 && this.quietRun < SILENCE_RUN) {
        for (let k = 0; k < this.quietRun; k++) this.keep(this.held[k]!, at - this.quietRun + k, out)
      }
      this.quietRun = 0
      this.keep(sample, at, out)
    }
    return out
  }

  /** Consumes `count` samples of silence without their data (a gap in the input's timestamps). */
  pushSilence(count: number): void {
    for (let k = this.quietRun; k < Math.min(SILENCE_RUN, this.quietRun + count); k++) this.held[k] = 0
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
    this.opening = undefined
    this.candidates = []
  }

  private keep(sample: number, at: number, out: Array<Utterance>): void {
    const index = this.kept++
    this.offsets[index % OFFSET_RING] = at
    const slot = index % TAPS
    const history = this.history
    history[slot] = sample
    history[slot + TAPS] = sample
    if (index < FILTER_DELAY) return
    // the taps are symmetric: history[slot + 1 … slot + TAPS] is oldest to newest
    const base = slot + 1
    let sum = dataFilter[FILTER_DELAY]! * history[base + FILTER_DELAY]!
    for (let k = 0; k < FILTER_DELAY; k++) sum += dataFilter[k]! * (history[base + k]! + history[base + TAPS - 1 - k]!)
    this.slide(Math.round(sum), out)
  }

  /** Moves the symbol window on by one filtered sample. */
  private slide(value: number, out: Array<Utterance>): void {
    const index = this.filtered++
    this.filteredRing[index % OFFSET_RING] = value
    const slot = index % N
    const window = this.window
    const old = window[slot]!
    window[slot] = value
    this.energy += value * value - old * old
    const delta = value - old
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
    if (index % STEP === STEP - 1) this.step(index)
    // a preamble found is aligned once the samples its alignment looks at are in
    if (this.opening !== undefined && index >= this.opening + ALIGN_SAMPLES) {
      this.open(this.opening)
      this.opening = undefined
    }
    if (this.candidates.length > 0) this.readSymbols(index, out)
  }

  /** One step of the preamble search, at the window ending at filtered sample `index`. */
  private step(index: number): void {
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
      this.opening = pending.end
    }
  }

  /**
   * Reads the symbol of each candidate whose next symbol's window ended one filtered sample
   * before `index`: the strongest tone there, and where the symbol really is, within a sample
   * each way (the tone's own waveform correlated with the signal: a sharp peak, the tones
   * being 2.8 to 3.4 kHz). So the reading follows an utterance that lost a sample on the way
   * instead of drifting off it.
   */
  private readSymbols(index: number, out: Array<Utterance>): void {
    for (let c = 0; c < this.candidates.length; c++) {
      const candidate = this.candidates[c]!
      if (candidate.next >= index) continue
      if (candidate.next < index - 1) {
        // its preamble was found after its first symbol went by (a preamble cut short by silence)
        this.candidates.splice(c--, 1)
        continue
      }
      const tone = this.strongestTone(candidate.next)
      const end = candidate.next + this.drift(tone, candidate.next)
      candidate.next = end
      const done = this.read(candidate, tone)
      if (done === "reading") continue
      if (done === "failed") {
        this.candidates.splice(c--, 1)
        continue
      }
      // filtered sample `end` is kept sample `end`'s: the end marker's last one
      out.push({ text: done.text, start: candidate.start, end: this.offsets[end % OFFSET_RING]! + 1 + TAIL_SAMPLES })
      this.candidates = []
      this.pending = undefined
      this.opening = undefined
      return
    }
  }

  /** Where `tone`'s symbol window ends, relative to `end`: −1, 0 or 1 sample. */
  private drift(tone: number, end: number): number {
    const template = toneWaveforms[tone]!
    const ring = this.filteredRing
    let best = 0
    let bestSum = -Infinity
    for (let lag = -1; lag <= 1; lag++) {
      const first = end + lag - N + 1
      let sum = 0
      for (let m = 0; m < N; m++) sum += template[m]! * ring[(first + m) % OFFSET_RING]!
      if (sum > bestSum) {
        bestSum = sum
        best = lag
      }
    }
    return best
  }

  /**
   * Starts a candidate whose preamble's last window ends near filtered sample `found`. The
   * search's shares change little over many samples about the true alignment (the tones are
   * one bin apart, and the filter smooths their changes), the more so when the preamble lost a
   * sample on the way: the preamble's own waveform, correlated with the signal half a symbol
   * each side (1200 × 201 products, once per utterance), puts it on the very sample. Its six
   * tones, 2.8 to 3.4 kHz, make that correlation a sharp peak, every other lag 0.3 of it or
   * less.
   */
  private open(found: number): void {
    const end = alignedEnd(this.filteredRing, this.filtered, found)
    // the same preamble found twice (its matches flickered at the edge of their range)
    if (this.candidates.some((candidate) => Math.abs(candidate.end - end) < N)) return
    if (this.candidates.length === MAX_CANDIDATES) this.candidates.shift()
    const first = end - PREAMBLE.length * N + 1
    const start = first >= 0 ? this.offsets[first % OFFSET_RING]! : this.offsets[0]! + first
    this.candidates.push({
      start: Math.max(0, start),
      end,
      next: end + N,
      symbols: new Uint8Array(HEADER_SYMBOLS),
      count: 0,
      filler: 0
    })
  }

  /**
   * The strongest of the 16 tones in the symbol window ending at filtered sample `end`
   * (Goertzel). The window is first copied out of the ring; then four tones run side by side, four independent recurrences the processor
   * overlaps (each one alone waits on its previous step). Each tone's arithmetic is the
   * textbook loop's, operation for operation, so the powers are the same doubles.
   */
  private strongestTone(end: number): number {
    const ring = this.filteredRing
    const x = this.ordered
    const first = end - N + 1
    for (let n = 0; n < N; n++) x[n] = ring[(first + n) % OFFSET_RING]!
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
    candidate.next += N
    const s = candidate.symbols
    // the filler's symbols are let go, only counted
    if (candidate.count === s.length - END_MARKER.length && candidate.filler > 0) {
      candidate.filler--
      return "reading"
    }
    s[candidate.count++] = symbol
    if (candidate.count === HEADER_SYMBOLS && s.length === HEADER_SYMBOLS) {
      const length = (s[0]! << 8) | (s[1]! << 4) | s[2]!
      const filler = (s[3]! << 8) | (s[4]! << 4) | s[5]!
      if (crc8([length >> 8, length & 0xff, filler >> 8, filler & 0xff]) !== ((s[6]! << 4) | s[7]!)) return "failed"
      const symbols = new Uint8Array(HEADER_SYMBOLS + 2 * length + CRC_SYMBOLS + END_MARKER.length)
      symbols.set(s)
      candidate.symbols = symbols
      candidate.filler = filler
      return "reading"
    }
    if (candidate.count < s.length) return "reading"
    const length = (s[0]! << 8) | (s[1]! << 4) | s[2]!
    const bytes = new Uint8Array(4 + length)
    bytes.set([s[0]!, (s[1]! << 4) | s[2]!, s[3]!, (s[4]! << 4) | s[5]!])
    for (let i = 0; i < length; i++) {
      bytes[4 + i] = (s[HEADER_SYMBOLS + 2 * i]! << 4) | s[HEADER_SYMBOLS + 2 * i + 1]!
    }
    const c = HEADER_SYMBOLS + 2 * length
    const check = (s[c]! << 12) | (s[c + 1]! << 8) | (s[c + 2]! << 4) | s[c + 3]!
    if (check !== crc16(bytes)) return "failed"
    if (s[c + 4] !== END_MARKER[0] || s[c + 5] !== END_MARKER[1]) return "failed"
    const text = Result.try(() => utf8Decoder.decode(bytes.subarray(4)))
    return Result.isSuccess(text) ? { text: text.success } : "failed"
  }
}
