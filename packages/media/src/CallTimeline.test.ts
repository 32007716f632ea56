import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CallTimeline from "./CallTimeline.ts"

const FRAME = 160 // 20 ms at 8 kHz

/** Everything handed out, concatenated per channel; asserts the segments are contiguous and aligned. */
const collect = (timeline: CallTimeline.CallTimeline, segments: Iterable<CallTimeline.Segment>, into?: Recording) => {
  const recording = into ?? { start: timeline.cursor, agent: [], remote: [], mixed: [] }
  for (const segment of segments) {
    assert.strictEqual(segment.start, recording.start + recording.agent.length)
    assert.strictEqual(segment.remote.length, segment.agent.length)
    assert.strictEqual(segment.mixed.length, segment.agent.length)
    assert.isAtMost(segment.agent.length, timeline.maxSegment)
    recording.agent.push(...segment.agent)
    recording.remote.push(...segment.remote)
    recording.mixed.push(...segment.mixed)
  }
  return recording
}
interface Recording {
  readonly start: number
  readonly agent: Array<number>
  readonly remote: Array<number>
  readonly mixed: Array<number>
}

/** A 1 kHz tone, amplitude 8000, for `length` samples. */
const tone = (length: number, amplitude = 8000) =>
  Int16Array.from({ length }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 1000 * i) / 8000)))
const firstLoud = (samples: ArrayLike<number>, threshold = 1000) => {
  for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]!) >= threshold) return i
  return -1
}
const run = (length: number, value: number): Array<number> => Array.from({ length }, () => value)
const isSilent = (samples: ArrayLike<number>, from: number, until: number) => {
  for (let i = from; i < until; i++) if (samples[i] !== 0) return false
  return true
}
/** Cuts a signal into 20 ms frames with their Twilio timestamps. */
const frames = (signal: Int16Array) =>
  Array.from({ length: Math.ceil(signal.length / FRAME) }, (_, n) => ({
    timestamp: n * 20,
    samples: signal.subarray(n * FRAME, (n + 1) * FRAME)
  }))

describe("samplesAt", () => {
  it("is 8 samples per millisecond", () => {
    assert.deepStrictEqual([0, 5, 20, 1230].map(CallTimeline.samplesAt), [0, 40, 160, 9840])
  })
})

