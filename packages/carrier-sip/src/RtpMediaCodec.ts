/**
 * The media session's wire for a call whose media is an `RtpSession` (`SipMedia`): a
 * `MediaCodec` of compact text frames, one letter and the event's fields, the audio's bytes
 * as a latin1 string (one character per byte). The frames never leave the process: `SipMedia`
 * joins the session and the RTP session by an in-memory `MediaSocket` pair, so this is the
 * cheapest text that carries the bytes: one native copy each way (`Buffer`'s latin1), no
 * JSON, no base64, no schema. Over a WebSocket the same frames would still round-trip (a
 * latin1 character is one UTF-16 code unit below 256).
 *
 * From the trunk's side (`encodeInbound`, `decode`):
 * - `S<streamId>\n<token>`: `Start` (the dialog's Call-ID names the stream; the token is the
 *   call's media token);
 * - `A<timestampMs>\n<μ-law>`: `Media` of the person at `timestampMs` on the call's timeline;
 * - `M<name>`: the echo of a mark (`Mark`);
 * - `D<digit>`: a key press (`Dtmf`);
 * - `E`: `Stop`, the dialog ended;
 * - anything else: `Ignored`.
 *
 * From the session (`encode`, `decodeOutbound`): `A<μ-law>` (`Media`), `M<name>` (`Mark`),
 * `C` (`Clear`). The stream's id is not repeated: the pair carries one stream.
 *
 * @since 0.1.0
 */
import type { InboundEvent, MediaCodec, OutboundEvent } from "@voice-agent/media/MediaCodec"
import { ignored } from "@voice-agent/media/MediaCodec"

const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")

/**
 * The trunk's side of an event, as a frame for the session.
 *
 * @category encoding
 */
export const encodeInbound = (event: InboundEvent): string => {
  switch (event._tag) {
    case "Start":
      return `S${event.streamId}\n${event.token ?? ""}`
    case "Media":
      return `A${event.timestampMs}\n${latin1(event.audio)}`
    case "Mark":
      return `M${event.name}`
    case "Dtmf":
      return `D${event.digit}`
    case "Stop":
      return "E"
    case "Connected":
    case "Ignored":
      return "?"
  }
}

/**
 * A frame from the trunk's side, as the session reads it; never throws.
 *
 * @category decoding
 */
export const decode = (frame: string): InboundEvent => {
  switch (frame.charAt(0)) {
    case "A": {
      const newline = frame.indexOf("\n")
      const timestampMs = newline < 0 ? Number.NaN : Number(frame.slice(1, newline))
      if (!Number.isFinite(timestampMs) || timestampMs < 0) return ignored
      return { _tag: "Media", timestampMs, audio: Buffer.from(frame.slice(newline + 1), "latin1") }
    }
    case "S": {
      const newline = frame.indexOf("\n")
      if (newline < 0) return ignored
      const token = frame.slice(newline + 1)
      return { _tag: "Start", streamId: frame.slice(1, newline), token: token === "" ? undefined : token }
    }
    case "M":
      return { _tag: "Mark", name: frame.slice(1) }
    case "D":
      return frame.length === 2 ? { _tag: "Dtmf", digit: frame[1]! } : ignored
    case "E":
      return frame.length === 1 ? { _tag: "Stop" } : ignored
    default:
      return ignored
  }
}

/**
 * The session's event as a frame for the trunk's side.
 *
 * @category encoding
 */
export const encode = (_streamId: string, event: OutboundEvent): string => {
  switch (event._tag) {
    case "Media":
      return `A${latin1(event.audio)}`
    case "Mark":
      return `M${event.name}`
    case "Clear":
      return "C"
  }
}

/**
 * A frame from the session, as the trunk's side reads it (`undefined`: not one of ours).
 *
 * @category decoding
 */
export const decodeOutbound = (frame: string): OutboundEvent | undefined => {
  switch (frame.charAt(0)) {
    case "A":
      return { _tag: "Media", audio: Buffer.from(frame.slice(1), "latin1") }
    case "M":
      return { _tag: "Mark", name: frame.slice(1) }
    case "C":
      return frame.length === 1 ? { _tag: "Clear" } : undefined
    default:
      return undefined
  }
}

/**
 * The codec the session is served with.
 *
 * @category constructors
 */
export const codec: MediaCodec = { name: "rtp", decode, encode }
