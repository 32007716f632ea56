import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as Goldens from "../test/fixtures/twilio-signature.goldens.ts"
import * as TwilioSignature from "./TwilioSignature.ts"

const token = Redacted.make(Goldens.authToken)
const bodyUrl = `${Goldens.requestUrl}&bodySHA256=${Goldens.bodySha256}`

describe("stringToSign", () => {
  it("is the URL then each key and value, keys sorted (Twilio's webhook security page, byte for byte)", () => {
    assert.strictEqual(
      TwilioSignature.stringToSign(Goldens.requestUrl, Goldens.defaultParams),
      Goldens.defaultStringToSign
    )
  })
  it("writes a repeated key once per distinct value, values sorted", () => {
    assert.strictEqual(
      TwilioSignature.stringToSign("https://a.example/x", { B: "2", A: ["z", "y", "z"] }),
      "https://a.example/xAyAzB2"
    )
  })
})

describe("sign", () => {
  it("reproduces the official vectors", () => {
    assert.strictEqual(
      TwilioSignature.sign(token, Goldens.requestUrl, Goldens.defaultParams),
      Goldens.valid[0]!.signature
    )
    assert.strictEqual(TwilioSignature.sign(token, bodyUrl, {}), Goldens.bodyUrlSignature)
    assert.strictEqual(
      TwilioSignature.sign(token, "http://mycompany.com:1234/myapp.php?foo=1&bar=2", Goldens.defaultParams),
      "Zmvh+3yNM1Phv2jhDCwEM3q5ebU="
    )
  })
})

describe("bodySha256", () => {
  it("is the hex SHA-256 of the raw body", () => {
    assert.strictEqual(TwilioSignature.bodySha256(Goldens.body), Goldens.bodySha256)
    assert.strictEqual(TwilioSignature.bodySha256("{}"), Goldens.emptyBodySha256)
  })
})

describe("urlVariants", () => {
  it("is the URL as given, without and with the default port, and their legacy-encoded twins", () => {
    assert.deepStrictEqual(TwilioSignature.urlVariants("https://a.example/p?x=It's+amazing"), [
      "https://a.example/p?x=It's+amazing",
      "https://a.example/p?x=It%27s+amazing",
      "https://a.example:443/p?x=It%27s+amazing",
      "https://a.example/p?x=It's%20amazing"
    ])
  })
  it("has no query twins for a URL without a query", () => {
    assert.deepStrictEqual(TwilioSignature.urlVariants("http://a.example:8080/carrier/twilio/status"), [
      "http://a.example:8080/carrier/twilio/status",
      "http://a.example/carrier/twilio/status"
    ])
  })
})

describe("validate", () => {
  for (const vector of Goldens.valid) {
    it(`accepts ${vector.name}`, () => {
      assert.isTrue(TwilioSignature.validate(token, vector.signature, vector.url, vector.params))
    })
  }
  it("refuses a wrong signature, a missing or empty one, and another token's", () => {
    const { params, signature, url } = Goldens.valid[0]!
    assert.isFalse(TwilioSignature.validate(token, "WRONG_SIGNATURE", url, params))
    assert.isFalse(TwilioSignature.validate(token, undefined, url, params))
    assert.isFalse(TwilioSignature.validate(token, "", url, params))
    assert.isFalse(TwilioSignature.validate(Redacted.make("54321"), signature, url, params))
  })
  it("refuses a changed parameter, an added one, and an added query parameter", () => {
    const { params, signature, url } = Goldens.valid[0]!
    assert.isFalse(TwilioSignature.validate(token, signature, url, { ...params, Digits: "1235" }))
    assert.isFalse(TwilioSignature.validate(token, signature, url, { ...params, Extra: "" }))
    assert.isFalse(TwilioSignature.validate(token, signature, `${url}&somethingUnexpected=true`, params))
  })
  it("refuses a signature that differs only in its last character (same length)", () => {
    const { params, signature, url } = Goldens.valid[0]!
    const tampered = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}=`
    assert.isFalse(TwilioSignature.validate(token, tampered, url, params))
  })
  it("refuses anything for a URL that does not parse", () => {
    assert.isFalse(TwilioSignature.validate(token, "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "/myapp.php?foo=1", {}))
  })
  it("accepts what sign produces, for a WebSocket upgrade (wss URL, no params)", () => {
    const url = "wss://agent.example.com/carrier/twilio/media"
    assert.isTrue(TwilioSignature.validate(token, TwilioSignature.sign(token, url, {}), url, {}))
    assert.isFalse(
      TwilioSignature.validate(token, TwilioSignature.sign(token, url, {}), url.replace("wss", "https"), {})
    )
  })
})

describe("validateWithBody", () => {
  it("accepts the official JSON-body vectors", () => {
    assert.isTrue(TwilioSignature.validateWithBody(token, Goldens.bodyUrlSignature, bodyUrl, Goldens.body))
    assert.isTrue(
      TwilioSignature.validateWithBody(
        token,
        Goldens.emptyBodyUrlSignature,
        `${Goldens.requestUrl}&bodySHA256=${Goldens.emptyBodySha256}`,
        "{}"
      )
    )
    assert.isTrue(
      TwilioSignature.validateWithBody(
        token,
        Goldens.bodyOnlyUrlSignature,
        `https://mycompany.com/myapp.php?bodySHA256=${Goldens.bodySha256}`,
        Goldens.body
      )
    )
  })
  it("refuses another body, a URL without bodySHA256, and a wrong signature", () => {
    assert.isFalse(TwilioSignature.validateWithBody(token, Goldens.bodyUrlSignature, bodyUrl, `${Goldens.body} `))
    assert.isFalse(
      TwilioSignature.validateWithBody(token, Goldens.valid[0]!.signature, Goldens.requestUrl, Goldens.body)
    )
    assert.isFalse(TwilioSignature.validateWithBody(token, "WRONG", bodyUrl, Goldens.body))
    assert.isFalse(
      TwilioSignature.validateWithBody(token, Goldens.bodyUrlSignature, bodyUrl.slice(0, -1), Goldens.body)
    )
  })
})
