import { assert, describe, it } from "@effect/vitest"
import { isSerialId, MaxSerialId } from "./SerialId.ts"

describe("isSerialId", () => {
  it("accepts a positive integer in canonical decimal, up to bigint's maximum", () => {
    for (const id of ["1", "42", "1000000", String(MaxSerialId)]) assert.isTrue(isSerialId(id), id)
  })
  it("refuses zero, leading zeros, signs, fractions, other text and numbers past bigint", () => {
    for (
      const id of [
        "",
        "0",
        "00",
        "0123",
        "-1",
        "+1",
        "1.5",
        "1e3",
        " 1",
        "1\n",
        "abc",
        "1\u0000",
        String(MaxSerialId + 1n),
        "99999999999999999999"
      ]
    ) assert.isFalse(isSerialId(id), JSON.stringify(id))
  })
})
