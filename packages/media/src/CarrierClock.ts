/**
 * The carrier's clock as a media session sees it: the present on the call's timeline (ms since
 * the stream started, the origin of the carrier's media timestamps), read from the local clock.
 *
 * The carrier stamps the person's frames with its own clock and sends each once it has been
 * captured, so a frame's end is a moment the carrier had reached when it sent the frame, and the
 * stream's start is one it had reached when it sent its start event. Each is a lower bound of the
 * carrier's present from the moment it arrived, growing with the local clock; the present is the
 * tightest of them. Frames the session reads late (a backlog after a stall: the socket hands them
 * over a burst at a time) arrived earlier than they are read, so they cannot pull it back.
 *
 * An event read from the stream (the echo of a mark, a digit) happened after the frames before it
 * and before those after it: its place is the furthest frame's end read so far plus the local
 * time since that frame was read (`streamMs`), however far behind the present the reading is.
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
  /** The tightest lower bound of the carrier's present yet (ms on the call's timeline)… */
  readonly boundMs: number
  /** …from the local time (ms) when it was learnt. */
  readonly boundAt: number
}

interface Mutable {
  furthestMs: number
  arrivedAt: number
  boundMs: number
  boundAt: number
}

/**
 * A clock for a stream whose start event arrived at local time `startedAt` (ms).
 *
 * @category constructors
 */
export const make = (startedAt: number): CarrierClock => ({
  furthestMs: 0,
  arrivedAt: startedAt,
  boundMs: 0,
  boundAt: startedAt
})

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
  if (endMs > nowMs(clock, now)) {
    mutable.boundMs = endMs
    mutable.boundAt = now
  }
}

/**
 * The carrier's present (ms on the call's timeline) at local time `now`: where the agent's audio
 * starts now, and the time it is told. It never goes back.
 *
 * @category getters
 */
export const nowMs = (clock: CarrierClock, now: number): number => clock.boundMs + Math.max(0, now - clock.boundAt)

/**
 * The place (ms on the call's timeline) of an event read at local time `now` after the frames read
 * so far: the echo of a mark, a digit. At most the present.
 *
 * @category getters
 */
export const streamMs = (clock: CarrierClock, now: number): number =>
  Math.min(clock.furthestMs + Math.max(0, now - clock.arrivedAt), nowMs(clock, now))