describe("place / advance", () => {
  it("puts a tone placed in the remote audio at its instant in remote and mixed", () => {
    // 3 s of remote audio, silent except a tone from 1230 ms (inside a frame) to 1730 ms
    const signal = new Int16Array(3 * 8000)
    signal.set(tone(4000), CallTimeline.samplesAt(1230))
    const timeline = CallTimeline.make()
    const recording = collect(timeline, [])
    for (const frame of frames(signal)) {
      CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(frame.timestamp), frame.samples)
      collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)), recording)
    }
    collect(timeline, CallTimeline.finish(timeline), recording)
    assert.strictEqual(recording.remote.length, signal.length)
    // sin(0) = 0: the first loud sample is the one after the tone's first
    assert.strictEqual(firstLoud(recording.remote), CallTimeline.samplesAt(1230) + 1)
    assert.strictEqual(firstLoud(recording.mixed), CallTimeline.samplesAt(1230) + 1)
    assert.deepStrictEqual(recording.remote, Array.from(signal))
    assert.isTrue(isSilent(recording.agent, 0, signal.length))
  })
  it("places frames that arrive out of order, late within the window, or twice, where they belong", () => {
    const signal = tone(2 * 8000, 3000)
    const timeline = CallTimeline.make({ reorderWindowMs: 100 })
    const all = frames(signal)
    // within every 80 ms (less than the window) the frames arrive as 3rd, 1st, 4th, 2nd; every 5th comes twice
    const arrivals = all.flatMap((_, n) => {
      const block = n - (n % 4)
      const shuffled = block + [2, 0, 3, 1][n % 4]!
      if (shuffled >= all.length) return [n]
      return shuffled % 5 === 0 ? [shuffled, shuffled] : [shuffled]
    })
    assert.strictEqual(new Set(arrivals).size, all.length)
    const recording = collect(timeline, [])
    for (const n of arrivals) {
      const frame = all[n]!
      const placement = CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(frame.timestamp), frame.samples)
      assert.deepStrictEqual(placement, { placed: FRAME, late: 0, refused: 0 })
      collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)), recording)
    }
    collect(timeline, CallTimeline.finish(timeline), recording)
    assert.deepStrictEqual(recording.remote, Array.from(signal))
  })
  it("drops the part of a frame older than the cursor and counts it", () => {
    const timeline = CallTimeline.make({ reorderWindowMs: 0 })
    CallTimeline.place(timeline, "remote", 0, tone(FRAME * 10))
    const recording = collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)))
    assert.strictEqual(timeline.cursor, FRAME * 10)
    assert.deepStrictEqual(CallTimeline.place(timeline, "remote", FRAME * 9, new Int16Array(FRAME).fill(7)), {
      placed: 0,
      late: FRAME,
      refused: 0
    })
    assert.deepStrictEqual(CallTimeline.place(timeline, "remote", FRAME * 10 - 40, new Int16Array(FRAME).fill(7)), {
      placed: FRAME - 40,
      late: 40,
      refused: 0
    })
    collect(timeline, CallTimeline.finish(timeline), recording)
    assert.deepStrictEqual(recording.remote.slice(0, FRAME * 10), Array.from(tone(FRAME * 10)))
    assert.deepStrictEqual(recording.remote.slice(FRAME * 10), run(FRAME - 40, 7))
  })
  it("lets a later placement overwrite an earlier one where they overlap", () => {
    const timeline = CallTimeline.make()
    CallTimeline.place(timeline, "remote", 0, new Int16Array(FRAME).fill(1))
    CallTimeline.place(timeline, "remote", 100, new Int16Array(FRAME).fill(2))
    CallTimeline.place(timeline, "remote", 50, new Int16Array(20).fill(3))
    const recording = collect(timeline, CallTimeline.finish(timeline))
    assert.deepStrictEqual(recording.remote, [
      ...run(50, 1),
      ...run(20, 3),
      ...run(30, 1),
      ...run(FRAME, 2)
    ])
  })
  it("fills gaps with silence of the right length (no silent chunks from the carrier)", () => {
    const timeline = CallTimeline.make()
    const recording = collect(timeline, [])
    const loud = new Int16Array(FRAME).fill(1000)
    const timestamps = [0, 20, 40, 1000, 1020, 5000] // gaps of 940 ms and 3960 ms
    for (const timestamp of timestamps) {
      CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(timestamp), loud)
      collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)), recording)
    }
    collect(timeline, CallTimeline.finish(timeline), recording)
    assert.strictEqual(recording.remote.length, CallTimeline.samplesAt(5020))
    for (const timestamp of timestamps) {
      const at = CallTimeline.samplesAt(timestamp)
      assert.deepStrictEqual(recording.remote.slice(at, at + FRAME), Array.from(loud), `${timestamp}`)
    }
    assert.isTrue(isSilent(recording.remote, CallTimeline.samplesAt(60), CallTimeline.samplesAt(1000)))
    assert.isTrue(isSilent(recording.remote, CallTimeline.samplesAt(1040), CallTimeline.samplesAt(5000)))
    assert.strictEqual(recording.remote.filter((sample) => sample !== 0).length, FRAME * timestamps.length)
  })
  it("hands a long gap out in segments of at most maxSegmentMs, lazily", () => {
    const timeline = CallTimeline.make({ maxSegmentMs: 500, maxBufferedMs: 120_000 })
    CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(60_000), new Int16Array(FRAME).fill(5))
    const segments = CallTimeline.finish(timeline)
    assert.strictEqual(timeline.cursor, 0) // nothing moves until iterated
    const first = segments.next()
    if (first.done === true) return assert.fail("no segment")
    assert.strictEqual(timeline.cursor, 4000)
    const recording = collect(timeline, segments, {
      start: 0,
      agent: Array.from(first.value.agent),
      remote: Array.from(first.value.remote),
      mixed: Array.from(first.value.mixed)
    })
    assert.strictEqual(recording.remote.length, CallTimeline.samplesAt(60_020))
    assert.strictEqual(CallTimeline.buffered(timeline, "remote"), 0)
  })
  it("copies what it is given and hands out arrays the caller owns", () => {
    const timeline = CallTimeline.make()
    const samples = new Int16Array(FRAME).fill(9)
    CallTimeline.place(timeline, "remote", 0, samples)
    samples.fill(0)
    const [segment] = Array.from(CallTimeline.finish(timeline))
    assert.deepStrictEqual(Array.from(segment!.remote), run(FRAME, 9))
    assert.notStrictEqual(segment!.remote.buffer, segment!.mixed.buffer)
  })
  it("refuses whole a placement that starts past the horizon, however far (a carrier's timestamp)", () => {
    const timeline = CallTimeline.make()
    const frame = new Int16Array(FRAME).fill(5)
    for (const ms of [10_001, 99_999_999, Number.MAX_SAFE_INTEGER]) {
      assert.deepStrictEqual(
        CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(ms), frame),
        { placed: 0, late: 0, refused: FRAME },
        `${ms} ms`
      )
    }
    assert.strictEqual(CallTimeline.settled(timeline), 0)
    assert.strictEqual(CallTimeline.end(timeline), 0)
    // At the horizon, placed; the horizon moves with the cursor.
    assert.strictEqual(CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(10_000), frame).placed, FRAME)
    assert.strictEqual(Array.from(CallTimeline.advance(timeline, CallTimeline.settled(timeline))).length, 10)
    assert.strictEqual(CallTimeline.place(timeline, "agent", CallTimeline.samplesAt(19_000), frame).placed, FRAME)
    // Far behind: late, never a throw.
    assert.deepStrictEqual(CallTimeline.place(timeline, "remote", -Number.MAX_SAFE_INTEGER * 8, frame), {
      placed: 0,
      late: FRAME,
      refused: 0
    })
  })
  it("rejects fractional positions and options (caller bugs)", () => {
    const timeline = CallTimeline.make()
    assert.throws(() => CallTimeline.place(timeline, "remote", 1.5, new Int16Array(1)), RangeError)
    assert.throws(() => CallTimeline.place(timeline, "remote", Number.NaN, new Int16Array(1)), RangeError)
    assert.throws(() => CallTimeline.truncate(timeline, "agent", Number.NaN), RangeError)
    assert.throws(() => CallTimeline.advance(timeline, 0.5).next(), RangeError)
    assert.throws(() => CallTimeline.make({ reorderWindowMs: -1 }), RangeError)
    assert.throws(() => CallTimeline.make({ maxSegmentMs: 0.01 }), RangeError)
  })
})

