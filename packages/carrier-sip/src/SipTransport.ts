/**
 * SIP over UDP and TCP (RFC 3261 §18): the sockets of one endpoint, bytes in and out.
 *
 * Owns: a `node:dgram` socket and a `node:net` server listening on the same address and port
 * (`SIP_LISTEN`; port 0 picks one free for both), the TCP connections (accepted, or opened to
 * send, one per peer address, `SipStream` cutting each), parsing, and what happens to bytes that
 * do not parse: a request that can be answered gets `SipMessage.response(request, status,
 * detail)` (400, 416, 505, the detail as reason phrase), sent back to the address it came from
 * (its Via may be what is malformed); anything else is dropped; both logged
 * (`Effect.logWarning`), never thrown. A received request's top Via is stamped with
 * `received`/`rport` (`ViaRouting.stamp`), so responses built from it find the way back through
 * a NAT. A TCP stream that cannot be cut (no Content-Length) is logged and closed.
 *
 * Delivers each message with the address it came from on `received`, a bounded queue: the
 * sockets' callbacks put bytes on a dropping queue of `capacity` (under overload a datagram is
 * lost, as on the network, and SIP retransmits; so is a message cut from TCP; losses are
 * counted and logged), one fiber parses them and offers them to `received` (`capacity` too),
 * waiting while it is full. At most
 * `maxConnections` TCP connections (accepted beyond that: closed at once). Scoped: the sockets
 * and connections close with the scope.
 *
 * Does not own which transaction a message belongs to (TransactionTable) nor where a response
 * goes (ViaRouting.responseTarget): `send` takes the destination.
 *
 * @since 0.1.0
 */
import { Data, Effect, Queue, Result } from "effect"
import type { Scope } from "effect"
import * as dgram from "node:dgram"
import * as net from "node:net"
import * as SipMessage from "./SipMessage.ts"
import * as SipStream from "./SipStream.ts"
import * as ViaRouting from "./ViaRouting.ts"
import type { Peer } from "./ViaRouting.ts"

/**
 * A message received and where from. A request's top Via is stamped (`ViaRouting.stamp`).
 *
 * @category models
 */
export interface Received {
  readonly message: SipMessage.SipMessage
  readonly source: Peer
}

/**
 * Listening failed, or a message could not be sent.
 *
 * @category errors
 */
export class SipTransportError extends Data.TaggedError("SipTransportError")<{
  readonly detail: string
}> {
  override get message(): string {
    return this.detail
  }
}

/**
 * @category models
 */
export interface SipTransport {
  /** The address listened on (`host` as in a URI) and the port UDP and TCP share. */
  readonly host: string
  readonly port: number
  readonly send: (message: SipMessage.Outgoing, destination: Peer) => Effect.Effect<void, SipTransportError>
  readonly received: Queue.Dequeue<Received>
}

/**
 * @category models
 */
export interface Options {
  readonly host: string
  readonly port: number
  /** Messages waiting to be parsed, and parsed ones waiting to be taken (each). Default 1024. */
  readonly capacity?: number
  /** Default 256. */
  readonly maxConnections?: number
}

type Raw =
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array; readonly source: Peer }
  | { readonly _tag: "Note"; readonly text: string }

/** How long opening a TCP connection may take. */
const connectTimeoutMs = 10_000

const describe = (peer: Peer) => `${peer.transport} ${peer.host}:${peer.port}`
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

const bindUdp = (host: string, port: number) =>
  Effect.callback<dgram.Socket, SipTransportError>((resume) => {
    const socket = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4")
    socket.once("error", (error) => {
      socket.close()
      resume(Effect.fail(new SipTransportError({ detail: `UDP ${host}:${port}: ${error.message}` })))
    })
    socket.bind(port, host, () => {
      socket.removeAllListeners("error")
      resume(Effect.succeed(socket))
    })
  })

