/**
 * Requests in a dialog: where they go (the first route, else the remote target), their Via
 * left to `SipEndpoint.prepare` (a fresh branch each), what we take (Allow, Accept, for
 * OPTIONS and 501s), and the status line of a NOTIFY's message/sipfrag body (RFC 3515).
 * Pure.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type * as Dialog from "./Dialog.ts"
import * as SipHeaders from "./SipHeaders.ts"
import type * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * The methods we take.
 *
 * @category capabilities
 */
export const ALLOW = "INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE, NOTIFY"
/**
 * The bodies we read.
 *
 * @category capabilities
 */
export const ACCEPT = "application/sdp, message/sipfrag"

/**
 * The headers of a 200 to OPTIONS, in or out of a dialog.
 *
 * @category capabilities
 */
export const capabilities: ReadonlyArray<SipMessage.Header> = [
  { name: "Allow", value: ALLOW },
  { name: "Accept", value: ACCEPT },
  { name: "Supported", value: "timer" }
]

const decoder = new TextDecoder()

/**
 * Where requests in the dialog go: the first route, else the remote target.
 *
 * @category routing
 */
export const targetOf = (dialog: Dialog.Dialog, transport: Peer["transport"]): Peer | undefined => {
  const first = dialog.routeSet[0]
  let uri: SipUri.SipUri | undefined
  if (first !== undefined) {
    const route = SipHeaders.parseNameAddr(first, "Route")
    uri = Result.isSuccess(route) ? route.success.sip : undefined
  } else {
    const target = SipUri.parse(dialog.remoteTarget)
    uri = Result.isSuccess(target) ? target.success : undefined
  }
  if (uri === undefined) return undefined
  const named = SipUri.param(uri, "transport")?.toUpperCase()
  return {
    transport: named === "TCP" || named === "UDP" ? named : transport,
    host: uri.host,
    port: uri.port ?? 5060
  }
}

/**
 * A request without its Via, for `SipEndpoint.prepare` to add one with a fresh branch.
 *
 * @category requests
 */
export const withoutVia = (request: OutgoingRequest): OutgoingRequest => ({
  ...request,
  headers: request.headers.filter((header) => header.name !== "Via")
})

/**
 * The status line of a message/sipfrag body.
 *
 * @category decoding
 */
export const sipfrag = (body: Uint8Array): { status: number; reason: string } | undefined => {
  const match = /^SIP\/2\.0 (\d{3}) ?([^\r\n]*)/.exec(decoder.decode(body).trimStart())
  return match === null ? undefined : { status: Number(match[1]), reason: match[2]! }
}
