/**
 * The SDK's errors. Call outcomes (a hang-up, a failed dial, a lost socket) are not errors: they
 * are `CallOutcome`s. Errors are for what keeps the SDK from working at all.
 *
 * @since 0.1.0
 */
import type { CloseReason } from "@voice-agent/agent-protocol/Envelope"

/** The configuration is incomplete or invalid (no API key, a base URL that is not http(s)). */
export class ConfigError extends Error {
  override readonly name = "ConfigError"
}

/** An HTTP request to the server was answered with a non-2xx status (or an unreadable body). */
export class ApiError extends Error {
  override readonly name = "ApiError"
  readonly method: string
  readonly url: string
  readonly status: number
  readonly body: string
  constructor(method: string, url: string, status: number, body: string) {
    super(`HTTP ${status} for ${method} ${url}${body === "" ? "" : `: ${body.slice(0, 500)}`}`)
    this.method = method
    this.url = url
    this.status = status
    this.body = body
  }
}

/**
 * A socket is closed for good: the server sent `close`, reconnection failed, or the client closed
 * it. Sending on it, or waiting for it to open, fails with this.
 */
export class SocketClosedError extends Error {
  override readonly name = "SocketClosedError"
  readonly socketName: string
  readonly reason: CloseReason
  readonly description: string
  constructor(socketName: string, reason: CloseReason, description: string) {
    super(`Socket ${socketName} closed (${reason}): ${description}`)
    this.socketName = socketName
    this.reason = reason
    this.description = description
  }
}

/**
 * A socket's send buffer (messages sent but not yet acknowledged by the server) is full: the
 * message was not queued. The socket stays usable; the buffer drains as the server acknowledges.
 */
export class SendBufferFullError extends Error {
  override readonly name = "SendBufferFullError"
  readonly socketName: string
  readonly limit: number
  constructor(socketName: string, limit: number) {
    super(
      `Socket ${socketName}: ${limit} messages are waiting for the server's acknowledgement; the message was not sent`
    )
    this.socketName = socketName
    this.limit = limit
  }
}
