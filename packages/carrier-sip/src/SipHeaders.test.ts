import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as SipHeaders from "./SipHeaders.ts"

const error = <A>(result: Result.Result<A, string>) => (Result.isFailure(result) ? result.failure : undefined)

describe("SipHeaders", () => {
  it("expands compact names and spells known names as the RFC does", () => {
    assert.deepStrictEqual(
      ["i", "m", "f", "t", "v", "l", "c", "k", "s", "o", "r", "x"].map(SipHeaders.canonicalName),
      [
        "Call-ID",
        "Contact",
        "From",
        "To",
        "Via",
        "Content-Length",
        "Content-Type",
        "Supported",
        "Subject",
        "Event",
        "Refer-To",
        "Session-Expires"
      ]
    )
    assert.strictEqual(SipHeaders.canonicalName("cseq"), "CSeq")
    assert.strictEqual(SipHeaders.canonicalName("www-authenticate"), "WWW-Authenticate")
    assert.strictEqual(SipHeaders.canonicalName("X-Custom"), "X-Custom")
  })

  it("splits lists at commas outside quotes and angle brackets", () => {
    assert.deepStrictEqual(SipHeaders.splitList("\"Bell, A\" <sip:a@x;p=1,2>, <sip:b@y>"), [
      "\"Bell, A\" <sip:a@x;p=1,2>",
      "<sip:b@y>"
    ])
  })

  it("reads a Via's transport, sent-by and received/rport parameters", () => {
    const via = Result.getOrThrow(
      SipHeaders.parseVia("SIP/2.0/udp 192.0.2.1:5062;branch=z9hG4bK77;rport=5070;received=198.51.100.7")
    )
    assert.strictEqual(via.transport, "UDP")
    assert.strictEqual(via.host, "192.0.2.1")
    assert.strictEqual(via.port, 5062)
    assert.strictEqual(SipHeaders.param(via.params, "branch"), "z9hG4bK77")
    assert.strictEqual(SipHeaders.param(via.params, "rport"), "5070")
    assert.strictEqual(SipHeaders.param(via.params, "received"), "198.51.100.7")
    const request = Result.getOrThrow(SipHeaders.parseVia("SIP/2.0/TCP [2001:db8::9];branch=z9hG4bKx;rport"))
    assert.strictEqual(request.host, "[2001:db8::9]")
    assert.strictEqual(SipHeaders.param(request.params, "rport"), "")
    assert.strictEqual(SipHeaders.formatVia(request), "SIP/2.0/TCP [2001:db8::9];branch=z9hG4bKx;rport")
    assert.strictEqual(error(SipHeaders.parseVia("SIP/2.0/UDP 192.0.2.15;;")), "an empty parameter in Via")
    assert.strictEqual(error(SipHeaders.parseVia("SIP/3.0/UDP host")), "a malformed Via header")
  })

  it("reads name-addr and addr-spec forms with their tags", () => {
    const quoted = Result.getOrThrow(
      SipHeaders.parseNameAddr("\"Alice \\\"A\\\"\" <sip:+15550100@example.com;user=phone>;tag=abc", "From")
    )
    assert.strictEqual(quoted.displayName, "Alice \"A\"")
    assert.strictEqual(quoted.sip?.user, "+15550100")
    assert.deepStrictEqual(quoted.params, [["tag", "abc"]])
    const bare = Result.getOrThrow(SipHeaders.parseNameAddr("sip:bob@example.com;tag=9", "To"))
    assert.strictEqual(bare.uri, "sip:bob@example.com")
    assert.deepStrictEqual(bare.params, [["tag", "9"]])
    const tel = Result.getOrThrow(SipHeaders.parseNameAddr("<tel:+15550100>", "From"))
    assert.strictEqual(tel.sip, undefined)
    assert.strictEqual(
      SipHeaders.formatNameAddr(quoted),
      "\"Alice \\\"A\\\"\" <sip:+15550100@example.com;user=phone>;tag=abc"
    )
    assert.strictEqual(
      error(SipHeaders.parseNameAddr("\"Open <sip:a@b>", "To")),
      "To has an unterminated quoted display name"
    )
    assert.strictEqual(
      error(SipHeaders.parseNameAddr("Bell, Alexander <sip:a@b>", "From")),
      "From has a display name that must be quoted"
    )
    assert.strictEqual(error(SipHeaders.parseNameAddr("< sip:a@b >", "To")), "To has whitespace inside <>")
  })

  it("reads CSeq and counts within their limits", () => {
    assert.deepStrictEqual(Result.getOrThrow(SipHeaders.parseCSeq("0009 INVITE")), { seq: 9, method: "INVITE" })
    assert.strictEqual(Result.getOrThrow(SipHeaders.parseCSeq("2147483647 BYE")).seq, 2147483647)
    assert.strictEqual(error(SipHeaders.parseCSeq("2147483648 BYE")), "CSeq number too large (at most 2^31-1)")
    assert.strictEqual(error(SipHeaders.parseCSeq("INVITE")), "a malformed CSeq header")
    assert.strictEqual(
      error(SipHeaders.parseCount("-1", "Content-Length", 10)),
      "Content-Length is not a non-negative number"
    )
    assert.strictEqual(error(SipHeaders.parseCount("300", "Max-Forwards", 255)), "Max-Forwards too large (at most 255)")
  })
})
