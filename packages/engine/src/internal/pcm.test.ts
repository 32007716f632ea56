import { describe, expect, it } from "vitest"
import { concat } from "./pcm.ts"

describe("concat", () => {
  it("puts separate arrays end to end in a new array", () => {
    const all = concat([Int16Array.of(1, 2), Int16Array.of(3), Int16Array.of(4, 5)])
    expect([...all]).toEqual([1, 2, 3, 4, 5])
  })

  it("answers a view, not a copy, of frames that lie end to end in one buffer", () => {
    const line = Int16Array.from({ length: 480 }, (_, i) => i)
    const frames = [line.subarray(0, 160), line.subarray(160, 320), line.subarray(320, 480)]
    const all = concat(frames)
    expect(all.buffer).toBe(line.buffer)
    expect([...all]).toEqual([...line])
  })

  it("copies frames of one buffer that are out of order or have a gap", () => {
    const line = Int16Array.from({ length: 480 }, (_, i) => i)
    const swapped = concat([line.subarray(160, 320), line.subarray(0, 160)])
    expect(swapped.buffer).not.toBe(line.buffer)
    expect([...swapped]).toEqual([...line.subarray(160, 320), ...line.subarray(0, 160)])
    const gap = concat([line.subarray(0, 160), line.subarray(320, 480)])
    expect(gap.buffer).not.toBe(line.buffer)
    expect(gap.length).toBe(320)
    expect(gap[160]).toBe(320)
  })

  it("answers an empty array for no parts", () => {
    expect(concat([]).length).toBe(0)
  })
})
