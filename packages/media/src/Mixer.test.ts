import { assert, describe, it } from "@effect/vitest"
import * as Mixer from "./Mixer.ts"

describe("saturate", () => {
  it("clips to the 16-bit range", () => {
    assert.deepStrictEqual([-70000, -32769, -32768, 0, 32767, 32768, 65534].map(Mixer.saturate), [
      -32768,
      -32768,
      -32768,
      0,
      32767,
      32767,
      32767
    ])
  })
})

describe("mix", () => {
  it("sums sample by sample", () => {
    assert.deepStrictEqual(Array.from(Mixer.mix(Int16Array.of(1, -2, 300), Int16Array.of(10, 20, -300))), [11, 18, 0])
  })
  it("saturates instead of wrapping", () => {
    const mixed = Mixer.mix(
      Int16Array.of(30000, -30000, 32767, -32768, 20000),
      Int16Array.of(30000, -30000, 1, -1, -20000)
    )
    assert.deepStrictEqual(Array.from(mixed), [32767, -32768, 32767, -32768, 0])
  })
  it("pads the shorter channel with silence, whichever it is", () => {
    assert.deepStrictEqual(Array.from(Mixer.mix(Int16Array.of(1, 2), Int16Array.of(10, 20, 30, 40))), [11, 22, 30, 40])
    assert.deepStrictEqual(Array.from(Mixer.mix(Int16Array.of(1, 2, 3), Int16Array.of(10))), [11, 2, 3])
    assert.deepStrictEqual(Array.from(Mixer.mix(new Int16Array(0), Int16Array.of(-5))), [-5])
    assert.strictEqual(Mixer.mix(new Int16Array(0), new Int16Array(0)).length, 0)
  })
  it("matches the clipped sum on a grid of extreme and ordinary values", () => {
    const values = [-32768, -32767, -16385, -16384, -1, 0, 1, 16383, 16384, 32766, 32767]
    const a = Int16Array.from(values.flatMap((x) => values.map(() => x)))
    const b = Int16Array.from(values.flatMap(() => values))
    const mixed = Mixer.mix(a, b)
    for (let i = 0; i < a.length; i++) assert.strictEqual(mixed[i], Math.min(32767, Math.max(-32768, a[i]! + b[i]!)))
  })
  it("returns a new array and leaves its inputs alone", () => {
    const a = Int16Array.of(1, 2, 3)
    const b = Int16Array.of(4)
    const mixed = Mixer.mix(a, b)
    mixed[0] = 99
    assert.deepStrictEqual([Array.from(a), Array.from(b)], [[1, 2, 3], [4]])
  })
})
