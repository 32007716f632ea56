/**
 * Answering-machine detection from the first seconds of an answered call's audio, for a carrier
 * that cannot tell (a SIP trunk): fed the person's side frame by frame from the answer, it
 * answers `human` or `machine` as soon as it can be sure, and for a machine, when its greeting
 * ends (the end of its beep, or the silence after it). docs/MEDIA.md, "Answering machines
 * detected by the engine", has the measured accuracy and decision times.
 *
 * Owns: the decision, from the audio alone. Does not own what is done with it (the media
 * session holds the agent back until it is made: `engine/MediaSessionMachineDetection.ts`), nor
 * framing or time: positions count the samples fed (and the gaps a frame's timestamp shows).
 *
 * Format: signed 16-bit linear PCM at 8 kHz (`Int16Array`), frames of 10 ms or more (20 ms, 160
 * samples, on the wire; a shorter frame is accepted, but its energy and tone mean little). Never
 * keeps or modifies a frame. A mutable value owned by one fiber (the call's media session), like
 * `CallTimeline`: `feed` is O(frame length) (one pass over the frame, a second for a loud one),
 * with a fixed handful of numbers of state whatever the call's length; about 2 µs a 20 ms frame
 * on the 2-core test machine, as much as `Vad.step`, and only until the decision.
 *
 * The rules follow Twilio's answering machine detection (its `AnsweredBy` values and the
 * `MachineDetection*` parameters, whose defaults are the defaults here):
 * - **a person** says something short and waits: an utterance shorter than `speechThresholdMs`
 *   (2400) followed by `speechEndMs` (1200) of silence; also nothing said for
 *   `silenceTimeoutMs` (5000) (Twilio's `unknown`: a person waiting for the caller is likelier
 *   than a silent machine, and the agent speaking first is what such a person needs);
 * - **a machine** talks on: an utterance (pauses shorter than `speechEndMs` are part of it)
 *   longer than `speechThresholdMs`; or a beep, however short its greeting: a steady tone of
 *   300 to 2600 Hz lasting `beepMinMs` (160);
 * - **its greeting ends** (machines only) when its beep ends, when `greetingEndSilenceMs` (1200)
 *   of silence follow its speech, or at `timeoutMs` (30000) from the answer.
 *
 * How a frame is heard:
 * - **Energy against the line's noise.** A frame is voiced 10 dB above the noise floor (and at
 *   −45 dBFS or more), quiet again under 6 dB above it (or −50 dBFS); between the two it keeps
 *   its state. The floor is the quietest frame of the last 2 s (the minima of eight blocks of
 *   250 ms), and at most −40 dBFS: it follows a noisy line within 2 s, stays at the dips
 *   between words while someone talks, and a voice with no dip for 2 s cannot raise it to its
 *   own level. `Vad`'s fixed thresholds (start −35, stop −45 dBFS) are not used: on a line whose
 *   noise lies between them a pause never ends, and every person becomes a long greeting. An
 *   utterance starts after 60 ms voiced.
 * - **Tone.** The frequency of the one sine that best explains the frame's autocorrelation at
 *   lags 1 and 2 (which white noise does not bias; near 2 kHz, where lag 1 vanishes, from lags 0
 *   and 1), then the share of the frame's energy at that frequency (Goertzel): about 1 for a
 *   tone, at most 0.8 or so for speech, whose energy spreads over the harmonics of its pitch. A
 *   frame with 0.9 or more starts a tonal run; the run goes on while frames keep that share at
 *   its frequency (the mean of its frames' estimates), through up to 40 ms of frames the noise
 *   broke, and is a beep once it lasts `beepMinMs`. Measured: every beep of 300 to 2600 Hz (177
 *   frequencies) 14 dB or more above white noise is heard, its end within 40 ms; no beep in 224
 *   voicings of people's openings and machines' greetings by flite (7 pitches, 80 to 260 Hz;
 *   flite's vowels are steadier than a person's), whose longest tonal run was one frame. DTMF,
 *   two tones of equal strength, has about half its energy at either.
 *
 * @since 0.1.0
 */

/**
 * The thresholds, in ms of audio; see the module header for the defaults.
 *
 * @category models
 */
export interface Options {
  readonly speechThresholdMs?: number
  readonly speechEndMs?: number
  readonly silenceTimeoutMs?: number
  readonly beepMinMs?: number
  readonly greetingEndSilenceMs?: number
  readonly timeoutMs?: number
}

