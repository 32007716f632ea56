import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as ClientTransaction from "./ClientTransaction.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"
import * as TransactionTable from "./TransactionTable.ts"
import type { Peer } from "./ViaRouting.ts"

const encoder = new TextEncoder()
const trunk: Peer = { transport: "UDP", host: "198.51.100.2", port: 5060 }

const incoming = (method: string, options: { branch?: string; cseqMethod?: string; toTag?: string } = {}) =>
  Result.getOrThrow(SipMessage.parse(encoder.encode([
    `${method} sip:+14155550100@192.0.2.10 SIP/2.0`,
    `Via: SIP/2.0/UDP 198.51.100.2:5060;branch=${options.branch ?? "z9hG4bKin1"}`,
    "Max-Forwards: 70",
    "From: <sip:+14155550199@trunk.example.com>;tag=t1",
    `To: <sip:+14155550100@192.0.2.10>${options.toTag === undefined ? "" : `;tag=${options.toTag}`}`,
    "Call-ID: in-1@trunk",
    `CSeq: 3 ${options.cseqMethod ?? method}`,
    "Content-Length: 0",
    "",
    ""
  ].join("\r\n")))) as SipMessage.SipRequest

const outgoing = (method: string): Extract<SipMessage.Outgoing, { _tag: "Request" }> => ({
  _tag: "Request",
  method,
  uri: SipUri.make({ user: "+14155550100", host: "198.51.100.2" }),
  headers: [
    { name: "Via", value: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKout1;rport" },
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: "<sip:+14155550199@192.0.2.10>;tag=aa" },
    { name: "To", value: "<sip:+14155550100@198.51.100.2>" },
    { name: "Call-ID", value: "out-1@192.0.2.10" },
    { name: "CSeq", value: `1 ${method}` }
  ]
})

const responseTo = (request: SipMessage.Outgoing, status: number) =>
  Result.getOrThrow(SipMessage.parse(SipMessage.serialize(
    SipMessage.response(request, status, SipMessage.REASONS[status] ?? "", { toTag: "bb" })!
  ))) as SipMessage.SipResponse

const reply = (request: SipMessage.SipRequest, status: number, toTag?: string) =>
  SipMessage.response(
    request,
    status,
    SipMessage.REASONS[status] ?? "",
    toTag === undefined ? {} : { toTag }
  ) as Extract<
    SipMessage.Outgoing,
    { _tag: "Response" }
  >

const receive = (table: TransactionTable.TransactionTable, request: SipMessage.SipRequest, now: number) =>
  TransactionTable.receiveRequest(table, request, { source: trunk, replyTo: trunk, tag: "e1", now })

/** What the actions say, one line each: `send 180`, `request INVITE`, `cancelled`. */
const summary = (actions: ReadonlyArray<TransactionTable.Action>): Array<string> =>
  actions.map((action) => {
    switch (action._tag) {
      case "Send":
        return action.message._tag === "Request"
          ? `send ${action.message.method}`
          : `send ${action.message.status} ${action.message.headers.find((h) => h.name === "CSeq")!.value}`
      case "Response":
        return `response ${action.response.status}`
      case "Request":
        return `request ${action.request.method}${action.key === undefined ? " (no transaction)" : ""}`
      case "Stray":
        return `stray ${action.response.status}`
      case "ServerEnded":
        return "ended"
      case "Cancelled":
      case "ClientEnded":
      case "ClientTimeout":
      case "ServerTimeout":
        return action._tag
    }
  })

/** Ticks at each deadline up to `until`, as the runner's one timer does. */
const runUntil = (table: TransactionTable.TransactionTable, until: number, log: Array<string>) => {
  let current = table
  for (;;) {
    const at = TransactionTable.deadline(current)
    if (at === undefined || at > until) return current
    const stepped = TransactionTable.tick(current, at)
    log.push(...summary(stepped.actions).map((line) => `${at} ${line}`))
    current = stepped.table
  }
}

