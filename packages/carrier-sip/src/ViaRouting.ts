/**
 * Where SIP messages go by their Via (RFC 3261 §18.2, RFC 3581): the received request's top Via
 * stamped with the address it really came from, and the address its responses go to.
 *
 * Owns: `stamp` (RFC 3261 §18.2.1: `received` when the sent-by host is not the source address;
 * RFC 3581 §4: `rport` filled with the source port when the request asked for it with an empty
 * `rport`), so a response built from the request (`SipMessage.response` copies its Via) carries
 * the route back through a NAT; and `responseTarget` (RFC 3261 §18.2.2 with RFC 3581 §4): over
 * a stream, back where the request came from (`reconnectTarget` when that connection has
 * closed); over UDP, to `received` (or the sent-by host) at `rport` (or the sent-by port, 5060
 * by default). Pure.
 *
 * @since 0.1.0
 */
import * as SipHeaders from "./SipHeaders.ts"
import type * as SipMessage from "./SipMessage.ts"

/**
 * An address and the transport to reach it by. `host` is as in a URI (`[::1]` for IPv6).
 *
 * @category models
 */
export interface Peer {
  readonly transport: "UDP" | "TCP"
  readonly host: string
  readonly port: number
}

/** A host as URIs and Via write it: IPv6 in brackets, lower case. */
export const uriHost = (address: string): string =>
  address.includes(":") && !address.startsWith("[") ? `[${address.toLowerCase()}]` : address.toLowerCase()

/** A host as sockets take it: IPv6 without brackets. */
export const socketHost = (host: string): string => host.startsWith("[") ? host.slice(1, -1) : host

const withParam = (params: SipHeaders.Params, name: string, value: string): SipHeaders.Params => {
  const index = params.findIndex(([n]) => n.toLowerCase() === name)
  if (index < 0) return [...params, [name, value]]
  return params.map((entry, i) => (i === index ? [entry[0], value] as const : entry))
}

/**
 * The top Via of a request received from `source`, with `received` and `rport` added as RFC
 * 3261 §18.2.1 and RFC 3581 §4 ask; `undefined` when nothing changes.
 *
 * @category stamping
 */
export const stampVia = (via: SipHeaders.Via, source: Peer): SipHeaders.Via | undefined => {
  let params = via.params
  const sourceHost = uriHost(source.host)
  if (via.host !== sourceHost) params = withParam(params, "received", socketHost(sourceHost))
  if (SipHeaders.param(params, "rport") === "") params = withParam(params, "rport", String(source.port))
  return params === via.params ? undefined : { ...via, params }
}

/**
 * The request with its top Via stamped (both the parsed `via` and the header line that
 * responses copy).
 *
 * @category stamping
 */
export const stamp = (request: SipMessage.SipRequest, source: Peer): SipMessage.SipRequest => {
  const top = request.via[0]
  if (top === undefined) return request
  const stamped = stampVia(top, source)
  if (stamped === undefined) return request
  const index = request.headers.findIndex((header) => header.name === "Via")
  return {
    ...request,
    via: [stamped, ...request.via.slice(1)],
    headers: request.headers.map((
      header,
      i
    ) => (i === index ? { name: "Via", value: SipHeaders.formatVia(stamped) } : header))
  }
}

/**
 * Where the responses to a request go, from its (stamped) top Via and where it came from: over
 * TCP the source (the connection it came on); over UDP `received`/`rport` when present, the
 * sent-by otherwise.
 *
 * @category routing
 */
export const responseTarget = (via: SipHeaders.Via, source: Peer): Peer => {
  if (source.transport === "TCP") return source
  const received = SipHeaders.param(via.params, "received")
  const rport = Number(SipHeaders.param(via.params, "rport") ?? "")
  return {
    transport: "UDP",
    host: received === undefined || received === "" ? via.host : uriHost(received),
    port: Number.isInteger(rport) && rport > 0 && rport <= 65535 ? rport : via.port ?? 5060
  }
}

/**
 * Where a response goes over TCP when the connection its request came on has closed (RFC 3261
 * §18.2.2): a new connection to `received` (or the sent-by host) at the sent-by port.
 * `undefined` when that is where it was already sent, or not over TCP.
 *
 * @category routing
 */
export const reconnectTarget = (via: SipHeaders.Via, sentTo: Peer): Peer | undefined => {
  if (sentTo.transport !== "TCP") return undefined
  const received = SipHeaders.param(via.params, "received")
  const target: Peer = {
    transport: "TCP",
    host: received === undefined || received === "" ? via.host : uriHost(received),
    port: via.port ?? 5060
  }
  return peerKey(target) === peerKey(sentTo) ? undefined : target
}

/**
 * The key of a peer (`UDP 192.0.2.1:5060`), for maps of connections.
 *
 * @category models
 */
export const peerKey = (peer: Peer): string => `${peer.transport} ${uriHost(peer.host)}:${peer.port}`
