/**
 * Dialogs (RFC 3261 §12): the state two user agents share for one call, and the requests sent
 * inside it (ACK of a 2xx, BYE, re-INVITE, REFER, in-dialog OPTIONS).
 *
 * Owns: creating a dialog on the caller's side from the INVITE sent and the response that
 * carries the far end's tag (§12.1.2: route set from Record-Route reversed, remote target from
 * Contact) and on the callee's side from the INVITE received (§12.1.1: Record-Route in order);
 * building in-dialog requests (§12.2.1.1: Request-URI the remote target, Route the route set,
 * loose routing, and a strict first route handled as the RFC says; CSeq counted up, except ACK
 * and CANCEL); checking requests received in the dialog (§12.2.2: CSeq lower than the last is
 * out of order, answered 500; a re-INVITE's Contact refreshes the remote target); and telling
 * which dialog a message belongs to (Call-ID and both tags). Pure. Does not own Via or branch
 * generation (the caller passes the Via), nor the session (SDP).
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"

type Outgoing = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export interface Dialog {
  readonly callId: string
  readonly localTag: string
  readonly remoteTag: string
  /** The local party's name-addr without its tag (From of what we send). */
  readonly localUri: string
  /** The remote party's name-addr without its tag (To of what we send). */
  readonly remoteUri: string
  /** Where in-dialog requests go (the peer's Contact URI). */
  readonly remoteTarget: string
  /** Route header values, in the order they are sent. */
  readonly routeSet: ReadonlyArray<string>
  /** The last CSeq number we used. */
  readonly localSeq: number
  /** The last CSeq number the peer used; `undefined` before its first request. */
  readonly remoteSeq: number | undefined
}

const tagOf = (value: SipHeaders.NameAddr): string | undefined => SipHeaders.param(value.params, "tag")

const withoutTag = (value: SipHeaders.NameAddr): string =>
  SipHeaders.formatNameAddr({ ...value, params: value.params.filter(([name]) => name.toLowerCase() !== "tag") })

const contactUri = (message: { readonly headers: ReadonlyArray<SipMessage.Header> }): Result.Result<string, string> => {
  const value = SipMessage.header(message, "Contact")
  if (value === undefined) return Result.fail("no Contact")
  const parsed = SipHeaders.parseNameAddr(value, "Contact")
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  if (parsed.success.uri === "*") return Result.fail("Contact * cannot be a remote target")
  return Result.succeed(parsed.success.uri)
}

/**
 * The caller's dialog, from the INVITE it sent and a response with the far end's tag (a 2xx,
 * or a 1xx for an early dialog).
 *
 * @category constructors
 */
export const fromResponse = (invite: Outgoing, response: SipMessage.SipResponse): Result.Result<Dialog, string> => {
  const remoteTag = tagOf(response.to)
  const localTag = tagOf(response.from)
  if (remoteTag === undefined) return Result.fail("the response has no To tag")
  if (localTag === undefined) return Result.fail("the response has no From tag")
  const target = contactUri(response)
  if (Result.isFailure(target)) return Result.fail(`the response: ${target.failure}`)
  const cseq = SipHeaders.parseCSeq(SipMessage.header(invite, "CSeq") ?? "")
  return Result.succeed({
    callId: response.callId,
    localTag,
    remoteTag,
    localUri: withoutTag(response.from),
    remoteUri: withoutTag(response.to),
    remoteTarget: target.success,
    routeSet: SipMessage.headerValues(response, "Record-Route").reverse(),
    localSeq: Result.isSuccess(cseq) ? cseq.success.seq : response.cseq.seq,
    remoteSeq: undefined
  })
}

/**
 * The callee's dialog, from the INVITE received and the tag it puts in its answers' To.
 *
 * @category constructors
 */
export const fromRequest = (
  invite: SipMessage.SipRequest,
  localTag: string,
  localSeq = 0
): Result.Result<Dialog, string> => {
  const remoteTag = tagOf(invite.from)
  if (remoteTag === undefined) return Result.fail("the request has no From tag")
  const target = contactUri(invite)
  if (Result.isFailure(target)) return Result.fail(`the request: ${target.failure}`)
  return Result.succeed({
    callId: invite.callId,
    localTag,
    remoteTag,
    localUri: withoutTag(invite.to),
    remoteUri: withoutTag(invite.from),
    remoteTarget: target.success,
    routeSet: SipMessage.headerValues(invite, "Record-Route"),
    localSeq,
    remoteSeq: invite.cseq.seq
  })
}