describe("TransactionTable, server side", () => {
  it("answers a new INVITE 100, hands it on once, and absorbs its retransmission", () => {
    const invite = incoming("INVITE")
    const first = receive(TransactionTable.empty, invite, 0)
    assert.deepStrictEqual(summary(first.actions), ["send 100 3 INVITE", "request INVITE"])
    const key = TransactionTable.serverKey(invite)
    const ringing = TransactionTable.respond(first.table, key, reply(invite, 180, "e1"), 100)
    assert.deepStrictEqual(summary(ringing.actions), ["send 180 3 INVITE"])
    const again = receive(ringing.table, invite, 500)
    assert.deepStrictEqual(summary(again.actions), ["send 180 3 INVITE"])
    assert.strictEqual(again.table.servers.size, 1)
  })

  it("CANCEL of a ringing INVITE: 200 to the CANCEL, 487 to the INVITE, the ACK absorbed", () => {
    const invite = incoming("INVITE")
    const key = TransactionTable.serverKey(invite)
    let table = receive(TransactionTable.empty, invite, 0).table
    table = TransactionTable.respond(table, key, reply(invite, 180, "r9"), 10)
      .table
    const cancelled = receive(table, incoming("CANCEL"), 1000)
    assert.deepStrictEqual(summary(cancelled.actions), ["send 200 3 CANCEL", "send 487 3 INVITE", "Cancelled"])
    // Both answers carry the tag the ringing had (RFC 3261 §9.2).
    for (const action of cancelled.actions) {
      if (action._tag === "Send") assert.include(SipMessage.header(action.message, "To"), "tag=r9")
    }
    const acked = receive(cancelled.table, incoming("ACK", { toTag: "r9" }), 1100)
    assert.deepStrictEqual(summary(acked.actions), [])
    // The user's late answer changes nothing; the transactions end by their timers.
    const late = TransactionTable.respond(acked.table, key, reply(invite, 200), 1200)
    assert.deepStrictEqual(summary(late.actions), [])
    const log: Array<string> = []
    const ended = runUntil(late.table, 60_000, log)
    assert.deepStrictEqual(log, ["6100 ended", "33000 ended"])
    assert.strictEqual(ended.servers.size, 0)
  })

  it("CANCEL after the final answer: 200, no 487; CANCEL matching nothing: 481", () => {
    const invite = incoming("INVITE")
    const key = TransactionTable.serverKey(invite)
    let table = receive(TransactionTable.empty, invite, 0).table
    table = TransactionTable.respond(table, key, reply(invite, 486, "b"), 5)
      .table
    assert.deepStrictEqual(summary(receive(table, incoming("CANCEL"), 10).actions), ["send 200 3 CANCEL"])
    const stranger = receive(table, incoming("CANCEL", { branch: "z9hG4bKother" }), 10)
    assert.deepStrictEqual(summary(stranger.actions), ["send 481 3 CANCEL"])
    // The CANCEL's own retransmission is answered again, not cancelled twice.
    assert.deepStrictEqual(
      summary(receive(stranger.table, incoming("CANCEL", { branch: "z9hG4bKother" }), 20).actions),
      [
        "send 481 3 CANCEL"
      ]
    )
  })

  it("passes the ACK of a 2xx (a branch of its own) on once, and an unmatched ACK on without a transaction", () => {
    const invite = incoming("INVITE")
    const key = TransactionTable.serverKey(invite)
    let table = receive(TransactionTable.empty, invite, 0).table
    table = TransactionTable.respond(table, key, reply(invite, 200, "e1"), 5)
      .table
    const ack = incoming("ACK", { branch: "z9hG4bKack2xx", toTag: "e1" })
    const acked = receive(table, ack, 300)
    assert.deepStrictEqual(summary(acked.actions), ["request ACK"])
    const first = acked.actions[0]
    assert.strictEqual(first?._tag === "Request" ? first.key : undefined, key)
    assert.deepStrictEqual(summary(receive(acked.table, ack, 400).actions), [])
    assert.deepStrictEqual(summary(receive(TransactionTable.empty, ack, 0).actions), ["request ACK (no transaction)"])
  })

  it("re-sends an unacknowledged 2xx on the one timer and reports the timeout", () => {
    const invite = incoming("INVITE")
    const key = TransactionTable.serverKey(invite)
    let table = receive(TransactionTable.empty, invite, 0).table
    table = TransactionTable.respond(table, key, reply(invite, 200, "e1"), 0)
      .table
    const log: Array<string> = []
    table = runUntil(table, 60_000, log)
    assert.deepStrictEqual(log.slice(0, 4), [
      "500 send 200 3 INVITE",
      "1500 send 200 3 INVITE",
      "3500 send 200 3 INVITE",
      "7500 send 200 3 INVITE"
    ])
    assert.deepStrictEqual(log.slice(-2), ["32000 ServerTimeout", "32000 ended"])
    assert.strictEqual(table.servers.size, 0)
  })
})

