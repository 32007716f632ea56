/**
 * RFC 4733 telephone-events (DTMF in RTP): the 4-byte payload, the digits it names, and a
 * receiver that reports each key press once.
 *
 * Owns: payload bytes ↔ event (`event`, `end`, `volume`, `duration`); events 0..15 ↔
 * `0-9 * # A-D`; the packets a sender emits for one key press (RFC 4733 §2.5.1: the first with
 * the marker bit, updates every 20 ms with the same timestamp and a growing duration, the end
 * packet sent three times); and `receive`, which turns the packets of a press, repeated, lost
 * or reordered, into one digit, keyed on the event's RTP timestamp. Does not own RTP headers.
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export interface TelephoneEvent {
  /** 0..255; 0..15 are DTMF. */
  readonly event: number
  readonly end: boolean
  /** 0..63, the power level in -dBm0 (higher is quieter). */
  readonly volume: number
  /** In timestamp units (8,000 Hz): 160 per 20 ms. */
  readonly duration: number
}

const DIGITS = "0123456789*#ABCD"

/**
 * The DTMF key of an event (`undefined` past 15).
 *
 * @category digits
 */
export const digitOf = (event: number): string | undefined => DIGITS[event]

/**
 * The event of a DTMF key (`0-9 * # A-D`, case-insensitive).
 *
 * @category digits
 */
export const eventOf = (digit: string): number | undefined => {
  const index = DIGITS.indexOf(digit.toUpperCase())
  return index < 0 || digit.length !== 1 ? undefined : index
}

/**
 * Reads the payload; `undefined` when shorter than 4 bytes.
 *
 * @category decoding
 */
export const decode = (payload: Uint8Array): TelephoneEvent | undefined => {
  if (payload.length < 4) return undefined
  return {
    event: payload[0]!,
    end: (payload[1]! & 0x80) !== 0,
    volume: payload[1]! & 0x3f,
    duration: (payload[2]! << 8) | payload[3]!
  }
}

/**
 * Writes the payload.
 *
 * @category encoding
 */
export const encode = (event: TelephoneEvent): Uint8Array =>
  Uint8Array.of(
    event.event & 0xff,
    (event.end ? 0x80 : 0) | (event.volume & 0x3f),
    (event.duration >> 8) & 0xff,
    event.duration & 0xff
  )

/**
 * One packet of a key press: its payload and whether it carries the marker bit. All share the
 * press's RTP timestamp.
 *
 * @category encoding
 */
export interface PressPacket {
  readonly marker: boolean
  readonly payload: Uint8Array
}

/**
 * The packets of one key press lasting `durationMs` (rounded up to 20 ms), one per 20 ms, the
 * end packet repeated three times (RFC 4733 §2.5.1.4).
 *
 * @category encoding
 */
export const press = (digit: string, durationMs = 100, volume = 10): Array<PressPacket> => {
  const event = eventOf(digit)
  if (event === undefined) return []
  const frames = Math.max(1, Math.ceil(durationMs / 20))
  const packets: Array<PressPacket> = []
  for (let i = 1; i < frames; i++) {
    packets.push({ marker: i === 1, payload: encode({ event, end: false, volume, duration: i * 160 }) })
  }
  const last = encode({ event, end: true, volume, duration: frames * 160 })
  for (let i = 0; i < 3; i++) packets.push({ marker: frames === 1 && i === 0, payload: last })
  return packets
}

/**
 * The receiver's memory: the RTP timestamps of the presses already reported.
 *
 * @category models
 */
export interface Receiver {
  readonly reported: ReadonlyArray<number>
}

/**
 * @category constructors
 */
export const receiver = (): Receiver => ({ reported: [] })

/**
 * Feeds one telephone-event packet (its RTP timestamp and payload): the digit the first time a
 * press is seen (whichever of its packets arrives first), `undefined` for the rest. Remembers
 * the last 16 presses, plenty for packets of one press straggling in.
 *
 * @category decoding
 */
export const receive = (
  state: Receiver,
  timestamp: number,
  payload: Uint8Array
): { readonly state: Receiver; readonly digit: string | undefined } => {
  const event = decode(payload)
  if (event === undefined || state.reported.includes(timestamp >>> 0)) return { state, digit: undefined }
  const digit = digitOf(event.event)
  if (digit === undefined) return { state, digit: undefined }
  return { state: { reported: [...state.reported.slice(-15), timestamp >>> 0] }, digit }
}
