import { assert, describe, it } from "@effect/vitest"
import { parseRange } from "./ByteRange.ts"

describe("parseRange", () => {
  it("reads the three single-range forms", () => {
    assert.deepStrictEqual(parseRange("bytes=0-43", 1000), { _tag: "Partial", start: 0, end: 43 })
    assert.deepStrictEqual(parseRange("bytes=900-", 1000), { _tag: "Partial", start: 900, end: 999 })
    assert.deepStrictEqual(parseRange("bytes=-100", 1000), { _tag: "Partial", start: 900, end: 999 })
    assert.deepStrictEqual(parseRange("bytes=-5000", 1000), { _tag: "Partial", start: 0, end: 999 })
    assert.deepStrictEqual(parseRange("bytes=10-5000", 1000), { _tag: "Partial", start: 10, end: 999 })
  })
  it("serves the whole body for absent, malformed or multi-range headers", () => {
    for (const h of [undefined, "", "items=0-1", "bytes=0-1,5-6", "bytes=a-b", "bytes=-", "bytes=5-1"]) {
      assert.deepStrictEqual(parseRange(h, 1000), { _tag: "Full" }, String(h))
    }
  })
  it("is unsatisfiable past the end", () => {
    assert.deepStrictEqual(parseRange("bytes=1000-", 1000), { _tag: "Unsatisfiable" })
    assert.deepStrictEqual(parseRange("bytes=-0", 1000), { _tag: "Unsatisfiable" })
  })
})