describe("mixed", () => {
  it("equals the clipped sum of agent and remote sample for sample", () => {
    const sample = fc.integer({ min: -32768, max: 32767 })
    const placement = fc.record({
      channel: fc.constantFrom("agent" as const, "remote" as const),
      position: fc.integer({ min: 0, max: 4000 }),
      samples: fc.array(fc.oneof(sample, fc.constantFrom(-32768, 32767, 30000, -30000)), { maxLength: 500 })
    })
    fc.assert(
      fc.property(fc.array(placement, { maxLength: 20 }), fc.integer({ min: 1, max: 300 }), (placements, segmentMs) => {
        const timeline = CallTimeline.make({ maxSegmentMs: segmentMs })
        const recording = collect(timeline, [])
        for (const { channel, position, samples } of placements) {
          CallTimeline.place(timeline, channel, position, Int16Array.from(samples))
          collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)), recording)
        }
        collect(timeline, CallTimeline.finish(timeline), recording)
        assert.strictEqual(recording.mixed.length, CallTimeline.end(timeline))
        const clipped = recording.agent.map((sample, i) =>
          Math.max(-32768, Math.min(32767, sample + recording.remote[i]!))
        )
        assert.strictEqual(recording.mixed.findIndex((sample, i) => sample !== clipped[i]), -1)
      }),
      { numRuns: 200 }
    )
  })
})

