/**
 * A call's timeline: places each side's audio at its position in time, fills what nobody
 * placed with silence, and hands out the aligned `agent`, `remote` and `mixed` channels in
 * order, a segment at a time, for the recordings to append.
 *
 * Owns: positions, gaps, overlaps, late audio, the agent's cleared tail, and the sum. Pure
 * data and functions: no clock, no I/O. Does not own μ-law, base64 or WAV (the caller decodes
 * frames with `MuLaw.decode` and writes segments with `Wav.encodeSamples`), nor deciding when
 * time has passed (the caller advances the timeline).
 *
 * Format: signed 16-bit linear PCM (`Int16Array`, host order: no bytes here), mono, 8000 Hz.
 * A position counts samples from the start of the media stream: a Twilio `media.timestamp`
 * (ms since the stream started) is at `samplesAt(timestamp)` = 8 × timestamp. Frames may
 * have any length (Twilio sends 160 samples per 20 ms, documents no size) and positions need
 * not line up with anything.
 *
 * The two sides:
 * - `remote` audio is placed at its media timestamp. Its furthest end, less a reorder window,
 *   is `settled`: the caller advances there after each frame, so frames arriving up to the
 *   window late, out of order or duplicated still land where they belong.
 * - `agent` audio is placed at its playout position, which the caller knows (the carrier
 *   plays what it is sent in order, from when it is sent or when the previous audio ends;
 *   marks confirm it). It may be placed ahead of the cursor, up to `maxBufferedMs`. A `clear`
 *   is `truncate(timeline, "agent", at)`: what was placed at or after `at` and not yet handed
 *   out is dropped, so the `agent` recording keeps only what the person could hear.
 *
 * Decisions:
 * - Overlap: a later placement overwrites an earlier one where they overlap (a duplicate
 *   frame changes nothing; a corrected re-placement wins). Nothing is summed within a channel.
 * - Late audio: the part of a placement before the cursor is dropped and counted (`late`);
 *   handed-out audio is final and never rewritten, so the recordings are append-only.
 * - Gaps: positions nobody placed are silence (0). With no remote frames (Twilio may send no
 *   silent chunks) nothing settles: the caller advances by its own clock too.
 * - `mixed` is `Mixer.mix(agent, remote)`, the sum clipped to 16 bits, sample for sample.
 *
 * Memory: only audio not yet handed out is kept, at most `maxBufferedMs` per channel
 * (placements past it are refused and counted, the backpressure signal for an agent running
 * too far ahead); gaps cost nothing until handed out, then at most `maxSegmentMs` per
 * segment. `buffered` reports what is held. Nothing keeps the whole call.
 *
 * Horizon: a placement that starts more than `maxBufferedMs` past the cursor is refused whole
 * (counted in `refused`), on either channel. A remote frame's position comes from the
 * carrier's timestamp: without this bound one frame stamped hours (or 2^53 ms) ahead would
 * make the gap before it, all silence, due at once, hours of audio handed out in one go. With
 * it, one placement moves `settled` by at most twice `maxBufferedMs`.
 *
 * Cost, measured on this machine (Node 24): placing a 20 ms remote frame and handing out what
 * settled takes 3.3 µs, 4.7 µs with an agent frame placed as well.
 *
 * Buffer ownership: `place` copies its input; segments are fresh arrays the caller owns. A
 * timeline is a mutable value owned by one fiber (the call's media session); the functions
 * here mutate it in place.
 *
 * @since 0.1.0
 */
import * as Mixer from "./Mixer.ts"

/**
 * Samples per second on the timeline.
 *
 * @category models
 */
export const SAMPLE_RATE = 8000

/**
 * Samples per millisecond (8 at 8 kHz).
 *
 * @category models
 */
export const SAMPLES_PER_MS = SAMPLE_RATE / 1000

/**
 * The position of a media timestamp in milliseconds (Twilio's `media.timestamp`).
 *
 * @category math
 */
export const samplesAt = (ms: number): number => ms * SAMPLES_PER_MS

/**
 * The two sides of a call, each recorded on its own channel.
 *
 * @category models
 */
export type Channel = "agent" | "remote"

