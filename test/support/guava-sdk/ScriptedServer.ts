/**
 * A tiny scripted stand-in for the Guava server, for the replay's own self-tests only (daemon
 * tests point the replay at the daemon instead): an HTTP server on port 0 answering routes the
 * test sets, and a `ws` WebSocketServer on the same port recording every frame.
 *
 * `ServerSocket` gives raw control (send any frame, terminate); `Peer` is a minimal reliable
 * envelope peer keyed by connection_id (open-ack with its last seen sequence, acks, numbered
 * messages kept until acked and resent on reopen) for flow tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import WebSocket, { WebSocketServer } from "ws"
import { Watch } from "./Watch.ts"

export interface HttpExchange {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

export type HttpRoute = (request: HttpExchange) => { status: number; body: unknown } | undefined

/** One WebSocket connection accepted by the scripted server. */
export class ServerSocket {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly ws: WebSocket
  /** Parsed frames received from the client, in order. */
  readonly received: Array<Record<string, unknown>> = []
  closedCode: number | undefined
  readonly watch = new Watch()

  constructor(path: string, headers: IncomingMessage["headers"], ws: WebSocket) {
    this.path = path
    this.headers = headers
    this.ws = ws
    ws.on("message", (data: Buffer) => {
      this.received.push(JSON.parse(data.toString("utf8")) as Record<string, unknown>)
      this.watch.notify()
    })
    ws.on("close", (code: number) => {
      this.closedCode = code
      this.watch.notify()
    })
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame))
  }

  /** The `index`-th received frame of a message_type. */
  waitFrame(messageType: string, index = 0, timeoutMs = 5000): Promise<Record<string, unknown>> {
    return this.watch.waitFor(
      () => this.received.filter((f) => f["message_type"] === messageType)[index],
      timeoutMs,
      `client frame ${messageType} #${index} on ${this.path}`
    )
  }

  framesOf(messageType: string): Array<Record<string, unknown>> {
    return this.received.filter((f) => f["message_type"] === messageType)
  }

  waitClosed(timeoutMs = 5000): Promise<number> {
    return this.watch.waitFor(() => this.closedCode, timeoutMs, `close of ${this.path}`)
  }
}

/** A minimal reliable Guava envelope peer (server side) for one connection_id. */
export class Peer {
  readonly connectionId: string
  readonly name: string
  /** Payloads delivered once each, in order. */
  readonly payloads: Array<Record<string, unknown>> = []
  lastSeen = 0
  private lastSent = 0
  private readonly buffer: Array<readonly [number, Record<string, unknown>]> = []
  socket: ServerSocket | undefined
  readonly watch = new Watch()
  onPayload: (payload: Record<string, unknown>, peer: Peer) => void = () => {}

  constructor(connectionId: string, name: string) {
    this.connectionId = connectionId
    this.name = name
  }

  attach(socket: ServerSocket, open: Record<string, unknown>): void {
    this.socket = socket
    socket.send({ message_type: "open-ack", is_reopen: open["is_reopen"], last_seen_sequence: this.lastSeen })
    const clientLastSeen = Number(open["last_seen_sequence"])
    for (const [seq, payload] of this.buffer) {
      if (seq > clientLastSeen) socket.send({ message_type: "message", sequence: seq, payload })
    }
    this.watch.notify()
  }

  handle(frame: Record<string, unknown>): void {
    switch (frame["message_type"]) {
      case "message": {
        const seq = Number(frame["sequence"])
        if (seq > this.lastSeen) {
          this.lastSeen = seq
          const payload = frame["payload"] as Record<string, unknown>
          this.payloads.push(payload)
          this.onPayload(payload, this)
        }
        this.socket?.send({ message_type: "ack", last_seen_sequence: this.lastSeen })
        break
      }
      case "ack": {
        const n = Number(frame["last_seen_sequence"])
        while (this.buffer.length > 0 && (this.buffer[0]?.[0] ?? Infinity) <= n) this.buffer.shift()
        break
      }
      case "ping":
        this.socket?.send({ message_type: "pong", ping_timestamp: frame["ping_timestamp"], pong_timestamp: Date.now() })
        break
    }
    this.watch.notify()
  }

