/**
 * The jitter buffer of the person's audio: RTP packets in, as the network delivers them
 * (late, reordered, repeated, missing), frames out in order, each placed on the call's timeline
 * (ms since the answer) by its RTP timestamp, so that recordings line up as they do with
 * Twilio's timestamped frames.
 *
 * The mapping: the first packet of a stream (an SSRC) anchors it. Its audio ended no later than
 * it arrived, so its start is `arrival − its duration` on the call's timeline (never before 0,
 * never before what was already released); every later packet of the stream sits at the anchor
 * plus its timestamp's distance from the anchor's (32-bit timestamps unwrapped), at 8,000 Hz. A
 * new SSRC (a re-INVITE, a transfer at the far end) or a timestamp that lands more than
 * `resyncMs` away from its arrival (a sender's jump) anchors anew.
 *
 * Playout: a frame is released once the call's clock passes its start plus `delayMs`, so a
 * packet up to `delayMs` late still finds its place; one later than that (its place already
 * released) is dropped and counted as late, as is a repeat of a released packet; a repeat of
 * a waiting one counts as a duplicate. A hole between two released frames comes out
 * as a `Gap` (the missing audio's place and length) for the caller to fill with silence.
 * Durations are the payload's length in samples: one byte per sample, G.711's.
 *
 * A mutable value owned by one call's RTP reader; pure (the caller gives the time).
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export interface Options {
  /** How long a frame waits for the packets before it (ms). Default 60. */
  readonly delayMs?: number
  /** A timestamp this far (ms) from its arrival re-anchors the stream. Default 2000. */
  readonly resyncMs?: number
}

/**
 * What comes out, in timeline order.
 *
 * @category models
 */
export type Frame =
  | { readonly _tag: "Audio"; readonly atMs: number; readonly durationMs: number; readonly payload: Uint8Array }
  | { readonly _tag: "Gap"; readonly atMs: number; readonly durationMs: number }

/**
 * Counts for the call's logs and RTCP reports.
 *
 * @category models
 */
export interface Stats {
  received: number
  duplicates: number
  late: number
  /** Samples of audio never received, inside released stretches. */
  lostSamples: number
}

interface Pending {
  readonly ext: number
  readonly payload: Uint8Array
}

/**
 * @category models
 */
export interface JitterBuffer {
  readonly delayMs: number
  readonly resyncMs: number
  ssrc: number | undefined
  /** Highest extended timestamp seen in this stream (for unwrapping). */
  highest: number
  anchorExt: number
  anchorMs: number
  /** Sorted by `ext`. */
  pending: Array<Pending>
  /** Extended timestamp of the next frame due; `undefined` before the first release. */
  next: number | undefined
  /** Where the released audio ends on the timeline (ms). */
  releasedUntilMs: number
  /** Frames of a stream that was replaced, released at the next pull. */
  ready: Array<Frame>
  readonly stats: Stats
}

const RATE_PER_MS = 8

/**
 * @category constructors
 */
export const make = (options: Options = {}): JitterBuffer => ({
  delayMs: options.delayMs ?? 60,
  resyncMs: options.resyncMs ?? 2000,
  ssrc: undefined,
  highest: 0,
  anchorExt: 0,
  anchorMs: 0,
  pending: [],
  next: undefined,
  releasedUntilMs: 0,
  ready: [],
  stats: { received: 0, duplicates: 0, late: 0, lostSamples: 0 }
})

const msOf = (jb: JitterBuffer, ext: number): number => jb.anchorMs + (ext - jb.anchorExt) / RATE_PER_MS

const unwrap = (jb: JitterBuffer, timestamp: number): number => {
  const diff = ((timestamp >>> 0) - (jb.highest % 2 ** 32)) | 0
  return jb.highest + diff
}

const anchor = (jb: JitterBuffer, ssrc: number, timestamp: number, samples: number, nowMs: number): void => {
  // What was waiting belongs to the old stream: release it all, in order, at the next pull.
  jb.ready.push(...release(jb, Number.POSITIVE_INFINITY))
  jb.ssrc = ssrc
  // Extended timestamps start high enough that unwrapping backwards stays positive.
  jb.highest = 2 ** 32 + (timestamp >>> 0)
  jb.anchorExt = jb.highest
  jb.anchorMs = Math.max(0, jb.releasedUntilMs, nowMs - samples / RATE_PER_MS)
  jb.next = undefined
}

/**
 * Adds one packet of audio (RTP timestamp, SSRC, payload) arriving at `nowMs` on the call's
 * timeline.
 *
 * @category input
 */
export const push = (
  jb: JitterBuffer,
  packet: { readonly timestamp: number; readonly ssrc: number; readonly payload: Uint8Array },
  nowMs: number
): void => {
  jb.stats.received++
  const samples = packet.payload.length
  if (jb.ssrc !== packet.ssrc) anchor(jb, packet.ssrc, packet.timestamp, samples, nowMs)
  let ext = unwrap(jb, packet.timestamp)
  if (Math.abs(msOf(jb, ext) + samples / RATE_PER_MS - nowMs) > jb.resyncMs) {
    anchor(jb, packet.ssrc, packet.timestamp, samples, nowMs)
    ext = jb.anchorExt
  }
  if (jb.next !== undefined && ext < jb.next) {
    jb.stats.late++
    return
  }
  if (ext > jb.highest) jb.highest = ext
  let index = jb.pending.length
  while (index > 0 && jb.pending[index - 1]!.ext > ext) index--
  if (index > 0 && jb.pending[index - 1]!.ext === ext) {
    jb.stats.duplicates++
    return
  }
  jb.pending.splice(index, 0, { ext, payload: packet.payload })
}

const release = (jb: JitterBuffer, nowMs: number): Array<Frame> => {
  const frames: Array<Frame> = []
  while (jb.pending.length > 0) {
    const first = jb.pending[0]!
    const atMs = msOf(jb, first.ext)
    if (atMs + jb.delayMs > nowMs) break
    jb.pending.shift()
    if (jb.next !== undefined && first.ext > jb.next) {
      const missing = first.ext - jb.next
      jb.stats.lostSamples += missing
      frames.push({ _tag: "Gap", atMs: msOf(jb, jb.next), durationMs: missing / RATE_PER_MS })
    }
    const durationMs = first.payload.length / RATE_PER_MS
    frames.push({ _tag: "Audio", atMs, durationMs, payload: first.payload })
    jb.next = first.ext + first.payload.length
    jb.releasedUntilMs = Math.max(jb.releasedUntilMs, atMs + durationMs)
  }
  return frames
}

/**
 * The frames due at `nowMs` (the call's clock), in timeline order.
 *
 * @category output
 */
export const pull = (jb: JitterBuffer, nowMs: number): Array<Frame> => {
  const ready = jb.ready
  jb.ready = []
  return [...ready, ...release(jb, nowMs)]
}

/**
 * Everything still waiting, at the call's end.
 *
 * @category output
 */
export const drain = (jb: JitterBuffer): Array<Frame> => pull(jb, Number.POSITIVE_INFINITY)
