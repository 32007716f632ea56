import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as DigestAuth from "./DigestAuth.ts"

// RFC 7616 §3.9.1: the same credentials answered with SHA-256 and with MD5.
const rfc7616 = (algorithm: string) =>
  `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`
const mufasa = {
  username: "Mufasa",
  password: "Circle of Life",
  method: "GET",
  uri: "/dir/index.html",
  cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
  nc: 1
}

describe("DigestAuth", () => {
  it("reads a challenge's realm, nonce, opaque, algorithm, qop and stale", () => {
    const challenge = Result.getOrThrow(DigestAuth.parseChallenge(rfc7616("SHA-256")))
    assert.deepStrictEqual(challenge, {
      realm: "http-auth@example.org",
      nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
      opaque: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",
      stale: false,
      algorithm: "SHA-256",
      qop: ["auth", "auth-int"]
    })
    const stale = Result.getOrThrow(
      DigestAuth.parseChallenge("Digest realm=\"a\",nonce=\"b\",stale=TRUE,algorithm=md5")
    )
    assert.isTrue(stale.stale)
    assert.strictEqual(stale.algorithm, "MD5")
    assert.deepStrictEqual(stale.qop, [])
  })

  it("answers RFC 7616 §3.9.1 with SHA-256 and MD5 as the RFC prints", () => {
    const sha = Result.getOrThrow(DigestAuth.parseChallenge(rfc7616("SHA-256")))
    assert.strictEqual(
      DigestAuth.answer(sha, mufasa).response,
      "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"
    )
    const md5 = Result.getOrThrow(DigestAuth.parseChallenge(rfc7616("MD5")))
    assert.strictEqual(DigestAuth.answer(md5, mufasa).response, "8ca523f5e9506fed4657c9700eebdbec")
    assert.strictEqual(
      DigestAuth.authorization(sha, mufasa),
      "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", uri=\"/dir/index.html\", response=\"753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1\", algorithm=SHA-256, qop=auth, nc=00000001, cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
    )
  })

  it("answers RFC 2617 §3.5 (qop=auth) and an RFC 2069 challenge with no qop", () => {
    const credentials = { ...mufasa, password: "Circle Of Life", cnonce: "0a4f113b" }
    const rfc2617 = Result.getOrThrow(DigestAuth.parseChallenge(
      "Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""
    ))
    assert.strictEqual(DigestAuth.answer(rfc2617, credentials).response, "6629fae49393a05397450978507c4ef1")
    const rfc2069 = Result.getOrThrow(DigestAuth.parseChallenge(
      "Digest realm=\"testrealm@host.com\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\""
    ))
    assert.strictEqual(DigestAuth.answer(rfc2069, credentials).response, "670fd8c2df070c60b045671b8b24ff02")
    assert.notInclude(DigestAuth.authorization(rfc2069, credentials), "cnonce")
  })

  it("counts nc in hex and folds the nonce into -sess keys", () => {
    const sess = Result.getOrThrow(
      DigestAuth.parseChallenge("Digest realm=\"r\", nonce=\"n\", qop=\"auth\", algorithm=SHA-256-sess")
    )
    const first = DigestAuth.answer(sess, { ...mufasa, nc: 1 })
    const twentieth = DigestAuth.answer(sess, { ...mufasa, nc: 26 })
    assert.strictEqual(twentieth.nc, "0000001a")
    assert.notStrictEqual(first.response, twentieth.response)
  })

  it("chooses the first challenge it can answer and says why it cannot", () => {
    const chosen = Result.getOrThrow(DigestAuth.chooseChallenge([
      "Basic realm=\"x\"",
      "Digest realm=\"a\", nonce=\"b\", algorithm=SHA3-512",
      rfc7616("SHA-256"),
      rfc7616("MD5")
    ]))
    assert.strictEqual(chosen.algorithm, "SHA-256")
    const none = DigestAuth.chooseChallenge(["Digest realm=\"a\", nonce=\"b\", qop=\"auth-conf\""])
    assert.strictEqual(Result.isFailure(none) && none.failure, "unsupported qop auth-conf")
    const broken = DigestAuth.parseChallenge("Digest realm=\"unterminated, nonce=\"x\"")
    assert.isTrue(Result.isFailure(broken))
  })
})