/**
 * Who answered, when it was decided (ms of audio from the answer), and why.
 *
 * @category models
 */
export type Verdict =
  | { readonly _tag: "human"; readonly atMs: number; readonly reason: "short-greeting" | "silence" }
  | { readonly _tag: "machine"; readonly atMs: number; readonly reason: "long-greeting" | "beep" }

/**
 * When a machine's greeting ended (ms of audio from the answer), and how that was known.
 *
 * @category models
 */
export interface GreetingEnd {
  readonly atMs: number
  readonly by: "beep" | "silence" | "timeout"
}

/**
 * What a frame decided: the verdict, or (for a machine) the end of its greeting.
 *
 * @category models
 */
export type Event = "human" | "machine" | "greeting-end"

/**
 * A detector: what it has decided so far, and how much audio it has heard.
 *
 * @category models
 */
export interface MachineDetection {
  readonly verdict: Verdict | undefined
  readonly greetingEnd: GreetingEnd | undefined
  /** Samples heard (and gaps), from the answer. */
  readonly position: number
}

const SAMPLES_PER_MS = 8
const FULL_SCALE_SQUARED = 32768 * 32768
const meanSquareOf = (dbfs: number): number => FULL_SCALE_SQUARED * 10 ** (dbfs / 10)

const START_MARGIN = 10 ** (10 / 10)
const STOP_MARGIN = 10 ** (6 / 10)
const START_ABSOLUTE = meanSquareOf(-45)
const STOP_ABSOLUTE = meanSquareOf(-50)
const FLOOR_BLOCKS = 8
const FLOOR_CEILING = meanSquareOf(-40)
const FLOOR_BLOCK_SAMPLES = 250 * SAMPLES_PER_MS
const MIN_SPEECH_SAMPLES = 60 * SAMPLES_PER_MS
const TONE_CONCENTRATION = 0.9
const TONE_MIN_HZ = 300
const TONE_MAX_HZ = 2600
const TONE_DRIFT_HZ = 30
const TONE_GAP_SAMPLES = 40 * SAMPLES_PER_MS

interface Config {
  readonly speechThreshold: number
  readonly speechEnd: number
  readonly silenceTimeout: number
  readonly beepMin: number
  readonly greetingEndSilence: number
  readonly timeout: number
}

interface State {
  readonly config: Config
  verdict: Verdict | undefined
  greetingEnd: GreetingEnd | undefined
  position: number
  /** The last two samples heard, for the tone's predictor across frames. */
  previous1: number
  previous2: number
  /** Noise floor: minima of the last blocks (a ring), and of the block being filled. */
  readonly blockMinima: Float64Array
  block: number
  blockFill: number
  blockMinimum: number
  voiced: boolean
  /** Voiced samples in a row before an utterance starts, and where they started. */
  voicedRun: number
  voicedRunStart: number
  inUtterance: boolean
  utteranceStart: number
  lastVoicedEnd: number
  spoke: boolean
  /** The tonal run: its frequency, start, and end (the end of its last tonal frame). */
  toneHz: number
  toneFrames: number
  toneStart: number
  toneEnd: number
  toneRun: boolean
  beep: boolean
}

/**
 * A detector at the answer. Throws a `RangeError` for a threshold that is not a positive
 * number of ms (a caller bug).
 *
 * @category constructors
 */
