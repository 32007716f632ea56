import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import * as net from "node:net"
import * as SipTransport from "./SipTransport.ts"

const host = "127.0.0.1"
const decoder = new TextDecoder()

const options = (callId: string, contentLength: boolean) =>
  [
    "OPTIONS sip:engine@127.0.0.1 SIP/2.0",
    "Via: SIP/2.0/TCP 192.0.2.7:5060;branch=z9hG4bKtcp1",
    "Max-Forwards: 70",
    "From: <sip:trunk@192.0.2.7>;tag=f1",
    "To: <sip:engine@127.0.0.1>",
    `Call-ID: ${callId}`,
    "CSeq: 1 OPTIONS",
    ...(contentLength ? ["Content-Length: 0"] : []),
    "",
    ""
  ].join("\r\n")

/** A TCP client on loopback: what it receives as text, and a signal when the transport closes it. */
const tcpPeer = (port: number) =>
  Effect.gen(function*() {
    const inbox = yield* Queue.unbounded<string>()
    const closed = yield* Queue.unbounded<void>()
    const socket = yield* Effect.acquireRelease(
      Effect.callback<net.Socket>((resume) => {
        const socket = net.connect({ host, port }, () => resume(Effect.succeed(socket)))
        socket.on("data", (chunk) => Queue.offerUnsafe(inbox, decoder.decode(chunk)))
        socket.on("close", () => Queue.offerUnsafe(closed, undefined))
        socket.on("error", () => {})
      }),
      (socket) => Effect.sync(() => socket.destroy())
    )
    return { socket, inbox, closed }
  })

describe("SipTransport", () => {
  it.effect("listens on one free port for UDP and TCP, and stamps a TCP request's Via with its source", () =>
    Effect.gen(function*() {
      const transport = yield* SipTransport.make({ host, port: 0 })
      assert.isAbove(transport.port, 0)
      const peer = yield* tcpPeer(transport.port)
      peer.socket.write(options("tcp-1", true).slice(0, 40))
      peer.socket.write(options("tcp-1", true).slice(40))
      const { message, source } = yield* Queue.take(transport.received)
      assert.strictEqual(source.transport, "TCP")
      assert.strictEqual(source.port, peer.socket.localPort)
      assert.strictEqual(message._tag === "Request" ? message.method : message.status, "OPTIONS")
      assert.strictEqual(
        message.headers.find((header) => header.name === "Via")?.value,
        `SIP/2.0/TCP 192.0.2.7:5060;branch=z9hG4bKtcp1;received=${host}`
      )
    }).pipe(Effect.scoped))

  it.effect("closes its sockets with its scope: the same port can be listened on again", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.map(SipTransport.make({ host, port: 0 }), (t) => t.port))
      const again = yield* SipTransport.make({ host, port })
      assert.strictEqual(again.port, port)
      const clash = yield* Effect.flip(SipTransport.make({ host, port }))
      assert.include(clash.detail, "EADDRINUSE")
    }).pipe(Effect.scoped))

  it.effect("closes a TCP connection whose messages cannot be cut, and goes on serving others", () =>
    Effect.gen(function*() {
      const transport = yield* SipTransport.make({ host, port: 0 })
      const broken = yield* tcpPeer(transport.port)
      broken.socket.write(options("no-length", false))
      yield* Queue.take(broken.closed)
      const good = yield* tcpPeer(transport.port)
      good.socket.write(options("with-length", true))
      const { message } = yield* Queue.take(transport.received)
      assert.strictEqual(message.callId, "with-length")
    }).pipe(Effect.scoped))

  it.effect("answers a malformed request on a TCP connection 400 on that connection", () =>
    Effect.gen(function*() {
      const transport = yield* SipTransport.make({ host, port: 0 })
      const peer = yield* tcpPeer(transport.port)
      peer.socket.write(options("bad-1", true).replace("CSeq: 1 OPTIONS", "CSeq: 1 INVITE"))
      const answer = yield* Queue.take(peer.inbox)
      assert.match(answer, /^SIP\/2\.0 400 CSeq method does not match the request\r\n/)
      assert.include(answer, "\r\nCall-ID: bad-1\r\n")
    }).pipe(Effect.scoped))
})
