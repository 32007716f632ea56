import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as ServerTransaction from "./ServerTransaction.ts"
import * as SipMessage from "./SipMessage.ts"

const encoder = new TextEncoder()
const incoming = (method: string, cseqMethod = method, branch = "z9hG4bKsrv1") =>
  Result.getOrThrow(SipMessage.parse(encoder.encode([
    `${method} sip:+14155550100@192.0.2.10 SIP/2.0`,
    `Via: SIP/2.0/UDP 198.51.100.2:5060;branch=${branch}`,
    "Max-Forwards: 70",
    "From: <sip:+14155550199@trunk.example.com>;tag=t1",
    `To: <sip:+14155550100@192.0.2.10>${method === "ACK" ? ";tag=e1" : ""}`,
    "Call-ID: in-1@trunk",
    `CSeq: 3 ${cseqMethod}`,
    "Content-Length: 0",
    "",
    ""
  ].join("\r\n")))) as SipMessage.SipRequest

const answer = (request: SipMessage.SipRequest, status: number) =>
  SipMessage.response(request, status, SipMessage.REASONS[status] ?? "", { toTag: "e1" }) as Extract<
    SipMessage.Outgoing,
    { _tag: "Response" }
  >

type Log = Array<string>
const note = (now: number, actions: ReadonlyArray<ServerTransaction.Action>, log: Log) => {
  for (const action of actions) {
    if (action._tag === "Send") log.push(`${now} send ${action.response.status}`)
    else if (action._tag === "Deliver") log.push(`${now} deliver ${action.request.method}`)
    else log.push(`${now} ${action._tag.toLowerCase()}`)
  }
}
const stepAt = (tx: ServerTransaction.ServerTransaction, event: ServerTransaction.Event, now: number, log: Log) => {
  const stepped = ServerTransaction.step(tx, event, now)
  note(now, stepped.actions, log)
  return stepped.transaction
}
const advance = (tx: ServerTransaction.ServerTransaction, until: number, log: Log) => {
  let current = tx
  for (;;) {
    const at = ServerTransaction.deadline(current)
    if (at === undefined || at > until) return current
    current = stepAt(current, { _tag: "Tick" }, at, log)
  }
}

describe("ServerTransaction, INVITE", () => {
  const invite = incoming("INVITE")

  it("re-sends the last provisional for a retransmitted INVITE", () => {
    const log: Log = []
    let tx = ServerTransaction.start(invite, { reliable: false })
    tx = stepAt(tx, { _tag: "Request", request: invite }, 100, log) // nothing sent yet
    tx = stepAt(tx, { _tag: "Respond", response: answer(invite, 100) }, 150, log)
    tx = stepAt(tx, { _tag: "Respond", response: answer(invite, 180) }, 200, log)
    tx = stepAt(tx, { _tag: "Request", request: invite }, 600, log)
    assert.deepStrictEqual(log, ["150 send 100", "200 send 180", "600 send 180"])
    assert.strictEqual(tx.state, "Proceeding")
  })

  it("re-sends a failure on Timer G until the ACK, then absorbs ACKs for Timer I", () => {
    const log: Log = []
    let tx = ServerTransaction.start(invite, { reliable: false })
    tx = stepAt(tx, { _tag: "Respond", response: answer(invite, 486) }, 0, log)
    tx = advance(tx, 5000, log)
    tx = stepAt(tx, { _tag: "Request", request: incoming("ACK", "ACK") }, 5000, log)
    tx = stepAt(tx, { _tag: "Request", request: incoming("ACK", "ACK") }, 5100, log)
    advance(tx, 60_000, log)
    assert.deepStrictEqual(log, [
      "0 send 486",
      "500 send 486",
      "1500 send 486",
      "3500 send 486",
      "10000 terminated"
    ])
  })

  it("gives up on Timer H when no ACK comes", () => {
    const log: Log = []
    let tx = ServerTransaction.start(invite, { reliable: true })
    tx = stepAt(tx, { _tag: "Respond", response: answer(invite, 603) }, 0, log)
    advance(tx, 60_000, log)
    assert.deepStrictEqual(log, ["0 send 603", "32000 timeout", "32000 terminated"])
  })

  it("re-sends a 2xx until its ACK, delivers the ACK once, and times out without one", () => {
    const log: Log = []
    let tx = ServerTransaction.start(invite, { reliable: false })
    tx = stepAt(tx, { _tag: "Respond", response: answer(invite, 200) }, 0, log)
    tx = advance(tx, 2000, log)
    tx = stepAt(tx, { _tag: "Request", request: invite }, 2100, log) // the INVITE again: the 2xx again
    tx = stepAt(tx, { _tag: "Request", request: incoming("ACK", "ACK") }, 2200, log)
    tx = stepAt(tx, { _tag: "Request", request: incoming("ACK", "ACK") }, 2300, log)
    advance(tx, 60_000, log)
    assert.deepStrictEqual(log, [
      "0 send 200",
      "500 send 200",
      "1500 send 200",
      "2100 send 200",
      "2200 deliver ACK",
      "34200 terminated"
    ])
    const lonely: Log = []
    const unanswered = stepAt(
      ServerTransaction.start(invite, { reliable: true }),
      { _tag: "Respond", response: answer(invite, 200) },
      0,
      lonely
    )
    advance(unanswered, 60_000, lonely)
    assert.deepStrictEqual(lonely, ["0 send 200", "32000 timeout", "32000 terminated"])
  })
})

describe("ServerTransaction, non-INVITE", () => {
  it("absorbs retransmissions while Trying, re-sends the final while Completed, ends on Timer J", () => {
    const bye = incoming("BYE")
    const log: Log = []
    let tx = ServerTransaction.start(bye, { reliable: false })
    tx = stepAt(tx, { _tag: "Request", request: bye }, 10, log)
    tx = stepAt(tx, { _tag: "Respond", response: answer(bye, 200) }, 20, log)
    tx = stepAt(tx, { _tag: "Request", request: bye }, 520, log)
    advance(tx, 60_000, log)
    assert.deepStrictEqual(log, ["20 send 200", "520 send 200", "32020 terminated"])
  })
})

describe("ServerTransaction.keyOf", () => {
  it("puts an ACK with its INVITE, a CANCEL apart, and refuses RFC 2543 branches", () => {
    const key = ServerTransaction.keyOf(incoming("INVITE"))
    assert.strictEqual(key, "z9hG4bKsrv1|198.51.100.2:5060|INVITE")
    assert.strictEqual(ServerTransaction.keyOf(incoming("ACK", "ACK")), key)
    assert.notStrictEqual(ServerTransaction.keyOf(incoming("CANCEL", "CANCEL")), key)
    assert.strictEqual(ServerTransaction.keyOf(incoming("INVITE", "INVITE", "old-style")), undefined)
  })
})