/**
 * Tuning, all in milliseconds of audio: `reorderWindowMs` (default 200) is how late a remote
 * frame may arrive and still be placed when the caller advances to `settled`;
 * `maxBufferedMs` (default 10000) is what one channel may hold before it is handed out;
 * `maxSegmentMs` (default 1000) is the longest segment `advance` hands out.
 *
 * @category models
 */
export interface Options {
  readonly reorderWindowMs?: number
  readonly maxBufferedMs?: number
  readonly maxSegmentMs?: number
}

/**
 * A timeline. Read its fields, change it only through this module's functions.
 *
 * @category models
 */
export interface CallTimeline {
  /** Everything before this position has been handed out and is final. */
  readonly cursor: number
  readonly reorderWindow: number
  readonly maxBuffered: number
  readonly maxSegment: number
}

/**
 * Aligned audio for positions `start` to `start + length`, the same length on every channel.
 *
 * @category models
 */
export interface Segment {
  readonly start: number
  readonly agent: Int16Array
  readonly remote: Int16Array
  readonly mixed: Int16Array
}

/**
 * What `place` did with a placement's samples: `placed` are held, `late` fell before the
 * cursor and were dropped, `refused` did not fit in `maxBufferedMs` and were dropped (the
 * tail of the placement).
 *
 * @category models
 */
export interface Placement {
  readonly placed: number
  readonly late: number
  readonly refused: number
}

interface Piece {
  start: number
  samples: Int16Array
}

interface Track {
  /** In placement order: later pieces overwrite earlier ones. Every piece starts at or after the cursor. */
  readonly pieces: Array<Piece>
  /** Samples held in `pieces`. */
  buffered: number
  /** Just past the last sample placed and not truncated; never behind the cursor's handed-out audio. */
  end: number
}

interface Internal extends CallTimeline {
  cursor: number
  readonly agent: Track
  readonly remote: Track
}

const internal = (timeline: CallTimeline): Internal => timeline as Internal

const checkPosition = (name: string, position: number): void => {
  if (!Number.isSafeInteger(position)) {
    throw new RangeError(`${name} must be an integer sample position, got ${position}`)
  }
}

const samplesOf = (name: string, ms: number): number => {
  const samples = samplesAt(ms)
  if (!Number.isSafeInteger(samples) || samples < 0) {
    throw new RangeError(`${name} must be a non-negative whole number of samples (ms × 8), got ${ms} ms`)
  }
  return samples
}

/**
 * An empty timeline at position 0. Throws a `RangeError` for negative or fractional options.
 *
 * @category constructors
 */
export const make = (options: Options = {}): CallTimeline => {
  const timeline: Internal = {
    cursor: 0,
    reorderWindow: samplesOf("reorderWindowMs", options.reorderWindowMs ?? 200),
    maxBuffered: samplesOf("maxBufferedMs", options.maxBufferedMs ?? 10_000),
    maxSegment: Math.max(1, samplesOf("maxSegmentMs", options.maxSegmentMs ?? 1000)),
    agent: { pieces: [], buffered: 0, end: 0 },
    remote: { pieces: [], buffered: 0, end: 0 }
  }
  return timeline
}

/**
 * Places `samples` on `channel` from `position` on, overwriting what was placed there before
 * and is not handed out yet. The part before the cursor is dropped (`late`), and so is the
 * tail that would take the channel past `maxBufferedMs` (`refused`); a placement starting more
 * than `maxBufferedMs` past the cursor is refused whole (module header, "Horizon"), however far
 * ahead, even past the safe integers. Copies `samples`. Throws a `RangeError` for a position
 * that is not an integer (a caller bug).
 *
 * @category math
 */
export const place = (
  timeline: CallTimeline,
  channel: Channel,
  position: number,
  samples: Int16Array
): Placement => {
  if (!Number.isInteger(position)) {
    throw new RangeError(`position must be an integer sample position, got ${position}`)
  }
  const self = internal(timeline)
  if (position - self.cursor > self.maxBuffered) return { placed: 0, late: 0, refused: samples.length }
  const track = self[channel]
  const late = Math.min(samples.length, Math.max(0, self.cursor - position))
  const placed = Math.min(samples.length - late, Math.max(0, self.maxBuffered - track.buffered))
  // copied in pieces of at most one segment, so that a piece handed out in part holds at most
  // one segment's worth of samples already handed out
  for (let offset = late; offset < late + placed; offset += self.maxSegment) {
    const until = Math.min(late + placed, offset + self.maxSegment)
    track.pieces.push({ start: position + offset, samples: samples.slice(offset, until) })
  }
  if (placed > 0) {
    track.buffered += placed
    track.end = Math.max(track.end, position + late + placed)
  }
  return { placed, late, refused: samples.length - late - placed }
}

