import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Dialog from "./Dialog.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const parse = (...lines: Array<string>) =>
  Result.getOrThrow(SipMessage.parse(encoder.encode(`${lines.join("\r\n")}\r\n\r\n`)))
const text = (request: SipMessage.Outgoing) => decoder.decode(SipMessage.serialize(request)).split("\r\n")

const invite: Extract<SipMessage.Outgoing, { _tag: "Request" }> = {
  _tag: "Request",
  method: "INVITE",
  uri: SipUri.make({ user: "+14155550100", host: "trunk.example.com" }),
  headers: [
    { name: "Via", value: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKinv" },
    { name: "From", value: "<sip:+14155550199@192.0.2.10>;tag=ours" },
    { name: "To", value: "<sip:+14155550100@trunk.example.com>" },
    { name: "Call-ID", value: "d1@192.0.2.10" },
    { name: "CSeq", value: "10 INVITE" },
    { name: "Contact", value: "<sip:+14155550199@192.0.2.10:5060>" }
  ]
}

const ok = parse(
  "SIP/2.0 200 OK",
  "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKinv",
  "Record-Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>",
  "From: <sip:+14155550199@192.0.2.10>;tag=ours",
  "To: \"Trunk\" <sip:+14155550100@trunk.example.com>;tag=theirs",
  "Call-ID: d1@192.0.2.10",
  "CSeq: 10 INVITE",
  "Contact: <sip:gw7@198.51.100.2:5060;transport=udp>",
  "Content-Length: 0"
) as SipMessage.SipResponse

describe("Dialog as the caller", () => {
  const dialog = Result.getOrThrow(Dialog.fromResponse(invite, ok))

  it("takes the tags, the remote target and the reversed route set from the 2xx", () => {
    assert.deepStrictEqual(dialog, {
      callId: "d1@192.0.2.10",
      localTag: "ours",
      remoteTag: "theirs",
      localUri: "<sip:+14155550199@192.0.2.10>",
      remoteUri: "\"Trunk\" <sip:+14155550100@trunk.example.com>",
      remoteTarget: "sip:gw7@198.51.100.2:5060;transport=udp",
      routeSet: ["<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>"],
      localSeq: 10,
      remoteSeq: undefined
    })
  })

  it("ACKs the 2xx with the INVITE's CSeq and sends BYE with the next", () => {
    const ack = Dialog.request(dialog, "ACK", { via: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKack", seq: 10 })
    assert.strictEqual(ack.dialog.localSeq, 10)
    assert.deepStrictEqual(text(ack.request).slice(0, 9), [
      "ACK sip:gw7@198.51.100.2:5060;transport=udp SIP/2.0",
      "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKack",
      "Route: <sip:p2.example.com;lr>",
      "Route: <sip:p1.example.com;lr>",
      "Max-Forwards: 70",
      "From: <sip:+14155550199@192.0.2.10>;tag=ours",
      "To: \"Trunk\" <sip:+14155550100@trunk.example.com>;tag=theirs",
      "Call-ID: d1@192.0.2.10",
      "CSeq: 10 ACK"
    ])
    const bye = Dialog.request(ack.dialog, "BYE", { via: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKbye" })
    assert.strictEqual(bye.dialog.localSeq, 11)
    assert.include(text(bye.request), "CSeq: 11 BYE")
    // What it sends parses, and belongs to the dialog as the peer sees it.
    const received = Result.getOrThrow(SipMessage.parse(SipMessage.serialize(bye.request)))
    assert.strictEqual(received._tag === "Request" && received.to.params[0]![1], "theirs")
  })

  it("addresses a strict first route and puts the remote target last", () => {
    const strict = { ...dialog, routeSet: ["<sip:old-proxy.example.com>", "<sip:p1.example.com;lr>"] }
    const bye = Dialog.request(strict, "BYE", { via: "SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKs" }).request
    assert.deepStrictEqual(text(bye).slice(0, 4), [
      "BYE sip:old-proxy.example.com SIP/2.0",
      "Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKs",
      "Route: <sip:p1.example.com;lr>",
      "Route: <sip:gw7@198.51.100.2:5060;transport=udp>"
    ])
  })

  it("recognises the peer's requests and responses in the dialog", () => {
    const bye = parse(
      "BYE sip:+14155550199@192.0.2.10:5060 SIP/2.0",
      "Via: SIP/2.0/UDP 198.51.100.2;branch=z9hG4bKb",
      "From: <sip:+14155550100@trunk.example.com>;tag=theirs",
      "To: <sip:+14155550199@192.0.2.10>;tag=ours",
      "Call-ID: d1@192.0.2.10",
      "CSeq: 1 BYE"
    )
    assert.isTrue(Dialog.matches(dialog, bye))
    assert.isTrue(Dialog.matches(dialog, ok))
    assert.isFalse(Dialog.matches({ ...dialog, remoteTag: "forked" }, ok))
  })

  it("refuses a response with no To tag or no Contact", () => {
    const untagged = { ...ok, to: { ...ok.to, params: [] } }
    assert.strictEqual(
      Result.getOrThrow(Result.flip(Dialog.fromResponse(invite, untagged))),
      "the response has no To tag"
    )
    const noContact = { ...ok, headers: ok.headers.filter((h) => h.name !== "Contact") }
    assert.strictEqual(
      Result.getOrThrow(Result.flip(Dialog.fromResponse(invite, noContact))),
      "the response: no Contact"
    )
  })
})

describe("Dialog as the callee", () => {
  const incoming = parse(
    "INVITE sip:+14155550199@192.0.2.10 SIP/2.0",
    "Via: SIP/2.0/UDP 198.51.100.2;branch=z9hG4bKi",
    "Record-Route: <sip:p1.example.com;lr>",
    "From: <sip:+14155550100@trunk.example.com>;tag=caller",
    "To: <sip:+14155550199@192.0.2.10>",
    "Call-ID: in@trunk",
    "CSeq: 5 INVITE",
    "Contact: <sip:gw1@198.51.100.2>"
  ) as SipMessage.SipRequest
  const dialog = Result.getOrThrow(Dialog.fromRequest(incoming, "callee"))

  it("keeps Record-Route in order and the caller's CSeq", () => {
    assert.deepStrictEqual(dialog.routeSet, ["<sip:p1.example.com;lr>"])
    assert.strictEqual(dialog.remoteSeq, 5)
    assert.strictEqual(dialog.remoteTarget, "sip:gw1@198.51.100.2")
    const bye = Dialog.request(dialog, "BYE", { via: "SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKc" }).request
    assert.deepStrictEqual(text(bye).slice(0, 1), ["BYE sip:gw1@198.51.100.2 SIP/2.0"])
    assert.include(text(bye), "From: <sip:+14155550199@192.0.2.10>;tag=callee")
    assert.include(text(bye), "CSeq: 1 BYE")
  })

  it("refreshes the target on a re-INVITE and refuses an older CSeq", () => {
    const reinvite = parse(
      "INVITE sip:+14155550199@192.0.2.10 SIP/2.0",
      "Via: SIP/2.0/UDP 198.51.100.2;branch=z9hG4bKr",
      "From: <sip:+14155550100@trunk.example.com>;tag=caller",
      "To: <sip:+14155550199@192.0.2.10>;tag=callee",
      "Call-ID: in@trunk",
      "CSeq: 6 INVITE",
      "Contact: <sip:gw2@198.51.100.3>"
    ) as SipMessage.SipRequest
    const refreshed = Result.getOrThrow(Dialog.receive(dialog, reinvite))
    assert.strictEqual(refreshed.remoteTarget, "sip:gw2@198.51.100.3")
    assert.strictEqual(refreshed.remoteSeq, 6)
    const stale = { ...reinvite, cseq: { seq: 4, method: "INVITE" } }
    assert.strictEqual(Result.getOrThrow(Result.flip(Dialog.receive(refreshed, stale))), "CSeq out of order")
  })
})
