import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as ClientTransaction from "./ClientTransaction.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"

const request = (method: string): Extract<SipMessage.Outgoing, { _tag: "Request" }> => ({
  _tag: "Request",
  method,
  uri: SipUri.make({ user: "+14155550100", host: "trunk.example.com" }),
  headers: [
    { name: "Via", value: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKtx1;rport" },
    { name: "Route", value: "<sip:proxy.example.com;lr>" },
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: "<sip:+14155550199@192.0.2.10>;tag=aa" },
    { name: "To", value: "<sip:+14155550100@trunk.example.com>" },
    { name: "Call-ID", value: "c1@192.0.2.10" },
    { name: "CSeq", value: `7 ${method}` }
  ]
})

const response = (status: number, method = "INVITE", branch = "z9hG4bKtx1") =>
  Result.getOrThrow(SipMessage.parse(SipMessage.serialize({
    _tag: "Response",
    status,
    reason: SipMessage.REASONS[status] ?? "Whatever",
    headers: [
      { name: "Via", value: `SIP/2.0/UDP 192.0.2.10:5060;branch=${branch};received=203.0.113.1;rport=5060` },
      { name: "From", value: "<sip:+14155550199@192.0.2.10>;tag=aa" },
      { name: "To", value: "<sip:+14155550100@trunk.example.com>;tag=bb" },
      { name: "Call-ID", value: "c1@192.0.2.10" },
      { name: "CSeq", value: `7 ${method}` }
    ]
  }))) as SipMessage.SipResponse

type Log = Array<string>
const describeActions = (now: number, actions: ReadonlyArray<ClientTransaction.Action>, log: Log) => {
  for (const action of actions) {
    if (action._tag === "Send") log.push(`${now} send ${action.message.method}`)
    else if (action._tag === "Deliver") log.push(`${now} deliver ${action.response.status}`)
    else log.push(`${now} ${action._tag.toLowerCase()}`)
  }
}

/** Ticks at every deadline up to `until` (the injected clock), logging what happens. */
const advance = (tx: ClientTransaction.ClientTransaction, until: number, log: Log) => {
  let current = tx
  for (;;) {
    const at = ClientTransaction.deadline(current)
    if (at === undefined || at > until) return current
    const stepped = ClientTransaction.step(current, { _tag: "Tick" }, at)
    describeActions(at, stepped.actions, log)
    current = stepped.transaction
  }
}

const feed = (tx: ClientTransaction.ClientTransaction, status: number, now: number, log: Log, method = "INVITE") => {
  const stepped = ClientTransaction.step(tx, { _tag: "Response", response: response(status, method) }, now)
  describeActions(now, stepped.actions, log)
  return stepped.transaction
}

describe("ClientTransaction, INVITE", () => {
  it("retransmits on Timer A (T1 doubling) and times out on Timer B at 64·T1 over UDP", () => {
    const log: Log = []
    const started = ClientTransaction.start(request("INVITE"), { reliable: false, now: 0 })
    describeActions(0, started.actions, log)
    const tx = advance(started.transaction, 60_000, log)
    assert.deepStrictEqual(log, [
      "0 send INVITE",
      "500 send INVITE",
      "1500 send INVITE",
      "3500 send INVITE",
      "7500 send INVITE",
      "15500 send INVITE",
      "31500 send INVITE",
      "32000 timeout",
      "32000 terminated"
    ])
    assert.strictEqual(tx.state, "Terminated")
  })

  it("sends once and still times out over TCP", () => {
    const log: Log = []
    const started = ClientTransaction.start(request("INVITE"), { reliable: true, now: 0 })
    describeActions(0, started.actions, log)
    advance(started.transaction, 60_000, log)
    assert.deepStrictEqual(log, ["0 send INVITE", "32000 timeout", "32000 terminated"])
  })

  it("stops retransmitting on a provisional and waits for the final however long it rings", () => {
    const log: Log = []
    let tx = ClientTransaction.start(request("INVITE"), { reliable: false, now: 0 }).transaction
    tx = advance(tx, 600, log)
    tx = feed(tx, 100, 700, log)
    tx = feed(tx, 180, 900, log)
    tx = advance(tx, 120_000, log)
    assert.strictEqual(tx.state, "Proceeding")
    tx = feed(tx, 200, 120_000, log)
    tx = feed(tx, 200, 120_400, log) // a retransmitted 2xx reaches the user, who ACKs it
    tx = advance(tx, 200_000, log)
    assert.deepStrictEqual(log, [
      "500 send INVITE",
      "700 deliver 100",
      "900 deliver 180",
      "120000 deliver 200",
      "120400 deliver 200",
      "152000 terminated"
    ])
  })

  it("ACKs a failure, absorbs its retransmissions with the same ACK, and ends on Timer D", () => {
    const log: Log = []
    let tx = ClientTransaction.start(request("INVITE"), { reliable: false, now: 0 }).transaction
    tx = feed(tx, 180, 100, log)
    const busy = ClientTransaction.step(tx, { _tag: "Response", response: response(486) }, 5000)
    const ack = busy.actions[0]
    assert.strictEqual(ack?._tag, "Send")
    if (ack?._tag !== "Send") return
    const text = new TextDecoder().decode(SipMessage.serialize(ack.message))
    assert.strictEqual(
      text,
      [
        "ACK sip:+14155550100@trunk.example.com SIP/2.0",
        "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKtx1;rport",
        "Route: <sip:proxy.example.com;lr>",
        "Max-Forwards: 70",
        "From: <sip:+14155550199@192.0.2.10>;tag=aa",
        "To: <sip:+14155550100@trunk.example.com>;tag=bb",
        "Call-ID: c1@192.0.2.10",
        "CSeq: 7 ACK",
        "Content-Length: 0",
        "",
        ""
      ].join("\r\n")
    )
    describeActions(5000, busy.actions, log)
    tx = feed(busy.transaction, 486, 5500, log)
    tx = advance(tx, 60_000, log)
    assert.deepStrictEqual(log, [
      "100 deliver 180",
      "5000 send ACK",
      "5000 deliver 486",
      "5500 send ACK",
      "37000 terminated"
    ])
  })

  it("keeps to its own responses", () => {
    const tx = ClientTransaction.start(request("INVITE"), { reliable: false, now: 0 }).transaction
    assert.isTrue(ClientTransaction.matches(tx, response(180)))
    assert.isFalse(ClientTransaction.matches(tx, response(180, "INVITE", "z9hG4bKother")))
    assert.isFalse(ClientTransaction.matches(tx, response(200, "CANCEL")))
  })
})

