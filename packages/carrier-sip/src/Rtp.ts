/**
 * RTP packets (RFC 3550 §5.1): the 12-byte header, CSRCs, the header extension and padding.
 *
 * Owns: bytes ↔ packet. `decode` refuses what is not RTP version 2 or is cut short (a typed
 * error, never a throw), skips CSRCs and an extension, and strips padding; `encode` writes a
 * packet with no CSRC, extension or padding, as the engine sends. Does not own timing,
 * sequence numbering or SSRC choice (the sender does) nor reordering (`JitterBuffer`).
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"

/**
 * @category models
 */
export interface RtpPacket {
  readonly payloadType: number
  readonly marker: boolean
  /** 16 bits, wrapping. */
  readonly sequence: number
  /** 32 bits, wrapping, in the payload's clock (8,000 Hz for G.711 and telephone-event). */
  readonly timestamp: number
  readonly ssrc: number
  readonly payload: Uint8Array
}

/**
 * @category errors
 */
export class RtpError extends Data.TaggedError("RtpError")<{
  readonly reason: "TooShort" | "NotVersion2" | "BadPadding" | "Truncated"
}> {
  override get message(): string {
    return `Not an RTP packet: ${this.reason}`
  }
}

/**
 * The 20 ms G.711 frame: 160 samples, 160 bytes, 160 timestamp units.
 *
 * @category constants
 */
export const SAMPLES_PER_FRAME = 160

const fail = (reason: RtpError["reason"]) => Result.fail(new RtpError({ reason }))

/**
 * Reads one packet. The payload is a view into `bytes`.
 *
 * @category decoding
 */
export const decode = (bytes: Uint8Array): Result.Result<RtpPacket, RtpError> => {
  if (bytes.length < 12) return fail("TooShort")
  const first = bytes[0]!
  if (first >> 6 !== 2) return fail("NotVersion2")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = 12 + (first & 0x0f) * 4
  if ((first & 0x10) !== 0) {
    if (bytes.length < offset + 4) return fail("Truncated")
    offset += 4 + view.getUint16(offset + 2) * 4
  }
  let end = bytes.length
  if ((first & 0x20) !== 0) {
    const padding = bytes[bytes.length - 1]!
    if (padding === 0 || padding > bytes.length - offset) return fail("BadPadding")
    end -= padding
  }
  if (offset > end) return fail("Truncated")
  return Result.succeed({
    payloadType: bytes[1]! & 0x7f,
    marker: (bytes[1]! & 0x80) !== 0,
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: bytes.subarray(offset, end)
  })
}

/**
 * Writes one packet (version 2, no padding, extension or CSRC).
 *
 * @category encoding
 */
export const encode = (packet: RtpPacket): Uint8Array => {
  const out = new Uint8Array(12 + packet.payload.length)
  const view = new DataView(out.buffer)
  out[0] = 0x80
  out[1] = (packet.marker ? 0x80 : 0) | (packet.payloadType & 0x7f)
  view.setUint16(2, packet.sequence & 0xffff)
  view.setUint32(4, packet.timestamp >>> 0)
  view.setUint32(8, packet.ssrc >>> 0)
  out.set(packet.payload, 12)
  return out
}

/**
 * Whether a datagram on the RTP port is RTCP (RFC 5761 §4: packet types 192..223), to be kept
 * apart when RTP and RTCP share a port.
 *
 * @category decoding
 */
export const isRtcp = (bytes: Uint8Array): boolean =>
  bytes.length >= 2 && bytes[0]! >> 6 === 2 && bytes[1]! >= 192 && bytes[1]! <= 223