describe("TransactionTable, client side", () => {
  it("routes responses to their transaction by branch and method, a CANCEL beside its INVITE", () => {
    const invite = outgoing("INVITE")
    const sent = TransactionTable.sendRequest(TransactionTable.empty, invite, trunk, { now: 0 })
    assert.deepStrictEqual(summary(sent.actions), ["send INVITE"])
    let table = TransactionTable.receiveResponse(sent.table, responseTo(invite, 180), 100).table
    const cancel = ClientTransaction.cancelFor(invite)
    const cancelling = TransactionTable.sendRequest(table, cancel, trunk, { now: 200 })
    assert.notStrictEqual(cancelling.key, sent.key)
    table = cancelling.table
    const ok = TransactionTable.receiveResponse(table, responseTo(cancel, 200), 250)
    assert.deepStrictEqual(ok.actions.map((a) => a._tag === "Response" ? [a.key, a.response.status] : a._tag), [
      [cancelling.key, 200]
    ])
    const terminated = TransactionTable.receiveResponse(ok.table, responseTo(invite, 487), 260)
    assert.deepStrictEqual(summary(terminated.actions), ["send ACK", "response 487"])
    const stray = TransactionTable.receiveResponse(terminated.table, responseTo(outgoing("BYE"), 200), 300)
    assert.deepStrictEqual(summary(stray.actions), ["stray 200"])
  })

  it("retransmits every transaction on the earliest deadline and times them out", () => {
    const options = { now: 0 }
    let table = TransactionTable.sendRequest(TransactionTable.empty, outgoing("INVITE"), trunk, options).table
    const bye = {
      ...outgoing("BYE"),
      headers: outgoing("BYE").headers.map((h) =>
        h.name === "Via" ? { name: "Via", value: "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKbye" } : h
      )
    }
    table = TransactionTable.sendRequest(table, bye, trunk, { now: 250 }).table
    assert.strictEqual(TransactionTable.deadline(table), 500)
    const log: Array<string> = []
    table = runUntil(table, 40_000, log)
    assert.deepStrictEqual(log.filter((line) => line.includes("INVITE")), [
      "500 send INVITE",
      "1500 send INVITE",
      "3500 send INVITE",
      "7500 send INVITE",
      "15500 send INVITE",
      "31500 send INVITE"
    ])
    assert.deepStrictEqual(log.filter((line) => !line.includes("send")), [
      "32000 ClientTimeout",
      "32000 ClientEnded",
      "32250 ClientTimeout",
      "32250 ClientEnded"
    ])
    assert.strictEqual(TransactionTable.deadline(table), undefined)
  })

  it("ends a transaction whose message could not be sent", () => {
    const sent = TransactionTable.sendRequest(TransactionTable.empty, outgoing("OPTIONS"), trunk, { now: 0 })
    const failed = TransactionTable.transportError(sent.table, sent.key, 10)
    assert.deepStrictEqual(summary(failed.actions), ["ClientTimeout", "ClientEnded"])
    assert.strictEqual(failed.table.clients.size, 0)
  })
})

describe("TransactionTable, any order of events", () => {
  const branches = ["z9hG4bKp0", "z9hG4bKp1", "z9hG4bKp2"]
  const event = fc.oneof(
    fc.record({ kind: fc.constant("invite" as const), i: fc.nat(2) }),
    fc.record({ kind: fc.constant("bye" as const), i: fc.nat(2) }),
    fc.record({ kind: fc.constant("cancel" as const), i: fc.nat(2) }),
    fc.record({ kind: fc.constant("ack" as const), i: fc.nat(2), own: fc.boolean() }),
    fc.record({ kind: fc.constant("respond" as const), i: fc.nat(2), status: fc.constantFrom(180, 200, 486) }),
    fc.record({ kind: fc.constant("send" as const), i: fc.nat(2) }),
    fc.record({ kind: fc.constant("response" as const), i: fc.nat(2), status: fc.constantFrom(100, 180, 200, 487) }),
    fc.record({ kind: fc.constant("wait" as const), ms: fc.nat(40_000) })
  )

  it("never throws, and every transaction ends once finals are given and time passes", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let table = TransactionTable.empty
        let now = 0
        const sent = branches.map((branch) => ({
          ...outgoing("INVITE"),
          headers: outgoing("INVITE").headers.map((h) =>
            h.name === "Via" ? { name: "Via", value: `SIP/2.0/UDP 192.0.2.10:5060;branch=${branch}` } : h
          )
        }))
        for (const e of events) {
          const branch = branches[e.kind === "wait" ? 0 : e.i]!
          switch (e.kind) {
            case "invite":
            case "bye":
            case "cancel":
              table = receive(table, incoming(e.kind.toUpperCase(), { branch }), now).table
              break
            case "ack":
              table = receive(table, incoming("ACK", { branch: e.own ? `${branch}ack` : branch, toTag: "e1" }), now)
                .table
              break
            case "respond":
              table = TransactionTable.respond(
                table,
                TransactionTable.serverKey(incoming("INVITE", { branch })),
                reply(incoming("INVITE", { branch }), e.status, "e1"),
                now
              ).table
              break
            case "send":
              table = TransactionTable.sendRequest(table, sent[e.i]!, trunk, { now }).table
              break
            case "response":
              table = TransactionTable.receiveResponse(table, responseTo(sent[e.i]!, e.status), now).table
              break
            case "wait":
              now += e.ms
              table = runUntil(table, now, [])
          }
        }
        // An INVITE waits for its final answer as long as that takes (the user's ring timeout ends it).
        for (const [key, entry] of table.servers) {
          table = TransactionTable.respond(table, key, reply(entry.request, 500, "e1"), now).table
        }
        for (const entry of table.clients.values()) {
          table = TransactionTable.receiveResponse(table, responseTo(entry.transaction.request, 487), now).table
        }
        table = runUntil(table, now + 200_000, [])
        return table.clients.size === 0 && table.servers.size === 0
      }),
      { numRuns: 500 }
    )
  })
})
