import { assert, describe, it } from "@effect/vitest"
import * as RtpReception from "./RtpReception.ts"

const SSRC = 0xabc
/** Packet `i` of a stream starting at sequence `base`, sent at 20 ms intervals. */
const packet = (i: number, base = 0) => ({
  ssrc: SSRC,
  sequence: (base + i) & 0xffff,
  timestamp: (1000 + i * 160) >>> 0
})

describe("RtpReception", () => {
  it("counts what was lost across a sequence number wrap, and the fraction per interval", () => {
    const r = RtpReception.make()
    for (let i = 0; i < 20; i++) if (i !== 5 && i !== 6) RtpReception.received(r, packet(i, 65530), i * 20)
    const first = RtpReception.block(r, 400)!
    // 20 expected (65530 .. 65535, 0 .. 13), 18 received: 2 lost, 2/20 of 256 = 25
    assert.deepStrictEqual(
      { lost: first.cumulativeLost, fraction: first.fractionLost, highest: first.highestSequence },
      { lost: 2, fraction: 25, highest: 65536 + 13 }
    )
    for (let i = 20; i < 30; i++) RtpReception.received(r, packet(i, 65530), i * 20)
    const second = RtpReception.block(r, 600)!
    assert.deepStrictEqual({ lost: second.cumulativeLost, fraction: second.fractionLost }, { lost: 2, fraction: 0 })
  })

  it("counts a late packet as received, not as a new maximum", () => {
    const r = RtpReception.make()
    for (const i of [0, 1, 3, 2, 4]) RtpReception.received(r, packet(i), i * 20)
    const b = RtpReception.block(r, 100)!
    assert.deepStrictEqual({ lost: b.cumulativeLost, highest: b.highestSequence }, { lost: 0, highest: 4 })
  })

  it("has no jitter when packets arrive as evenly as they were sent, some when they do not", () => {
    const even = RtpReception.make()
    for (let i = 0; i < 50; i++) RtpReception.received(even, packet(i), 5 + i * 20)
    assert.strictEqual(RtpReception.block(even, 1000)!.jitter, 0)
    const uneven = RtpReception.make()
    // every other packet 10 ms late: |D| = 80 timestamp units each time
    for (let i = 0; i < 200; i++) RtpReception.received(uneven, packet(i), i * 20 + (i % 2) * 10)
    const jitter = RtpReception.block(uneven, 4000)!.jitter
    assert.isTrue(jitter > 70 && jitter <= 80, `jitter ${jitter}`)
  })

  it("names the peer's last SR and the delay since it, in 1/65536 s", () => {
    const r = RtpReception.make()
    assert.strictEqual(RtpReception.block(r, 0), undefined)
    RtpReception.received(r, packet(0), 0)
    RtpReception.senderReport(r, 0x12345678, 0x9abcdef0, 1000)
    const b = RtpReception.block(r, 1500)!
    assert.deepStrictEqual({ lsr: b.lastSr, dlsr: b.delaySinceLastSr }, { lsr: 0x56789abc, dlsr: 32768 })
  })

  it("starts afresh on a new SSRC or after two packets that follow a jump", () => {
    const r = RtpReception.make()
    for (let i = 0; i < 5; i++) RtpReception.received(r, packet(i), i * 20)
    RtpReception.received(r, { ...packet(0, 40_000) }, 200)
    assert.strictEqual(RtpReception.block(r, 200)!.highestSequence, 4)
    RtpReception.received(r, { ...packet(1, 40_000) }, 220)
    assert.strictEqual(RtpReception.block(r, 220)!.highestSequence, 40_001)
    RtpReception.received(r, { ...packet(0, 7), ssrc: 99 }, 240)
    assert.deepStrictEqual(
      { ssrc: RtpReception.block(r, 240)!.ssrc, lost: RtpReception.cumulativeLost(r) },
      { ssrc: 99, lost: 0 }
    )
  })
})
