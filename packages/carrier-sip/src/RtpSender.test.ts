import { assert, describe, it } from "@effect/vitest"
import * as ALaw from "@voice-agent/media/ALaw"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Result } from "effect"
import * as Rtp from "./Rtp.ts"
import * as RtpSender from "./RtpSender.ts"
import * as TelephoneEvent from "./TelephoneEvent.ts"

const read = (bytes: Uint8Array | undefined) => Result.getOrThrow(Rtp.decode(bytes!))
const frame = (value: number) => new Uint8Array(160).fill(value)

describe("RtpSender", () => {
  it("numbers packets one up and timestamps 160 up, from where it was told to start", () => {
    const s = RtpSender.make({
      codec: "PCMU",
      payloadType: 0,
      telephoneEvent: 101,
      ssrc: 42,
      sequence: 65534,
      timestamp: 0xffffff00
    })
    const packets = [frame(1), frame(2), frame(3)].map((f) => read(RtpSender.tick(s, f)))
    assert.deepStrictEqual(packets.map((p) => [p.sequence, p.timestamp, p.ssrc, p.payloadType]), [
      [65534, 0xffffff00, 42, 0],
      [65535, 0xffffffa0, 42, 0],
      [0, 0x40, 42, 0]
    ])
    assert.deepStrictEqual(packets.map((p) => p.payload[0]), [1, 2, 3])
    assert.deepStrictEqual({ packets: s.packets, octets: s.octets }, { packets: 3, octets: 480 })
  })

  it("sends comfort silence when there is nothing to play, and marks the first audio after it", () => {
    const s = RtpSender.make({ codec: "PCMU", payloadType: 0, telephoneEvent: undefined })
    const packets = [undefined, undefined, frame(7), frame(8), undefined, frame(9)].map((f) =>
      read(RtpSender.tick(s, f))
    )
    assert.deepStrictEqual(packets.map((p) => p.marker), [true, false, true, false, false, true])
    assert.deepStrictEqual(packets.map((p) => p.payload[0]), [0xff, 0xff, 7, 8, 0xff, 9])
    assert.isTrue(packets.every((p) => p.payload.length === 160))
  })

  it("transcodes to A-law for PCMA, padding a short frame with A-law silence", () => {
    const s = RtpSender.make({ codec: "PCMA", payloadType: 8, telephoneEvent: undefined })
    const mulaw = MuLaw.encode(Int16Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1000 : -1000)))
    const p = read(RtpSender.tick(s, mulaw))
    assert.strictEqual(p.payloadType, 8)
    assert.deepStrictEqual(Array.from(p.payload.subarray(0, 100)), Array.from(ALaw.encode(MuLaw.decode(mulaw))))
    assert.isTrue(p.payload.subarray(100).every((b) => b === ALaw.SILENCE))
    assert.isTrue(read(RtpSender.tick(s, undefined)).payload.every((b) => b === ALaw.SILENCE))
  })

  it("sends a key press as telephone-events on the press's timestamp, then goes on", () => {
    const s = RtpSender.make({ codec: "PCMU", payloadType: 0, telephoneEvent: 96, timestamp: 1000, sequence: 10 })
    RtpSender.tick(s, undefined)
    assert.isTrue(RtpSender.pressKey(s, "5", 60))
    assert.isFalse(RtpSender.pressKey(s, "x"))
    const packets: Array<Rtp.RtpPacket> = []
    while (RtpSender.pressing(s)) packets.push(read(RtpSender.tick(s, undefined)))
    // 60 ms: two updates, then the end three times
    assert.deepStrictEqual(
      packets.map((p) => {
        const e = TelephoneEvent.decode(p.payload)!
        return [p.payloadType, p.marker, p.timestamp, e.event, e.end, e.duration]
      }),
      [
        [96, true, 1160, 5, false, 160],
        [96, false, 1160, 5, false, 320],
        [96, false, 1160, 5, true, 480],
        [96, false, 1160, 5, true, 480],
        [96, false, 1160, 5, true, 480]
      ]
    )
    const after = read(RtpSender.tick(s, frame(1)))
    assert.deepStrictEqual([after.payloadType, after.sequence, after.timestamp, after.marker], [
      0,
      16,
      1000 + 6 * 160,
      true
    ])
  })

  it("refuses key presses when the peer takes no telephone-event", () => {
    const s = RtpSender.make({ codec: "PCMU", payloadType: 0, telephoneEvent: undefined })
    assert.isFalse(RtpSender.pressKey(s, "1"))
    assert.isFalse(RtpSender.pressing(s))
  })

  it("moves the clock without sending while held, and when it falls behind", () => {
    const s = RtpSender.make({ codec: "PCMU", payloadType: 0, telephoneEvent: undefined, timestamp: 0, sequence: 0 })
    assert.strictEqual(RtpSender.tick(s, frame(1), false), undefined)
    RtpSender.skip(s, 10)
    const p = read(RtpSender.tick(s, frame(1)))
    assert.deepStrictEqual([p.sequence, p.timestamp], [0, 11 * 160])
  })
})
