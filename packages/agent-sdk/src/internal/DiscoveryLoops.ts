/**
 * The two discovery loops: listening for inbound calls (`v2/listen-inbound`) and serving a
 * campaign's calls (`v1/serve-campaign/{id}`). Each keeps one reliable socket open, attaches to
 * the calls it is given (each on its own call socket, concurrently), and returns when stopped
 * (`signal`) or rejects when the socket closes for good on its own; either way only after the
 * calls it started have ended.
 */
import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import type { CallOutcome } from "../CallOutcome.ts"
import type { CampaignReply, InboundReply } from "../Discovery.ts"
import { decodeCampaign, decodeInbound } from "../Discovery.ts"
import { SocketClosedError } from "../Errors.ts"
import type { CallDecision } from "../Hooks.ts"
import { ReliableSocket } from "../ReliableSocket.ts"
import type { AgentContext, CallSpec } from "./CallSession.ts"
import { runCall } from "./CallSession.ts"

export interface LoopOptions {
  readonly signal?: AbortSignal | undefined
  /** Called with each call's outcome (the agent logs them too). */
  readonly onCallEnd?: ((outcome: CallOutcome) => void) | undefined
  /** Called on `listen-started`: the server now offers calls to this listener. */
  readonly onListening?: ((otherListeners: number) => void) | undefined
}

/** Runs `handle` on every payload of a discovery socket until it closes; see the module comment. */
const serve = async (
  context: AgentContext,
  socket: ReliableSocket,
  options: LoopOptions,
  describe: string,
  handle: (payload: JsonObject, attach: (spec: CallSpec) => void) => void
): Promise<void> => {
  const { logger } = context
  const { signal } = options
  if (signal?.aborted === true) return
  const stop = (): void => socket.close()
  signal?.addEventListener("abort", stop, { once: true })
  const calls = new Set<Promise<void>>()
  const attach = (spec: CallSpec): void => {
    const running = runCall(context, spec).then((outcome) => {
      calls.delete(running)
      options.onCallEnd?.(outcome)
    })
    calls.add(running)
  }
  try {
    socket.connect().then(() => logger.info(`${describe}: connected`), () => {})
    for await (const payload of socket) handle(payload, attach)
  } finally {
    signal?.removeEventListener("abort", stop)
  }
  if (calls.size > 0) logger.info(`${describe}: stopped; waiting for ${calls.size} call(s) to end`)
  while (calls.size > 0) await Promise.all(calls)
  const closed = socket.closeReason ?? { reason: "unknown", description: "" }
  if (closed.reason !== "done") throw new SocketClosedError(socket.name, closed.reason, closed.description)
}

/** The server took the listener (`listen-started`): logged, then `onListening` (a failure is logged). */
const listening = (context: AgentContext, options: LoopOptions, describe: string, otherListeners: number): void => {
  context.logger.info(`${describe} (${otherListeners} other listener(s))`)
  try {
    options.onListening?.(otherListeners)
  } catch (error) {
    context.logger.error(`${describe}: the onListening callback failed: ${String(error)}`)
  }
}

/** Sends on a discovery socket; a socket closed meanwhile is logged, not thrown. */
const reply = (context: AgentContext, socket: ReliableSocket, message: InboundReply | CampaignReply): void => {
  try {
    socket.send(message)
  } catch (error) {
    context.logger.warn(
      `${socket.name}: ${message.message_type} for call ${message.call_id} was not sent: ${String(error)}`
    )
  }
}

export type InboundTarget =
  | { readonly phoneNumber: string }
  | { readonly webrtcCode: string }
  | { readonly sipCode: string }

export const listenInbound = (
  context: AgentContext,
  target: InboundTarget,
  options: LoopOptions & { readonly variables?: JsonObject | undefined }
): Promise<void> => {
  const { logger, hooks } = context
  const url = context.connection.wsUrl("v2/listen-inbound")
  const [parameter, value, describe] = "phoneNumber" in target
    ? ["phone_number", target.phoneNumber, `Listening on ${target.phoneNumber}`]
    : "webrtcCode" in target
    ? ["webrtc_code", target.webrtcCode, "Listening on a WebRTC code"]
    : ["sip_code", target.sipCode, "Listening on a SIP code"]
  url.searchParams.set(parameter, value)
  const socket = new ReliableSocket({
    ...context.socket,
    url,
    name: "listen-inbound",
    headers: context.connection.headers,
    logger
  })
  const decide = async (callId: string, info: Parameters<NonNullable<typeof hooks.callReceived>>[0]) => {
    try {
      return hooks.callReceived === undefined ? "accept" : await hooks.callReceived(info)
    } catch (error) {
      logger.error(`Call ${callId}: the onCallReceived handler failed; declining: ${String(error)}`)
      return "decline" satisfies CallDecision
    }
  }
  return serve(context, socket, options, describe, (payload, attach) => {
    const decoded = decodeInbound(payload)
    if (decoded._tag === "invalid") {
      logger.warn(`${describe}: ignored an invalid message (${decoded.reason})`)
      if (decoded.callId !== undefined && payload["message_type"] === "assign-call") {
        reply(context, socket, { message_type: "decline-call", call_id: decoded.callId })
      }
      return
    }
    const message = decoded.message
    switch (message.type) {
      case "listen-started":
        listening(context, options, describe, message.otherListeners)
        return
      case "incoming-call":
        reply(context, socket, { message_type: "claim-call", call_id: message.callId })
        return
      case "assign-call":
        void decide(message.callId, message.callInfo).then((decision) => {
          if (decision === "accept") {
            logger.info(`Call ${message.callId}: accepted`)
            reply(context, socket, { message_type: "answer-call", call_id: message.callId })
            attach({
              callId: message.callId,
              info: message.callInfo,
              route: "v2/connect-call",
              variables: options.variables ?? {}
            })
          } else {
            logger.info(`Call ${message.callId}: declined`)
            reply(context, socket, { message_type: "decline-call", call_id: message.callId })
          }
        })
        return
    }
  })
}

export const serveCampaign = (
  context: AgentContext,
  campaign: { readonly id: string; readonly code: string },
  options: LoopOptions
): Promise<void> => {
  const { logger } = context
  const describe = `Serving campaign ${campaign.code}`
  const socket = new ReliableSocket({
    ...context.socket,
    url: context.connection.wsUrl(`v1/serve-campaign/${encodeURIComponent(campaign.id)}`),
    name: "serve-campaign",
    headers: context.connection.headers,
    logger
  })
  return serve(context, socket, options, describe, (payload, attach) => {
    const decoded = decodeCampaign(payload)
    if (decoded._tag === "invalid") {
      logger.warn(`${describe}: ignored an invalid message (${decoded.reason})`)
      if (decoded.callId !== undefined && payload["message_type"] === "initiate-and-assign-call") {
        reply(context, socket, { message_type: "init-controller-failed", call_id: decoded.callId })
      }
      return
    }
    const message = decoded.message
    switch (message.type) {
      case "listen-started":
        listening(context, options, describe, message.otherListeners)
        return
      case "initiate-and-assign-call":
        logger.info(`Call ${message.callId}: campaign call to ${message.phoneNumber}`)
        reply(context, socket, { message_type: "controller-ready", call_id: message.callId })
        attach({
          callId: message.callId,
          info: { callType: "pstn", fromNumber: null, toNumber: message.phoneNumber },
          route: "v2/connect-campaign-call",
          variables: message.data
        })
        return
    }
  })
}
