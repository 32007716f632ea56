/**
 * Replay of the Guava Python SDK's reliable envelope client, `GuavaSocket`
 * (guava/socket/client.py, 0.35.0), over the `ws` package (which, like Python websockets 15,
 * offers `permessage-deflate; client_max_window_bits` by default).
 *
 * Wire behaviour reproduced (each from `_establish_socket` / `_reconnect_loop` / `send` / `recv`):
 *
 * - the upgrade carries the client's headers (`Authorization: Bearer …` and the `x-guava-*` set)
 *   plus websockets' `User-Agent`; a refused upgrade (any HTTP status, 401/403 included) is retried;
 * - the first frame is `open {message_type, name, connection_id, is_reopen, last_seen_sequence}`,
 *   `connection_id` being 20 hex characters fixed for the socket's life; the answer must come within
 *   10 s and be `open-ack` (then every buffered message the server has not seen is resent and the
 *   buffer pruned) or `close` (permanent, for any reason); anything else, a timeout or a dropped
 *   connection is a failed attempt, retried after the SDK's backoff (≈1 s ×3, ≈5 s ×2, then ≈10 s)
 *   up to 10 attempts;
 * - after open-ack: `message` frames are numbered per direction from 1 and kept until the server
 *   acks them; every received `message` is acked (a duplicate is dropped but acked, a gap is only
 *   noted); 10 s without any frame sends a `ping`; a `ping` is answered by a `pong`; `close` ends
 *   the socket for good; any other frame (a second open-ack, invalid JSON, a non-object payload…)
 *   kills the socket (the SDK's reconnect thread raises); a dropped connection reconnects after
 *   ≈1 s with `is_reopen: true` and the same connection_id; 15 opens within 60 s give up;
 * - `close()` takes effect only when the receive loop next wakes (a frame, or the 10 s idle timer,
 *   which sends a ping first), then closes the WebSocket (code 1000); the SDK never sends a Guava
 *   `close` itself; `recv()` fails as soon as the socket is closed, even with payloads queued;
 * - websockets' own keepalive: a WebSocket ping every 20 s, the connection failed (1011) when no pong
 *   comes within 20 s; incoming messages over 1 MiB fail the connection (1009).
 *
 * For tests: `frames` (every frame sent and received, parsed, in order, with direction and the
 * TCP connection it used), `transport` (connections, refusals, closes), `killConnection()` (drop
 * the TCP connection abruptly, like a network failure), `pauseReconnect()`/`resumeReconnect()`/
 * `disappear()` (an agent that never comes back), and `timing` to shorten the SDK's delays.
 */
import { randomBytes } from "node:crypto"
import WebSocket from "ws"
import { type CloseReason, decodeOpenResponse, decodeServerFrame, SdkError } from "./Events.ts"
import { sleep, Watch } from "./Watch.ts"

/** `GuavaSocketClosedError`: the socket is permanently closed. */
export class GuavaSocketClosedError extends SdkError {
  readonly reason: CloseReason
  readonly description: string

  constructor(reason: CloseReason, description: string) {
    super("GuavaSocketClosedError", `Guava socket closed. Reason: ${reason}. Description: ${description}`)
    this.reason = reason
    this.description = description
    this.name = "GuavaSocketClosedError"
  }
}

/** `GuavaSocketConnectionFailed`: no connection even after retrying. */
export class GuavaSocketConnectionFailed extends SdkError {
  constructor(message: string) {
    super("GuavaSocketConnectionFailed", message)
    this.name = "GuavaSocketConnectionFailed"
  }
}

/** The SDK's delays and limits; tests may shorten them. */
export interface SocketTiming {
  /** websockets `open_timeout`: the HTTP upgrade. */
  readonly handshakeTimeoutMs: number
  /** `websocket.recv(timeout=10)` waiting for open-ack. */
  readonly openAckTimeoutMs: number
  /** `websocket.recv(timeout=10)` in the receive loop: silence before a ping, and close latency. */
  readonly recvTimeoutMs: number
  /** `_reconnect_timeout(attempt)`, in ms. */
  readonly backoffMs: (attempt: number) => number
  readonly maxReconnectAttempts: number
  /** Opens within `opensWindowMs` after which the socket gives up (server-error). */
  readonly maxOpens: number
  readonly opensWindowMs: number
  /** websockets keepalive (`ping_interval`, `ping_timeout`); null disables it. */
  readonly keepaliveIntervalMs: number | null
  readonly keepaliveTimeoutMs: number
  /** websockets `close_timeout`. */
  readonly closeTimeoutMs: number
}

