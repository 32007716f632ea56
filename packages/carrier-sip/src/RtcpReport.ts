/**
 * RTCP reports (RFC 3550 §6.4): sender reports (SR, 200), receiver reports (RR, 201), the SDES
 * CNAME (202) every compound packet carries (§6.1) and BYE (203), written and read.
 *
 * Owns: bytes ↔ reports. `compound` writes what a session sends every few seconds: an SR when
 * it has sent RTP since the last report, else an RR, each with at most one report block (one
 * peer), then SDES with the CNAME, then BYE when leaving. `parse` reads a compound packet into
 * its parts, skipping types it does not know (APP, XR, feedback), and fails with a reason on
 * anything cut short or not version 2, never throws. `ntpOf` turns a wall-clock time into the
 * 64-bit NTP timestamp SRs carry; `middle32` is its LSR form. Pure: the caller gives the
 * numbers (`RtpReception` computes a report block, the sender its counts).
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"

/**
 * One report block (§6.4.1): what the reporter received from `ssrc`.
 *
 * @category models
 */
export interface ReportBlock {
  readonly ssrc: number
  /** Lost since the previous report, as a fraction of 256. */
  readonly fractionLost: number
  /** Lost since the beginning (signed 24 bits: duplicates can make it negative). */
  readonly cumulativeLost: number
  /** Cycles × 65536 + the highest sequence number received. */
  readonly highestSequence: number
  /** Interarrival jitter, in timestamp units. */
  readonly jitter: number
  /** The middle 32 bits of the last SR's NTP timestamp, 0 if none. */
  readonly lastSr: number
  /** Since that SR, in 1/65536 s; 0 if none. */
  readonly delaySinceLastSr: number
}

/**
 * The sender's part of an SR (§6.4.1).
 *
 * @category models
 */
export interface SenderInfo {
  /** 64-bit NTP timestamp as two 32-bit halves. */
  readonly ntpSeconds: number
  readonly ntpFraction: number
  readonly rtpTimestamp: number
  readonly packets: number
  readonly octets: number
}

/**
 * One packet of a compound RTCP packet.
 *
 * @category models
 */
export type Rtcp =
  | {
    readonly _tag: "SenderReport"
    readonly ssrc: number
    readonly sender: SenderInfo
    readonly reports: ReadonlyArray<ReportBlock>
  }
  | { readonly _tag: "ReceiverReport"; readonly ssrc: number; readonly reports: ReadonlyArray<ReportBlock> }
  | { readonly _tag: "SourceDescription"; readonly chunks: ReadonlyArray<{ ssrc: number; cname: string | undefined }> }
  | { readonly _tag: "Bye"; readonly ssrcs: ReadonlyArray<number>; readonly reason: string | undefined }
  | { readonly _tag: "Other"; readonly packetType: number }

/**
 * @category errors
 */
export class RtcpError extends Data.TaggedError("RtcpError")<{
  readonly reason: "TooShort" | "NotVersion2" | "BadLength" | "NotReportFirst"
}> {
  override get message(): string {
    return `Not an RTCP packet: ${this.reason}`
  }
}

/** Seconds from 1900 (NTP's epoch) to 1970 (Unix's). */
const NTP_EPOCH_OFFSET = 2_208_988_800

/**
 * The NTP timestamp of a wall-clock time (ms since 1970).
 *
 * @category encoding
 */
export const ntpOf = (epochMs: number): { readonly seconds: number; readonly fraction: number } => {
  const seconds = Math.floor(epochMs / 1000)
  const fraction = Math.floor(((epochMs - seconds * 1000) / 1000) * 2 ** 32)
  return { seconds: (seconds + NTP_EPOCH_OFFSET) >>> 0, fraction: fraction >>> 0 }
}

/**
 * The middle 32 bits of an NTP timestamp: an SR's identity in a report block's LSR (§6.4.1).
 *
 * @category encoding
 */
export const middle32 = (seconds: number, fraction: number): number =>
  (((seconds & 0xffff) << 16) | (fraction >>> 16)) >>> 0

