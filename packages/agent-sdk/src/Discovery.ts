/**
 * The discovery sockets' payloads, tagged by `message_type` (inside envelope `message`s).
 *
 * Inbound (`v2/listen-inbound?phone_number=` | `webrtc_code=` | `sip_code=`, open name
 * `listen-inbound`): server `listen-started {other_listeners}`; server `incoming-call {call_id}`
 * → client `claim-call {call_id}` → server `assign-call {call_id, call_info}` (only to the
 * listener that won the claim) → client `answer-call {call_id}` (then it attaches to
 * `v2/connect-call/{call_id}`) or `decline-call {call_id}`.
 *
 * Campaign (`v1/serve-campaign/{campaign_id}`, open name `serve-campaign`): server
 * `listen-started {other_listeners}`; server `initiate-and-assign-call {call_id, contact_data:
 * {phone_number, data}}` → client `controller-ready {call_id}` (then it attaches to
 * `v2/connect-campaign-call/{call_id}`, `data` becoming the call's variables) or
 * `init-controller-failed {call_id}`.
 *
 * @since 0.1.0
 */
import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import { isObject } from "@voice-agent/agent-protocol/Json"
import type { CallInfo } from "./CallInfo.ts"
import { decodeCallInfo } from "./CallInfo.ts"
import * as Read from "./internal/Read.ts"

export interface ListenStarted {
  readonly type: "listen-started"
  readonly otherListeners: number
}

export interface IncomingCall {
  readonly type: "incoming-call"
  readonly callId: string
}

export interface AssignCall {
  readonly type: "assign-call"
  readonly callId: string
  readonly callInfo: CallInfo
}

export interface InitiateAndAssignCall {
  readonly type: "initiate-and-assign-call"
  readonly callId: string
  readonly phoneNumber: string
  /** The contact's `data`, `{}` when absent. */
  readonly data: JsonObject
}

export type InboundMessage = ListenStarted | IncomingCall | AssignCall
export type CampaignMessage = ListenStarted | InitiateAndAssignCall

export type Decoded<A> =
  | { readonly _tag: "message"; readonly message: A }
  /** Unreadable; `callId` when at least that could be read (so the call can be refused). */
  | { readonly _tag: "invalid"; readonly reason: string; readonly callId?: string }

export type InboundReply =
  | { readonly message_type: "claim-call"; readonly call_id: string }
  | { readonly message_type: "answer-call"; readonly call_id: string }
  | { readonly message_type: "decline-call"; readonly call_id: string }

export type CampaignReply =
  | { readonly message_type: "controller-ready"; readonly call_id: string }
  | { readonly message_type: "init-controller-failed"; readonly call_id: string }

const decodeWith = <A>(payload: JsonObject, read: (payload: JsonObject) => A): Decoded<A> => {
  try {
    return { _tag: "message", message: read(payload) }
  } catch (error) {
    if (!(error instanceof Read.Invalid)) throw error
    const callId = payload["call_id"]
    const type = JSON.stringify(payload["message_type"] ?? null)
    return {
      _tag: "invalid",
      reason: `${type}: ${error.message}`,
      ...(typeof callId === "string" ? { callId } : {})
    }
  }
}

const listenStarted = (payload: JsonObject): ListenStarted => ({
  type: "listen-started",
  otherListeners: Read.integer(payload, "other_listeners")
})

/** Decodes one payload of the inbound socket. */
export const decodeInbound = (payload: JsonObject): Decoded<InboundMessage> =>
  decodeWith(payload, (p): InboundMessage => {
    switch (Read.oneOf(p, "message_type", ["listen-started", "incoming-call", "assign-call"])) {
      case "listen-started":
        return listenStarted(p)
      case "incoming-call":
        return { type: "incoming-call", callId: Read.string(p, "call_id") }
      case "assign-call":
        return { type: "assign-call", callId: Read.string(p, "call_id"), callInfo: decodeCallInfo(p["call_info"]) }
    }
  })

/** Decodes one payload of the campaign socket. */
export const decodeCampaign = (payload: JsonObject): Decoded<CampaignMessage> =>
  decodeWith(payload, (p): CampaignMessage => {
    switch (Read.oneOf(p, "message_type", ["listen-started", "initiate-and-assign-call"])) {
      case "listen-started":
        return listenStarted(p)
      case "initiate-and-assign-call": {
        const callId = Read.string(p, "call_id")
        const contact = p["contact_data"]
        if (!isObject(contact)) throw new Read.Invalid("contact_data must be an object")
        const data = contact["data"] ?? {}
        if (!isObject(data)) throw new Read.Invalid("contact_data.data must be an object")
        return {
          type: "initiate-and-assign-call",
          callId,
          phoneNumber: Read.phoneNumber(contact, "phone_number"),
          data
        }
      }
    }
  })
