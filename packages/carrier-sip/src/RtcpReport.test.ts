import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as RtcpReport from "./RtcpReport.ts"

const block: RtcpReport.ReportBlock = {
  ssrc: 0x11223344,
  fractionLost: 64,
  cumulativeLost: 5,
  highestSequence: 0x0001_0010,
  jitter: 37,
  lastSr: 0xaabbccdd,
  delaySinceLastSr: 0x00010000
}

const words = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.length / 4 }, (_, i) => view.getUint32(i * 4).toString(16).padStart(8, "0"))
}

describe("RtcpReport", () => {
  it("writes an SR with one report block word for word as RFC 3550 §6.4.1 draws it", () => {
    const bytes = RtcpReport.compound({
      ssrc: 0xdeadbeef,
      sender: { ntpSeconds: 0xe0000001, ntpFraction: 0x80000000, rtpTimestamp: 160_000, packets: 250, octets: 40_000 },
      reports: [block],
      cname: "a@b"
    })
    assert.deepStrictEqual(words(bytes), [
      // V=2, P=0, RC=1 | PT=200 | length 12 (13 words − 1)
      "81c8000c",
      "deadbeef",
      "e0000001",
      "80000000",
      "00027100",
      "000000fa",
      "00009c40",
      // report block: SSRC_1, fraction lost | cumulative lost, highest seq, jitter, LSR, DLSR
      "11223344",
      "40000005",
      "00010010",
      "00000025",
      "aabbccdd",
      "00010000",
      // SDES: V=2, SC=1 | PT=202 | length 3; chunk: SSRC, CNAME (1) of 3 bytes "a@b", nulls to the word
      "81ca0003",
      "deadbeef",
      "01036140",
      "62000000"
    ])
  })

  it("writes an RR when nothing was sent, and a BYE with its reason last", () => {
    const bytes = RtcpReport.compound({ ssrc: 1, sender: undefined, reports: [], cname: "abcdef", bye: "hangup" })
    const w = words(bytes)
    // RR with RC=0: header and SSRC only
    assert.deepStrictEqual(w.slice(0, 2), ["80c90001", "00000001"])
    // SDES: chunk of 4 + 2 + 6 = 12 bytes, then a whole word of nulls
    assert.deepStrictEqual(w.slice(2, 7), ["81ca0004", "00000001", "01066162", "63646566", "00000000"])
    // BYE: SC=1 | PT=203 | length 3: SSRC, reason length 6 "hangup" padded
    assert.deepStrictEqual(w.slice(7), ["81cb0003", "00000001", "0668616e", "67757000"])
  })

  it("reads back what it writes", () => {
    const bytes = RtcpReport.compound({
      ssrc: 7,
      sender: { ntpSeconds: 1, ntpFraction: 2, rtpTimestamp: 3, packets: 4, octets: 5 },
      reports: [block, { ...block, ssrc: 9, cumulativeLost: -3 }],
      cname: "voice-agent@127.0.0.1",
      bye: ""
    })
    const parts = Result.getOrThrow(RtcpReport.parse(bytes))
    assert.deepStrictEqual(parts, [
      {
        _tag: "SenderReport",
        ssrc: 7,
        sender: { ntpSeconds: 1, ntpFraction: 2, rtpTimestamp: 3, packets: 4, octets: 5 },
        reports: [block, { ...block, ssrc: 9, cumulativeLost: -3 }]
      },
      { _tag: "SourceDescription", chunks: [{ ssrc: 7, cname: "voice-agent@127.0.0.1" }] },
      { _tag: "Bye", ssrcs: [7], reason: undefined }
    ])
  })

  it("refuses what is cut short, not version 2, or does not start with a report", () => {
    const sr = RtcpReport.compound({ ssrc: 7, sender: undefined, reports: [block], cname: "x" })
    const reason = (bytes: Uint8Array) => {
      const result = RtcpReport.parse(bytes)
      return Result.isFailure(result) ? result.failure.reason : "ok"
    }
    assert.strictEqual(reason(sr), "ok")
    assert.strictEqual(reason(sr.subarray(0, 6)), "TooShort")
    assert.strictEqual(reason(sr.subarray(0, sr.length - 4)), "BadLength")
    assert.strictEqual(reason(Uint8Array.from([0x40, 200, 0, 1, 0, 0, 0, 0])), "NotVersion2")
    assert.strictEqual(reason(Uint8Array.from([0x80, 203, 0, 1, 0, 0, 0, 1])), "NotReportFirst")
  })

  it("never throws on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        RtcpReport.parse(bytes)
        const forced = Uint8Array.from(bytes)
        if (forced.length > 1) {
          forced[0] = 0x80 | (forced[0]! & 0x3f)
          forced[1] = 200 + (forced[1]! % 4)
        }
        RtcpReport.parse(forced)
      }),
      { numRuns: 3000 }
    )
  })

  it("gives the NTP time of a wall-clock time, and its middle 32 bits", () => {
    assert.deepStrictEqual(RtcpReport.ntpOf(0), { seconds: 2_208_988_800, fraction: 0 })
    assert.deepStrictEqual(RtcpReport.ntpOf(1500), { seconds: 2_208_988_801, fraction: 0x80000000 })
    assert.strictEqual(RtcpReport.middle32(0x12345678, 0x9abcdef0), 0x56789abc)
  })
})
