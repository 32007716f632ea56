/**
 * A scripted stand-in for the server in tests: one loopback HTTP server that answers HTTP
 * requests with a test-supplied handler and accepts WebSocket upgrades with `ws`. Each upgrade
 * becomes a `Connection` the test drives frame by frame; `Peer` adds the server's side of the
 * envelope (open-ack, acks, numbering) for tests about what travels inside it.
 */
import { createServer } from "node:http"
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import type { WebSocket } from "ws"

export type Frame = Record<string, unknown>

export interface HttpRequest {
  readonly method: string
  readonly url: URL
  readonly headers: IncomingHttpHeaders
}

export type HttpReply = { readonly status: number; readonly json: unknown }

/** Waits for values pushed later, in order. */
class Inbox<A> {
  private readonly items: Array<A> = []
  private readonly waiters: Array<(item: A) => void> = []

  push(item: A): void {
    const waiter = this.waiters.shift()
    if (waiter !== undefined) waiter(item)
    else this.items.push(item)
  }

  next(timeoutMs = 3_000, what = "an item"): Promise<A> {
    const item = this.items.shift()
    if (item !== undefined) return Promise.resolve(item)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        reject(new Error(`Timed out waiting for ${what}`))
      }, timeoutMs)
      const waiter = (value: A): void => {
        clearTimeout(timer)
        resolve(value)
      }
      this.waiters.push(waiter)
    })
  }

  get pending(): number {
    return this.items.length
  }
}

export class Connection {
  /** Every frame received, in order. */
  readonly received: Array<Frame> = []
  readonly closed: Promise<void>
  private readonly inbox = new Inbox<Frame>()

  readonly socket: WebSocket
  readonly url: URL
  readonly headers: IncomingHttpHeaders

  constructor(socket: WebSocket, url: URL, headers: IncomingHttpHeaders) {
    this.socket = socket
    this.url = url
    this.headers = headers
    socket.on("message", (data) => {
      const text = Array.isArray(data) ? Buffer.concat(data).toString() : Buffer.from(data as Buffer).toString()
      const frame = JSON.parse(text) as Frame
      this.received.push(frame)
      this.inbox.push(frame)
    })
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()))
  }

  /** The next frame received (of `type`, skipping others, when given). */
  async next(type?: string, timeoutMs?: number): Promise<Frame> {
    for (;;) {
      const frame = await this.inbox.next(timeoutMs, type === undefined ? "a frame" : `a ${type} frame`)
      if (type === undefined || frame["message_type"] === type) return frame
    }
  }

  send(frame: Frame): void {
    this.socket.send(JSON.stringify(frame))
  }

  sendText(text: string): void {
    this.socket.send(text)
  }

  /** Drops the TCP connection without a close handshake. */
  terminate(): void {
    this.socket.terminate()
  }

  get pending(): number {
    return this.inbox.pending
  }
}

/** The server's side of the envelope on one connection. */
export class Peer {
  readonly connection: Connection
  private sequence = 0

  constructor(connection: Connection) {
    this.connection = connection
  }

  /** Waits for `open` and answers `open-ack` (claiming `lastSeen` messages seen). */
  async accept(lastSeen = 0): Promise<Frame> {
    const open = await this.connection.next("open")
    this.connection.send({ message_type: "open-ack", is_reopen: open["is_reopen"], last_seen_sequence: lastSeen })
    return open
  }

  /** Sends a payload as the next message. */
  send(payload: Frame): number {
    this.sequence += 1
    this.connection.send({ message_type: "message", sequence: this.sequence, payload })
    return this.sequence
  }

  /** The next message's payload from the client, acknowledged. */
  async receive(timeoutMs?: number): Promise<Frame> {
    const frame = await this.connection.next("message", timeoutMs)
    this.connection.send({ message_type: "ack", last_seen_sequence: frame["sequence"] })
    return frame["payload"] as Frame
  }

  /** The next `count` payloads. */
  async receiveMany(count: number): Promise<Array<Frame>> {
    const payloads: Array<Frame> = []
    for (let index = 0; index < count; index++) payloads.push(await this.receive())
    return payloads
  }
}

export class ScriptedServer {
  /** The HTTP requests received, in order. */
  readonly requests: Array<HttpRequest> = []
  private readonly connections = new Inbox<Connection>()
  private handler: (request: HttpRequest) => HttpReply = () => ({ status: 404, json: { detail: "Not Found" } })

  readonly baseUrl: string
  private readonly http: ReturnType<typeof createServer>
  private readonly wss: WebSocketServer

  private constructor(http: ReturnType<typeof createServer>, wss: WebSocketServer, baseUrl: string) {
    this.http = http
    this.wss = wss
    this.baseUrl = baseUrl
  }

  static async start(options: { readonly refuseUpgrades?: number } = {}): Promise<ScriptedServer> {
    let refusals = options.refuseUpgrades ?? 0
    const http = createServer()
    const wss = new WebSocketServer({
      noServer: true
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    const { port } = http.address() as AddressInfo
    const server = new ScriptedServer(http, wss, `http://127.0.0.1:${port}/`)
    http.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const recorded = {
        method: request.method ?? "GET",
        url: new URL(request.url ?? "/", server.baseUrl),
        headers: request.headers
      }
      server.requests.push(recorded)
      const reply = server.handler(recorded)
      response.writeHead(reply.status, { "content-type": "application/json" })
      response.end(JSON.stringify(reply.json))
    })
    http.on("upgrade", (request: IncomingMessage, socket, head) => {
      if (refusals > 0) {
        refusals -= 1
        socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        server.connections.push(new Connection(ws, new URL(request.url ?? "/", server.baseUrl), request.headers))
      })
    })
    return server
  }

  /** Answers HTTP requests from now on. */
  onHttp(handler: (request: HttpRequest) => HttpReply): void {
    this.handler = handler
  }

  /** The next WebSocket connection accepted. */
  nextConnection(timeoutMs?: number): Promise<Connection> {
    return this.connections.next(timeoutMs, "a WebSocket connection")
  }

  /** WebSocket connections accepted and not yet taken by `nextConnection`. */
  get waitingConnections(): number {
    return this.connections.pending
  }

  wsUrl(path: string): string {
    return new URL(path, this.baseUrl.replace(/^http/, "ws")).href
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate()
    await new Promise<void>((resolve) => this.wss.close(() => resolve()))
    this.http.closeAllConnections()
    await new Promise<void>((resolve) => this.http.close(() => resolve()))
  }
}