describe("truncate", () => {
  it("after a clear, the agent channel holds silence where the cleared audio would have played", () => {
    const timeline = CallTimeline.make()
    const recording = collect(timeline, [])
    // the agent's 2 s utterance is sent at 1000 ms and plays from there; the person barges in
    // and the clear takes effect at 1500 ms, while remote frames keep coming
    const utterance = tone(2 * 8000, 5000)
    const remote = new Int16Array(FRAME).fill(100)
    for (let timestamp = 0; timestamp < 4000; timestamp += 20) {
      if (timestamp === 1000) {
        const placement = CallTimeline.place(timeline, "agent", CallTimeline.samplesAt(1000), utterance)
        assert.deepStrictEqual(placement, { placed: utterance.length, late: 0, refused: 0 })
      }
      if (timestamp === 1500) {
        const dropped = CallTimeline.truncate(timeline, "agent", CallTimeline.samplesAt(1500))
        assert.strictEqual(dropped, CallTimeline.samplesAt(1500))
      }
      CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(timestamp), remote)
      collect(timeline, CallTimeline.advance(timeline, CallTimeline.settled(timeline)), recording)
    }
    collect(timeline, CallTimeline.finish(timeline), recording)
    const [at1000, at1500] = [CallTimeline.samplesAt(1000), CallTimeline.samplesAt(1500)]
    assert.strictEqual(recording.agent.length, CallTimeline.samplesAt(4000))
    assert.isTrue(isSilent(recording.agent, 0, at1000))
    assert.deepStrictEqual(recording.agent.slice(at1000, at1500), Array.from(utterance.subarray(0, at1500 - at1000)))
    assert.isTrue(isSilent(recording.agent, at1500, recording.agent.length))
    assert.deepStrictEqual(recording.mixed.slice(at1500), run(recording.mixed.length - at1500, 100))
  })
  it("cannot recall audio already handed out, and says how much it dropped", () => {
    const timeline = CallTimeline.make()
    CallTimeline.place(timeline, "agent", 0, new Int16Array(1000).fill(1))
    collect(timeline, CallTimeline.advance(timeline, 400))
    assert.strictEqual(CallTimeline.truncate(timeline, "agent", 100), 600)
    assert.strictEqual(CallTimeline.buffered(timeline, "agent"), 0)
    assert.strictEqual(CallTimeline.end(timeline), 400)
    assert.strictEqual(CallTimeline.truncate(timeline, "agent", 0), 0)
  })
  it("keeps what was placed before the truncation point, and new audio placed after it", () => {
    const timeline = CallTimeline.make()
    CallTimeline.place(timeline, "agent", 0, new Int16Array(300).fill(1))
    CallTimeline.place(timeline, "agent", 500, new Int16Array(300).fill(2))
    assert.strictEqual(CallTimeline.truncate(timeline, "agent", 200), 400)
    CallTimeline.place(timeline, "agent", 250, new Int16Array(50).fill(3))
    const recording = collect(timeline, CallTimeline.finish(timeline))
    assert.deepStrictEqual(recording.agent, [
      ...run(200, 1),
      ...run(50, 0),
      ...run(50, 3)
    ])
  })
})

describe("memory", () => {
  it("stays bounded over a 10-minute call: only the reorder window and the agent's lead are held", () => {
    const window = 200
    const timeline = CallTimeline.make({ reorderWindowMs: window })
    const remote = tone(FRAME, 2000)
    const utterance = tone(3 * 8000, 4000) // the agent says 3 s every 10 s, placed all at once when sent
    let maxRemote = 0
    let maxAgent = 0
    let handedOut = 0
    let loudAgent = 0
    for (let timestamp = 0; timestamp < 10 * 60 * 1000; timestamp += 20) {
      if (timestamp % 10_000 === 5000) {
        CallTimeline.place(timeline, "agent", CallTimeline.samplesAt(timestamp), utterance)
      }
      CallTimeline.place(timeline, "remote", CallTimeline.samplesAt(timestamp), remote)
      for (const segment of CallTimeline.advance(timeline, CallTimeline.settled(timeline))) {
        handedOut += segment.mixed.length
        for (const sample of segment.agent) if (sample !== 0) loudAgent++
      }
      maxRemote = Math.max(maxRemote, CallTimeline.buffered(timeline, "remote"))
      maxAgent = Math.max(maxAgent, CallTimeline.buffered(timeline, "agent"))
    }
    for (const segment of CallTimeline.finish(timeline)) handedOut += segment.mixed.length
    assert.strictEqual(handedOut, 10 * 60 * 8000)
    assert.isAtMost(maxRemote, CallTimeline.samplesAt(window) + FRAME)
    assert.isAtMost(maxAgent, utterance.length + CallTimeline.samplesAt(window))
    assert.strictEqual(loudAgent, 60 * utterance.filter((sample) => sample !== 0).length)
    assert.strictEqual(CallTimeline.buffered(timeline, "remote") + CallTimeline.buffered(timeline, "agent"), 0)
  })
  it("refuses what would take a channel past maxBufferedMs (an agent too far ahead)", () => {
    const timeline = CallTimeline.make({ maxBufferedMs: 1000 })
    assert.deepStrictEqual(CallTimeline.place(timeline, "agent", 0, new Int16Array(6000)), {
      placed: 6000,
      late: 0,
      refused: 0
    })
    assert.deepStrictEqual(CallTimeline.place(timeline, "agent", 6000, new Int16Array(6000)), {
      placed: 2000,
      late: 0,
      refused: 4000
    })
    assert.strictEqual(CallTimeline.buffered(timeline, "agent"), 8000)
    collect(timeline, CallTimeline.advance(timeline, 3000))
    assert.strictEqual(CallTimeline.buffered(timeline, "agent"), 5000)
    assert.deepStrictEqual(CallTimeline.place(timeline, "agent", 8000, new Int16Array(3000)), {
      placed: 3000,
      late: 0,
      refused: 0
    })
  })
})