const jitter = (center: number, spread: number) => center + (Math.random() * 2 - 1) * spread

/** `GuavaSocket._reconnect_timeout`: 1 s ± 0.5 for attempts 1-3, 5 s ± 2 for 4-5, then 10 s ± 5. */
export const sdkBackoffMs = (attempt: number): number =>
  attempt <= 3 ? jitter(1000, 500) : attempt <= 5 ? jitter(5000, 2000) : jitter(10_000, 5000)

export const sdkTiming: SocketTiming = {
  handshakeTimeoutMs: 10_000,
  openAckTimeoutMs: 10_000,
  recvTimeoutMs: 10_000,
  backoffMs: sdkBackoffMs,
  maxReconnectAttempts: 10,
  maxOpens: 15,
  opensWindowMs: 60_000,
  keepaliveIntervalMs: 20_000,
  keepaliveTimeoutMs: 20_000,
  closeTimeoutMs: 10_000
}

/** The SDK's timing with a short fixed backoff (and anything else overridden), for tests. */
export const fastTiming = (overrides: Partial<SocketTiming> = {}): SocketTiming => ({
  ...sdkTiming,
  backoffMs: () => 20,
  ...overrides
})

export interface GuavaSocketOptions {
  /** `open.name`: `call-connection-{id}`, `listen-inbound`, `serve-campaign`, `campaign-call-{id}`. */
  readonly name: string
  /** The ws(s):// URL. */
  readonly url: string
  /** The upgrade's headers (`Client._get_headers()`). */
  readonly headers: Readonly<Record<string, string>>
  /** Call sockets: 18000 (5 h), after which the socket closes itself (reason `other`). */
  readonly maxAgeSeconds?: number | undefined
  readonly timing?: Partial<SocketTiming> | undefined
  /** websockets' User-Agent (`Python/3.13 websockets/15.0.1`). */
  readonly userAgent?: string | undefined
  readonly connectionId?: string | undefined
  /** websockets `max_size`. */
  readonly maxMessageBytes?: number | undefined
  /** Telemetry: called with the qualified name of each public method call (`GuavaSocket.send`). */
  readonly track?: ((functionName: string) => void) | undefined
}

export interface FrameRecord {
  readonly direction: "out" | "in"
  /** 1 for the first TCP connection, 2 after the first reconnect… */
  readonly connection: number
  readonly at: number
  /** The parsed JSON (the raw text when it does not parse). */
  readonly frame: unknown
  readonly raw: string
  readonly binary: boolean
  /** An outgoing `message` resent after a reopen. */
  readonly retransmission: boolean
}

export type TransportRecord =
  | { readonly type: "dialing"; readonly connection: number; readonly attempt: number; readonly at: number }
  | { readonly type: "ws-open"; readonly connection: number; readonly extensions: string; readonly at: number }
  | {
    readonly type: "upgrade-refused"
    readonly connection: number
    readonly status: number
    readonly body: string
    readonly at: number
  }
  | { readonly type: "attempt-failed"; readonly connection: number; readonly error: string; readonly at: number }
  | { readonly type: "ws-closed"; readonly connection: number; readonly code: number; readonly at: number }
  | { readonly type: "killed"; readonly connection: number; readonly at: number }
  | { readonly type: "keepalive-timeout"; readonly connection: number; readonly at: number }
  | { readonly type: "duplicate"; readonly sequence: number; readonly at: number }
  | { readonly type: "gap"; readonly expected: number; readonly got: number; readonly at: number }
  | { readonly type: "crashed"; readonly error: string; readonly at: number }
  | { readonly type: "dropped-unread"; readonly payloads: number; readonly at: number }
  | {
    readonly type: "closed"
    readonly reason: CloseReason
    readonly description: string
    readonly at: number
  }

