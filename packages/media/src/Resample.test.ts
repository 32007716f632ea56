import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Resample from "./Resample.ts"

/** A sine of `hz` at `rate`, `amplitude` peak, `seconds` long. */
const tone = (hz: number, rate: number, amplitude: number, seconds: number) =>
  Int16Array.from(
    { length: Math.round(rate * seconds) },
    (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate))
  )

const rms = (samples: Int16Array, from = 0, to = samples.length) => {
  let sum = 0
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / (to - from))
}

/** The outputs of pushing `samples` cut at `cuts` (sorted offsets), then flushing. */
const chunked = (downsampler: Resample.Downsampler, samples: Int16Array, cuts: ReadonlyArray<number>) => {
  const out: Array<number> = []
  let at = 0
  for (const cut of [...cuts, samples.length]) {
    out.push(...downsampler.push(samples.subarray(at, cut)))
    at = cut
  }
  out.push(...downsampler.flush())
  return Int16Array.from(out)
}

// away from the edges, where the filter reads the silence before and after the input
const EDGE = 40

describe("lowPassTaps", () => {
  it("is odd-length, symmetric, with a DC gain of exactly 1", () => {
    for (const factor of [2, 3, 6]) {
      const taps = Resample.lowPassTaps(factor)
      assert.strictEqual(taps.length % 2, 1)
      for (let i = 0; i < taps.length; i++) assert.strictEqual(taps[i], taps[taps.length - 1 - i])
      assert.closeTo(taps.reduce((a, b) => a + b, 0), 1, 1e-12)
    }
    assert.strictEqual(Resample.lowPassTaps(3).length, 147)
  })

  it("passes the telephone band within 0.01 dB and stops 4 kHz and above by 60 dB (24 kHz to 8 kHz)", () => {
    const taps = Resample.lowPassTaps(3)
    const gainDb = (hz: number) => {
      let re = 0
      let im = 0
      for (let i = 0; i < taps.length; i++) {
        re += taps[i]! * Math.cos((2 * Math.PI * hz * i) / 24000)
        im += taps[i]! * Math.sin((2 * Math.PI * hz * i) / 24000)
      }
      return 20 * Math.log10(Math.hypot(re, im))
    }
    for (let hz = 0; hz <= 3400; hz += 10) assert.isBelow(Math.abs(gainDb(hz)), 0.01, `${hz} Hz`)
    for (let hz = 4000; hz <= 12000; hz += 10) assert.isBelow(gainDb(hz), -60, `${hz} Hz`)
  })
})

describe("Downsampler", () => {
  it("keeps a 1 kHz tone's amplitude and phase (24 kHz to 8 kHz, no delay)", () => {
    const out = Resample.downsample(tone(1000, 24000, 10000, 1), 24000, 8000)
    assert.strictEqual(out.length, 8000)
    const expected = tone(1000, 8000, 10000, 1)
    for (let i = EDGE; i < out.length - EDGE; i++) assert.isAtMost(Math.abs(out[i]! - expected[i]!), 12, `sample ${i}`)
    assert.closeTo(rms(out, EDGE, out.length - EDGE) / rms(expected, EDGE, out.length - EDGE), 1, 0.001)
  })

  it("attenuates a 5 kHz tone by more than 40 dB (it would alias to 3 kHz)", () => {
    const input = tone(5000, 24000, 20000, 1)
    const out = Resample.downsample(input, 24000, 8000)
    const attenuationDb = 20 * Math.log10(rms(input) / rms(out, EDGE, out.length - EDGE))
    assert.isAbove(attenuationDb, 40)
    // the design's 60 dB, give or take the rounding to integers
    assert.isAbove(attenuationDb, 55)
  })

  it("keeps DC", () => {
    const out = Resample.downsample(new Int16Array(3000).fill(-1234), 24000, 8000)
    for (let i = EDGE; i < out.length - EDGE; i++) assert.strictEqual(out[i], -1234)
  })

  it("answers ceil(n / factor) samples in all, whatever the chunks", () => {
    for (const n of [0, 1, 2, 3, 4, 72, 73, 74, 146, 147, 148, 1000, 1001]) {
      assert.strictEqual(Resample.downsample(new Int16Array(n).fill(100), 24000, 8000).length, Math.ceil(n / 3), `${n}`)
      assert.strictEqual(Resample.downsample(new Int16Array(n).fill(100), 16000, 8000).length, Math.ceil(n / 2), `${n}`)
    }
  })

  it("gives the same output however the input is cut into chunks", () => {
    const input = Int16Array.from(
      { length: 2400 },
      (_, i) => Math.round(12000 * Math.sin(i * 0.07) + 9000 * Math.sin(i * 1.9) + (i % 7) * 300)
    )
    const whole = Resample.downsample(input, 24000, 8000)
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: input.length }), { maxLength: 40 }), (cuts) => {
        const out = chunked(new Resample.Downsampler(24000, 8000), input, [...cuts].sort((a, b) => a - b))
        assert.deepStrictEqual(out, whole)
      })
    )
  })

  it("sample by sample too, and starts afresh after flush", () => {
    const input = tone(700, 48000, 15000, 0.1)
    const downsampler = new Resample.Downsampler(48000, 8000)
    const cuts = Array.from({ length: input.length }, (_, i) => i)
    const first = chunked(downsampler, input, cuts)
    assert.deepStrictEqual(first, Resample.downsample(input, 48000, 8000))
    assert.deepStrictEqual(chunked(downsampler, input, [100]), first)
  })

  it("clips to 16 bits", () => {
    const square = Int16Array.from({ length: 2400 }, (_, i) => (Math.floor(i / 60) % 2 === 0 ? 32767 : -32768))
    const out = Resample.downsample(square, 24000, 8000)
    // a band-limited square overshoots (Gibbs): clipped, not wrapped around
    assert.strictEqual(Math.max(...out), 32767)
    assert.strictEqual(Math.min(...out), -32768)
  })

  it("copies at equal rates and refuses rates that are not whole multiples", () => {
    const input = Int16Array.of(1, -2, 3, 32767, -32768)
    assert.deepStrictEqual(Resample.downsample(input, 8000, 8000), input)
    assert.throws(() => new Resample.Downsampler(22050, 8000), RangeError)
    assert.throws(() => new Resample.Downsampler(8000, 24000), RangeError)
    assert.throws(() => new Resample.Downsampler(24000, 0), RangeError)
  })
})
