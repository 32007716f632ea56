/**
 * Twilio Media Streams as a `MediaCodec`: the media session's events over the JSON text frames
 * of `TwilioMediaStream`, byte for byte what the session wrote when it spoke Twilio directly.
 *
 * From Twilio: `connected` is `Connected`; `start` is `Start` with its `streamSid` (the message's own) and the
 * custom parameter `token` (the per-call media token travels there: Twilio drops a stream
 * URL's query string); `media` of the `inbound` track is `Media` (the base64 payload as bytes,
 * the timestamp as is); `mark`, `dtmf` and `stop` are themselves; anything else (a malformed
 * frame, an unknown event, a `media` of the `outbound` track) is `Ignored`. To Twilio: `Media`
 * is a `media` message of the base64 audio, `Mark` a `mark`, `Clear` a `clear`, each on the
 * stream's `streamSid`.
 *
 * @since 0.1.0
 */
import type { InboundEvent, MediaCodec, OutboundEvent } from "./MediaCodec.ts"
import { ignored } from "./MediaCodec.ts"
import * as TwilioMediaStream from "./TwilioMediaStream.ts"

/**
 * Decodes one text frame from Twilio.
 *
 * @category decoding
 */
export const decode = (text: string): InboundEvent => {
  const decoded = TwilioMediaStream.decode(text)
  if (decoded._tag === "Failure") return ignored
  const message = decoded.success
  switch (message._tag) {
    case "Connected":
      return { _tag: "Connected" }
    case "Start": {
      const token = message.start.customParameters?.["token"]
      return { _tag: "Start", streamId: message.streamSid, token: typeof token === "string" ? token : undefined }
    }
    case "Media":
      return message.media.track === "inbound"
        ? { _tag: "Media", timestampMs: message.media.timestamp, audio: Buffer.from(message.media.payload, "base64") }
        : ignored
    case "Mark":
      return { _tag: "Mark", name: message.mark.name }
    case "Dtmf":
      return { _tag: "Dtmf", digit: message.dtmf.digit }
    case "Stop":
      return { _tag: "Stop" }
    case "Unknown":
      return ignored
  }
}

/**
 * Encodes one event to Twilio on stream `streamSid`.
 *
 * @category encoding
 */
export const encode = (streamSid: string, event: OutboundEvent): string => {
  switch (event._tag) {
    case "Media":
      return TwilioMediaStream.encode(
        TwilioMediaStream.outboundMedia(
          streamSid,
          Buffer.from(event.audio.buffer, event.audio.byteOffset, event.audio.byteLength).toString("base64")
        )
      )
    case "Mark":
      return TwilioMediaStream.encode(TwilioMediaStream.outboundMark(streamSid, event.name))
    case "Clear":
      return TwilioMediaStream.encode(TwilioMediaStream.clear(streamSid))
  }
}

/**
 * The codec.
 *
 * @category constructors
 */
export const codec: MediaCodec = { name: "twilio", decode, encode }