const listenTcp = (host: string, port: number) =>
  Effect.callback<net.Server, SipTransportError>((resume) => {
    const server = net.createServer()
    server.once("error", (error) => {
      server.close()
      resume(Effect.fail(new SipTransportError({ detail: `TCP ${host}:${port}: ${error.message}` })))
    })
    server.listen({ host, port, exclusive: true }, () => {
      server.removeAllListeners("error")
      resume(Effect.succeed(server))
    })
  })

const closeUdp = (socket: dgram.Socket) =>
  Effect.callback<void>((resume) => {
    socket.close(() => resume(Effect.void))
  })

const closeTcp = (server: net.Server, connections: Map<string, net.Socket>) =>
  Effect.callback<void>((resume) => {
    for (const socket of connections.values()) socket.destroy()
    connections.clear()
    server.close(() => resume(Effect.void))
  })

/** UDP and TCP on one port; with port 0, the UDP socket's port, tried a few times if TCP has it taken. */
const bind = (host: string, port: number) =>
  Effect.gen(function*() {
    const udp = yield* bindUdp(host, port)
    const bound = udp.address().port
    const tcp = yield* listenTcp(host, bound).pipe(Effect.tapError(() => closeUdp(udp)))
    return { udp, tcp, port: bound }
  }).pipe(Effect.retry({ times: port === 0 ? 4 : 0 }))

