/**
 * The reliable envelope of protocol v2 over `ws`: one logical connection that outlives the
 * WebSocket connections carrying it, delivering JSON object payloads in order, exactly once, in
 * both directions (see `Envelope.ts` for the frames).
 *
 * - **Open.** Each WebSocket connection starts with `open {name, connection_id, is_reopen,
 *   last_seen_sequence}`; the server answers `open-ack` (or a permanent `close`) within
 *   `openTimeoutMs` (10 s). `connection_id` (20 hex characters) is the same on every reconnect.
 * - **Sending.** `send` numbers payloads from 1 and keeps each in a buffer until the server's
 *   `ack` (or an `open-ack`) covers its sequence. Payloads sent before the first open-ack, or
 *   while reconnecting, wait in that buffer; after each open-ack the buffered payloads the server
 *   has not seen (sequence > its `last_seen_sequence`) are sent again, in order. The buffer holds
 *   at most `maxBufferedMessages` (10,000) payloads: when it is full, `send` throws
 *   `SendBufferFullError` and the payload is not queued (nothing already queued is dropped).
 * - **Receiving.** Every `message` is acknowledged with `ack {last_seen_sequence}`; a sequence
 *   already seen is dropped (and still acknowledged); a gap is logged, not repaired (the server
 *   resends what it has not seen acknowledged). Payloads are read with `for await`.
 * - **Liveness.** After `pingAfterMs` (10 s) without a frame from the server the client sends
 *   `ping`, and every `ping` is answered with `pong`. Beyond the reference client, a connection
 *   silent for `deadAfterMs` (30 s, i.e. two unanswered pings) is dropped and reopened.
 * - **Reconnecting.** A dropped connection is reopened with `is_reopen: true` after a delay of
 *   about 1 s; failed attempts are retried after ~1 s (failures 1-3), ~5 s (4-5), then ~10 s,
 *   with jitter, and after `maxFailures` (10) consecutive failures the socket closes for good
 *   (`reconnection-failed`). HTTP refusals of the upgrade (401 and 403 included) count as
 *   failures and are retried. More than `maxOpensPerMinute` (15) successful opens within a minute
 *   close it for good (`server-error`): the server is taken to be looping.
 * - **Closing.** A server `close` is permanent, whenever it comes. A frame that breaks the
 *   protocol after the open-ack (invalid JSON, a second open-ack, a non-object payload) closes
 *   the socket for good (`server-error`). `close()` closes it for good from this side (`done`):
 *   the WebSocket is closed without a `close` frame, as the reference client does. `maxAgeMs`
 *   closes it (`other`) once that old.
 *
 * @since 0.1.0
 */
import type { ClientFrame, CloseReason, OpenAck } from "@voice-agent/agent-protocol/Envelope"
import { parseServerFrame } from "@voice-agent/agent-protocol/Envelope"
import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import { randomBytes } from "node:crypto"
import WebSocket from "ws"
import { SendBufferFullError, SocketClosedError } from "./Errors.ts"
import { AsyncQueue } from "./internal/AsyncQueue.ts"
import type { Logger } from "./Logger.ts"
import { silentLogger } from "./Logger.ts"

export interface ReliableSocketOptions {
  /** The `ws:` / `wss:` URL, query included. */
  readonly url: string | URL
  /** `open.name`: `call-connection-{id}`, `listen-inbound`, `serve-campaign`. */
  readonly name: string
  /** Sent on every WebSocket upgrade (authorization included). */
  readonly headers?: Readonly<Record<string, string>>
  readonly logger?: Logger
  /** Time for the upgrade and then for the open-ack; default 10,000 ms. */
  readonly openTimeoutMs?: number
  /** Silence after which a ping is sent; default 10,000 ms. */
  readonly pingAfterMs?: number
  /** Silence after which the connection is taken as dead and reopened; default 30,000 ms. */
  readonly deadAfterMs?: number
  /** Consecutive failed attempts after which the socket closes for good; default 10. */
  readonly maxFailures?: number
  /** Successful opens within 60 s at which the socket closes for good; default 15. */
  readonly maxOpensPerMinute?: number
  /** The delay before retrying after the `failure`-th consecutive failure (1-based), in ms. */
  readonly reconnectDelayMs?: (failure: number) => number
  /** Payloads waiting for the server's acknowledgement at most; default 10,000. */
  readonly maxBufferedMessages?: number
  /** Age (from `connect`) at which the socket closes itself with reason `other`. */
  readonly maxAgeMs?: number
}