const header = (view: DataView, offset: number, count: number, packetType: number, words: number) => {
  view.setUint8(offset, 0x80 | (count & 0x1f))
  view.setUint8(offset + 1, packetType)
  view.setUint16(offset + 2, words - 1)
}

const writeBlock = (view: DataView, offset: number, block: ReportBlock) => {
  view.setUint32(offset, block.ssrc >>> 0)
  const lost = Math.max(-0x800000, Math.min(0x7fffff, Math.trunc(block.cumulativeLost)))
  view.setUint32(offset + 4, ((Math.max(0, Math.min(255, block.fractionLost)) << 24) | (lost & 0xffffff)) >>> 0)
  view.setUint32(offset + 8, block.highestSequence >>> 0)
  view.setUint32(offset + 12, Math.min(0xffffffff, Math.max(0, Math.round(block.jitter))) >>> 0)
  view.setUint32(offset + 16, block.lastSr >>> 0)
  view.setUint32(offset + 20, block.delaySinceLastSr >>> 0)
}

/**
 * What goes into one compound packet.
 *
 * @category models
 */
export interface Compound {
  readonly ssrc: number
  /** Present when RTP was sent since the last report: an SR. */
  readonly sender: SenderInfo | undefined
  /** At most 31 blocks. */
  readonly reports: ReadonlyArray<ReportBlock>
  readonly cname: string
  /** Leaving the session: a BYE last, with this reason (may be empty). */
  readonly bye?: string | undefined
}

const textBytes = (text: string, max: number): Uint8Array => {
  const bytes = new TextEncoder().encode(text)
  return bytes.length > max ? bytes.subarray(0, max) : bytes
}

/**
 * Writes SR or RR, SDES (CNAME), and BYE if asked (§6.1's order).
 *
 * @category encoding
 */
export const compound = (packet: Compound): Uint8Array => {
  const reports = packet.reports.slice(0, 31)
  const reportWords = (packet.sender === undefined ? 2 : 7) + reports.length * 6
  const cname = textBytes(packet.cname, 255)
  // SDES chunk: SSRC, CNAME item (type, length, text), then 1..4 nulls to a word boundary.
  const chunkBytes = 4 + 2 + cname.length
  const sdesWords = 1 + Math.ceil((chunkBytes + 1) / 4)
  const reason = packet.bye === undefined ? undefined : textBytes(packet.bye, 255)
  const byeWords = reason === undefined ? 0 : 2 + (reason.length === 0 ? 0 : Math.ceil((1 + reason.length) / 4))
  const out = new Uint8Array((reportWords + sdesWords + byeWords) * 4)
  const view = new DataView(out.buffer)
  let offset = 0
  if (packet.sender === undefined) {
    header(view, 0, reports.length, 201, reportWords)
    view.setUint32(4, packet.ssrc >>> 0)
    offset = 8
  } else {
    const s = packet.sender
    header(view, 0, reports.length, 200, reportWords)
    view.setUint32(4, packet.ssrc >>> 0)
    view.setUint32(8, s.ntpSeconds >>> 0)
    view.setUint32(12, s.ntpFraction >>> 0)
    view.setUint32(16, s.rtpTimestamp >>> 0)
    view.setUint32(20, s.packets >>> 0)
    view.setUint32(24, s.octets >>> 0)
    offset = 28
  }
  for (const block of reports) {
    writeBlock(view, offset, block)
    offset += 24
  }
  header(view, offset, 1, 202, sdesWords)
  view.setUint32(offset + 4, packet.ssrc >>> 0)
  out[offset + 8] = 1
  out[offset + 9] = cname.length
  out.set(cname, offset + 10)
  offset += sdesWords * 4 // the rest of the chunk stays zero: its terminating nulls
  if (reason !== undefined) {
    header(view, offset, 1, 203, byeWords)
    view.setUint32(offset + 4, packet.ssrc >>> 0)
    if (reason.length > 0) {
      out[offset + 8] = reason.length
      out.set(reason, offset + 9)
    }
  }
  return out
}

