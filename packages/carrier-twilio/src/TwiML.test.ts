import { assert, describe, it } from "@effect/vitest"
import * as TwiML from "./TwiML.ts"

const declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"

describe("connectStream", () => {
  it("is the <Connect><Stream> with the token as a <Parameter> (Twilio's <Stream> TwiML page)", () => {
    assert.strictEqual(
      TwiML.connectStream({
        url: "wss://agent.example.com/carrier/twilio/media",
        parameters: { token: "Y2FsbC0x.1767225600000.c2lnbmF0dXJl" }
      }),
      `${declaration}<Response><Connect><Stream url="wss://agent.example.com/carrier/twilio/media">` +
        "<Parameter name=\"token\" value=\"Y2FsbC0x.1767225600000.c2lnbmF0dXJl\"/></Stream></Connect></Response>"
    )
  })
  it("writes parameters in order, and a self-closed <Stream> without any", () => {
    assert.strictEqual(
      TwiML.connectStream({ url: "wss://a.example/m", parameters: { a: "1", b: "2" } }),
      `${declaration}<Response><Connect><Stream url="wss://a.example/m"><Parameter name="a" value="1"/>` +
        "<Parameter name=\"b\" value=\"2\"/></Stream></Connect></Response>"
    )
    assert.strictEqual(
      TwiML.connectStream({ url: "wss://a.example/m" }),
      `${declaration}<Response><Connect><Stream url="wss://a.example/m"/></Connect></Response>`
    )
  })
  it("escapes attribute values", () => {
    assert.strictEqual(
      TwiML.connectStream({ url: "wss://a.example/m?x=1&y=\"2\"", parameters: { "<n>": "a&amp;b\tc\nd\re'f>" } }),
      `${declaration}<Response><Connect><Stream url="wss://a.example/m?x=1&amp;y=&quot;2&quot;">` +
        "<Parameter name=\"&lt;n>\" value=\"a&amp;amp;b&#x9;c&#xA;d&#xD;e'f>\"/></Stream></Connect></Response>"
    )
  })
})

describe("escapeAttribute", () => {
  it("drops the control characters XML 1.0 cannot hold", () => {
    assert.strictEqual(TwiML.escapeAttribute("a\u0000b\u0007c\u001Fd\uFFFEe"), "abcde")
  })
  it("leaves other text as it is", () => {
    assert.strictEqual(TwiML.escapeAttribute("São Paulo 👍 +1 (415) 'x'"), "São Paulo 👍 +1 (415) 'x'")
  })
})

describe("reject and empty", () => {
  it("are twilio-node's documents", () => {
    assert.strictEqual(TwiML.reject, `${declaration}<Response><Reject/></Response>`)
    assert.strictEqual(TwiML.empty, `${declaration}<Response/>`)
    assert.strictEqual(TwiML.contentType, "text/xml")
  })
})