export interface CloseInfo {
  readonly reason: CloseReason
  readonly description: string
}

/**
 * `idle` before `connect`; `connecting` until the first open-ack; `open`; `reconnecting` between
 * connections; `closed` for good.
 */
export type SocketState = "idle" | "connecting" | "open" | "reconnecting" | "closed"

/** ~1 s for failures 1-3, ~5 s for 4-5, ~10 s after, each with ±50% jitter. */
export const defaultReconnectDelayMs = (failure: number): number => {
  const base = failure <= 3 ? 1_000 : failure <= 5 ? 5_000 : 10_000
  return base * (0.5 + Math.random())
}

const textOf = (data: WebSocket.RawData): string =>
  Array.isArray(data)
    ? Buffer.concat(data).toString("utf8")
    : Buffer.isBuffer(data)
    ? data.toString("utf8")
    : Buffer.from(data).toString("utf8")

/** How one WebSocket connection ended. */
type AttemptEnd =
  | { readonly kind: "failed"; readonly description: string }
  | { readonly kind: "dropped"; readonly description: string }
  | { readonly kind: "closed" }

interface Buffered {
  readonly sequence: number
  readonly payload: JsonObject
}

export class ReliableSocket implements AsyncIterable<JsonObject> {
  readonly name: string
  /** 20 hex characters, the same on every reconnect. */
  readonly connectionId: string = randomBytes(10).toString("hex")
  /** Resolves once the socket is closed for good, with why. */
  readonly closed: Promise<CloseInfo>

  private readonly url: string
  private readonly headers: Readonly<Record<string, string>>
  private readonly logger: Logger
  private readonly openTimeoutMs: number
  private readonly pingAfterMs: number
  private readonly deadAfterMs: number
  private readonly maxFailures: number
  private readonly maxOpensPerMinute: number
  private readonly reconnectDelayMs: (failure: number) => number
  private readonly maxBufferedMessages: number
  private readonly maxAgeMs: number | undefined

  private currentState: SocketState = "idle"
  private closeInfo: CloseInfo | undefined
  private lastSeen = 0
  private lastSent = 0
  private readonly buffer: Array<Buffered> = []
  private readonly received = new AsyncQueue<JsonObject>()
  private readonly opens: Array<number> = []
  private everOpened = false
  private ws: WebSocket | undefined
  private endAttempt: ((end: AttemptEnd) => void) | undefined
  private wake: (() => void) | undefined
  private maxAgeTimer: NodeJS.Timeout | undefined
  private ready: Promise<void> | undefined
  private settleReady: { resolve: () => void; reject: (error: Error) => void } | undefined
  private resolveClosed!: (info: CloseInfo) => void