const readBlocks = (view: DataView, offset: number, count: number): Array<ReportBlock> => {
  const blocks: Array<ReportBlock> = []
  for (let i = 0; i < count; i++, offset += 24) {
    const word = view.getUint32(offset + 4)
    const lost = word & 0xffffff
    blocks.push({
      ssrc: view.getUint32(offset),
      fractionLost: word >>> 24,
      cumulativeLost: lost & 0x800000 ? lost - 0x1000000 : lost,
      highestSequence: view.getUint32(offset + 8),
      jitter: view.getUint32(offset + 12),
      lastSr: view.getUint32(offset + 16),
      delaySinceLastSr: view.getUint32(offset + 20)
    })
  }
  return blocks
}

const readSdes = (bytes: Uint8Array, view: DataView, start: number, end: number, count: number) => {
  const chunks: Array<{ ssrc: number; cname: string | undefined }> = []
  let offset = start
  for (let i = 0; i < count && offset + 4 <= end; i++) {
    const ssrc = view.getUint32(offset)
    offset += 4
    let cname: string | undefined
    while (offset < end && bytes[offset] !== 0) {
      const type = bytes[offset]!
      const length = bytes[offset + 1] ?? 0
      if (offset + 2 + length > end) return chunks
      if (type === 1) cname = new TextDecoder().decode(bytes.subarray(offset + 2, offset + 2 + length))
      offset += 2 + length
    }
    offset = (Math.floor((offset - start) / 4) + 1) * 4 + start // past the nulls, to the next word
    chunks.push({ ssrc, cname })
  }
  return chunks
}

/**
 * Reads a compound packet (§6.1: version 2, lengths adding up to the datagram, an SR or RR
 * first). The parts of unknown types are `Other`.
 *
 * @category decoding
 */
export const parse = (bytes: Uint8Array): Result.Result<ReadonlyArray<Rtcp>, RtcpError> => {
  const fail = (reason: RtcpError["reason"]) => Result.fail(new RtcpError({ reason }))
  if (bytes.length < 8) return fail("TooShort")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: Array<Rtcp> = []
  let offset = 0
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) return fail("BadLength")
    const first = bytes[offset]!
    if (first >> 6 !== 2) return fail("NotVersion2")
    const count = first & 0x1f
    const packetType = bytes[offset + 1]!
    const end = offset + (view.getUint16(offset + 2) + 1) * 4
    if (end > bytes.length) return fail("BadLength")
    const body = offset + 4
    if (packetType === 200) {
      if (body + 24 + count * 24 > end) return fail("BadLength")
      parts.push({
        _tag: "SenderReport",
        ssrc: view.getUint32(body),
        sender: {
          ntpSeconds: view.getUint32(body + 4),
          ntpFraction: view.getUint32(body + 8),
          rtpTimestamp: view.getUint32(body + 12),
          packets: view.getUint32(body + 16),
          octets: view.getUint32(body + 20)
        },
        reports: readBlocks(view, body + 24, count)
      })
    } else if (packetType === 201) {
      if (body + 4 + count * 24 > end) return fail("BadLength")
      parts.push({ _tag: "ReceiverReport", ssrc: view.getUint32(body), reports: readBlocks(view, body + 4, count) })
    } else if (packetType === 202) {
      parts.push({ _tag: "SourceDescription", chunks: readSdes(bytes, view, body, end, count) })
    } else if (packetType === 203) {
      if (body + count * 4 > end) return fail("BadLength")
      const ssrcs: Array<number> = []
      for (let i = 0; i < count; i++) ssrcs.push(view.getUint32(body + i * 4))
      const at = body + count * 4
      const length = at < end ? bytes[at]! : 0
      const reason = at < end && at + 1 + length <= end
        ? new TextDecoder().decode(bytes.subarray(at + 1, at + 1 + length))
        : undefined
      parts.push({ _tag: "Bye", ssrcs, reason })
    } else {
      parts.push({ _tag: "Other", packetType })
    }
    offset = end
  }
  const head = parts[0]!
  if (head._tag !== "SenderReport" && head._tag !== "ReceiverReport") return fail("NotReportFirst")
  return Result.succeed(parts)
}
