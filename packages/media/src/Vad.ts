/**
 * Voice activity detection by frame energy: a small, deterministic state machine that says
 * when someone starts and stops talking on one channel (the remote party's turn, a barge-in).
 *
 * Owns: the decision per frame, nothing else. Pure: `step` returns a new state and never
 * keeps or modifies its frame. Does not own framing, timestamps or what a turn means: the
 * caller cuts the channel into frames (from `CallTimeline` segments, say) and maps frame
 * counts to time.
 *
 * Format: signed 16-bit linear PCM (`Int16Array`, any sample rate), one frame per `step`.
 * The counts below are in frames and assume 20 ms frames (160 samples at 8 kHz); frames of
 * another length scale the timings with them, and a frame of any length is accepted.
 *
 * Energy is the frame's mean square relative to full scale, in dBFS:
 * `10 × log10(mean(x²) / 32768²)`. A full-scale square wave is 0 dBFS, a full-scale sine
 * −3 dBFS, digital silence −∞. Comparisons happen on the mean square (thresholds are
 * converted once), so no logarithm runs per frame.
 *
 * The machine, with hysteresis and a hangover:
 * - while silent, a frame at or above `startDbfs` is voiced; after `startFrames` voiced frames
 *   in a row, `speech-start` (the speech began `startFrames − 1` frames before that frame);
 * - while speaking, a frame below `stopDbfs` (lower than `startDbfs`) is quiet; after
 *   `hangoverFrames` quiet frames in a row, `speech-end` (the speech ended `hangoverFrames`
 *   frames before the end of that frame). Frames between the two thresholds keep the current
 *   state and break the other run.
 * Defaults: `startDbfs` −35, `stopDbfs` −45, `startFrames` 3 (60 ms), `hangoverFrames` 20
 * (400 ms, long enough to bridge the pauses between words). Telephone speech sits around −15
 * to −30 dBFS and a quiet line below −50; the simulated speech of `SimSpeech` at −15 dBFS.
 *
 * @since 0.1.0
 */

/**
 * Thresholds and counts; see the module header for the defaults.
 *
 * @category models
 */
export interface Options {
  readonly startDbfs?: number
  readonly stopDbfs?: number
  readonly startFrames?: number
  readonly hangoverFrames?: number
}

/**
 * The resolved options, and the thresholds as mean squares.
 *
 * @category models
 */
export interface Config {
  readonly startDbfs: number
  readonly stopDbfs: number
  readonly startFrames: number
  readonly hangoverFrames: number
  readonly startMeanSquare: number
  readonly stopMeanSquare: number
}

/**
 * Where the detector is: `speaking` or not, and `run`, how many frames in a row have argued
 * for the other state.
 *
 * @category models
 */
export interface State {
  readonly config: Config
  readonly speaking: boolean
  readonly run: number
}

/**
 * A change of state.
 *
 * @category models
 */
export type Event = "speech-start" | "speech-end"

/**
 * The state after a frame, and the event that frame caused, if any.
 *
 * @category models
 */
export interface Step {
  readonly state: State
  readonly event?: Event
}

const FULL_SCALE_SQUARED = 32768 * 32768

const meanSquareOf = (dbfs: number): number => FULL_SCALE_SQUARED * 10 ** (dbfs / 10)

/**
 * A silent detector. Throws a `RangeError` for counts that are not positive integers or a
 * `stopDbfs` above `startDbfs` (caller bugs).
 *
 * @category constructors
 */
export const make = (options: Options = {}): State => {
  const startDbfs = options.startDbfs ?? -35
  const stopDbfs = options.stopDbfs ?? -45
  const startFrames = options.startFrames ?? 3
  const hangoverFrames = options.hangoverFrames ?? 20
  if (!(stopDbfs <= startDbfs)) throw new RangeError(`stopDbfs (${stopDbfs}) must not exceed startDbfs (${startDbfs})`)
  for (const [name, count] of [["startFrames", startFrames], ["hangoverFrames", hangoverFrames]] as const) {
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new RangeError(`${name} must be a positive integer, got ${count}`)
    }
  }
  return {
    config: {
      startDbfs,
      stopDbfs,
      startFrames,
      hangoverFrames,
      startMeanSquare: meanSquareOf(startDbfs),
      stopMeanSquare: meanSquareOf(stopDbfs)
    },
    speaking: false,
    run: 0
  }
}

/**
 * The mean of the squared samples (0 for an empty frame).
 *
 * @category math
 */
export const meanSquare = (frame: Int16Array): number => {
  let sum = 0
  for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!
  return frame.length === 0 ? 0 : sum / frame.length
}

/**
 * A frame's energy in dBFS (−∞ for silence or an empty frame).
 *
 * @category math
 */
export const energyDbfs = (frame: Int16Array): number => 10 * Math.log10(meanSquare(frame) / FULL_SCALE_SQUARED)

/**
 * Feeds one frame to the detector.
 *
 * @category math
 */
export const step = (state: State, frame: Int16Array): Step => {
  const { config } = state
  const energy = meanSquare(frame)
  if (!state.speaking) {
    const run = energy >= config.startMeanSquare ? state.run + 1 : 0
    return run >= config.startFrames
      ? { state: { config, speaking: true, run: 0 }, event: "speech-start" }
      : { state: { config, speaking: false, run } }
  }
  const run = energy < config.stopMeanSquare ? state.run + 1 : 0
  return run >= config.hangoverFrames
    ? { state: { config, speaking: false, run: 0 }, event: "speech-end" }
    : { state: { config, speaking: true, run } }
}
