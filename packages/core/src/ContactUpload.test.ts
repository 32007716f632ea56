import { assert, describe, it } from "@effect/vitest"
import { MaxContactDataBytes } from "./Contact.ts"
import { fitsDataLimit, prepareUpload, serializedSize } from "./ContactUpload.ts"

describe("serializedSize", () => {
  it("counts UTF-8 bytes of the JSON text", () => {
    assert.strictEqual(serializedSize({}), 2)
    assert.strictEqual(serializedSize({ a: "é" }), "{\"a\":\"é\"}".length + 1)
  })
  it("is infinite for values JSON cannot hold", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    assert.strictEqual(serializedSize(cycle), Number.POSITIVE_INFINITY)
    let deep: unknown = {}
    for (let i = 0; i < 200_000; i++) deep = { d: deep }
    assert.strictEqual(serializedSize(deep), Number.POSITIVE_INFINITY)
  })
})

describe("fitsDataLimit", () => {
  it("agrees with serializedSize at the limit, for one-byte and three-byte characters", () => {
    for (const char of ["a", "€", "😀"]) {
      for (let length = 5_000; length < 17_000; length += 1 + Math.floor(length / 97)) {
        const data = { x: char.repeat(length) }
        assert.strictEqual(fitsDataLimit(data), serializedSize(data) <= MaxContactDataBytes, `${char} x ${length}`)
      }
    }
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    assert.isFalse(fitsDataLimit(cycle))
  })
})

describe("prepareUpload", () => {
  const limitData = (bytes: number) => ({ x: "a".repeat(bytes - "{\"x\":\"\"}".length) })

  it("normalizes numbers and keeps request order, data and modalities", () => {
    const prepared = prepareUpload([
      { phone_number: "(202) 555-0123", data: { name: "Ann" }, outreach_modalities: ["sms"] },
      { phone_number: "+1 202 555 0124", data: null, outreach_modalities: null }
    ], { allowDuplicates: false })
    assert.deepStrictEqual(prepared.rejected, [])
    assert.deepStrictEqual<unknown>(prepared.contacts, [
      { phoneNumber: "+12025550123", data: { name: "Ann" }, outreachModalities: ["sms"] },
      { phoneNumber: "+12025550124", data: {}, outreachModalities: [] }
    ])
  })

  it("rejects invalid numbers with the raw input and oversized data with the normalized number", () => {
    const prepared = prepareUpload([
      { phone_number: "call me" },
      { phone_number: "202-555-0125", data: limitData(MaxContactDataBytes) },
      { phone_number: "202-555-0126", data: limitData(MaxContactDataBytes + 1) }
    ], { allowDuplicates: false })
    assert.deepStrictEqual(prepared.rejected, [
      { phone_number: "call me", reason: "invalid_phone_number" },
      { phone_number: "+12025550126", reason: "data_too_large" }
    ])
    assert.deepStrictEqual(prepared.contacts.map((c) => c.phoneNumber), ["+12025550125"])
  })

  it("rejects the second copy of a number unless duplicates are allowed", () => {
    const entries = [{ phone_number: "202-555-0127" }, { phone_number: "+12025550127" }]
    assert.deepStrictEqual(prepareUpload(entries, { allowDuplicates: false }).rejected, [
      { phone_number: "+12025550127", reason: "duplicate" }
    ])
    const allowed = prepareUpload(entries, { allowDuplicates: true })
    assert.deepStrictEqual(allowed.rejected, [])
    assert.strictEqual(allowed.contacts.length, 2)
  })
})
