import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { voiceFor } from "../test/fixtures/voice.ts"
import * as MuLaw from "./MuLaw.ts"
import * as SimSpeech from "./SimSpeech.ts"
import * as Vad from "./Vad.ts"

const FRAME = 160 // 20 ms at 8 kHz

/** A sine frame at `dbfs` (mean square relative to full scale), continuing the phase of frame `n`. */
const toneFrame = (dbfs: number, n = 0, hz = 440) => {
  const amplitude = 32768 * 10 ** ((dbfs + 10 * Math.log10(2)) / 20)
  return Int16Array.from(
    { length: FRAME },
    (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * (n * FRAME + i)) / 8000))
  )
}
/** Uniform white noise at `dbfs` from a fixed linear congruential generator (deterministic). */
const noiseFrame = (dbfs: number, seed: number) => {
  const amplitude = 32768 * 10 ** (dbfs / 20) * Math.sqrt(3)
  let state = seed >>> 0
  return Int16Array.from({ length: FRAME }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return Math.round(amplitude * ((state / 2 ** 32) * 2 - 1))
  })
}
const silence = new Int16Array(FRAME)

/** Runs the detector over frames; returns each event with the index of the frame that caused it. */
const events = (frames: ReadonlyArray<Int16Array>, state = Vad.make()) => {
  const seen: Array<readonly [number, Vad.Event]> = []
  let current = state
  frames.forEach((frame, index) => {
    const next = Vad.step(current, frame)
    if (next.event !== undefined) seen.push([index, next.event])
    current = next.state
  })
  return { events: seen, state: current }
}
const repeat = (count: number, frame: (n: number) => Int16Array) => Array.from({ length: count }, (_, n) => frame(n))

describe("energyDbfs", () => {
  it("is 0 for a full-scale square wave, −3 for a full-scale sine, −∞ for silence", () => {
    assert.closeTo(
      Vad.energyDbfs(Int16Array.from({ length: FRAME }, (_, i) => (i % 2 === 0 ? 32767 : -32768))),
      0,
      0.001
    )
    assert.closeTo(Vad.energyDbfs(toneFrame(-3.0103)), -3.0103, 0.01)
    assert.closeTo(Vad.energyDbfs(toneFrame(-20)), -20, 0.01)
    assert.closeTo(Vad.energyDbfs(noiseFrame(-50, 7)), -50, 0.5)
    assert.strictEqual(Vad.energyDbfs(silence), -Infinity)
    assert.strictEqual(Vad.energyDbfs(new Int16Array(0)), -Infinity)
  })
})

