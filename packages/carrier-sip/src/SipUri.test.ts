import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as SipUri from "./SipUri.ts"

const ok = (text: string) => Result.getOrThrow(SipUri.parse(text))
const reason = (text: string) => {
  const result = SipUri.parse(text)
  return Result.isFailure(result) ? result.failure.reason : undefined
}

describe("SipUri", () => {
  it("reads user, host, port, parameters and headers", () => {
    const uri = ok("sip:+14155550100@Trunk.Example.com:5080;transport=tcp;lr?Subject=hi")
    assert.strictEqual(uri.user, "+14155550100")
    assert.strictEqual(uri.host, "trunk.example.com")
    assert.strictEqual(uri.port, 5080)
    assert.strictEqual(SipUri.param(uri, "Transport"), "tcp")
    assert.strictEqual(SipUri.param(uri, "lr"), "")
    assert.strictEqual(SipUri.param(uri, "maddr"), undefined)
    assert.deepStrictEqual(uri.headers, [["Subject", "hi"]])
    assert.strictEqual(SipUri.format(uri), "sip:+14155550100@trunk.example.com:5080;transport=tcp;lr?Subject=hi")
  })

  it("reads IPv4 and IPv6 hosts and a user part holding ';'", () => {
    assert.strictEqual(ok("sip:10.0.0.1:5060").host, "10.0.0.1")
    assert.strictEqual(ok("sips:alice@[2001:db8::1]:5061").host, "[2001:db8::1]")
    assert.strictEqual(ok("sip:user;par=u%40example.net@example.com").user, "user;par=u%40example.net")
  })

  it("finds the E.164 number of a trunk's user part", () => {
    assert.strictEqual(SipUri.e164(ok("sip:+14155550100@trunk")), "+14155550100")
    assert.strictEqual(SipUri.e164(ok("sip:14155550100@trunk")), "+14155550100")
    assert.strictEqual(SipUri.e164(ok("sip:+1-415-555-0100@trunk;user=phone")), "+14155550100")
    assert.strictEqual(SipUri.e164(ok("sip:%2B14155550100@trunk")), "+14155550100")
    assert.strictEqual(SipUri.e164(ok("sip:alice@trunk")), undefined)
    assert.strictEqual(SipUri.e164(ok("sip:trunk")), undefined)
  })

  it("refuses other schemes as unsupported and broken URIs as malformed", () => {
    assert.strictEqual(reason("tel:+14155550100"), "UnsupportedScheme")
    assert.strictEqual(reason("soap.beep://192.0.2.103:3002"), "UnsupportedScheme")
    assert.strictEqual(reason("sip:user@exa mple.com"), "Malformed")
    assert.strictEqual(reason("sip:user@host:99999"), "Malformed")
    assert.strictEqual(reason("sip:user@-bad-.com"), "Malformed")
    assert.strictEqual(reason("<sip:user@example.com>"), "Malformed")
    assert.strictEqual(reason("sip:user@host;=x"), "Malformed")
  })

  it("undoes escapes in the user part", () => {
    assert.strictEqual(SipUri.decodedUser(ok("sip:I%20have%20spaces@example.net")), "I have spaces")
    assert.strictEqual(SipUri.unescape("%Z%45"), "%ZE")
  })
})