  /** Send a payload as the next numbered message (kept until acked). */
  send(payload: Record<string, unknown>): void {
    this.lastSent += 1
    this.buffer.push([this.lastSent, payload])
    if (this.socket?.ws.readyState === WebSocket.OPEN) {
      this.socket.send({ message_type: "message", sequence: this.lastSent, payload })
    }
  }

  close(reason = "done", description = "bye"): void {
    this.socket?.send({ message_type: "close", reason, description })
  }

  waitPayload(predicate: (p: Record<string, unknown>) => boolean, timeoutMs = 5000, what = "payload") {
    return this.watch.waitFor(() => this.payloads.find(predicate), timeoutMs, what)
  }
}

export class ScriptedServer {
  readonly sockets: Array<ServerSocket> = []
  readonly http: Array<HttpExchange> = []
  readonly peers = new Map<string, Peer>()
  readonly watch = new Watch()
  routes: Array<HttpRoute> = []
  /** When set, every new connection is served by a `Peer` (auto open-ack, acks, resends). */
  autoPeer = false
  /** Called for each new peer (to script it). */
  onPeer: (peer: Peer, socket: ServerSocket) => void = () => {}
  /** Called for each new raw socket (when not in autoPeer mode). */
  onSocket: (socket: ServerSocket) => void = () => {}
  /** Refuse upgrades with this HTTP status (e.g. 401) while set. */
  refuseUpgrade: number | undefined

  private readonly server: Server
  private readonly wss: WebSocketServer
  private port = 0

  private constructor() {
    this.server = createServer((req, res) => this.onHttp(req, res))
    this.wss = new WebSocketServer({ noServer: true })
    this.server.on("upgrade", (req, socket, head) => {
      if (this.refuseUpgrade !== undefined) {
        const body = "refused"
        socket.end(
          `HTTP/1.1 ${this.refuseUpgrade} Refused\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
        )
        this.watch.notify()
        return
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const s = new ServerSocket(req.url ?? "", req.headers, ws)
        this.sockets.push(s)
        if (this.autoPeer) this.servePeer(s)
        else this.onSocket(s)
        this.watch.notify()
      })
    })
  }

  static async start(): Promise<ScriptedServer> {
    const s = new ScriptedServer()
    await new Promise<void>((resolve) => s.server.listen(0, "127.0.0.1", resolve))
    s.port = (s.server.address() as AddressInfo).port
    return s
  }

  /** Base URL with its trailing slash (`GUAVA_BASE_URL`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/`
  }

  waitSocket(index = 0, timeoutMs = 5000): Promise<ServerSocket> {
    return this.watch.waitFor(() => this.sockets[index], timeoutMs, `WebSocket connection #${index}`)
  }

  waitSocketOn(pathPrefix: string, index = 0, timeoutMs = 5000): Promise<ServerSocket> {
    return this.watch.waitFor(
      () => this.sockets.filter((s) => s.path.startsWith(pathPrefix))[index],
      timeoutMs,
      `WebSocket connection #${index} on ${pathPrefix}`
    )
  }

  waitPeer(name: string, timeoutMs = 5000): Promise<Peer> {
    return this.watch.waitFor(
      () => [...this.peers.values()].find((p) => p.name === name),
      timeoutMs,
      `peer ${name}`
    )
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.ws.terminate()
    this.wss.close()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private servePeer(socket: ServerSocket): void {
    let peer: Peer | undefined
    socket.ws.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as Record<string, unknown>
      if (frame["message_type"] === "open") {
        const id = String(frame["connection_id"])
        let existing = this.peers.get(id)
        if (existing === undefined) {
          existing = new Peer(id, String(frame["name"]))
          this.peers.set(id, existing)
          this.onPeer(existing, socket)
        }
        peer = existing
        existing.attach(socket, frame)
        this.watch.notify()
      } else {
        peer?.handle(frame)
      }
    })
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const exchange: HttpExchange = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8")
      }
      this.http.push(exchange)
      this.watch.notify()
      for (const route of this.routes) {
        const answer = route(exchange)
        if (answer !== undefined) {
          const text = JSON.stringify(answer.body)
          res.writeHead(answer.status, {
            "Content-Type": "application/json",
            "Content-Length": Buffer.byteLength(text)
          })
          res.end(text)
          return
        }
      }
      res.writeHead(404, { "Content-Type": "application/json" })
      res.end(JSON.stringify({ detail: "not found" }))
    })
  }
}
