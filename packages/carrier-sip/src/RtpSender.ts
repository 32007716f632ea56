/**
 * The sending half of a call's RTP, one 20 ms tick at a time: what packets to send for the
 * next frame of the agent's audio, comfort silence, or a key press.
 *
 * Owns: the stream's numbering (a random SSRC, sequence number and timestamp to start with, as
 * RFC 3550 §5.1 asks; the sequence number one up per packet, the timestamp 160 up per tick,
 * sent or not), the codec (the session's μ-law in; PCMU as is or PCMA transcoded out, short
 * frames padded with silence), the marker bit on the first packet of a talkspurt (the first
 * audio after silence, and the stream's first packet), and RFC 4733 key presses: while one is
 * under way its packets take the ticks (`TelephoneEvent.press`: same timestamp, growing
 * duration, the end three times) and the audio waits. Counts packets and payload octets for the
 * SR. Does not own pacing or sockets (`RtpSession`).
 *
 * A mutable value owned by one call's RTP sender; pure but for the random numbers of `make`.
 *
 * @since 0.1.0
 */
import * as ALaw from "@voice-agent/media/ALaw"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as Rtp from "./Rtp.ts"
import type { Codec } from "./Sdp.ts"
import * as TelephoneEvent from "./TelephoneEvent.ts"

/**
 * @category models
 */
export interface RtpSender {
  readonly ssrc: number
  sequence: number
  timestamp: number
  codec: Codec
  payloadType: number
  /** The peer's telephone-event payload type; `undefined` when it takes none. */
  telephoneEvent: number | undefined
  /** The previous tick sent audio (not silence). */
  talking: boolean
  started: boolean
  /** The key press under way: its timestamp and the packets left. */
  press: { readonly timestamp: number; readonly packets: Array<TelephoneEvent.PressPacket> } | undefined
  /** Keys waiting for their turn, with their durations (ms). */
  readonly presses: Array<{ readonly digit: string; readonly durationMs: number }>
  packets: number
  octets: number
  /** The RTP timestamp and payload octets of the last packet sent, for the SR. */
  lastTimestamp: number
}

/**
 * @category constructors
 */
export const make = (options: {
  readonly codec: Codec
  readonly payloadType: number
  readonly telephoneEvent: number | undefined
  readonly ssrc?: number
  readonly sequence?: number
  readonly timestamp?: number
}): RtpSender => {
  const random = (bits: number) => Math.floor(Math.random() * 2 ** bits)
  const timestamp = (options.timestamp ?? random(32)) >>> 0
  return {
    ssrc: (options.ssrc ?? random(32)) >>> 0,
    sequence: (options.sequence ?? random(15)) & 0xffff,
    timestamp,
    codec: options.codec,
    payloadType: options.payloadType,
    telephoneEvent: options.telephoneEvent,
    talking: false,
    started: false,
    press: undefined,
    presses: [],
    packets: 0,
    octets: 0,
    lastTimestamp: timestamp
  }
}

/**
 * The silence code of a codec.
 *
 * @category encoding
 */
export const silenceOf = (codec: Codec): number => (codec === "PCMA" ? ALaw.SILENCE : MuLaw.SILENCE)

/**
 * The session's μ-law as the codec's payload, padded with silence to `samples`.
 *
 * @category encoding
 */
export const payloadOf = (codec: Codec, mulaw: Uint8Array, samples = Rtp.SAMPLES_PER_FRAME): Uint8Array => {
  const encoded = codec === "PCMA" ? ALaw.encode(MuLaw.decode(mulaw)) : mulaw
  if (encoded.length === samples) return encoded
  const out = new Uint8Array(samples).fill(silenceOf(codec))
  out.set(encoded.subarray(0, samples))
  return out
}

/**
 * Queues a key press (sent as telephone-events from the next tick). `false` when the peer
 * takes no telephone-event or the key is not a DTMF key.
 *
 * @category input
 */
export const pressKey = (sender: RtpSender, digit: string, durationMs = 100): boolean => {
  if (sender.telephoneEvent === undefined || TelephoneEvent.eventOf(digit) === undefined) return false
  sender.presses.push({ digit, durationMs })
  return true
}

/**
 * Whether the next tick belongs to a key press (the caller keeps its audio for later).
 *
 * @category output
 */
export const pressing = (sender: RtpSender): boolean =>
  sender.telephoneEvent !== undefined && (sender.press !== undefined || sender.presses.length > 0)

const packet = (sender: RtpSender, payloadType: number, marker: boolean, timestamp: number, payload: Uint8Array) => {
  const bytes = Rtp.encode({ payloadType, marker, sequence: sender.sequence, timestamp, ssrc: sender.ssrc, payload })
  sender.sequence = (sender.sequence + 1) & 0xffff
  sender.packets++
  sender.octets += payload.length
  sender.lastTimestamp = timestamp
  sender.started = true
  return bytes
}

/**
 * One 20 ms tick: the packet to send (a key press's, the audio frame `audio` of μ-law, or
 * comfort silence when `audio` is undefined), or `undefined` when `send` is false (the peer
 * holds the call: the timestamp moves on, nothing is sent). The caller passes no audio while
 * `pressing`.
 *
 * @category output
 */
export const tick = (sender: RtpSender, audio: Uint8Array | undefined, send = true): Uint8Array | undefined => {
  const now = sender.timestamp
  sender.timestamp = (sender.timestamp + Rtp.SAMPLES_PER_FRAME) >>> 0
  if (sender.press === undefined && sender.presses.length > 0 && sender.telephoneEvent !== undefined) {
    const next = sender.presses.shift()!
    sender.press = { timestamp: now, packets: TelephoneEvent.press(next.digit, next.durationMs) }
  }
  if (sender.press !== undefined && sender.telephoneEvent !== undefined) {
    const press = sender.press
    const next = press.packets.shift()!
    if (press.packets.length === 0) sender.press = undefined
    sender.talking = false
    return send ? packet(sender, sender.telephoneEvent, next.marker, press.timestamp, next.payload) : undefined
  }
  const talkspurt = audio !== undefined && (!sender.talking || !sender.started)
  sender.talking = audio !== undefined
  if (!send) return undefined
  const payload = audio === undefined
    ? new Uint8Array(Rtp.SAMPLES_PER_FRAME).fill(silenceOf(sender.codec))
    : payloadOf(sender.codec, audio)
  return packet(sender, sender.payloadType, talkspurt || !sender.started, now, payload)
}

/**
 * Moves the clock on by `frames` ticks without sending (the sender fell behind: RTP carries
 * the gap in its timestamps, not in a burst).
 *
 * @category input
 */
export const skip = (sender: RtpSender, frames: number): void => {
  sender.timestamp = (sender.timestamp + frames * Rtp.SAMPLES_PER_FRAME) >>> 0
}