/**
 * Listens on `options.host:port` over UDP and TCP for the scope.
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<SipTransport, SipTransportError, Scope.Scope> =>
  Effect.gen(function*() {
    const capacity = options.capacity ?? 1024
    const maxConnections = options.maxConnections ?? 256
    const host = ViaRouting.socketHost(options.host)
    const inbox = yield* Queue.dropping<Raw>(capacity)
    const received = yield* Queue.bounded<Received>(capacity)
    const connections = new Map<string, net.Socket>()
    let dropped = 0
    const enqueue = (raw: Raw) => {
      if (!Queue.offerUnsafe(inbox, raw)) dropped++
    }

    const { udp, tcp, port } = yield* Effect.acquireRelease(
      bind(host, options.port),
      ({ udp, tcp }) => Effect.andThen(closeTcp(tcp, connections), closeUdp(udp))
    )

    udp.on("message", (bytes, remote) => {
      const source: Peer = { transport: "UDP", host: ViaRouting.uriHost(remote.address), port: remote.port }
      enqueue({ _tag: "Bytes", bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), source })
    })
    udp.on("error", (error) => enqueue({ _tag: "Note", text: `SIP UDP socket: ${error.message}` }))

    const adopt = (socket: net.Socket): Peer => {
      const source: Peer = {
        transport: "TCP",
        host: ViaRouting.uriHost(socket.remoteAddress ?? "0.0.0.0"),
        port: socket.remotePort ?? 0
      }
      const key = ViaRouting.peerKey(source)
      connections.get(key)?.destroy()
      connections.set(key, socket)
      const stream = SipStream.make()
      socket.on("data", (chunk: Buffer) => {
        const pushed = SipStream.push(stream, new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))
        for (const bytes of pushed.messages) enqueue({ _tag: "Bytes", bytes, source })
        if (pushed._tag === "Broken") {
          enqueue({ _tag: "Note", text: `SIP over TCP from ${describe(source)}: ${pushed.detail}; connection closed` })
          socket.destroy()
        }
      })
      socket.on("error", () => socket.destroy())
      socket.on("close", () => {
        if (connections.get(key) === socket) connections.delete(key)
      })
      return source
    }
    tcp.on("connection", (socket) => {
      if (connections.size >= maxConnections) {
        enqueue({ _tag: "Note", text: `SIP over TCP: ${maxConnections} connections open, one more refused` })
        socket.destroy()
      } else adopt(socket)
    })

    const connect = (destination: Peer) =>
      Effect.callback<net.Socket, SipTransportError>((resume, signal) => {
        const socket = net.connect({ host: ViaRouting.socketHost(destination.host), port: destination.port })
        const fail = (error: Error) => {
          socket.destroy()
          resume(Effect.fail(new SipTransportError({ detail: `${describe(destination)}: ${error.message}` })))
        }
        socket.once("error", fail)
        // A peer that never answers the SYN: give up well before Timer B (32 s).
        socket.setTimeout(connectTimeoutMs, () => fail(new Error("TCP connection timed out")))
        socket.once("connect", () => {
          socket.off("error", fail)
          socket.setTimeout(0)
          adopt(socket)
          // Also under the name it was reached by, so the next message goes the same way.
          const key = ViaRouting.peerKey(destination)
          connections.set(key, socket)
          socket.on("close", () => {
            if (connections.get(key) === socket) connections.delete(key)
          })
          resume(Effect.succeed(socket))
        })
        signal.addEventListener("abort", () => socket.destroy())
      })

    const write = (socket: net.Socket, bytes: Uint8Array, destination: Peer) =>
      Effect.callback<void, SipTransportError>((resume) => {
        socket.write(bytes, (error) =>
          resume(
            error === undefined || error === null ? Effect.void : Effect.fail(
              new SipTransportError({ detail: `${describe(destination)}: ${errorText(error)}` })
            )
          ))
      })

    const send = (message: SipMessage.Outgoing, destination: Peer): Effect.Effect<void, SipTransportError> => {
      const bytes = SipMessage.serialize(message)
      if (destination.transport === "UDP") {
        return Effect.callback<void, SipTransportError>((resume) => {
          udp.send(bytes, destination.port, ViaRouting.socketHost(destination.host), (error) =>
            resume(
              error === null ? Effect.void : Effect.fail(
                new SipTransportError({ detail: `${describe(destination)}: ${error.message}` })
              )
            ))
        })
      }
      return Effect.suspend(() => {
        const open = connections.get(ViaRouting.peerKey(destination))
        return open === undefined
          ? Effect.flatMap(connect(destination), (socket) => write(socket, bytes, destination))
          : write(open, bytes, destination)
      })
    }

    const answerMalformed = (error: SipMessage.SipParseError, source: Peer) =>
      Effect.gen(function*() {
        const answer = error.status === undefined || error.request === undefined
          ? undefined
          : SipMessage.response(error.request, error.status, error.detail)
        if (answer === undefined) {
          return yield* Effect.logWarning(`Dropped a SIP message from ${describe(source)}: ${error.detail}`)
        }
        yield* Effect.logWarning(
          `Answered a malformed SIP request from ${describe(source)} ${error.status}: ${error.detail}`
        )
        // Back where it came from: its Via may be what is malformed.
        yield* send(answer, source).pipe(
          Effect.catch((failure) => Effect.logWarning(`Could not send the ${error.status}: ${failure.detail}`))
        )
      })

    const handle = (raw: Raw) =>
      Effect.gen(function*() {
        if (dropped > 0) {
          yield* Effect.logWarning(`SIP: ${dropped} message(s) dropped, more than ${capacity} waiting`)
          dropped = 0
        }
        if (raw._tag === "Note") return yield* Effect.logWarning(raw.text)
        // A datagram of CRLFs is a keep-alive (RFC 5626 §3.5.1); SipStream skips them on TCP.
        if (raw.bytes.every((byte) => byte === 0x0d || byte === 0x0a)) return
        const parsed = SipMessage.parse(raw.bytes, raw.source.transport === "TCP" ? "stream" : "datagram")
        if (Result.isFailure(parsed)) return yield* answerMalformed(parsed.failure, raw.source)
        const message = parsed.success._tag === "Request"
          ? ViaRouting.stamp(parsed.success, raw.source)
          : parsed.success
        yield* Queue.offer(received, { message, source: raw.source })
      })
    const handleSafely = (raw: Raw) =>
      handle(raw).pipe(Effect.catchCause((cause) => Effect.logError("SIP: bytes received were not handled", cause)))
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(inbox), handleSafely)))

    return { host: ViaRouting.uriHost(host), port, send, received: Queue.asDequeue(received) } satisfies SipTransport
  })