describe("step", () => {
  it("stays silent on silence and on line noise", () => {
    assert.deepStrictEqual(events(repeat(500, () => silence)).events, [])
    assert.deepStrictEqual(events(repeat(500, (n) => noiseFrame(-55, n + 1))).events, [])
  })
  it("starts on the 3rd voiced frame and ends on the 20th quiet frame", () => {
    const frames = [...repeat(10, () => silence), ...repeat(50, (n) => toneFrame(-20, n)), ...repeat(40, () => silence)]
    const result = events(frames)
    assert.deepStrictEqual(result.events, [[12, "speech-start"], [79, "speech-end"]])
    assert.isFalse(result.state.speaking)
  })
  it("detects speech over line noise", () => {
    const frames = repeat(120, (n) => {
      const noise = noiseFrame(-55, n + 1)
      if (n < 20 || n >= 70) return noise
      const speech = toneFrame(-25, n)
      return speech.map((sample, i) => sample + noise[i]!)
    })
    assert.deepStrictEqual(events(frames).events, [[22, "speech-start"], [89, "speech-end"]])
  })
  it("ignores a click shorter than startFrames", () => {
    const frames = [...repeat(5, () => silence), toneFrame(-6), toneFrame(-6), silence, toneFrame(-6), silence]
    assert.deepStrictEqual(events(frames).events, [])
  })
  it("bridges pauses shorter than the hangover, and ends on one that long", () => {
    const speech = repeat(10, (n) => toneFrame(-20, n))
    const short = [...speech, ...repeat(19, () => silence), ...speech, ...repeat(19, () => silence), ...speech]
    assert.deepStrictEqual(events(short).events, [[2, "speech-start"]])
    const long = [...speech, ...repeat(20, () => silence), ...speech]
    assert.deepStrictEqual(events(long).events, [[2, "speech-start"], [29, "speech-end"], [32, "speech-start"]])
  })
  it("has hysteresis: a level between the thresholds neither starts nor ends speech", () => {
    const between = repeat(100, (n) => toneFrame(-40, n))
    assert.deepStrictEqual(events(between).events, [])
    const frames = [...repeat(5, (n) => toneFrame(-20, n)), ...between]
    assert.deepStrictEqual(events(frames).events, [[2, "speech-start"]])
    assert.isTrue(events(frames).state.speaking)
  })
  it("hears each utterance of simulated speech through μ-law as one stretch of speech, its pauses too", () => {
    // 1 s of silence, "Alex Morgan.", 300 ms of silence (a pause shorter than the hangover),
    // "forty two.", 1 s of silence: the way the simulated person answers. The voice pauses for
    // 450 ms at each full stop, longer than the hangover: the data band carries on under it.
    const first = SimSpeech.encode("Alex Morgan.", voiceFor("Alex. Morgan."))
    const second = SimSpeech.encode("forty two", voiceFor("forty. two"))
    const signal = new Int16Array(8000 + first.length + 2400 + second.length + 8000)
    signal.set(first, 8000)
    signal.set(second, 8000 + first.length + 2400)
    const received = MuLaw.decode(MuLaw.encode(signal))
    const frames = repeat(Math.ceil(received.length / FRAME), (n) => received.subarray(n * FRAME, (n + 1) * FRAME))
    const [start, end, ...more] = events(frames).events
    assert.deepStrictEqual([start, more], [[50 + 2, "speech-start"], []])
    // the hangover after the last frame at speech level: the last or the one before (the tail)
    const last = Math.ceil((8000 + first.length + 2400 + second.length) / FRAME) - 1
    assert.oneOf(JSON.stringify(end), [last + 19, last + 20].map((frame) => JSON.stringify([frame, "speech-end"])))
  })
  it("takes its thresholds and counts from the options", () => {
    const vad = Vad.make({ startDbfs: -60, stopDbfs: -70, startFrames: 1, hangoverFrames: 2 })
    const frames = [silence, toneFrame(-55), silence, toneFrame(-65), silence, silence]
    assert.deepStrictEqual(events(frames, vad).events, [[1, "speech-start"], [5, "speech-end"]])
  })
  it("treats a frame exactly at startDbfs as voiced", () => {
    const frame = toneFrame(-20)
    const vad = Vad.make({ startDbfs: Vad.energyDbfs(frame), startFrames: 1, stopDbfs: -90 })
    assert.strictEqual(Vad.step(vad, frame).event, "speech-start")
  })
  it("alternates start and end, starting with start, for any sequence of levels (deterministic)", () => {
    const level = fc.constantFrom(-Infinity, -60, -44, -40, -36, -34, -10)
    fc.assert(
      fc.property(fc.array(level, { maxLength: 300 }), (levels) => {
        const frames = levels.map((dbfs, n) => (dbfs === -Infinity ? silence : toneFrame(dbfs, n)))
        const first = events(frames).events
        assert.deepStrictEqual(events(frames).events, first)
        first.forEach(([, event], i) => assert.strictEqual(event, i % 2 === 0 ? "speech-start" : "speech-end"))
      }),
      { numRuns: 300 }
    )
  })
  it("neither keeps nor changes its frame", () => {
    const frame = toneFrame(-20)
    const copy = frame.slice()
    const vad = Vad.make()
    Vad.step(vad, frame)
    assert.deepStrictEqual(frame, copy)
    assert.deepStrictEqual(vad, Vad.make())
  })
})

describe("make", () => {
  it("rejects counts that are not positive integers and a stop threshold above the start", () => {
    assert.throws(() => Vad.make({ startFrames: 0 }), RangeError)
    assert.throws(() => Vad.make({ hangoverFrames: 1.5 }), RangeError)
    assert.throws(() => Vad.make({ startDbfs: -50, stopDbfs: -40 }), RangeError)
    assert.throws(() => Vad.make({ startDbfs: Number.NaN }), RangeError)
  })
})