type Incoming =
  | { readonly kind: "frame"; readonly data: string | Uint8Array; readonly binary: boolean }
  | { readonly kind: "closed"; readonly code: number }

/** One WebSocket (TCP) connection and what it received. */
class Connection {
  private readonly inbox: Array<Incoming> = []
  private waiter: ((incoming: Incoming) => void) | undefined
  closedWith: Incoming | undefined
  established = false

  readonly index: number
  readonly ws: WebSocket

  constructor(index: number, ws: WebSocket) {
    this.index = index
    this.ws = ws
  }

  push(incoming: Incoming): void {
    if (incoming.kind === "closed") this.closedWith = incoming
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter(incoming)
    } else this.inbox.push(incoming)
  }

  /** The next frame (or the close) within `timeoutMs`, like websockets' `recv(timeout=...)`. */
  next(timeoutMs: number): Promise<Incoming | "timeout"> {
    const queued = this.inbox.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    if (this.closedWith !== undefined) return Promise.resolve(this.closedWith)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined
        resolve("timeout")
      }, timeoutMs)
      this.waiter = (incoming) => {
        clearTimeout(timer)
        resolve(incoming)
      }
    })
  }
}

class UpgradeRefused extends Error {
  readonly status: number
  readonly body: string

  constructor(status: number, body: string) {
    super(`server rejected WebSocket connection: HTTP ${status}`)
    this.status = status
    this.body = body
  }
}

type State = "never-opened" | "open" | "closed"

export class GuavaSocket {
  readonly name: string
  readonly url: string
  readonly connectionId: string
  readonly timing: SocketTiming
  /** Every frame sent and received, in order. */
  readonly frames: Array<FrameRecord> = []
  readonly transport: Array<TransportRecord> = []
  /** Lax coercions pydantic applied to envelope frames (see Events.ts). */
  readonly notes: Array<string> = []
  readonly watch = new Watch()

  private readonly headers: Readonly<Record<string, string>>
  private readonly userAgent: string
  private readonly maxAgeMs: number | undefined
  private readonly maxMessageBytes: number
  private readonly track: (functionName: string) => void
  private readonly createdAt = Date.now()

  private stateValue: State = "never-opened"
  private lastSeen = 0
  private lastSent = 0
  private readonly buffer: Array<readonly [number, Record<string, unknown>]> = []
  private readonly received: Array<Record<string, unknown>> = []
  private readonly recvWaiters: Array<{
    resolve: (payload: Record<string, unknown>) => void
    reject: (error: unknown) => void
  }> = []
  private conn: Connection | undefined
  private connections = 0
  private readonly opens: Array<number> = []
  private shouldClose = false
  private closeReasonValue: CloseReason | undefined
  private closeDescriptionValue: string | undefined
  private loop: Promise<void> | undefined
  private paused: { promise: Promise<void>; release: () => void } | undefined
  /** What killed the reconnect loop, if anything did (a protocol violation, a failed reconnection…). */
  failure: unknown

  constructor(options: GuavaSocketOptions) {
    this.name = options.name
    this.url = options.url
    this.headers = options.headers
    this.timing = { ...sdkTiming, ...options.timing }
    this.userAgent = options.userAgent ?? "Python/3.13 websockets/15.0.1"
    // secrets.token_hex(10)
    this.connectionId = options.connectionId ?? randomBytes(10).toString("hex")
    this.maxAgeMs = options.maxAgeSeconds === undefined ? undefined : options.maxAgeSeconds * 1000
    this.maxMessageBytes = options.maxMessageBytes ?? 2 ** 20
    this.track = options.track ?? (() => {})
    this.track("GuavaSocket.__init__")
  }

  get state(): State {
    return this.stateValue
  }
  get closeReason(): CloseReason {
    return this.closeReasonValue ?? "unknown"
  }
  get closeDescription(): string {
    return this.closeDescriptionValue ?? "No description provided."
  }
  get lastSeenSequence(): number {
    return this.lastSeen
  }
  get lastSentSequence(): number {
    return this.lastSent
  }
  /** Sequences still unacknowledged by the server. */
  get unacked(): ReadonlyArray<number> {
    return this.buffer.map(([seq]) => seq)
  }
  /** TCP connections opened so far. */
  get connectionCount(): number {
    return this.connections
  }

