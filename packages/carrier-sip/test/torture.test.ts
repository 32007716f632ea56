import { assert, describe, it } from "@effect/vitest"
import * as SipMessage from "@voice-agent/carrier-sip/SipMessage"
import { Result } from "effect"
import { cases } from "./fixtures/rfc4475.ts"

const encoder = new TextEncoder()

describe("RFC 4475 torture messages", () => {
  for (const torture of cases) {
    it(`${torture.name} (§${torture.section}): ${String(torture.expect)}`, () => {
      const result = SipMessage.parse(encoder.encode(torture.text))
      if (torture.expect === "valid") {
        assert.isTrue(Result.isSuccess(result), Result.isFailure(result) ? result.failure.detail : "")
      } else if (torture.expect === "drop") {
        assert.isTrue(Result.isFailure(result))
        if (Result.isFailure(result)) assert.isUndefined(result.failure.status, result.failure.detail)
      } else if (typeof torture.expect === "number") {
        assert.isTrue(Result.isFailure(result))
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.status, torture.expect, result.failure.detail)
          // The answer can be built: it echoes the request's Via, From, To, Call-ID and CSeq.
          const answer = SipMessage.response(result.failure.request!, torture.expect, result.failure.detail)
          const callId = /^(?:Call-ID|i)[ \t]*:[ \t]*(.*)\r$/im.exec(torture.text)?.[1]
          if (answer !== undefined) {
            const text = new TextDecoder().decode(SipMessage.serialize(answer))
            assert.isTrue(text.startsWith(`SIP/2.0 ${torture.expect} `))
            assert.include(text, `\r\nCall-ID: ${callId}\r\n`)
          } else assert.isUndefined(callId, "a request with a Call-ID can be answered")
        }
      }
    })
  }

  it("reads the tortuous INVITE's headers as RFC 4475 §3.1.1.1 explains them", () => {
    const message = Result.getOrThrow(SipMessage.parse(encoder.encode(cases[0]!.text)))
    assert.strictEqual(message._tag, "Request")
    if (message._tag !== "Request") return
    assert.strictEqual(message.method, "INVITE")
    assert.strictEqual(message.uri.host, "chair-dnrc.example.com")
    assert.deepStrictEqual(message.cseq, { seq: 9, method: "INVITE" })
    assert.strictEqual(message.to.params[0]![1], "1918181833n")
    assert.strictEqual(message.from.displayName, "J Rosenberg \\\"")
    assert.strictEqual(message.from.params[0]![1], "98asjd8")
    assert.deepStrictEqual(message.via.map((via) => [via.transport, via.host]), [
      ["UDP", "192.0.2.2"],
      ["TCP", "spindle.example.com"],
      ["UDP", "192.168.255.111"]
    ])
    assert.strictEqual(message.via[2]!.params[0]![1], "z9hG4bK30239")
    assert.strictEqual(SipMessage.header(message, "Subject"), "")
    assert.strictEqual(
      SipMessage.header(message, "NewFangledHeader"),
      "newfangled value continued newfangled value"
    )
    assert.strictEqual(
      SipMessage.header(message, "Contact"),
      "\"Quoted string \\\"\\\"\" <sip:jdrosen@example.com> ; newparam = newvalue ; secondparam ; q = 0.33"
    )
    assert.strictEqual(message.body.length, 150)
  })
})