describe("ClientTransaction, non-INVITE", () => {
  it("retransmits on Timer E (T1 doubling up to T2) and times out on Timer F", () => {
    const log: Log = []
    const started = ClientTransaction.start(request("BYE"), { reliable: false, now: 0 })
    advance(started.transaction, 60_000, log)
    assert.deepStrictEqual(log, [
      "500 send BYE",
      "1500 send BYE",
      "3500 send BYE",
      "7500 send BYE",
      "11500 send BYE",
      "15500 send BYE",
      "19500 send BYE",
      "23500 send BYE",
      "27500 send BYE",
      "31500 send BYE",
      "32000 timeout",
      "32000 terminated"
    ])
  })

  it("retransmits every T2 once a provisional came, and lingers T4 after the final (Timer K)", () => {
    const log: Log = []
    let tx = ClientTransaction.start(request("REGISTER"), { reliable: false, now: 0 }).transaction
    tx = feed(tx, 100, 200, log, "REGISTER")
    tx = advance(tx, 9000, log)
    tx = feed(tx, 200, 9000, log, "REGISTER")
    tx = feed(tx, 200, 9100, log, "REGISTER") // retransmission: absorbed
    tx = advance(tx, 60_000, log)
    assert.deepStrictEqual(log, [
      "200 deliver 100",
      "500 send REGISTER",
      "4500 send REGISTER",
      "8500 send REGISTER",
      "9000 deliver 200",
      "14000 terminated"
    ])
  })

  it("ends at once after the final over TCP, and on a transport error", () => {
    const log: Log = []
    let tx = ClientTransaction.start(request("OPTIONS"), { reliable: true, now: 0 }).transaction
    tx = feed(tx, 200, 50, log, "OPTIONS")
    advance(tx, 1000, log)
    const failed = ClientTransaction.step(
      ClientTransaction.start(request("OPTIONS"), { reliable: true, now: 0 }).transaction,
      { _tag: "TransportError" },
      10
    )
    describeActions(10, failed.actions, log)
    assert.deepStrictEqual(log, ["50 deliver 200", "50 terminated", "10 timeout", "10 terminated"])
  })
})

describe("ClientTransaction.cancelFor", () => {
  it("keeps the INVITE's branch, route, tags, Call-ID and CSeq number (RFC 3261 §9.1)", () => {
    const cancel = ClientTransaction.cancelFor(request("INVITE"))
    const parsed = Result.getOrThrow(SipMessage.parse(SipMessage.serialize(cancel)))
    assert.strictEqual(parsed._tag === "Request" ? parsed.method : "", "CANCEL")
    assert.deepStrictEqual(SipMessage.headerValues(parsed, "Via"), [
      "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKtx1;rport"
    ])
    assert.deepStrictEqual(SipMessage.headerValues(parsed, "Route"), ["<sip:proxy.example.com;lr>"])
    assert.strictEqual(SipMessage.header(parsed, "From"), "<sip:+14155550199@192.0.2.10>;tag=aa")
    assert.strictEqual(SipMessage.header(parsed, "To"), "<sip:+14155550100@trunk.example.com>")
    assert.deepStrictEqual(parsed.cseq, { seq: 7, method: "CANCEL" })
    assert.strictEqual(parsed.callId, "c1@192.0.2.10")
  })
})