  is_open(): boolean {
    this.track("GuavaSocket.is_open")
    return this.stateValue === "open"
  }

  /** `GuavaSocket.connect`: start the reconnect loop; resolve once open, reject if it closes first. */
  connect(): Promise<void> {
    this.track("GuavaSocket.connect")
    if (this.stateValue !== "never-opened" || this.loop !== undefined) {
      throw new SdkError("AssertionError", "GuavaSocket.connect() called twice")
    }
    this.loop = this.run()
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.stateValue === "open") {
          unsubscribe()
          resolve()
        } else if (this.stateValue === "closed") {
          unsubscribe()
          reject(new GuavaSocketClosedError(this.closeReason, this.closeDescription))
        }
      }
      const unsubscribe = this.watch.subscribe(check)
      check()
    })
  }

  /**
   * `GuavaSocket.close`: ask the reconnect loop to stop and wait for it. As in the SDK the loop
   * notices only when it next wakes (a frame arrives, or `recvTimeoutMs` of silence, which sends
   * a ping first); then the WebSocket is closed.
   */
  async close(): Promise<void> {
    this.track("GuavaSocket.close")
    if (this.loop === undefined) throw new SdkError("AssertionError", "GuavaSocket.close() before connect()")
    this.setCloseReason("done", "The socket was closed by the client.")
    this.shouldClose = true
    this.watch.notify()
    await this.loop
  }

  /** `GuavaSocket.send`: number, buffer and (when connected) send one payload. */
  send(payload: Record<string, unknown>): void {
    this.track("GuavaSocket.send")
    if (this.stateValue === "never-opened") throw new SdkError("AssertionError", "GuavaSocket.send() before connect()")
    if (this.stateValue === "closed") throw new GuavaSocketClosedError(this.closeReason, this.closeDescription)
    this.lastSent += 1
    this.buffer.push([this.lastSent, payload])
    const conn = this.conn
    // While reconnecting the SDK blocks on its lock; the message then goes out with the resends.
    if (conn !== undefined && conn.established) {
      this.sendFrame(conn, { message_type: "message", sequence: this.lastSent, payload }, false)
    }
  }

  /** `GuavaSocket.recv`: the next payload; fails once the socket is closed (queued payloads are lost). */
  recv(): Promise<Record<string, unknown>> {
    this.track("GuavaSocket.recv")
    if (this.stateValue === "never-opened") {
      return Promise.reject(new SdkError("AssertionError", "GuavaSocket.recv() before connect()"))
    }
    if (this.stateValue === "closed") {
      return Promise.reject(new GuavaSocketClosedError(this.closeReason, this.closeDescription))
    }
    const queued = this.received.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    return new Promise((resolve, reject) => this.recvWaiters.push({ resolve, reject }))
  }

  // -------------------------------------------------------------------------------------------
  // Test controls

  /** Drop the current TCP connection abruptly (`terminate()`), as a network failure would. */
  killConnection(): void {
    const conn = this.conn
    if (conn === undefined) return
    this.record({ type: "killed", connection: conn.index, at: Date.now() })
    conn.ws.terminate()
  }

  /** Hold every further connection attempt until `resumeReconnect()`. */
  pauseReconnect(): void {
    if (this.paused !== undefined) return
    let release = () => {}
    const promise = new Promise<void>((resolve) => {
      release = resolve
    })
    this.paused = { promise, release }
  }

  resumeReconnect(): void {
    const paused = this.paused
    this.paused = undefined
    paused?.release()
  }

  /** An agent that vanishes: drop the connection and never reconnect (until `resumeReconnect()`). */
  disappear(): void {
    this.pauseReconnect()
    this.killConnection()
  }

  /** Outgoing `message` payloads, in sending order (retransmissions excluded). */
  sentPayloads(): Array<Record<string, unknown>> {
    return this.frames.filter((f) => f.direction === "out" && !f.retransmission && messageFrame(f.frame))
      .map((f) => (f.frame as { payload: Record<string, unknown> }).payload)
  }

  /** Incoming `message` payloads, in arrival order (duplicates included). */
  receivedPayloads(): Array<Record<string, unknown>> {
    return this.frames.filter((f) => f.direction === "in" && messageFrame(f.frame))
      .map((f) => (f.frame as { payload: Record<string, unknown> }).payload)
  }

  /** Frames of one direction and `message_type`. */
  framesOf(direction: "out" | "in", messageType: string): Array<FrameRecord> {
    return this.frames.filter((f) =>
      f.direction === direction && typeof f.frame === "object" && f.frame !== null &&
      (f.frame as { message_type?: unknown }).message_type === messageType
    )
  }

  /** Wait for the socket to close for good (state `closed`). */
  waitClosed(timeoutMs = 30_000): Promise<void> {
    return this.watch.waitFor(() => this.stateValue === "closed", timeoutMs, `${this.name} to close`).then(() =>
      undefined
    )
  }

  // -------------------------------------------------------------------------------------------
  // The reconnect loop (`_reconnect_loop`)

  private async run(): Promise<void> {
    try {
      while (!this.shouldClose) {
        const conn = await this.establish(this.stateValue === "open")
        this.conn = conn
        const now = Date.now()
        this.opens.push(now)
        this.stateValue = "open"
        this.watch.notify()
        while (this.opens.length > 0 && (this.opens[0] ?? 0) <= Date.now() - this.timing.opensWindowMs) {
          this.opens.shift()
        }
        if (this.opens.length >= this.timing.maxOpens) {
          this.setCloseReason(
            "server-error",
            "Too many connections in the last minute. The server is probably in a bad state."
          )
          return
        }
        if ((await this.session(conn)) === "exit") return
      }
    } catch (error) {
      // "Exception in reconnection thread. Connection must be closed."
      this.failure = error
      this.record({ type: "crashed", error: String(error), at: Date.now() })
    } finally {
      this.stateValue = "closed"
      const dropped = this.received.splice(0)
      if (dropped.length > 0) this.record({ type: "dropped-unread", payloads: dropped.length, at: Date.now() })
      for (const waiter of this.recvWaiters.splice(0)) {
        waiter.reject(new GuavaSocketClosedError(this.closeReason, this.closeDescription))
      }
      this.record({ type: "closed", reason: this.closeReason, description: this.closeDescription, at: Date.now() })
      if (this.conn !== undefined) await this.closeConnection(this.conn)
      this.watch.notify()
    }
  }

  /** `_establish_socket`: dial, `open`, await `open-ack` or `close`, resend what the server lacks. */
  private async establish(isReopen: boolean): Promise<Connection> {
    let attempts = 0
    for (;;) {
      if (attempts >= this.timing.maxReconnectAttempts) {
        this.setCloseReason("reconnection-failed", `Couldn't connect to server after ${attempts} attempts.`)
        throw new GuavaSocketConnectionFailed(`Couldn't connect to server after ${attempts} attempts.`)
      }
      attempts += 1
      if (this.paused !== undefined) await this.paused.promise
      let conn: Connection | undefined
      try {
        conn = await this.dial(attempts)
        this.sendFrame(conn, {
          message_type: "open",
          name: this.name,
          connection_id: this.connectionId,
          is_reopen: isReopen,
          last_seen_sequence: this.lastSeen
        }, false)
        const answer = await conn.next(this.timing.openAckTimeoutMs)
        if (answer === "timeout") throw new Error("TimeoutError: no open-ack within the timeout")
        if (answer.kind === "closed") throw new Error(`ConnectionClosed (code ${answer.code}) before open-ack`)
        // A frame that is neither open-ack nor close fails validation: a failed attempt, retried.
        const response = decodeOpenResponse(answer.data, this.notes)
        if (response.message_type === "close") {
          this.setCloseReason(response.reason, response.description)
          throw new GuavaSocketClosedError(response.reason, response.description)
        }
        for (const [seq, payload] of this.buffer) {
          if (seq > response.last_seen_sequence) {
            this.sendFrame(conn, { message_type: "message", sequence: seq, payload }, true)
          }
        }
        this.prune(response.last_seen_sequence)
        conn.established = true
        return conn
      } catch (error) {
        if (conn !== undefined) void this.closeConnection(conn)
        if (error instanceof GuavaSocketClosedError) throw error
        this.record({
          type: "attempt-failed",
          connection: conn?.index ?? this.connections,
          error: error instanceof Error ? error.message : String(error),
          at: Date.now()
        })
        await sleep(this.timing.backoffMs(attempts))
      }
    }
  }

  /** The receive loop of one connection: "reconnect" after a drop, "exit" when done for good. */
  private async session(conn: Connection): Promise<"reconnect" | "exit"> {
    while (!this.shouldClose) {
      if (this.maxAgeMs !== undefined && Date.now() > this.createdAt + this.maxAgeMs) {
        this.setCloseReason("other", "The socket hit its max age limit.")
        return "exit"
      }
      const incoming = await conn.next(this.timing.recvTimeoutMs)
      if (incoming === "timeout") {
        if (!this.sendFrame(conn, { message_type: "ping", ping_timestamp: Date.now() }, false)) {
          return this.afterDrop()
        }
        continue
      }
      if (incoming.kind === "closed") return this.afterDrop()
      // Throws on anything but message/close/ping/pong/ack: the loop dies (protocol violation).
      const frame = decodeServerFrame(incoming.data, this.notes)
      switch (frame.message_type) {
        case "ping":
          if (
            !this.sendFrame(conn, {
              message_type: "pong",
              ping_timestamp: frame.ping_timestamp,
              pong_timestamp: Date.now()
            }, false)
          ) return this.afterDrop()
          break
        case "pong":
          break
        case "close":
          this.setCloseReason(frame.reason, frame.description)
          this.shouldClose = true
          return "exit"
        case "message":
          if (frame.sequence <= this.lastSeen) {
            this.record({ type: "duplicate", sequence: frame.sequence, at: Date.now() })
          } else {
            if (frame.sequence !== this.lastSeen + 1) {
              this.record({ type: "gap", expected: this.lastSeen + 1, got: frame.sequence, at: Date.now() })
            }
            this.lastSeen = frame.sequence
            this.deliver(frame.payload)
          }
          if (!this.sendFrame(conn, { message_type: "ack", last_seen_sequence: this.lastSeen }, false)) {
            return this.afterDrop()
          }
          break
        case "ack":
          this.prune(frame.last_seen_sequence)
          break
      }
      this.watch.notify()
    }
    return "exit"
  }

  /** `except ConnectionClosed: time.sleep(self._reconnect_timeout(1)); break`. */
  private async afterDrop(): Promise<"reconnect"> {
    await sleep(this.timing.backoffMs(1))
    return "reconnect"
  }

  private deliver(payload: Record<string, unknown>): void {
    const waiter = this.recvWaiters.shift()
    if (waiter !== undefined) waiter.resolve(payload)
    else this.received.push(payload)
    this.watch.notify()
  }

  private prune(peerLastSeen: number): void {
    while (this.buffer.length > 0 && (this.buffer[0]?.[0] ?? Infinity) <= peerLastSeen) this.buffer.shift()
  }

  private setCloseReason(reason: CloseReason, description: string): void {
    // First close reason wins.
    if (this.closeReasonValue === undefined) {
      this.closeReasonValue = reason
      this.closeDescriptionValue = description
    }
  }

  private record(entry: TransportRecord): void {
    this.transport.push(entry)
    this.watch.notify()
  }

  /** Send one envelope frame; false when the connection is closing or closed (ConnectionClosed). */
  private sendFrame(conn: Connection, frame: Record<string, unknown>, retransmission: boolean): boolean {
    if (conn.ws.readyState !== WebSocket.OPEN) return false
    const raw = JSON.stringify(frame)
    conn.ws.send(raw)
    this.frames.push({
      direction: "out",
      connection: conn.index,
      at: Date.now(),
      frame,
      raw,
      binary: false,
      retransmission
    })
    this.watch.notify()
    return true
  }

  /** Open one WebSocket connection (websockets `connect(url, additional_headers=..., open_timeout=10)`). */
  private dial(attempt: number): Promise<Connection> {
    this.connections += 1
    const index = this.connections
    this.record({ type: "dialing", connection: index, attempt, at: Date.now() })
    return new Promise<Connection>((resolve, reject) => {
      let settled = false
      const fail = (error: Error) => {
        if (settled) return
        settled = true
        reject(error)
      }
      const ws = new WebSocket(this.url, {
        headers: { ...this.headers, "User-Agent": this.userAgent },
        handshakeTimeout: this.timing.handshakeTimeoutMs,
        perMessageDeflate: true,
        maxPayload: this.maxMessageBytes,
        followRedirects: false
      })
      const conn = new Connection(index, ws)
      ws.on("unexpected-response", (request, response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          const status = response.statusCode ?? 0
          this.record({ type: "upgrade-refused", connection: index, status, body, at: Date.now() })
          fail(new UpgradeRefused(status, body))
          request.destroy()
        })
        response.on("error", () => fail(new Error("error reading the refused upgrade's body")))
      })
      ws.on("error", (error) => fail(error))
      ws.on("open", () => {
        this.record({ type: "ws-open", connection: index, extensions: ws.extensions, at: Date.now() })
        this.keepalive(conn)
        settled = true
        resolve(conn)
      })
      ws.on("message", (data: Buffer | ArrayBuffer | Array<Buffer>, isBinary: boolean) => {
        const bytes = Buffer.isBuffer(data)
          ? data
          : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data)
        const text = bytes.toString("utf8")
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {
          // Kept raw; decoding reports it as a protocol violation.
        }
        this.frames.push({
          direction: "in",
          connection: index,
          at: Date.now(),
          frame: parsed,
          raw: text,
          binary: isBinary,
          retransmission: false
        })
        conn.push({ kind: "frame", data: isBinary ? new Uint8Array(bytes) : text, binary: isBinary })
        this.watch.notify()
      })
      ws.on("close", (code: number) => {
        this.record({ type: "ws-closed", connection: index, code, at: Date.now() })
        conn.push({ kind: "closed", code })
        fail(new Error(`connection closed during the handshake (code ${code})`))
      })
    })
  }

  /** websockets' keepalive thread: a ping every interval, fail the connection (1011) without a pong. */
  private keepalive(conn: Connection): void {
    const interval = this.timing.keepaliveIntervalMs
    if (interval === null) return
    const tick = () => {
      if (conn.ws.readyState !== WebSocket.OPEN) return
      let answered = false
      conn.ws.once("pong", () => {
        answered = true
      })
      conn.ws.ping(randomBytes(4))
      setTimeout(() => {
        if (conn.ws.readyState !== WebSocket.OPEN) return
        if (!answered) {
          this.record({ type: "keepalive-timeout", connection: conn.index, at: Date.now() })
          conn.ws.close(1011, "keepalive ping timeout")
          setTimeout(() => conn.ws.terminate(), this.timing.closeTimeoutMs).unref()
          return
        }
        timer = setTimeout(tick, Math.max(0, interval - this.timing.keepaliveTimeoutMs))
        timer.unref()
      }, this.timing.keepaliveTimeoutMs).unref()
    }
    let timer = setTimeout(tick, interval)
    timer.unref()
    conn.ws.once("close", () => clearTimeout(timer))
  }

  /** `_try_close_websocket`: a normal close (1000), waiting up to `closeTimeoutMs` for the peer. */
  private closeConnection(conn: Connection): Promise<void> {
    const ws = conn.ws
    if (ws.readyState === WebSocket.CLOSED) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        ws.terminate()
        resolve()
      }, this.timing.closeTimeoutMs)
      ws.once("close", () => {
        clearTimeout(timer)
        resolve()
      })
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate()
      else if (ws.readyState === WebSocket.OPEN) ws.close(1000)
    })
  }
}

const messageFrame = (frame: unknown): boolean =>
  typeof frame === "object" && frame !== null && (frame as { message_type?: unknown }).message_type === "message"
