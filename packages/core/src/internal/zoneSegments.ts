/**
 * A time zone's UTC offset at an instant, and until when it holds: the segment between two
 * transitions. The polyfill's transition lookup costs about 0.2 ms (11% of the dialer's CPU in
 * `npm run bench`: a call's end places the next attempt in the calling schedule), while a zone
 * changes its offset a few times a year at most: the segments seen are kept, 16 per zone.
 *
 * Correct by definition: the offset at any instant of `[from, to)` is the offset at `from`,
 * since `to` is the first transition after `from` (`Infinity` when the zone has none).
 */
import { Temporal } from "@js-temporal/polyfill"

interface Segment {
  readonly from: number
  readonly to: number
  readonly offsetMs: number
}

const SEGMENTS_PER_ZONE = 16
const ZONES = 512
const known = new Map<string, Array<Segment>>()

const lookUp = (epochMs: number, timeZone: string): Segment => {
  const here = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone)
  const transition = here.getTimeZoneTransition("next")
  return {
    from: epochMs,
    to: transition === null ? Number.POSITIVE_INFINITY : transition.epochMilliseconds,
    offsetMs: here.offsetNanoseconds / 1_000_000
  }
}

/**
 * The segment of constant offset holding `epochMs` in `timeZone` (a valid IANA name), from
 * `epochMs` or earlier to the next transition.
 */
export const segmentAt = (epochMs: number, timeZone: string): Segment => {
  let segments = known.get(timeZone)
  const hit = segments?.find((s) => s.from <= epochMs && epochMs < s.to)
  if (hit !== undefined) return hit
  const segment = lookUp(epochMs, timeZone)
  if (segments === undefined) {
    if (known.size >= ZONES) known.clear()
    segments = []
    known.set(timeZone, segments)
  }
  // A segment found again from an earlier instant replaces the one it contains.
  const same = segments.findIndex((s) => s.to === segment.to)
  if (same !== -1) segments.splice(same, 1)
  else if (segments.length >= SEGMENTS_PER_ZONE) segments.shift()
  segments.push(segment)
  return segment
}