/**
 * Drops what `channel` holds at or after `from` (the agent's unplayed audio after a `clear`)
 * and returns how many samples were dropped. Audio before the cursor is already handed out
 * and stays: the cursor trails the remote audio by the reorder window, so a clear at the
 * current playout position is always in time.
 *
 * @category math
 */
export const truncate = (timeline: CallTimeline, channel: Channel, from: number): number => {
  checkPosition("from", from)
  const self = internal(timeline)
  const track = self[channel]
  const at = Math.max(from, self.cursor)
  let dropped = 0
  let kept = 0
  for (const piece of track.pieces) {
    const end = piece.start + piece.samples.length
    if (piece.start >= at) {
      dropped += piece.samples.length
      continue
    }
    if (end > at) {
      dropped += end - at
      piece.samples = piece.samples.subarray(0, at - piece.start)
    }
    track.pieces[kept++] = piece
  }
  track.pieces.length = kept
  track.buffered -= dropped
  track.end = Math.min(track.end, at)
  return dropped
}

const take = (track: Track, from: number, until: number): Int16Array => {
  const out = new Int16Array(until - from)
  let kept = 0
  for (const piece of track.pieces) {
    const end = piece.start + piece.samples.length
    const first = Math.max(from, piece.start)
    const last = Math.min(until, end)
    // a piece inside the segment, the common case, is copied without a view over it
    if (first === piece.start && last === end) out.set(piece.samples, first - from)
    else if (first < last) out.set(piece.samples.subarray(first - piece.start, last - piece.start), first - from)
    if (end <= until) {
      track.buffered -= piece.samples.length
      continue
    }
    if (piece.start < until) {
      track.buffered -= until - piece.start
      piece.samples = piece.samples.subarray(until - piece.start)
      piece.start = until
    }
    track.pieces[kept++] = piece
  }
  track.pieces.length = kept
  return out
}

/**
 * Hands out the timeline from the cursor up to `to` (exclusive) as segments of at most
 * `maxSegmentMs`, moving the cursor past each segment as it is taken. Lazy: nothing moves
 * until the caller iterates, and stopping early leaves the rest for the next call. Placements
 * made while iterating land in the segments not yet taken. Nothing happens when `to` is not
 * past the cursor.
 *
 * @category math
 */
export function* advance(timeline: CallTimeline, to: number): Generator<Segment, void, void> {
  checkPosition("to", to)
  const self = internal(timeline)
  while (self.cursor < to) {
    const start = self.cursor
    const until = Math.min(to, start + self.maxSegment)
    const agent = take(self.agent, start, until)
    const remote = take(self.remote, start, until)
    self.cursor = until
    yield { start, agent, remote, mixed: Mixer.mix(agent, remote) }
  }
}

/**
 * The position up to which the timeline can be handed out now: the end of the remote audio
 * less the reorder window (never behind the cursor).
 *
 * @category math
 */
export const settled = (timeline: CallTimeline): number => {
  const self = internal(timeline)
  return Math.max(self.cursor, self.remote.end - self.reorderWindow)
}

/**
 * Just past the last sample placed on either channel (and not truncated), or the cursor.
 *
 * @category math
 */
export const end = (timeline: CallTimeline): number => {
  const self = internal(timeline)
  return Math.max(self.cursor, self.agent.end, self.remote.end)
}

/**
 * Hands out everything placed, up to `end`, when the call is over: `advance(timeline, end(timeline))`.
 * Agent audio placed ahead and never played (the call ended first) is still in `end`:
 * `truncate` it at the position where the call stopped before finishing.
 *
 * @category math
 */
export const finish = (timeline: CallTimeline): Generator<Segment, void, void> => advance(timeline, end(timeline))

/**
 * How many samples `channel` holds that are not handed out yet (at most `maxBufferedMs`).
 *
 * @category math
 */
export const buffered = (timeline: CallTimeline, channel: Channel): number => internal(timeline)[channel].buffered
