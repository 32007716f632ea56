import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Rtp from "./Rtp.ts"

const reason = (bytes: Uint8Array) => {
  const result = Rtp.decode(bytes)
  return Result.isFailure(result) ? result.failure.reason : undefined
}

describe("Rtp", () => {
  it("writes the RFC 3550 header and reads it back", () => {
    const payload = new Uint8Array(160).fill(0xff)
    const bytes = Rtp.encode({
      payloadType: 8,
      marker: true,
      sequence: 65535,
      timestamp: 0xfffffff0,
      ssrc: 0xdeadbeef,
      payload
    })
    assert.deepStrictEqual(Array.from(bytes.subarray(0, 12)), [
      0x80,
      0x88,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xf0,
      0xde,
      0xad,
      0xbe,
      0xef
    ])
    const packet = Result.getOrThrow(Rtp.decode(bytes))
    assert.deepStrictEqual({ ...packet, payload: packet.payload.length }, {
      payloadType: 8,
      marker: true,
      sequence: 65535,
      timestamp: 0xfffffff0,
      ssrc: 0xdeadbeef,
      payload: 160
    })
  })

  it("skips CSRCs and a header extension and strips padding", () => {
    const bytes = Uint8Array.of(
      0xb1,
      0x00,
      0x00,
      0x01,
      0,
      0,
      0,
      160,
      0,
      0,
      0,
      7, // V=2 P=1 X=1 CC=1
      0,
      0,
      0,
      9, // CSRC
      0xbe,
      0xde,
      0x00,
      0x01,
      1,
      2,
      3,
      4, // extension of one word
      0xaa,
      0xbb,
      0,
      0,
      3 // payload and 3 bytes of padding
    )
    const packet = Result.getOrThrow(Rtp.decode(bytes))
    assert.deepStrictEqual(Array.from(packet.payload), [0xaa, 0xbb])
    assert.strictEqual(packet.timestamp, 160)
  })

  it("refuses what is not RTP and never throws", () => {
    assert.strictEqual(reason(new Uint8Array(11)), "TooShort")
    assert.strictEqual(reason(new Uint8Array(12)), "NotVersion2")
    assert.strictEqual(reason(Uint8Array.of(0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40)), "BadPadding")
    assert.strictEqual(reason(Uint8Array.of(0x8f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "Truncated")
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => void Rtp.decode(bytes)), { numRuns: 5000 })
  })

  it("tells RTCP from RTP on a shared port", () => {
    assert.isTrue(Rtp.isRtcp(Uint8Array.of(0x80, 200, 0, 6)))
    assert.isFalse(
      Rtp.isRtcp(
        Rtp.encode({ payloadType: 0, marker: false, sequence: 1, timestamp: 1, ssrc: 1, payload: new Uint8Array(1) })
      )
    )
  })
})
