/**
 * The fake's `X-Twilio-Signature`, pinned by Twilio's official vectors (twilio-node
 * `spec/validation.spec.js`, twilio.com/docs/usage/webhooks/webhooks-security).
 */
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as TwilioSignature from "./TwilioSignature.ts"

const token = "12345"
const url = "https://mycompany.com/myapp.php?foo=1&bar=2"
const params = {
  CallSid: "CA1234567890ABCDE",
  Caller: "+14158675309",
  Digits: "1234",
  From: "+14158675309",
  To: "+18005551212"
}

describe("dataToSign", () => {
  it("is the URL then each name and value, names sorted", () => {
    assert.strictEqual(
      TwilioSignature.dataToSign(url, params),
      "https://mycompany.com/myapp.php?foo=1&bar=2CallSidCA1234567890ABCDECaller+14158675309Digits1234From+14158675309To+18005551212"
    )
  })

  it("takes pairs in any order, and a repeated name's distinct values sorted", () => {
    const pairs: ReadonlyArray<readonly [string, string]> = [
      ["StatusCallbackEvent", "ringing"],
      ["To", "+1"],
      ["StatusCallbackEvent", "initiated"],
      ["StatusCallbackEvent", "ringing"]
    ]
    assert.strictEqual(
      TwilioSignature.dataToSign("u", pairs),
      "uStatusCallbackEventinitiatedStatusCallbackEventringingTo+1"
    )
    assert.strictEqual(
      TwilioSignature.dataToSign("u", { To: "+1", StatusCallbackEvent: ["ringing", "initiated"] }),
      "uStatusCallbackEventinitiatedStatusCallbackEventringingTo+1"
    )
  })
})

describe("sign", () => {
  it("matches Twilio's official vectors", () => {
    assert.strictEqual(TwilioSignature.sign(token, url, params), "RSOYDt4T1cUTdK1PDd93/VVr8B8=")
    assert.strictEqual(
      TwilioSignature.sign(token, url, { ...params, Caller: "+12349013030", From: "+12349013030" }),
      "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
    )
    assert.strictEqual(
      TwilioSignature.sign(token, "http://mycompany.com:1234/myapp.php?foo=1&bar=2", params),
      "Zmvh+3yNM1Phv2jhDCwEM3q5ebU="
    )
  })

  it("signs a JSON body's URL (with its bodySHA256) with no parameters", () => {
    const bodyHash = createHash("sha256").update("{\"property\": \"value\", \"boolean\": true}").digest("hex")
    assert.strictEqual(bodyHash, "0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620")
    assert.strictEqual(TwilioSignature.sign(token, `${url}&bodySHA256=${bodyHash}`), "a9nBmqA0ju/hNViExpshrM61xv4=")
  })

  it("accepts URLSearchParams", () => {
    assert.strictEqual(TwilioSignature.sign(token, url, new URLSearchParams(params)), "RSOYDt4T1cUTdK1PDd93/VVr8B8=")
  })
})

describe("isValid", () => {
  it("accepts the signature for the URL as given, without its port or with the default one", () => {
    assert.isTrue(TwilioSignature.isValid(token, "RSOYDt4T1cUTdK1PDd93/VVr8B8=", url, params))
    assert.isTrue(
      TwilioSignature.isValid(
        token,
        "RSOYDt4T1cUTdK1PDd93/VVr8B8=",
        "https://mycompany.com:443/myapp.php?foo=1&bar=2",
        params
      )
    )
    const withPort = TwilioSignature.sign(token, "https://mycompany.com:443/myapp.php?foo=1&bar=2", params)
    assert.isTrue(TwilioSignature.isValid(token, withPort, url, params))
  })

  it("refuses a missing or wrong signature, another token, other parameters", () => {
    assert.isFalse(TwilioSignature.isValid(token, undefined, url, params))
    assert.isFalse(TwilioSignature.isValid(token, "RSOYDt4T1cUTdK1PDd93/VVr8B8", url, params))
    assert.isFalse(TwilioSignature.isValid("54321", "RSOYDt4T1cUTdK1PDd93/VVr8B8=", url, params))
    assert.isFalse(TwilioSignature.isValid(token, "RSOYDt4T1cUTdK1PDd93/VVr8B8=", url, { ...params, Digits: "1235" }))
  })
})
