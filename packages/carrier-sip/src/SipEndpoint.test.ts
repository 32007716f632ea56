import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue } from "effect"
import { TestClock } from "effect/testing"
import * as dgram from "node:dgram"
import { cases } from "../test/fixtures/rfc4475.ts"
import * as ClientTransaction from "./ClientTransaction.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>
const host = "127.0.0.1"
const decoder = new TextDecoder()

const requestTo = (method: string, callId: string, cseq = 1, toTag?: string): OutgoingRequest => ({
  _tag: "Request",
  method,
  uri: `sip:+14155550100@${host}`,
  headers: [
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: `<sip:+14155550199@${host}>;tag=caller` },
    { name: "To", value: `<sip:+14155550100@${host}>${toTag === undefined ? "" : `;tag=${toTag}`}` },
    { name: "Call-ID", value: callId },
    { name: "CSeq", value: `${cseq} ${method}` }
  ]
})

/** A request as a peer would write it, its Via naming `sentBy`. */
const rawRequest = (method: string, callId: string, via: string) =>
  [
    `${method} sip:+14155550100@${host} SIP/2.0`,
    `Via: ${via}`,
    "Max-Forwards: 70",
    `From: <sip:+14155550199@${host}>;tag=raw`,
    `To: <sip:+14155550100@${host}>`,
    `Call-ID: ${callId}`,
    `CSeq: 1 ${method}`,
    "Content-Length: 0",
    "",
    ""
  ].join("\r\n")

/** A bare UDP socket on loopback standing in for a trunk: what it receives, as text, in order. */
const rawPeer = Effect.gen(function*() {
  const inbox = yield* Queue.unbounded<string>()
  const socket = yield* Effect.acquireRelease(
    Effect.callback<dgram.Socket>((resume) => {
      const socket = dgram.createSocket("udp4")
      socket.on("message", (bytes) => Queue.offerUnsafe(inbox, decoder.decode(bytes)))
      socket.bind(0, host, () => resume(Effect.succeed(socket)))
    }),
    (socket) =>
      Effect.callback<void>((resume) => {
        socket.close(() => resume(Effect.void))
      })
  )
  const send = (text: string, port: number) =>
    Effect.callback<void>((resume) => {
      socket.send(text, port, host, () => resume(Effect.void))
    })
  return { port: socket.address().port, inbox, send }
})

const statusOf = (text: string) => Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1])
const callIdOf = (text: string) => /\r\nCall-ID: ([^\r]*)\r\n/i.exec(text)?.[1]

const endpoint = (handler: (incoming: SipEndpoint.Incoming) => Effect.Effect<void>) =>
  SipEndpoint.make({ host, port: 0, handler })

