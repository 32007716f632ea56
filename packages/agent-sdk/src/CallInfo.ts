/**
 * What the server says about a call: how it reached the agent (`call_info` on the wire, tagged
 * by `call_type`). Inbound calls carry it in `assign-call`; for outbound and campaign calls the
 * SDK fills it from the numbers it knows.
 *
 * @since 0.1.0
 */
import { isObject } from "@voice-agent/agent-protocol/Json"
import * as Read from "./internal/Read.ts"

/** A phone call. `fromNumber` is `null` when the caller withheld it (or, on campaign calls, unknown). */
export interface PstnCallInfo {
  readonly callType: "pstn"
  readonly fromNumber: string | null
  readonly toNumber: string
  readonly callerId?: string
}

export interface WebrtcCallInfo {
  readonly callType: "webrtc"
  readonly webrtcCode: string
}

export interface SipCallInfo {
  readonly callType: "sip"
  readonly fromAor: string
  readonly sipCode?: string
  readonly sipHeaders: Readonly<Record<string, string>>
}

export type CallInfo = PstnCallInfo | WebrtcCallInfo | SipCallInfo

/**
 * Reads a wire `call_info`: `{call_type: "pstn", from_number, to_number, caller_id?}`,
 * `{call_type: "webrtc", webrtc_code}` or `{call_type: "sip", from_aor, sip_code?, sip_headers}`.
 * Numbers must be E.164. Throws `Read.Invalid` on anything else.
 */
export const decodeCallInfo = (value: unknown): CallInfo => {
  if (!isObject(value)) throw new Read.Invalid("call_info must be an object")
  switch (Read.oneOf(value, "call_type", ["pstn", "webrtc", "sip"])) {
    case "pstn": {
      if (!("from_number" in value)) throw new Read.Invalid("call_info.from_number is required (null allowed)")
      const callerId = Read.optionalString(value, "caller_id")
      return {
        callType: "pstn",
        fromNumber: Read.optionalPhoneNumber(value, "from_number"),
        toNumber: Read.phoneNumber(value, "to_number"),
        ...(callerId === undefined ? {} : { callerId })
      }
    }
    case "webrtc":
      return { callType: "webrtc", webrtcCode: Read.string(value, "webrtc_code") }
    case "sip": {
      const sipCode = Read.optionalString(value, "sip_code")
      const rawHeaders = value["sip_headers"] ?? {}
      if (!isObject(rawHeaders) || !Object.values(rawHeaders).every((header) => typeof header === "string")) {
        throw new Read.Invalid("call_info.sip_headers must be an object of strings")
      }
      return {
        callType: "sip",
        fromAor: Read.string(value, "from_aor"),
        ...(sipCode === undefined ? {} : { sipCode }),
        sipHeaders: rawHeaders as Record<string, string>
      }
    }
  }
}
