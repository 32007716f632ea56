import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as JitterBuffer from "./JitterBuffer.ts"

const SSRC = 0x1234
/** Packet `i` of a stream: 20 ms of G.711 whose bytes all say `i`. */
const packet = (i: number, base = 0, ssrc = SSRC) => ({
  timestamp: (base + i * 160) >>> 0,
  ssrc,
  payload: new Uint8Array(160).fill(i & 0xff)
})
const describeFrames = (frames: Array<JitterBuffer.Frame>) =>
  frames.map((f) => (f._tag === "Audio" ? `${f.atMs}:${f.payload[0]}` : `${f.atMs}:gap${f.durationMs}`))

/** Delivers packets at the given times (ms on the call's timeline), pulling as time passes. */
const run = (jb: JitterBuffer.JitterBuffer, arrivals: Array<[number, ReturnType<typeof packet>]>) => {
  const out: Array<JitterBuffer.Frame> = []
  for (const [at, p] of arrivals) {
    out.push(...JitterBuffer.pull(jb, at))
    JitterBuffer.push(jb, p, at)
  }
  out.push(...JitterBuffer.drain(jb))
  return out
}

describe("JitterBuffer", () => {
  it("places the first packet where its audio started, the rest by RTP timestamp", () => {
    const jb = JitterBuffer.make()
    // The first packet arrives 45 ms after the answer: its 20 ms started at 25.
    const frames = run(jb, [[45, packet(0, 90_000)], [66, packet(1, 90_000)], [84, packet(2, 90_000)]])
    assert.deepStrictEqual(describeFrames(frames), ["25:0", "45:1", "65:2"])
  })

  it("holds a frame for delayMs, releasing it once the call's clock passes", () => {
    const jb = JitterBuffer.make({ delayMs: 60 })
    JitterBuffer.push(jb, packet(0), 20)
    assert.deepStrictEqual(JitterBuffer.pull(jb, 59), [])
    assert.deepStrictEqual(describeFrames(JitterBuffer.pull(jb, 60)), ["0:0"])
  })

  it("puts reordered packets back in order", () => {
    const frames = run(JitterBuffer.make(), [[20, packet(0)], [60, packet(2)], [61, packet(1)], [80, packet(3)]])
    assert.deepStrictEqual(describeFrames(frames), ["0:0", "20:1", "40:2", "60:3"])
  })

  it("reports a lost packet as a gap in its place", () => {
    const jb = JitterBuffer.make()
    const frames = run(jb, [[20, packet(0)], [40, packet(1)], [80, packet(3)], [100, packet(4)]])
    assert.deepStrictEqual(describeFrames(frames), ["0:0", "20:1", "40:gap20", "60:3", "80:4"])
    assert.strictEqual(jb.stats.lostSamples, 160)
  })

  it("drops repeats and packets later than their place", () => {
    const jb = JitterBuffer.make({ delayMs: 40 })
    const frames = run(jb, [
      [20, packet(0)],
      [21, packet(0)],
      [60, packet(2)],
      [100, packet(3)],
      [130, packet(1)] // frame 1's place (20 ms) was released at 100
    ])
    assert.deepStrictEqual(describeFrames(frames), ["0:0", "20:gap20", "40:2", "60:3"])
    assert.deepStrictEqual(jb.stats, { received: 5, duplicates: 1, late: 1, lostSamples: 160 })
  })

  it("follows timestamps across their 32-bit wrap", () => {
    const base = 2 ** 32 - 320
    const frames = run(JitterBuffer.make(), [[20, packet(0, base)], [40, packet(1, base)], [60, packet(3, base)], [
      61,
      packet(2, base)
    ]])
    assert.deepStrictEqual(describeFrames(frames), ["0:0", "20:1", "40:2", "60:3"])
  })

  it("anchors a new SSRC after the old stream's audio, and re-anchors a timestamp jump", () => {
    const jb = JitterBuffer.make()
    const frames = run(jb, [
      [20, packet(0)],
      [40, packet(1)],
      [50, packet(7, 555, 0x9999)], // new stream: ends at 50, starts at 30, but 0..40 is taken
      [70, packet(8, 555, 0x9999)],
      [5070, packet(9, 555 + 800_000, 0x9999)] // 100 s ahead in timestamps, 5 s in time
    ])
    assert.deepStrictEqual(describeFrames(frames), ["0:0", "20:1", "40:7", "60:8", "5050:9"])
  })

  it("keeps its output in order, contiguous and complete whatever the network does", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ jitter: fc.integer({ min: 0, max: 20 }), copies: fc.integer({ min: 0, max: 2 }) }), {
          minLength: 1,
          maxLength: 60
        }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (plan, base) => {
          const arrivals: Array<[number, ReturnType<typeof packet>]> = []
          plan.forEach(({ copies, jitter }, i) => {
            for (let c = 0; c < copies; c++) arrivals.push([20 * (i + 1) + jitter + c, packet(i, base)])
          })
          arrivals.sort((a, b) => a[0] - b[0])
          const jb = JitterBuffer.make({ delayMs: 60 })
          const frames = run(jb, arrivals)
          const delivered = new Set(arrivals.map(([, p]) => p.payload[0]))
          const audio = frames.filter((f) => f._tag === "Audio")
          assert.strictEqual(audio.length, delivered.size)
          assert.strictEqual(jb.stats.late, 0)
          assert.strictEqual(jb.stats.received, audio.length + jb.stats.duplicates)
          for (let i = 1; i < frames.length; i++) {
            assert.strictEqual(frames[i]!.atMs, frames[i - 1]!.atMs + frames[i - 1]!.durationMs)
            assert.strictEqual(frames[i]!._tag === "Gap" && frames[i - 1]!._tag === "Gap", false)
          }
          assert.isTrue(frames.length === 0 || frames[0]!.atMs >= 0)
        }
      ),
      { numRuns: 500 }
    )
  })
})
