import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as SipHeaders from "./SipHeaders.ts"
import * as ViaRouting from "./ViaRouting.ts"

const via = (text: string) => Result.getOrThrow(SipHeaders.parseVia(text))
const nat: ViaRouting.Peer = { transport: "UDP", host: "203.0.113.7", port: 41234 }

describe("ViaRouting.stampVia", () => {
  it("adds received when the sent-by is not the source, and fills an empty rport (RFC 3581)", () => {
    const stamped = ViaRouting.stampVia(via("SIP/2.0/UDP 192.168.1.20:5060;branch=z9hG4bK1;rport"), nat)!
    assert.strictEqual(
      SipHeaders.formatVia(stamped),
      "SIP/2.0/UDP 192.168.1.20:5060;branch=z9hG4bK1;rport=41234;received=203.0.113.7"
    )
  })

  it("leaves a Via that is already right, and does not add rport unasked", () => {
    assert.isUndefined(ViaRouting.stampVia(via("SIP/2.0/UDP 203.0.113.7:5060;branch=z9hG4bK1"), nat))
    const stamped = ViaRouting.stampVia(via("SIP/2.0/UDP pbx.example.com;branch=z9hG4bK1"), nat)!
    assert.strictEqual(
      SipHeaders.formatVia(stamped),
      "SIP/2.0/UDP pbx.example.com;branch=z9hG4bK1;received=203.0.113.7"
    )
  })

  it("writes an IPv6 source without brackets in received", () => {
    const stamped = ViaRouting.stampVia(via("SIP/2.0/UDP [2001:db8::1];branch=z9hG4bK1"), {
      transport: "UDP",
      host: "[2001:db8::2]",
      port: 5060
    })!
    assert.strictEqual(SipHeaders.param(stamped.params, "received"), "2001:db8::2")
  })
})

describe("ViaRouting.responseTarget", () => {
  it("over UDP: received and rport, else the sent-by and 5060", () => {
    const stamped = ViaRouting.stampVia(via("SIP/2.0/UDP 192.168.1.20:5062;branch=z9hG4bK1;rport"), nat)!
    assert.deepStrictEqual(ViaRouting.responseTarget(stamped, nat), nat)
    const noRport = ViaRouting.stampVia(via("SIP/2.0/UDP 192.168.1.20:5062;branch=z9hG4bK1"), nat)!
    assert.deepStrictEqual(ViaRouting.responseTarget(noRport, nat), {
      transport: "UDP",
      host: "203.0.113.7",
      port: 5062
    })
    assert.deepStrictEqual(
      ViaRouting.responseTarget(via("SIP/2.0/UDP pbx.example.com;branch=z9hG4bK1"), nat),
      { transport: "UDP", host: "pbx.example.com", port: 5060 }
    )
  })

  it("over TCP: back on the connection it came on", () => {
    const source: ViaRouting.Peer = { transport: "TCP", host: "203.0.113.7", port: 50123 }
    assert.deepStrictEqual(
      ViaRouting.responseTarget(via("SIP/2.0/TCP 192.168.1.20:5060;branch=z9hG4bK1"), source),
      source
    )
  })
})

describe("ViaRouting.reconnectTarget", () => {
  it("over TCP, a closed connection: received (or the sent-by host) at the sent-by port", () => {
    const closed: ViaRouting.Peer = { transport: "TCP", host: "203.0.113.7", port: 50123 }
    const stamped = ViaRouting.stampVia(via("SIP/2.0/TCP 192.168.1.20:5070;branch=z9hG4bK1"), closed)!
    assert.deepStrictEqual(ViaRouting.reconnectTarget(stamped, closed), {
      transport: "TCP",
      host: "203.0.113.7",
      port: 5070
    })
    assert.deepStrictEqual(ViaRouting.reconnectTarget(via("SIP/2.0/TCP pbx.example.com;branch=z9hG4bK1"), closed), {
      transport: "TCP",
      host: "pbx.example.com",
      port: 5060
    })
    assert.isUndefined(ViaRouting.reconnectTarget(stamped, { ...closed, port: 5070 }))
    assert.isUndefined(ViaRouting.reconnectTarget(stamped, { ...closed, transport: "UDP" }))
  })
})
