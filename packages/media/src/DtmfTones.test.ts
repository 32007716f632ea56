import { assert, describe, it } from "@effect/vitest"
import * as DtmfTones from "./DtmfTones.ts"

/** The power of `hz` in `samples` (Goertzel), over the first 100 ms. */
const power = (samples: Int16Array, hz: number) => {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / 8000)
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < 800; i++) {
    const s0 = samples[i]! + coefficient * s1 - s2
    s2 = s1
    s1 = s0
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

describe("DtmfTones", () => {
  it("is 100 ms of a digit's two tones then 100 ms of silence, a digit an array", () => {
    const [five] = DtmfTones.encode("5")
    assert.strictEqual(five!.length, 1600)
    assert.isTrue(five!.subarray(800).every((sample) => sample === 0))
    const strongest = [697, 770, 852, 941, 1209, 1336, 1477, 1633]
      .map((hz) => ({ hz, power: power(five!, hz) }))
      .sort((a, b) => b.power - a.power)
      .slice(0, 2)
      .map(({ hz }) => hz)
      .sort((a, b) => a - b)
    assert.deepStrictEqual(strongest, [770, 1336])
  })

  it("plays w as half a second of silence, letters in either case, and skips the rest", () => {
    const frames = DtmfTones.encode("1wa?")
    assert.deepStrictEqual(frames.map((frame) => frame.length), [1600, 4000, 1600])
    assert.isTrue(frames[1]!.every((sample) => sample === 0))
    assert.deepStrictEqual(Array.from(frames[2]!), Array.from(DtmfTones.encode("A")[0]!))
  })
})
