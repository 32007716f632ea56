/**
 * The fake's TwiML reader: the verbs it runs, and the documents Twilio would refuse.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Twiml from "./Twiml.ts"

describe("parse", () => {
  it("reads <Connect><Stream> with its parameters (entities decoded)", () => {
    const verbs = Twiml.parse(
      `<?xml version="1.0" encoding="UTF-8"?>
      <!-- our answer -->
      <Response>
        <Connect>
          <Stream url="wss://agent.example.com/carrier/twilio/media" name='s1'>
            <Parameter name="token" value="a&amp;b&#x3C;c&#62;"/>
            <Parameter name="empty" value=""></Parameter>
          </Stream>
        </Connect>
        <Say>after the stream</Say>
      </Response>`
    )
    assert.deepStrictEqual(verbs, [
      {
        _tag: "Connect",
        stream: {
          url: "wss://agent.example.com/carrier/twilio/media",
          name: "s1",
          track: undefined,
          parameters: [{ name: "token", value: "a&b<c>" }, { name: "empty", value: "" }]
        }
      },
      { _tag: "Other", name: "Say" }
    ])
  })

  it("reads <Reject> (reason rejected by default, or busy) and <Hangup>", () => {
    assert.deepStrictEqual(Twiml.parse("<Response><Reject/></Response>"), [{ _tag: "Reject", reason: "rejected" }])
    assert.deepStrictEqual(Twiml.parse(`<Response><Reject reason="busy" /></Response>`), [{
      _tag: "Reject",
      reason: "busy"
    }])
    assert.deepStrictEqual(Twiml.parse("<Response><Hangup></Hangup></Response>"), [{ _tag: "Hangup" }])
    assert.deepStrictEqual(Twiml.parse("<Response/>"), [])
  })

  it("reads <Dial>: the number as its text or as <Number> nouns, other nouns by name", () => {
    assert.deepStrictEqual(
      Twiml.parse(`<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+12025550188</Dial></Response>`),
      [{ _tag: "Dial", numbers: ["+12025550188"], nouns: [] }]
    )
    assert.deepStrictEqual(
      Twiml.parse("<Response><Dial timeout=\"10\"><Number>+12025550188</Number><Sip>sip:a@b</Sip></Dial></Response>"),
      [{ _tag: "Dial", numbers: ["+12025550188"], nouns: ["Sip"] }]
    )
  })

  it("answers why a document is not TwiML", () => {
    for (
      const bad of [
        "",
        "OK",
        "{\"twiml\": true}",
        "<Response><Hangup></Response>",
        "<Response><Hangup/>",
        "<Response></Response><Response></Response>",
        "<Response><Stream url=wss://x/></Response>",
        "<Say>hello</Say>"
      ]
    ) {
      assert.isString(Twiml.parse(bad), bad)
    }
  })
})