  constructor(options: ReliableSocketOptions) {
    this.name = options.name
    this.url = options.url.toString()
    this.headers = options.headers ?? {}
    this.logger = options.logger ?? silentLogger
    this.openTimeoutMs = options.openTimeoutMs ?? 10_000
    this.pingAfterMs = options.pingAfterMs ?? 10_000
    this.deadAfterMs = options.deadAfterMs ?? 30_000
    this.maxFailures = options.maxFailures ?? 10
    this.maxOpensPerMinute = options.maxOpensPerMinute ?? 15
    this.reconnectDelayMs = options.reconnectDelayMs ?? defaultReconnectDelayMs
    this.maxBufferedMessages = options.maxBufferedMessages ?? 10_000
    this.maxAgeMs = options.maxAgeMs
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve
    })
  }

  get state(): SocketState {
    return this.currentState
  }

  /** Why the socket closed, once it has. */
  get closeReason(): CloseInfo | undefined {
    return this.closeInfo
  }

  /** Payloads sent and not yet acknowledged by the server. */
  get unacknowledged(): number {
    return this.buffer.length
  }

  /** The highest sequence received from the server. */
  get lastSeenSequence(): number {
    return this.lastSeen
  }

  /**
   * Opens the socket (the first call starts it; later calls answer the same promise). Resolves
   * at the first open-ack; rejects with `SocketClosedError` if the socket closes for good first.
   */
  connect(): Promise<void> {
    if (this.ready !== undefined) return this.ready
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = { resolve, reject }
    })
    // Whoever calls connect gets the rejection; this keeps an ignored one from crashing Node.
    this.ready.catch(() => {})
    if (this.closeInfo !== undefined) {
      this.settleReady?.reject(this.closedError())
      return this.ready
    }
    this.currentState = "connecting"
    if (this.maxAgeMs !== undefined) {
      this.maxAgeTimer = setTimeout(
        () => this.finish({ reason: "other", description: "The socket reached its maximum age." }),
        this.maxAgeMs
      )
      this.maxAgeTimer.unref()
    }
    void this.run()
    return this.ready
  }

  /**
   * Queues `payload` as the next message and sends it now if the socket is open (otherwise at the
   * next open-ack). Answers its sequence. Throws `SocketClosedError` once the socket is closed and
   * `SendBufferFullError` when `maxBufferedMessages` payloads are unacknowledged.
   */
  send(payload: JsonObject): number {
    if (this.closeInfo !== undefined) throw this.closedError()
    if (this.buffer.length >= this.maxBufferedMessages) {
      throw new SendBufferFullError(this.name, this.maxBufferedMessages)
    }
    const sequence = ++this.lastSent
    this.buffer.push({ sequence, payload })
    if (this.currentState === "open" && this.ws !== undefined) {
      this.transmit(this.ws, { message_type: "message", sequence, payload })
    }
    return sequence
  }

  /** Closes the socket for good (reason `done`). Safe to call more than once. */
  close(): void {
    this.finish({ reason: "done", description: "The client closed the socket." })
  }

  /** The payloads received, in sequence order, once each; ends when the socket closes. */
  [Symbol.asyncIterator](): AsyncIterator<JsonObject, undefined> {
    return this.received[Symbol.asyncIterator]()
  }

  private closedError(): SocketClosedError {
    const info = this.closeInfo ?? { reason: "unknown", description: "" }
    return new SocketClosedError(this.name, info.reason, info.description)
  }

  private finish(info: CloseInfo): void {
    if (this.closeInfo !== undefined) return
    this.closeInfo = info
    this.currentState = "closed"
    clearTimeout(this.maxAgeTimer)
    this.endAttempt?.({ kind: "closed" })
    this.wake?.()
    this.received.end()
    this.settleReady?.reject(this.closedError())
    this.resolveClosed(info)
    const log = info.reason === "done" ? this.logger.debug : this.logger.warn
    log(`[${this.name}] closed for good (${info.reason}): ${info.description}`)
  }

  private async run(): Promise<void> {
    let failures = 0
    while (this.closeInfo === undefined) {
      const end = await this.attempt()
      if (end.kind === "closed" || this.closeInfo !== undefined) return
      if (end.kind === "failed") {
        failures += 1
        if (failures >= this.maxFailures) {
          this.finish({
            reason: "reconnection-failed",
            description: `Could not connect after ${failures} attempts; last: ${end.description}`
          })
          return
        }
        const delay = this.reconnectDelayMs(failures)
        this.logger.warn(
          `[${this.name}] could not connect (${end.description}); retrying in ${Math.round(delay)} ms`
        )
        await this.sleep(delay)
      } else {
        failures = 0
        this.currentState = "reconnecting"
        const delay = this.reconnectDelayMs(1)
        this.logger.info(`[${this.name}] connection lost (${end.description}); reconnecting in ${Math.round(delay)} ms`)
        await this.sleep(delay)
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.wake = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wake = done
    })
  }

  private transmit(ws: WebSocket, frame: ClientFrame): void {
    if (ws.readyState !== WebSocket.OPEN) return
    // A failed write means the connection is going; its close event reconnects and resends.
    ws.send(JSON.stringify(frame), (error) => {
      if (error !== undefined && error !== null) this.logger.debug(`[${this.name}] write failed: ${error.message}`)
    })
  }

  /** One WebSocket connection, from the upgrade to its end. */
  private attempt(): Promise<AttemptEnd> {
    return new Promise((resolve) => {
      const isReopen = this.everOpened
      const ws = new WebSocket(this.url, {
        headers: { ...this.headers },
        handshakeTimeout: this.openTimeoutMs,
        perMessageDeflate: false
      })
      let acknowledged = false
      let settled = false
      let lastError = ""
      let openTimer: NodeJS.Timeout | undefined
      let silenceTimer: NodeJS.Timeout | undefined
      let silentPings = 0

      const end = (result: AttemptEnd): void => {
        if (settled) return
        settled = true
        clearTimeout(openTimer)
        clearTimeout(silenceTimer)
        this.ws = undefined
        this.endAttempt = undefined
        if (result.kind === "closed" && ws.readyState === WebSocket.OPEN) ws.close(1000)
        else if (ws.readyState !== WebSocket.CLOSED) ws.terminate()
        resolve(result)
      }
      this.ws = ws
      this.endAttempt = end

      const violation = (description: string): void => {
        this.finish({ reason: "server-error", description: `Protocol violation: ${description}` })
      }

      const onSilence = (): void => {
        silentPings += 1
        if (silentPings * this.pingAfterMs >= this.deadAfterMs) {
          end({ kind: "dropped", description: `no frame from the server for ${silentPings * this.pingAfterMs} ms` })
          return
        }
        this.transmit(ws, { message_type: "ping", ping_timestamp: Date.now() })
        silenceTimer = setTimeout(onSilence, this.pingAfterMs)
      }
      const heard = (): void => {
        clearTimeout(silenceTimer)
        silentPings = 0
        silenceTimer = setTimeout(onSilence, this.pingAfterMs)
      }

      ws.on("open", () => {
        this.transmit(ws, {
          message_type: "open",
          name: this.name,
          connection_id: this.connectionId,
          is_reopen: isReopen,
          last_seen_sequence: this.lastSeen
        })
        openTimer = setTimeout(
          () => end({ kind: "failed", description: `no open-ack within ${this.openTimeoutMs} ms` }),
          this.openTimeoutMs
        )
      })

      ws.on("message", (data: WebSocket.RawData) => {
        if (settled) return
        const frame = parseServerFrame(textOf(data))
        if (!acknowledged) {
          if (typeof frame === "string") return end({ kind: "failed", description: `bad answer to open: ${frame}` })
          if (frame.message_type === "close") {
            return this.finish({ reason: frame.reason, description: frame.description })
          }
          if (frame.message_type !== "open-ack") {
            return end({ kind: "failed", description: `expected open-ack, got ${frame.message_type}` })
          }
          acknowledged = true
          clearTimeout(openTimer)
          this.opened(ws, frame)
          if (!settled) heard()
          return
        }
        if (typeof frame === "string") return violation(frame)
        heard()
        switch (frame.message_type) {
          case "message":
            if (frame.sequence <= this.lastSeen) {
              this.logger.debug(`[${this.name}] dropped duplicate message ${frame.sequence}`)
            } else {
              if (frame.sequence !== this.lastSeen + 1) {
                this.logger.warn(`[${this.name}] sequence gap: expected ${this.lastSeen + 1}, got ${frame.sequence}`)
              }
              this.lastSeen = frame.sequence
              this.received.push(frame.payload)
            }
            this.transmit(ws, { message_type: "ack", last_seen_sequence: this.lastSeen })
            return
          case "ack":
            this.prune(frame.last_seen_sequence)
            return
          case "ping":
            this.transmit(ws, {
              message_type: "pong",
              ping_timestamp: frame.ping_timestamp,
              pong_timestamp: Date.now()
            })
            return
          case "pong":
            return
          case "close":
            return this.finish({ reason: frame.reason, description: frame.description })
          case "open-ack":
            return violation("a second open-ack")
        }
      })

      ws.on("error", (error: Error) => {
        lastError = error.message
      })
      ws.on("close", (code: number) => {
        const description = lastError === "" ? `closed with code ${code}` : lastError
        end(acknowledged ? { kind: "dropped", description } : { kind: "failed", description })
      })
    })
  }

  /** An open-ack: resend what the server has not seen, prune what it has, and go `open`. */
  private opened(ws: WebSocket, ack: OpenAck): void {
    if (ack.last_seen_sequence > this.lastSent) {
      this.logger.warn(
        `[${this.name}] the server claims sequence ${ack.last_seen_sequence} but only ${this.lastSent} were sent`
      )
    }
    for (const { sequence, payload } of this.buffer) {
      if (sequence > ack.last_seen_sequence) this.transmit(ws, { message_type: "message", sequence, payload })
    }
    this.prune(ack.last_seen_sequence)
    const now = Date.now()
    this.opens.push(now)
    while (this.opens.length > 0 && (this.opens[0] ?? now) <= now - 60_000) this.opens.shift()
    if (this.opens.length >= this.maxOpensPerMinute) {
      this.finish({
        reason: "server-error",
        description: `${this.opens.length} connections in the last minute; the server is probably looping`
      })
      return
    }
    this.logger.debug(
      `[${this.name}] open (${this.everOpened ? "reopen" : "first open"}), connection ${this.connectionId}`
    )
    this.everOpened = true
    this.currentState = "open"
    this.settleReady?.resolve()
  }

  private prune(lastSeenByServer: number): void {
    let count = 0
    while (count < this.buffer.length && (this.buffer[count]?.sequence ?? Infinity) <= lastSeenByServer) count += 1
    if (count > 0) this.buffer.splice(0, count)
  }
}
