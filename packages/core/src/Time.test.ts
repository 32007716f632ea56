import { assert, describe, it } from "@effect/vitest"
import { parseIsoInstant } from "./Time.ts"

describe("parseIsoInstant", () => {
  const at = (iso: string) => Date.parse(iso)
  it("reads the forms real clients send", () => {
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10:00Z"), at("2026-11-21T05:10:00Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10:00.123456+00:00"), at("2026-11-21T05:10:00.123Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10:00-08:00"), at("2026-11-21T13:10:00Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10:00+0530"), at("2026-11-20T23:40:00Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21"), at("2026-11-21T00:00:00Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10"), at("2026-11-21T05:10:00Z"))
    assert.strictEqual(parseIsoInstant("2026-11-21 05:10:00"), at("2026-11-21T05:10:00Z"))
  })
  it("reads an unencoded + (a space in the query string) as an offset sign", () => {
    assert.strictEqual(parseIsoInstant("2026-11-21T05:10:00 01:00"), at("2026-11-21T04:10:00Z"))
  })
  it("reads years before 100 as written (not as 19xx)", () => {
    assert.strictEqual(parseIsoInstant("0099-05-01T00:00:00Z"), Date.parse("0099-05-01T00:00:00Z"))
    assert.strictEqual(parseIsoInstant("0000-01-01"), Date.parse("0000-01-01T00:00:00Z"))
  })
  it("rejects anything else", () => {
    for (
      const bad of [
        "",
        "yesterday",
        "1",
        "2026-13-01",
        "2026-02-30T00:00:00Z",
        "2026-11-21T24:00:00Z",
        "2026-11-21T05:10:00+25:00",
        " 2026-11-21",
        "2026-11-21T05:10:00ZZ"
      ]
    ) {
      assert.isUndefined(parseIsoInstant(bad), bad)
    }
  })
})
