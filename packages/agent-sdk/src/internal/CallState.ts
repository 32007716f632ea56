/**
 * What a call knows, shared by its `Call` (which reads it and sends commands) and its session
 * (which records field values from events and marks the end).
 */
import type { JsonValue } from "@voice-agent/agent-protocol/Json"
import type { Command } from "../Commands.ts"
import { SocketClosedError } from "../Errors.ts"
import type { Logger } from "../Logger.ts"

export class CallState {
  readonly fields = new Map<string, JsonValue>()
  readonly variables = new Map<string, JsonValue>()
  /** The field keys of each task set, for validation when it completes. */
  readonly taskFields = new Map<string, ReadonlyArray<string>>()
  ended = false
  readonly callId: string
  readonly logger: Logger
  readonly #transmit: (command: Command) => void

  constructor(callId: string, transmit: (command: Command) => void, logger: Logger) {
    this.callId = callId
    this.#transmit = transmit
    this.logger = logger
  }

  /**
   * Sends a command, or drops it with a warning once the call is over (its socket closed): a
   * handler still running after the end must not fail for that.
   */
  send(command: Command): void {
    if (this.ended) {
      this.logger.warn(`Call ${this.callId} is over; ${command.command_type} was not sent`)
      return
    }
    try {
      this.#transmit(command)
    } catch (error) {
      if (!(error instanceof SocketClosedError)) throw error
      this.logger.warn(`Call ${this.callId}: ${command.command_type} was not sent (${error.message})`)
    }
  }
}
