import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as MediaToken from "./MediaToken.ts"
import * as RelayGrant from "./RelayGrant.ts"

const cursorKey = new Uint8Array(32).fill(7)
const key = RelayGrant.keyFrom(cursorKey)
const now = 1_800_000_000_000
const grant: RelayGrant.Grant = {
  daemonId: "host-1234-abcdef",
  organizationId: "6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c",
  callId: "CA0123456789abcdef01234567",
  channel: "mixed",
  fromAnswer: true
}

describe("RelayGrant", () => {
  it("gives back the grant it signed, with its expiry, until it expires", () => {
    const token = RelayGrant.sign(key, grant, now + 10_000)
    assert.deepStrictEqual(RelayGrant.verify(key, token, now + 9_999), Option.some({ grant, expiresAt: now + 10_000 }))
    assert.isTrue(Option.isNone(RelayGrant.verify(key, token, now + 10_000)), "expired")
    const other = { ...grant, channel: "remote" as const, fromAnswer: false }
    assert.deepStrictEqual(
      RelayGrant.verify(key, RelayGrant.sign(key, other, now + 1), now),
      Option.some({ grant: other, expiresAt: now + 1 })
    )
  })

  it("refuses another installation's grant, a media stream token, and a media key's grant", () => {
    const token = RelayGrant.sign(key, grant, now + 10_000)
    assert.isTrue(Option.isNone(RelayGrant.verify(RelayGrant.keyFrom(new Uint8Array(32).fill(8)), token, now)))
    const mediaKey = MediaToken.keyFrom(cursorKey)
    assert.isTrue(Option.isNone(RelayGrant.verify(mediaKey, token, now)), "the keys differ")
    assert.isTrue(Option.isNone(MediaToken.verify(mediaKey, token, now)), "a grant is no media token")
    const mediaToken = MediaToken.sign(mediaKey, grant.callId, now + 10_000)
    assert.isTrue(Option.isNone(RelayGrant.verify(key, mediaToken, now)), "a media token is no grant")
  })

  it("refuses a token signed with its key whose subject is not a grant", () => {
    for (const subject of ["CA123", "[]", JSON.stringify(["a", "b", "c", "both", true]), "{\"daemonId\":\"a\"}"]) {
      assert.isTrue(Option.isNone(RelayGrant.verify(key, MediaToken.sign(key, subject, now + 10_000), now)), subject)
    }
  })
})
