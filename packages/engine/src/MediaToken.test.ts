import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as MediaToken from "./MediaToken.ts"

const key = MediaToken.keyFrom(new Uint8Array(32).fill(7))
const otherKey = MediaToken.keyFrom(new Uint8Array(32).fill(8))
const now = 1_800_000_000_000

describe("MediaToken", () => {
  it("accepts its own token until it expires", () => {
    const token = MediaToken.sign(key, "6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c", now + 60_000)
    assert.deepStrictEqual(MediaToken.verify(key, token, now), Option.some("6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c"))
    assert.deepStrictEqual(
      MediaToken.verify(key, token, now + 59_999),
      Option.some("6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c")
    )
    assert.isTrue(Option.isNone(MediaToken.verify(key, token, now + 60_000)), "expired")
  })

  it("refuses another key's token, and every one-character change", () => {
    const token = MediaToken.sign(key, "call-1", now + 60_000)
    assert.isTrue(Option.isNone(MediaToken.verify(otherKey, token, now)))
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    for (let i = 0; i < token.length; i++) {
      for (const c of alphabet) {
        if (c === token[i]) continue
        const changed = token.slice(0, i) + c + token.slice(i + 1)
        assert.isTrue(Option.isNone(MediaToken.verify(key, changed, now)), changed)
      }
    }
  })

  it("refuses malformed tokens", () => {
    for (const token of ["", ".", "..", "a.b.c", "a.1.", `${"a".repeat(600)}.1.b`, "Y2FsbA.99999999999999999999.x"]) {
      assert.isTrue(Option.isNone(MediaToken.verify(key, token, now)), token)
    }
  })

  it("keeps the media key apart from the cursor key it derives from", () => {
    assert.notDeepEqual(key, new Uint8Array(32).fill(7))
    assert.strictEqual(key.length, 32)
  })

  it("derives one key from equal cursor keys, whichever copy is read", () => {
    const cursorKey = new Uint8Array(32).fill(9)
    const first = MediaToken.keyFrom(cursorKey)
    assert.strictEqual(MediaToken.keyFrom(cursorKey), first, "derived once per cursor key")
    const fromCopy = MediaToken.keyFrom(Uint8Array.from(cursorKey))
    assert.deepStrictEqual(fromCopy, first)
    const token = MediaToken.sign(first, "call-2", now + 60_000)
    assert.deepStrictEqual(MediaToken.verify(fromCopy, token, now), Option.some("call-2"))
    assert.deepStrictEqual(MediaToken.verify(Uint8Array.from(first), token, now), Option.some("call-2"))
  })
})
