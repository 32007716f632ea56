/**
 * What a receiver knows of the peer's RTP stream for its reports (RFC 3550 §6.4.1): sequence
 * numbers extended with their cycles (Appendix A.1, without the probation of new sources), the
 * packets expected and received, the interarrival jitter (A.8) and the peer's last SR.
 *
 * Owns: the numbers of one report block. `received` takes each RTP packet's sequence number,
 * timestamp and arrival; `senderReport` the peer's SRs; `block` the report block for now,
 * resetting the interval's counts (fraction lost is per interval). A new SSRC starts afresh.
 * A mutable value owned by one call's RTP reader; pure (the caller gives the time).
 *
 * @since 0.1.0
 */
import type { ReportBlock } from "./RtcpReport.ts"

const SEQ_MOD = 65536
const MAX_DROPOUT = 3000
const MAX_MISORDER = 100

/**
 * @category models
 */
export interface RtpReception {
  ssrc: number | undefined
  baseSequence: number
  maxSequence: number
  cycles: number
  badSequence: number
  received: number
  expectedPrior: number
  receivedPrior: number
  /** Previous transit time (arrival in timestamp units − RTP timestamp); undefined before one. */
  transit: number | undefined
  jitter: number
  /** The middle 32 bits of the peer's last SR's NTP timestamp, and when it arrived (ms). */
  lastSr: number
  lastSrAtMs: number | undefined
}

/**
 * @category constructors
 */
export const make = (): RtpReception => ({
  ssrc: undefined,
  baseSequence: 0,
  maxSequence: 0,
  cycles: 0,
  badSequence: SEQ_MOD + 1,
  received: 0,
  expectedPrior: 0,
  receivedPrior: 0,
  transit: undefined,
  jitter: 0,
  lastSr: 0,
  lastSrAtMs: undefined
})

const start = (r: RtpReception, ssrc: number, sequence: number) => {
  r.ssrc = ssrc
  r.baseSequence = sequence
  r.maxSequence = sequence
  r.cycles = 0
  r.badSequence = SEQ_MOD + 1
  r.received = 0
  r.expectedPrior = 0
  r.receivedPrior = 0
  r.transit = undefined
  r.jitter = 0
}

/**
 * One RTP packet from the peer, arriving at `arrivalMs` (any clock in ms), its payload at
 * 8,000 Hz.
 *
 * @category input
 */
export const received = (
  r: RtpReception,
  packet: { readonly ssrc: number; readonly sequence: number; readonly timestamp: number },
  arrivalMs: number
): void => {
  if (r.ssrc !== packet.ssrc) start(r, packet.ssrc, packet.sequence)
  else {
    const delta = (packet.sequence - r.maxSequence + SEQ_MOD) % SEQ_MOD
    if (delta < MAX_DROPOUT) {
      if (packet.sequence < r.maxSequence) r.cycles += SEQ_MOD
      r.maxSequence = packet.sequence
    } else if (delta <= SEQ_MOD - MAX_MISORDER) {
      // A very large jump: the sender restarted, if the next packet follows this one.
      if (packet.sequence !== r.badSequence) {
        r.badSequence = (packet.sequence + 1) % SEQ_MOD
        return
      }
      start(r, packet.ssrc, packet.sequence)
    }
    // else: a duplicate or a reordered packet, counted below
  }
  r.received++
  const transit = arrivalMs * 8 - (packet.timestamp >>> 0)
  if (r.transit !== undefined) {
    // Unwrap 32-bit timestamps: a transit difference is small.
    const d = Math.abs(((transit - r.transit) % 2 ** 32 + 2 ** 32 + 2 ** 31) % 2 ** 32 - 2 ** 31)
    r.jitter += (d - r.jitter) / 16
  }
  r.transit = transit
}

/**
 * The peer's SR (its NTP timestamp's halves), arriving at `arrivalMs`.
 *
 * @category input
 */
export const senderReport = (r: RtpReception, ntpSeconds: number, ntpFraction: number, arrivalMs: number): void => {
  r.lastSr = (((ntpSeconds & 0xffff) << 16) | (ntpFraction >>> 16)) >>> 0
  r.lastSrAtMs = arrivalMs
}

/**
 * Packets lost since the beginning: expected − received (RFC 3550 A.3).
 *
 * @category output
 */
export const cumulativeLost = (r: RtpReception): number =>
  r.ssrc === undefined ? 0 : r.cycles + r.maxSequence - r.baseSequence + 1 - r.received

/**
 * The report block at `nowMs` (the clock of `senderReport`), or `undefined` before any packet.
 * Starts a new interval for the fraction lost.
 *
 * @category output
 */
export const block = (r: RtpReception, nowMs: number): ReportBlock | undefined => {
  if (r.ssrc === undefined) return undefined
  const extendedMax = r.cycles + r.maxSequence
  const expected = extendedMax - r.baseSequence + 1
  const expectedInterval = expected - r.expectedPrior
  const receivedInterval = r.received - r.receivedPrior
  r.expectedPrior = expected
  r.receivedPrior = r.received
  const lostInterval = expectedInterval - receivedInterval
  const fractionLost = expectedInterval === 0 || lostInterval <= 0
    ? 0
    : Math.floor((lostInterval * 256) / expectedInterval)
  return {
    ssrc: r.ssrc,
    fractionLost: Math.min(255, fractionLost),
    cumulativeLost: expected - r.received,
    highestSequence: extendedMax >>> 0,
    jitter: Math.floor(r.jitter),
    lastSr: r.lastSrAtMs === undefined ? 0 : r.lastSr,
    delaySinceLastSr: r.lastSrAtMs === undefined ? 0 : Math.floor(((nowMs - r.lastSrAtMs) / 1000) * 65536) >>> 0
  }
}
