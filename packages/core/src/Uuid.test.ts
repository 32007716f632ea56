import { assert, describe, it } from "@effect/vitest"
import { isUuid } from "./Uuid.ts"

describe("isUuid", () => {
  it("accepts the hyphenated form in either case, any version", () => {
    for (
      const id of [
        "190a4c49-540f-40e7-889f-bba1a4447dea",
        "190A4C49-540F-40E7-889F-BBA1A4447DEA",
        "00000000-0000-0000-0000-000000000000",
        "01890a5d-ac96-774b-bcce-b302099a8057"
      ]
    ) assert.isTrue(isUuid(id), id)
  })
  it("refuses other shapes", () => {
    for (
      const id of [
        "",
        "190a4c49540f40e7889fbba1a4447dea",
        "{190a4c49-540f-40e7-889f-bba1a4447dea}",
        "190a4c49-540f-40e7-889f-bba1a4447de",
        "190a4c49-540f-40e7-889f-bba1a4447deaa",
        "190a4c49-540f-40e7-889f-bba1a4447deg",
        " 190a4c49-540f-40e7-889f-bba1a4447dea",
        "190a4c49-540f-40e7-889f-bba1a4447dea\n",
        "190a4c49-540f-40e7-889f-bba1a4447dea\u0000"
      ]
    ) assert.isFalse(isUuid(id), JSON.stringify(id))
  })
})