describe("SipEndpoint", () => {
  it.effect("INVITE answered over UDP and over TCP: provisionals reported, the 2xx's ACK handed on", () =>
    Effect.gen(function*() {
      const seen = yield* Queue.unbounded<string>()
      const server = yield* endpoint((incoming) =>
        Effect.gen(function*() {
          yield* Queue.offer(seen, `${incoming.request.method} ${incoming.source.transport}`)
          if (incoming.key === undefined || incoming.request.method === "ACK") return
          if (incoming.request.method === "INVITE") {
            yield* incoming.respond(SipEndpoint.answer(incoming, 180))
          }
          yield* incoming.respond(SipEndpoint.answer(incoming, 200))
        })
      )
      const client = yield* endpoint(() => Effect.void)
      for (const transport of ["UDP", "TCP"] as const) {
        const destination: Peer = { transport, host, port: server.port }
        const provisionals = yield* Queue.unbounded<number>()
        const ok = yield* client.request(requestTo("INVITE", `call-${transport}`), destination, {
          onProvisional: (response) => Queue.offer(provisionals, response.status).pipe(Effect.asVoid)
        })
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual([yield* Queue.take(provisionals), yield* Queue.take(provisionals)], [100, 180])
        const toTag = ok.to.params.find(([name]) => name === "tag")?.[1]
        yield* client.send(requestTo("ACK", `call-${transport}`, 1, toTag), destination)
        assert.deepStrictEqual([yield* Queue.take(seen), yield* Queue.take(seen)], [
          `INVITE ${transport}`,
          `ACK ${transport}`
        ])
        const options = yield* client.request(requestTo("OPTIONS", `options-${transport}`), destination)
        assert.strictEqual(options.status, 200)
        assert.strictEqual(yield* Queue.take(seen), `OPTIONS ${transport}`)
      }
    }).pipe(Effect.scoped))

  it.effect("absorbs a retransmitted INVITE: the handler sees it once, the last provisional is sent again", () =>
    Effect.gen(function*() {
      let calls = 0
      const server = yield* endpoint((incoming) => {
        calls++
        return incoming.respond(SipEndpoint.answer(incoming, 180))
      })
      const peer = yield* rawPeer
      const invite = rawRequest("INVITE", "retx-1", `SIP/2.0/UDP ${host}:${peer.port};branch=z9hG4bKretx1`)
      yield* peer.send(invite, server.port)
      const first = [statusOf(yield* Queue.take(peer.inbox)), statusOf(yield* Queue.take(peer.inbox))]
      yield* peer.send(invite, server.port)
      assert.deepStrictEqual([...first, statusOf(yield* Queue.take(peer.inbox))], [100, 180, 180])
      assert.strictEqual(calls, 1)
    }).pipe(Effect.scoped))

  it.effect("CANCEL of a ringing INVITE: 200 to the CANCEL, 487 to the INVITE, its ACK absorbed", () =>
    Effect.gen(function*() {
      const seen = yield* Queue.unbounded<string>()
      const server = yield* endpoint((incoming) =>
        Effect.gen(function*() {
          yield* Queue.offer(seen, incoming.request.method)
          if (incoming.key === undefined) return
          if (incoming.request.method !== "INVITE") {
            return yield* incoming.respond(SipEndpoint.answer(incoming, 200))
          }
          yield* incoming.respond(SipEndpoint.answer(incoming, 180))
          yield* incoming.cancelled
          yield* Queue.offer(seen, "cancelled")
        })
      )
      const client = yield* endpoint(() => Effect.void)
      const destination: Peer = { transport: "UDP", host, port: server.port }
      const invite = client.prepare(requestTo("INVITE", "cancel-1"), "UDP")
      const ringing = yield* Deferred.make<void>()
      const call = yield* Effect.forkChild(client.request(invite, destination, {
        onProvisional: (response) => response.status === 180 ? Deferred.succeed(ringing, undefined) : Effect.void
      }))
      yield* Deferred.await(ringing)
      const cancelled = yield* client.request(ClientTransaction.cancelFor(invite), destination)
      assert.strictEqual(cancelled.status, 200)
      const final = yield* Fiber.join(call)
      assert.strictEqual(final.status, 487)
      assert.strictEqual(final.cseq.method, "INVITE")
      // The client ACKed the 487 before this OPTIONS: the server absorbed it, its handler never saw it.
      yield* client.request(requestTo("OPTIONS", "after-cancel"), destination)
      assert.deepStrictEqual([yield* Queue.take(seen), yield* Queue.take(seen), yield* Queue.take(seen)], [
        "INVITE",
        "cancelled",
        "OPTIONS"
      ])
    }).pipe(Effect.scoped))

  it.effect("answers RFC 4475's malformed requests 4xx/505 or drops them, and keeps serving", () =>
    Effect.gen(function*() {
      const server = yield* endpoint((incoming) => incoming.respond(SipEndpoint.answer(incoming, 200)))
      const peer = yield* rawPeer
      const tortures = cases.filter((torture) => torture.expect === "drop" || typeof torture.expect === "number")
      for (const torture of tortures) yield* peer.send(torture.text, server.port)
      yield* peer.send(
        rawRequest("OPTIONS", "still-serving", `SIP/2.0/UDP ${host}:${peer.port};branch=z9hG4bKalive`),
        server.port
      )
      const answers = new Map<string | undefined, number>()
      for (;;) {
        const text = yield* Queue.take(peer.inbox)
        answers.set(callIdOf(text), statusOf(text))
        if (callIdOf(text) === "still-serving") break
      }
      assert.strictEqual(answers.get("still-serving"), 200)
      for (const torture of tortures) {
        const callId = /^(?:Call-ID|i)[ \t]*:[ \t]*(.*)\r$/im.exec(torture.text)?.[1]
        const expected = typeof torture.expect === "number" && callId !== undefined ? torture.expect : undefined
        assert.strictEqual(callId === undefined ? undefined : answers.get(callId), expected, torture.name)
      }
      assert.isAbove(answers.size, 10)
    }).pipe(Effect.scoped))

  it.effect("stamps received and rport on the request's Via and answers where the request came from", () =>
    Effect.gen(function*() {
      const vias = yield* Queue.unbounded<string>()
      const server = yield* endpoint((incoming) =>
        Effect.andThen(
          Queue.offer(vias, SipMessage.header(incoming.request, "Via") ?? ""),
          incoming.respond(SipEndpoint.answer(incoming, 200))
        )
      )
      const peer = yield* rawPeer
      // The peer believes it is 192.0.2.99:5099 (a private address behind a NAT) and asks for rport.
      yield* peer.send(
        rawRequest("OPTIONS", "nat-1", "SIP/2.0/UDP 192.0.2.99:5099;branch=z9hG4bKnat1;rport"),
        server.port
      )
      const expected = `SIP/2.0/UDP 192.0.2.99:5099;branch=z9hG4bKnat1;rport=${peer.port};received=${host}`
      assert.strictEqual(yield* Queue.take(vias), expected)
      const response = yield* Queue.take(peer.inbox)
      assert.strictEqual(statusOf(response), 200)
      assert.include(response, `\r\nVia: ${expected}\r\n`)
    }).pipe(Effect.scoped))

  it.effect("retransmits over UDP on the injected clock and times out after 64·T1", () =>
    Effect.gen(function*() {
      const client = yield* endpoint(() => Effect.void)
      const silent = yield* rawPeer
      const call = yield* Effect.forkChild(
        client.request(requestTo("OPTIONS", "silent-1"), { transport: "UDP", host, port: silent.port })
      )
      const sentAt: Array<number> = []
      yield* Queue.take(silent.inbox)
      sentAt.push(0)
      for (const [step, at] of [[500, 500], [1000, 1500], [2000, 3500], [4000, 7500], [4000, 11500]] as const) {
        yield* TestClock.adjust(step)
        yield* Queue.take(silent.inbox)
        sentAt.push(at)
      }
      assert.deepStrictEqual(sentAt, [0, 500, 1500, 3500, 7500, 11500])
      yield* TestClock.adjust(32_000 - 11_500)
      const error = yield* Effect.flip(Fiber.join(call))
      assert.strictEqual(error.reason, "Timeout")
    }).pipe(Effect.scoped))

  it.effect("re-sends an unacknowledged 2xx on the injected clock, reported to the caller, until its ACK", () =>
    Effect.gen(function*() {
      const seen = yield* Queue.unbounded<string>()
      const server = yield* endpoint((incoming) =>
        Effect.andThen(Queue.offer(seen, incoming.request.method), incoming.respond(SipEndpoint.answer(incoming, 200)))
      )
      const client = yield* endpoint(() => Effect.void)
      const destination: Peer = { transport: "UDP", host, port: server.port }
      const again = yield* Queue.unbounded<number>()
      const ok = yield* client.request(requestTo("INVITE", "unacked-1"), destination, {
        onRetransmission: (response) => Queue.offer(again, response.status).pipe(Effect.asVoid)
      })
      assert.strictEqual(ok.status, 200)
      yield* TestClock.adjust(500)
      assert.strictEqual(yield* Queue.take(again), 200)
      yield* TestClock.adjust(1000)
      assert.strictEqual(yield* Queue.take(again), 200)
      const toTag = ok.to.params.find(([name]) => name === "tag")?.[1]
      yield* client.send(requestTo("ACK", "unacked-1", 1, toTag), destination)
      assert.deepStrictEqual([yield* Queue.take(seen), yield* Queue.take(seen)], ["INVITE", "ACK"])
    }).pipe(Effect.scoped))

  it.effect("fails Unreachable when a TCP connection is refused", () =>
    Effect.gen(function*() {
      const client = yield* endpoint(() => Effect.void)
      const closed = yield* rawPeer // a UDP port: nothing listens on TCP there
      const error = yield* Effect.flip(
        client.request(requestTo("OPTIONS", "refused-1"), { transport: "TCP", host, port: closed.port })
      )
      assert.strictEqual(error.reason, "Unreachable")
    }).pipe(Effect.scoped))
})