export const make = (options: Options = {}): MachineDetection => {
  const ms = {
    speechThresholdMs: options.speechThresholdMs ?? 2400,
    speechEndMs: options.speechEndMs ?? 1200,
    silenceTimeoutMs: options.silenceTimeoutMs ?? 5000,
    beepMinMs: options.beepMinMs ?? 160,
    greetingEndSilenceMs: options.greetingEndSilenceMs ?? 1200,
    timeoutMs: options.timeoutMs ?? 30_000
  }
  for (const [name, value] of Object.entries(ms)) {
    if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number, got ${value}`)
  }
  const state: State = {
    config: {
      speechThreshold: ms.speechThresholdMs * SAMPLES_PER_MS,
      speechEnd: ms.speechEndMs * SAMPLES_PER_MS,
      silenceTimeout: ms.silenceTimeoutMs * SAMPLES_PER_MS,
      beepMin: ms.beepMinMs * SAMPLES_PER_MS,
      greetingEndSilence: ms.greetingEndSilenceMs * SAMPLES_PER_MS,
      timeout: ms.timeoutMs * SAMPLES_PER_MS
    },
    verdict: undefined,
    greetingEnd: undefined,
    position: 0,
    previous1: 0,
    previous2: 0,
    blockMinima: new Float64Array(FLOOR_BLOCKS).fill(Infinity),
    block: 0,
    blockFill: 0,
    blockMinimum: Infinity,
    voiced: false,
    voicedRun: 0,
    voicedRunStart: 0,
    inUtterance: false,
    utteranceStart: 0,
    lastVoicedEnd: 0,
    spoke: false,
    toneHz: 0,
    toneFrames: 0,
    toneStart: 0,
    toneEnd: 0,
    toneRun: false,
    beep: false
  }
  return state
}

/**
 * Whether the detector has nothing more to say: a person, or a machine whose greeting ended.
 *
 * @category getters
 */
export const isDone = (detection: MachineDetection): boolean =>
  detection.verdict !== undefined && (detection.verdict._tag === "human" || detection.greetingEnd !== undefined)

const toMs = (samples: number): number => samples / SAMPLES_PER_MS

/**
 * The frequency (Hz) of the one sine that best explains a frame's autocorrelation at lags 0, 1
 * and 2. Lags 1 and 2 carry no white noise, so away from 2 kHz the frequency comes from them
 * alone (Pisarenko: `R2 / R1 = (2c² − 1) / c`, `c = cos ω`); near 2 kHz, where `R1` vanishes, from
 * `R1 / R0`, whose bias from the noise (it pulls `c` towards 0) is smallest there.
 */
const frequencyOf = (lag0: number, lag1: number, lag2: number): number => {
  let cosine: number
  if (Math.abs(lag1) < 0.05 * lag0) {
    cosine = lag1 / lag0
  } else {
    const ratio = lag2 / lag1
    const root = Math.sqrt(ratio * ratio + 8)
    cosine = lag1 > 0 ? (ratio + root) / 4 : (ratio - root) / 4
  }
  return (Math.acos(Math.max(-1, Math.min(1, cosine))) * 8000) / (2 * Math.PI)
}

/**
 * The share of a frame's energy at `hz` (Goertzel over the frame): about 1 for a sine at `hz`,
 * under 0.9 for speech, whose energy spreads over harmonics of its pitch.
 */
const concentration = (frame: Int16Array, hz: number, energy: number): number => {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / 8000)
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < frame.length; i++) {
    const s = frame[i]! + coefficient * s1 - s2
    s2 = s1
    s1 = s
  }
  return (2 * (s1 * s1 + s2 * s2 - coefficient * s1 * s2)) / (frame.length * energy)
}

/**
 * Feeds the next frame of the person's side; `timestampMs` (from the answer), when given, places
 * it, and a gap before it is heard as silence. Answers what the frame decided, if anything.
 * Frames after `isDone` are ignored.
 *
 * @category mutations
 */
export const feed = (detection: MachineDetection, frame: Int16Array, timestampMs?: number): Event | undefined => {
  const state = detection as State
  if (isDone(state) || frame.length === 0) return undefined
  const { config } = state
  if (timestampMs !== undefined) {
    const at = Math.round(timestampMs * SAMPLES_PER_MS)
    if (at > state.position) {
      // A gap: silence, with nothing to predict a tone from.
      state.position = at
      state.voiced = false
      state.voicedRun = 0
      state.toneRun = false
      state.previous1 = 0
      state.previous2 = 0
    }
  }
  const start = state.position
  const end = start + frame.length
  state.position = end

  // One pass: the energy, and the autocorrelation at lags 1 and 2.
  let energy = 0
  let lag1 = 0
  let lag2 = 0
  let x2 = state.previous2
  let x1 = state.previous1
  for (let i = 0; i < frame.length; i++) {
    const x = frame[i]!
    energy += x * x
    lag1 += x * x1
    lag2 += x * x2
    x2 = x1
    x1 = x
  }
  state.previous2 = x2
  state.previous1 = x1
  const meanSquare = energy / frame.length

  // The noise floor: the quietest frame of the last blocks.
  if (meanSquare < state.blockMinimum) state.blockMinimum = meanSquare
  state.blockFill += frame.length
  let floor = Math.min(state.blockMinimum, FLOOR_CEILING)
  for (let i = 0; i < FLOOR_BLOCKS; i++) if (state.blockMinima[i]! < floor) floor = state.blockMinima[i]!
  if (state.blockFill >= FLOOR_BLOCK_SAMPLES) {
    state.blockMinima[state.block] = state.blockMinimum
    state.block = (state.block + 1) % FLOOR_BLOCKS
    state.blockFill = 0
    state.blockMinimum = Infinity
  }

  // Voiced, with hysteresis.
  const startLevel = Math.max(floor * START_MARGIN, START_ABSOLUTE)
  if (state.voiced ? meanSquare < Math.max(floor * STOP_MARGIN, STOP_ABSOLUTE) : meanSquare >= startLevel) {
    state.voiced = !state.voiced
  }

  // The tonal run: a frame continues it when its energy is at the run's frequency (the mean of
  // its frames' estimates, steadier than any one of them); else one whose energy is at its own
  // frequency starts one.
  const loud = meanSquare >= START_ABSOLUTE
  let beepEnd: number | undefined
  if (loud && state.toneRun && concentration(frame, state.toneHz, energy) >= TONE_CONCENTRATION) {
    const hz = frequencyOf(energy, lag1, lag2)
    if (Math.abs(hz - state.toneHz) <= TONE_DRIFT_HZ) {
      state.toneFrames++
      state.toneHz += (hz - state.toneHz) / state.toneFrames
    }
    state.toneEnd = end
  } else if (state.toneRun && end - state.toneEnd <= TONE_GAP_SAMPLES) {
    // a frame the noise broke: the run goes on
  } else {
    if (state.toneRun && state.beep) beepEnd = state.toneEnd
    const hz = loud ? frequencyOf(energy, lag1, lag2) : 0
    state.toneRun = hz >= TONE_MIN_HZ && hz <= TONE_MAX_HZ && concentration(frame, hz, energy) >= TONE_CONCENTRATION
    state.beep = false
    state.toneHz = hz
    state.toneFrames = 1
    state.toneStart = start
    state.toneEnd = end
  }
  const beepStarted = state.toneRun && !state.beep && state.toneEnd - state.toneStart >= config.beepMin
  if (beepStarted) state.beep = true

  // Utterances: 60 ms voiced starts one; `speechEnd` of silence ends it.
  let utteranceEnded = false
  if (state.voiced) {
    if (!state.inUtterance) {
      if (state.voicedRun === 0) state.voicedRunStart = start
      state.voicedRun += frame.length
      if (state.voicedRun >= MIN_SPEECH_SAMPLES) {
        state.inUtterance = true
        state.utteranceStart = state.voicedRunStart
      }
    }
    state.lastVoicedEnd = end
  } else {
    state.voicedRun = 0
    if (state.inUtterance && end - state.lastVoicedEnd >= config.speechEnd) {
      state.inUtterance = false
      state.spoke = true
      utteranceEnded = true
    }
  }

  if (state.verdict === undefined) {
    const atMs = toMs(end)
    if (beepStarted) {
      state.verdict = { _tag: "machine", atMs, reason: "beep" }
      return "machine"
    }
    if (state.inUtterance && state.lastVoicedEnd - state.utteranceStart >= config.speechThreshold) {
      state.verdict = { _tag: "machine", atMs, reason: "long-greeting" }
      return "machine"
    }
    if (utteranceEnded) {
      state.verdict = { _tag: "human", atMs, reason: "short-greeting" }
      return "human"
    }
    if (!state.spoke && !state.inUtterance && end >= config.silenceTimeout) {
      state.verdict = { _tag: "human", atMs, reason: "silence" }
      return "human"
    }
    return undefined
  }
  // A machine: the end of its greeting.
  if (beepEnd !== undefined) {
    state.greetingEnd = { atMs: toMs(beepEnd), by: "beep" }
  } else if (!state.voiced && !state.toneRun && end - state.lastVoicedEnd >= config.greetingEndSilence) {
    state.greetingEnd = { atMs: toMs(state.lastVoicedEnd), by: "silence" }
  } else if (end >= config.timeout) {
    state.greetingEnd = { atMs: toMs(end), by: "timeout" }
  } else {
    return undefined
  }
  return "greeting-end"
}
