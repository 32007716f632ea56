/**
 * How a call ended, as `agent.callPhone` answers it: the server's session end (with its
 * termination reason and do-not-call flag), a failed outbound dial, or a call socket lost for
 * good before either; each with the field values collected.
 *
 * @since 0.1.0
 */
import type { CloseReason } from "@voice-agent/agent-protocol/Envelope"
import type { JsonValue } from "@voice-agent/agent-protocol/Json"
import type { TerminationReason } from "./Events.ts"

interface Common {
  readonly callId: string
  /** The field values collected, by key. */
  readonly fields: Readonly<Record<string, JsonValue>>
}

/** `bot-session-ended`: the conversation happened and is over. */
export interface CallEnded extends Common {
  readonly status: "ended"
  readonly terminationReason: TerminationReason
  /** The callee asked not to be called again. */
  readonly dnc: boolean
}

/** `outbound-call-failed`: the dial did not connect (busy, no answer, refused …). */
export interface CallFailed extends Common {
  readonly status: "failed"
  readonly errorCode: number
  readonly errorReason: string
}

/** The call socket closed for good before the server said how the call ended. */
export interface CallDisconnected extends Common {
  readonly status: "disconnected"
  readonly reason: CloseReason
  readonly description: string
}

export type CallOutcome = CallEnded | CallFailed | CallDisconnected
