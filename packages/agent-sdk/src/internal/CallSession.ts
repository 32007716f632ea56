/**
 * Attaching to one call: the call socket (`{route}/{call_id}`, open name
 * `call-connection-{call_id}`, closed after 5 hours), the attach commands, `onCallStart`, then
 * every event in order until the session ends, the outbound dial fails, or the socket is lost.
 *
 * Attach order: `set-persona`, `registered-hooks`, one `set-variable` per initial variable, then
 * whatever `onCallStart` sends. As in the reference SDK, the socket opens once `onCallStart` has
 * returned (awaited, when async), so the server receives all of them as the first messages.
 */
import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import { Call } from "../Call.ts"
import type { Persona } from "../Call.ts"
import type { CallInfo } from "../CallInfo.ts"
import type { CallOutcome } from "../CallOutcome.ts"
import type { Connection } from "../Config.ts"
import type { CallEvent, OutboundCallFailed, SessionEnded } from "../Events.ts"
import { decodeEvent } from "../Events.ts"
import type { Hooks } from "../Hooks.ts"
import type { Logger } from "../Logger.ts"
import type { ReliableSocketOptions } from "../ReliableSocket.ts"
import { ReliableSocket } from "../ReliableSocket.ts"
import { CallState } from "./CallState.ts"
import { dispatch } from "./Dispatch.ts"

/** Socket settings an agent may override (tests shorten the delays). */
export type SocketTuning = Partial<
  Pick<
    ReliableSocketOptions,
    | "openTimeoutMs"
    | "pingAfterMs"
    | "deadAfterMs"
    | "maxFailures"
    | "maxOpensPerMinute"
    | "reconnectDelayMs"
    | "maxBufferedMessages"
  >
>

/** What every call of one agent shares. */
export interface AgentContext {
  readonly connection: Connection
  readonly logger: Logger
  readonly persona: Persona
  readonly acceptDtmf: boolean
  readonly hooks: Hooks
  readonly socket: SocketTuning
}

export type CallRoute = "v2/connect-call" | "v2/connect-campaign-call"

export interface CallSpec {
  readonly callId: string
  readonly info: CallInfo
  readonly route: CallRoute
  readonly variables: JsonObject
}

const FIVE_HOURS_MS = 5 * 60 * 60 * 1000

const isTerminal = (event: CallEvent): event is SessionEnded | OutboundCallFailed =>
  event.type === "bot-session-ended" || event.type === "outbound-call-failed"

/** Runs one call to its end. Never rejects: how it ended is the outcome. */
export const runCall = async (context: AgentContext, spec: CallSpec): Promise<CallOutcome> => {
  const { connection, logger, hooks } = context
  const { callId } = spec
  const socket = new ReliableSocket({
    ...context.socket,
    url: connection.wsUrl(`${spec.route}/${encodeURIComponent(callId)}`),
    name: `call-connection-${callId}`,
    headers: connection.headers,
    logger,
    maxAgeMs: FIVE_HOURS_MS
  })
  const state = new CallState(callId, (command) => void socket.send(command), logger)
  const call = new Call(callId, spec.info, state)

  call.setPersona(context.persona)
  call.send({
    command_type: "registered-hooks",
    has_on_question: hooks.question !== undefined,
    has_on_intent: false,
    has_on_action_requested: hooks.actionRequest !== undefined,
    has_on_escalate: hooks.escalate !== undefined,
    accept_dtmf_for_numbers: context.acceptDtmf
  })
  for (const [key, value] of Object.entries(spec.variables)) call.setVariable(key, value)

  if (hooks.callStart !== undefined) {
    try {
      await hooks.callStart(call)
    } catch (error) {
      logger.error(
        `Call ${callId}: the onCallStart handler failed: ${error instanceof Error ? error.stack : String(error)}`
      )
      call.send({ command_type: "expert-error", message: "The agent's code failed while starting the call." })
    }
  }

  socket.connect().then(
    () => logger.info(`Call ${callId}: attached`),
    () => {}
  )
  let end: SessionEnded | OutboundCallFailed | undefined
  for await (const payload of socket) {
    const decoded = decodeEvent(payload)
    if (decoded._tag === "unknown") {
      logger.debug(`Call ${callId}: ignored an event of unknown type ${decoded.eventType}`)
      continue
    }
    if (decoded._tag === "invalid") {
      logger.warn(`Call ${callId}: ignored an invalid event (${decoded.reason})`)
      continue
    }
    await dispatch(hooks, call, state, decoded.event)
    if (isTerminal(decoded.event)) {
      end = decoded.event
      break
    }
  }
  state.ended = true
  socket.close()

  const fields = call.fields
  if (end?.type === "bot-session-ended") {
    return { status: "ended", callId, terminationReason: end.terminationReason, dnc: end.dnc, fields }
  }
  if (end?.type === "outbound-call-failed") {
    return { status: "failed", callId, errorCode: end.errorCode, errorReason: end.errorReason, fields }
  }
  const closed = socket.closeReason ?? { reason: "unknown", description: "" }
  logger.warn(`Call ${callId}: the call socket closed before the call ended (${closed.reason}): ${closed.description}`)
  return { status: "disconnected", callId, reason: closed.reason, description: closed.description, fields }
}
