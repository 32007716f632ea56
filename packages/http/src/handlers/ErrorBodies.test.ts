import { assert, describe, it } from "@effect/vitest"
import { bodyLimitFor, declaresTooLarge, maxBodySize, maxKeylessBodySize } from "./ErrorBodies.ts"

describe("declaresTooLarge", () => {
  it("is true for a Content-Length over the limit, however large", () => {
    const limit = Number(maxBodySize)
    assert.isTrue(declaresTooLarge({ "content-length": String(limit + 1) }))
    assert.isTrue(declaresTooLarge({ "content-length": "99999999999999999999999999" }))
    assert.isFalse(declaresTooLarge({ "content-length": String(limit) }))
    assert.isFalse(declaresTooLarge({ "content-length": "0" }))
  })

  it("leaves a missing or unreadable length to the body reader and the HTTP parser", () => {
    assert.isFalse(declaresTooLarge({}))
    for (const length of ["", "-1", "1e9", "abc", " 5", "0x10"]) {
      assert.isFalse(declaresTooLarge({ "content-length": length }), length)
    }
  })
})

describe("bodyLimitFor", () => {
  it("gives the operations that take no key the small limit, with or without a query", () => {
    for (const url of ["/v1/upload-telemetry", "/v1/check-sdk-deprecation", "/v1/upload-telemetry?x=1"]) {
      assert.strictEqual(bodyLimitFor(url), maxKeylessBodySize, url)
    }
    for (const url of ["/v2/contacts", "/v1/upload-telemetry/x", "/v1/upload-telemetryx", "/"]) {
      assert.strictEqual(bodyLimitFor(url), maxBodySize, url)
    }
    assert.isTrue(declaresTooLarge({ "content-length": String(Number(maxKeylessBodySize) + 1) }, maxKeylessBodySize))
  })
})
