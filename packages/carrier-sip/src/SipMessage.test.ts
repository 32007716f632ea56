import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as SipMessage from "./SipMessage.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const lines = (...text: Array<string>) => encoder.encode(text.map((line) => `${line}\r\n`).join(""))

const invite = lines(
  "INVITE sip:+14155550100@trunk.example.com SIP/2.0",
  "v: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKabc;rport",
  "Max-Forwards: 70",
  "f: <sip:+14155550199@192.0.2.10>;tag=111",
  "t: <sip:+14155550100@trunk.example.com>",
  "i: call-1@192.0.2.10",
  "CSeq: 1 INVITE",
  "m: <sip:+14155550199@192.0.2.10:5060>",
  "c: application/sdp",
  "l: 4",
  "",
  "v=0\r\nEXTRA"
)

describe("SipMessage.parse", () => {
  it("reads a request's start line, compact headers and body by Content-Length", () => {
    const message = Result.getOrThrow(SipMessage.parse(invite))
    assert.strictEqual(message._tag, "Request")
    if (message._tag !== "Request") return
    assert.strictEqual(message.method, "INVITE")
    assert.strictEqual(message.uri.user, "+14155550100")
    assert.strictEqual(message.callId, "call-1@192.0.2.10")
    assert.deepStrictEqual(message.cseq, { seq: 1, method: "INVITE" })
    assert.strictEqual(message.from.params[0]![1], "111")
    assert.strictEqual(message.via[0]!.port, 5060)
    assert.strictEqual(SipMessage.header(message, "Content-Type"), "application/sdp")
    assert.strictEqual(decoder.decode(message.body), "v=0\r")
  })

  it("reads a response and keeps its reason phrase", () => {
    const message = Result.getOrThrow(SipMessage.parse(lines(
      "SIP/2.0 486 Busy Here",
      "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKabc;received=203.0.113.5;rport=40000",
      "From: <sip:a@b>;tag=1",
      "To: <sip:c@d>;tag=2",
      "Call-ID: x",
      "CSeq: 1 INVITE",
      "Content-Length: 0",
      ""
    )))
    assert.strictEqual(message._tag, "Response")
    if (message._tag !== "Response") return
    assert.strictEqual(message.status, 486)
    assert.strictEqual(message.reason, "Busy Here")
  })

  it("skips CRLFs before the start line", () => {
    const bytes = new Uint8Array([13, 10, 13, 10, ...invite])
    assert.isTrue(Result.isSuccess(SipMessage.parse(bytes)))
  })

  it("answers an unknown SIP version 505 and drops bytes with no request line", () => {
    const text = decoder.decode(invite).replace("SIP/2.0\r\n", "SIP/3.0\r\n")
    const result = SipMessage.parse(encoder.encode(text))
    assert.strictEqual(Result.isFailure(result) && result.failure.status, 505)
    const garbage = SipMessage.parse(encoder.encode("hello\r\n\r\n"))
    assert.strictEqual(Result.isFailure(garbage) && garbage.failure.status, undefined)
  })

  it("requires Content-Length on a stream", () => {
    const text = decoder.decode(invite).replace("l: 4\r\n", "")
    const result = SipMessage.parse(encoder.encode(text), "stream")
    assert.strictEqual(Result.isFailure(result) && result.failure.detail, "missing Content-Length on a stream")
  })

  it("never throws, whatever the bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        SipMessage.parse(bytes)
        SipMessage.parse(bytes, "stream")
      }),
      { numRuns: 3000 }
    )
  })

  it("never throws on mutations of a valid message", () => {
    const base = decoder.decode(invite)
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length), fc.nat(8), fc.string({ maxLength: 6 })), { maxLength: 6 }),
        (edits) => {
          let text = base
          for (const [at, remove, insert] of edits) text = text.slice(0, at) + insert + text.slice(at + remove)
          const result = SipMessage.parse(encoder.encode(text))
          if (Result.isFailure(result) && result.failure.status !== undefined && result.failure.request !== undefined) {
            const answer = SipMessage.response(result.failure.request, result.failure.status, result.failure.detail)
            if (answer !== undefined) SipMessage.serialize(answer)
          }
        }
      ),
      { numRuns: 3000 }
    )
  })
})

describe("SipMessage.serialize and response", () => {
  it("writes a response that echoes the request and adds the To tag", () => {
    const request = Result.getOrThrow(SipMessage.parse(invite))
    if (request._tag !== "Request") return assert.fail("not a request")
    const answer = SipMessage.response(request, 180, "Ringing", { toTag: "xyz" })!
    const text = decoder.decode(SipMessage.serialize(answer))
    assert.strictEqual(
      text,
      [
        "SIP/2.0 180 Ringing",
        "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKabc;rport",
        "From: <sip:+14155550199@192.0.2.10>;tag=111",
        "To: <sip:+14155550100@trunk.example.com>;tag=xyz",
        "Call-ID: call-1@192.0.2.10",
        "CSeq: 1 INVITE",
        "Content-Length: 0",
        "",
        ""
      ].join("\r\n")
    )
    const again = Result.getOrThrow(SipMessage.parse(encoder.encode(text)))
    assert.strictEqual(again._tag === "Response" && again.to.params[0]![1], "xyz")
  })

  it("computes Content-Length from the body and strips line breaks from a reason", () => {
    const bytes = SipMessage.serialize({
      _tag: "Response",
      status: 400,
      reason: "bad\r\nthing",
      headers: [{ name: "Content-Length", value: "99" }],
      body: encoder.encode("abc")
    })
    assert.strictEqual(decoder.decode(bytes), "SIP/2.0 400 bad  thing\r\nContent-Length: 3\r\n\r\nabc")
  })
})