const routeUri = (route: string): string | undefined => {
  const parsed = SipHeaders.parseNameAddr(route, "Route")
  return Result.isSuccess(parsed) ? parsed.success.uri : undefined
}

const isLoose = (route: string): boolean => {
  const parsed = SipHeaders.parseNameAddr(route, "Route")
  return Result.isSuccess(parsed) && parsed.success.sip !== undefined &&
    parsed.success.sip.params.some(([name]) => name.toLowerCase() === "lr")
}

/**
 * A request inside the dialog, and the dialog with its CSeq counted (ACK and CANCEL reuse the
 * INVITE's number: pass it as `seq`).
 *
 * @category requests
 */
export const request = (
  dialog: Dialog,
  method: string,
  options: {
    /** The Via value, with a fresh branch. */
    readonly via: string
    readonly contact?: string
    readonly seq?: number
    readonly headers?: ReadonlyArray<SipMessage.Header>
    readonly body?: Uint8Array
  }
): { readonly dialog: Dialog; readonly request: Outgoing } => {
  const counted = method !== "ACK" && method !== "CANCEL" && options.seq === undefined
  const seq = options.seq ?? (counted ? dialog.localSeq + 1 : dialog.localSeq)
  let uri = dialog.remoteTarget
  let routes = [...dialog.routeSet]
  if (routes.length > 0 && !isLoose(routes[0]!)) {
    // RFC 3261 §12.2.1.1: a strict router gets the request addressed to it, the remote target last.
    uri = routeUri(routes[0]!) ?? uri
    routes = [...routes.slice(1), `<${dialog.remoteTarget}>`]
  }
  const headers: Array<SipMessage.Header> = [
    { name: "Via", value: options.via },
    ...routes.map((value) => ({ name: "Route", value })),
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: `${dialog.localUri};tag=${dialog.localTag}` },
    { name: "To", value: `${dialog.remoteUri};tag=${dialog.remoteTag}` },
    { name: "Call-ID", value: dialog.callId },
    { name: "CSeq", value: `${seq} ${method}` },
    ...(options.contact === undefined ? [] : [{ name: "Contact", value: options.contact }]),
    ...(options.headers ?? [])
  ]
  return {
    dialog: counted ? { ...dialog, localSeq: seq } : dialog,
    request: { _tag: "Request", method, uri, headers, body: options.body }
  }
}

/**
 * Whether a message belongs to the dialog: same Call-ID, and the tags in their places (a
 * request from the peer has our tag in To; a response to us has it in From).
 *
 * @category matching
 */
export const matches = (dialog: Dialog, message: SipMessage.SipMessage): boolean => {
  if (message.callId !== dialog.callId) return false
  const [ours, theirs] = message._tag === "Request" ? [message.to, message.from] : [message.from, message.to]
  return tagOf(ours) === dialog.localTag && tagOf(theirs) === dialog.remoteTag
}

/**
 * Takes a request the peer sent in the dialog (§12.2.2): fails with why (a 500's reason) when
 * its CSeq is lower than the last; otherwise the dialog with its CSeq and, for a target refresh
 * (INVITE, UPDATE) with a Contact, its new remote target.
 *
 * @category requests
 */
export const receive = (dialog: Dialog, incoming: SipMessage.SipRequest): Result.Result<Dialog, string> => {
  if (incoming.method === "ACK" || incoming.method === "CANCEL") return Result.succeed(dialog)
  if (dialog.remoteSeq !== undefined && incoming.cseq.seq < dialog.remoteSeq) {
    return Result.fail("CSeq out of order")
  }
  let remoteTarget = dialog.remoteTarget
  if (incoming.method === "INVITE" || incoming.method === "UPDATE") {
    const target = contactUri(incoming)
    if (Result.isSuccess(target)) remoteTarget = target.success
  }
  return Result.succeed({ ...dialog, remoteSeq: incoming.cseq.seq, remoteTarget })
}
