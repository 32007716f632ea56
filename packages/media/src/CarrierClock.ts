/**
 * The carrier's clock as a media session sees it: the present on the call's timeline (ms since
 * the stream started, the origin of the carrier's media timestamps), read from the local clock.
 *
 * The carrier stamps the person's frames with its own clock and sends each once it has been
 * captured, so a frame's end is a moment the carrier had reached when it sent the frame. Events
 * read after a frame on the stream (the echo of a mark, a hang-up) happened no earlier than that
 * frame's end, however late the session reads them: the present is the furthest frame's end
 * plus the local time since that frame arrived. Before the first frame, the stream started
 * when its start event arrived.
 *
 * Why not the session's own clock: it starts after the handshake (token check, database
 * lookups), some 20 ms after the carrier's, so audio placed by it lands early against the
 * person's, and a reply could seem to start before the speech it answers ends.
 *
 * A mutable value owned by one fiber (the call's media session), like `CallTimeline`.
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export interface CarrierClock {
  /** The furthest end of a frame of the person's (ms on the call's timeline). */
  readonly furthestMs: number
  /** The local time (ms) when that frame arrived, or the start event before any frame. */
  readonly arrivedAt: number
}

interface Mutable {
  furthestMs: number
  arrivedAt: number
}

/**
 * A clock for a stream whose start event arrived at local time `startedAt` (ms).
 *
 * @category constructors
 */
export const make = (startedAt: number): CarrierClock => ({ furthestMs: 0, arrivedAt: startedAt })

/**
 * A frame of the person's ending at `endMs` (its timestamp plus its length) arrived at local
 * time `now`. Frames late or out of order do not move the clock back.
 *
 * @category mutations
 */
export const frame = (clock: CarrierClock, now: number, endMs: number): void => {
  if (endMs <= clock.furthestMs) return
  const mutable = clock as Mutable
  mutable.furthestMs = endMs
  mutable.arrivedAt = now
}

/**
 * The carrier's present (ms on the call's timeline) at local time `now`.
 *
 * @category getters
 */
export const nowMs = (clock: CarrierClock, now: number): number => clock.furthestMs + Math.max(0, now - clock.arrivedAt)
