/**
 * SIP messages (RFC 3261 §7): bytes of one message to a request or a response, checked as a
 * user agent needs them, and back to bytes.
 *
 * Owns: the start line, header lines (folding, compact names, lists), the body by
 * Content-Length, and the checks of RFC 3261 §8.2 that make a request answerable: To, From,
 * Call-ID, CSeq and Via present and well formed, single-valued headers not repeated, the CSeq
 * method equal to the request's. A failure is a `SipParseError` whose `detail` says what is
 * wrong and whose `status` says how to answer: 400 (or 416 for a Request-URI scheme that is not
 * SIP, 505 for another SIP version), or `undefined` to drop it (a response, or bytes with no
 * request line). `request` carries what was read, enough to build that answer. Nothing here
 * throws on any input (a property test feeds it random bytes).
 *
 * Framing: a datagram is one message (bytes past Content-Length are ignored, RFC 3261 §18.3);
 * on a stream `SipStream` cuts messages and `parse` is given one at a time.
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipUri from "./SipUri.ts"

/**
 * One header line's value (a list header has one entry per element).
 *
 * @category models
 */
export interface Header {
  /** Canonical (`SipHeaders.canonicalName`). */
  readonly name: string
  readonly value: string
}

/**
 * What every valid message carries, parsed.
 *
 * @category models
 */
export interface Essentials {
  readonly callId: string
  readonly cseq: SipHeaders.CSeq
  readonly from: SipHeaders.NameAddr
  readonly to: SipHeaders.NameAddr
  /** Topmost first. */
  readonly via: ReadonlyArray<SipHeaders.Via>
}

/**
 * @category models
 */
export interface SipRequest extends Essentials {
  readonly _tag: "Request"
  readonly method: string
  readonly uri: SipUri.SipUri
  readonly headers: ReadonlyArray<Header>
  readonly body: Uint8Array
}

/**
 * @category models
 */
export interface SipResponse extends Essentials {
  readonly _tag: "Response"
  readonly status: number
  readonly reason: string
  readonly headers: ReadonlyArray<Header>
  readonly body: Uint8Array
}

/**
 * @category models
 */
export type SipMessage = SipRequest | SipResponse

/**
 * A request as read before its checks: enough to answer it.
 *
 * @category models
 */
export interface RawRequest {
  readonly method: string
  readonly uri: string
  readonly headers: ReadonlyArray<Header>
}

/**
 * Why bytes are not a usable SIP message, and how to answer.
 *
 * @category errors
 */
export class SipParseError extends Data.TaggedError("SipParseError")<{
  /** What is wrong, in a few words (a reason phrase). */
  readonly detail: string
  /** The answer's status; `undefined`: drop the message. */
  readonly status: 400 | 416 | 505 | undefined
  /** The request as read, when its start line and headers were. */
  readonly request: RawRequest | undefined
}> {
  override get message(): string {
    return this.detail
  }
}

/**
 * The largest message read (headers and body). A UDP datagram is at most 65,507 bytes.
 *
 * @category limits
 */
export const MAX_MESSAGE_BYTES = 65_535

const SINGLE = ["From", "To", "Call-ID", "CSeq", "Max-Forwards", "Content-Length", "Content-Type"]
const REQUIRED = ["Via", "From", "To", "Call-ID", "CSeq"]

const decoder = new TextDecoder("utf-8")
const encoder = new TextEncoder()

/**
 * Where the header section ends: the index of the blank line's first byte and of the body.
 * Accepts CRLF CRLF and, leniently, LF LF.
 *
 * @category framing
 */
export const headerEnd = (bytes: Uint8Array, from = 0): { end: number; body: number } | undefined => {
  for (let i = from; i < bytes.length - 1; i++) {
    if (bytes[i] !== 0x0a) continue
    if (bytes[i + 1] === 0x0a) return { end: i, body: i + 2 }
    if (bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a) return { end: i, body: i + 3 }
  }
  return undefined
}

/** Skips the CRLFs allowed before a start line (RFC 3261 §7.5) and keep-alives. */
export const skipLeadingBlankLines = (bytes: Uint8Array, from = 0): number => {
  let i = from
  while (i < bytes.length && (bytes[i] === 0x0d || bytes[i] === 0x0a)) i++
  return i
}

const fail = (detail: string, status: 400 | 416 | 505 | undefined, request?: RawRequest) =>
  Result.fail(new SipParseError({ detail, status, request }))

const readHeaders = (text: string): Result.Result<Array<Header>, string> => {
  const headers: Array<Header> = []
  const lines = text.split(/\r?\n/)
  const joined: Array<string> = []
  for (const line of lines) {
    if (/^[ \t]/.test(line) && joined.length > 0) joined[joined.length - 1] += ` ${line.trim()}`
    else if (line !== "") joined.push(line)
    else return Result.fail("an empty line inside the headers")
  }
  for (const line of joined) {
    const colon = line.indexOf(":")
    if (colon <= 0) return Result.fail(`a header line with no name or colon`)
    const rawName = line.slice(0, colon).replace(/[ \t]+$/, "")
    if (!SipHeaders.TOKEN.test(rawName)) return Result.fail(`a malformed header name`)
    const name = SipHeaders.canonicalName(rawName)
    const value = line.slice(colon + 1).trim()
    if (SipHeaders.isList(name)) {
      for (const element of SipHeaders.splitList(value)) headers.push({ name, value: element })
    } else headers.push({ name, value })
  }
  return Result.succeed(headers)
}

/**
 * Every value of a header (by any spelling of its name), in order.
 *
 * @category getters
 */
export const headerValues = (message: { readonly headers: ReadonlyArray<Header> }, name: string): Array<string> => {
  const canonical = SipHeaders.canonicalName(name)
  return message.headers.filter((header) => header.name.toLowerCase() === canonical.toLowerCase()).map((h) => h.value)
}

/**
 * A header's first value.
 *
 * @category getters
 */
export const header = (message: { readonly headers: ReadonlyArray<Header> }, name: string): string | undefined =>
  headerValues(message, name)[0]

const essentials = (
  headers: ReadonlyArray<Header>,
  what: "request" | "response"
): Result.Result<Essentials, string> => {
  const holder = { headers }
  for (const name of REQUIRED) {
    const values = headerValues(holder, name)
    if (values.length === 0) return Result.fail(`missing ${name} header`)
  }
  for (const name of SINGLE) {
    if (headerValues(holder, name).length > 1) return Result.fail(`more than one ${name} header`)
  }
  const callId = header(holder, "Call-ID")!
  if (!SipHeaders.isCallId(callId)) return Result.fail("a malformed Call-ID")
  const cseq = SipHeaders.parseCSeq(header(holder, "CSeq")!)
  if (Result.isFailure(cseq)) return Result.fail(cseq.failure)
  const from = SipHeaders.parseNameAddr(header(holder, "From")!, "From")
  if (Result.isFailure(from)) return Result.fail(from.failure)
  const to = SipHeaders.parseNameAddr(header(holder, "To")!, "To")
  if (Result.isFailure(to)) return Result.fail(to.failure)
  const via: Array<SipHeaders.Via> = []
  for (const value of headerValues(holder, "Via")) {
    const parsed = SipHeaders.parseVia(value)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    via.push(parsed.success)
  }
  const maxForwards = header(holder, "Max-Forwards")
  if (maxForwards !== undefined) {
    const parsed = SipHeaders.parseCount(maxForwards, "Max-Forwards", 255)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  }
  if (what === "request") {
    for (const value of headerValues(holder, "Contact")) {
      const parsed = SipHeaders.parseNameAddr(value, "Contact")
      if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    }
  }
  return Result.succeed({ callId, cseq: cseq.success, from: from.success, to: to.success, via })
}

/**
 * Reads one message. `transport` `"stream"` requires Content-Length (RFC 3261 §18.3).
 *
 * @category decoding
 */
export const parse = (
  input: Uint8Array,
  transport: "datagram" | "stream" = "datagram"
): Result.Result<SipMessage, SipParseError> => {
  const start = skipLeadingBlankLines(input)
  if (input.length - start > MAX_MESSAGE_BYTES) return fail("message too large", undefined)
  const bytes = input.subarray(start)
  const lineEnd = bytes.indexOf(0x0a)
  if (lineEnd < 0) return fail("no start line", undefined)
  const startLine = decoder.decode(bytes.subarray(0, lineEnd)).replace(/\r$/, "")
  const isResponse = /^SIP\//i.test(startLine)
  let request: RawRequest | undefined
  let requestParts: [string, string, string] | undefined
  if (!isResponse) {
    const parts = startLine.split(" ")
    if (parts.length !== 3 || !SipHeaders.TOKEN.test(parts[0]!)) return fail("a malformed request line", undefined)
    requestParts = [parts[0]!, parts[1]!, parts[2]!]
  }
  const end = headerEnd(bytes, lineEnd)
  const headerText = decoder.decode(bytes.subarray(lineEnd + 1, end === undefined ? bytes.length : end.end))
  const read = readHeaders(headerText.replace(/\r?\n$/, ""))
  if (Result.isFailure(read)) {
    return fail(
      read.failure,
      requestParts === undefined ? undefined : 400,
      requestParts && {
        method: requestParts[0],
        uri: requestParts[1],
        headers: []
      }
    )
  }
  const headers = read.success
  if (requestParts !== undefined) request = { method: requestParts[0], uri: requestParts[1], headers }
  const status = request === undefined ? undefined : 400
  if (end === undefined) return fail("no blank line after the headers", status, request)

  // The body, by Content-Length.
  const available = bytes.length - end.body
  const lengthText = header({ headers }, "Content-Length")
  let length = available
  if (lengthText !== undefined) {
    const parsed = SipHeaders.parseCount(lengthText, "Content-Length", MAX_MESSAGE_BYTES)
    if (Result.isFailure(parsed)) return fail(parsed.failure, status, request)
    if (parsed.success > available) {
      return fail(`Content-Length ${parsed.success} exceeds the ${available} bytes received`, status, request)
    }
    length = parsed.success
  } else if (transport === "stream") return fail("missing Content-Length on a stream", status, request)
  const body = bytes.slice(end.body, end.body + length)

  if (requestParts === undefined) {
    const match = /^SIP\/(\d+)\.(\d+) (\d{3})(?: (.*))?$/i.exec(startLine)
    if (match === null || match[1] !== "2" || match[2] !== "0") return fail("a malformed status line", undefined)
    const code = Number(match[3])
    if (code < 100 || code > 699) return fail("status code out of range", undefined)
    const checked = essentials(headers, "response")
    if (Result.isFailure(checked)) return fail(checked.failure, undefined)
    return Result.succeed({ _tag: "Response", status: code, reason: match[4] ?? "", headers, body, ...checked.success })
  }

  const [method, uriText, version] = requestParts
  const versionMatch = /^SIP\/(\d+)\.(\d+)$/i.exec(version)
  if (versionMatch === null) return fail("a malformed SIP version", 400, request)
  if (versionMatch[1] !== "2" || versionMatch[2] !== "0") {
    return fail(`SIP version ${version} not supported`, 505, request)
  }
  const uri = SipUri.parse(uriText)
  if (Result.isFailure(uri)) {
    if (uri.failure.reason === "UnsupportedScheme") return fail(uri.failure.detail, 416, request)
    return fail(`Request-URI: ${uri.failure.detail}`, 400, request)
  }
  if (uri.success.headers.length > 0) return fail("Request-URI with headers", 400, request)
  const checked = essentials(headers, "request")
  if (Result.isFailure(checked)) return fail(checked.failure, 400, request)
  if (checked.success.cseq.method !== method) return fail("CSeq method does not match the request", 400, request)
  return Result.succeed({ _tag: "Request", method, uri: uri.success, headers, body, ...checked.success })
}

/**
 * A message to send: the start line's parts, headers in order (Content-Length is computed from
 * the body and any given one ignored).
 *
 * @category models
 */
export type Outgoing =
  | {
    readonly _tag: "Request"
    readonly method: string
    readonly uri: SipUri.SipUri | string
    readonly headers: ReadonlyArray<Header>
    readonly body?: Uint8Array | undefined
  }
  | {
    readonly _tag: "Response"
    readonly status: number
    readonly reason: string
    readonly headers: ReadonlyArray<Header>
    readonly body?: Uint8Array | undefined
  }

const safeText = (text: string): string =>
  Array.from(text, (ch) => (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f ? " " : ch)).join("")

/**
 * The message as bytes: start line, one line per header value, Content-Length, blank line, body.
 *
 * @category encoding
 */
export const serialize = (message: Outgoing): Uint8Array => {
  const body = message.body ?? new Uint8Array(0)
  const startLine = message._tag === "Request"
    ? `${message.method} ${typeof message.uri === "string" ? message.uri : SipUri.format(message.uri)} SIP/2.0`
    : `SIP/2.0 ${message.status} ${safeText(message.reason)}`
  const lines = [startLine]
  for (const h of message.headers) {
    if (h.name.toLowerCase() === "content-length" || h.name === "l") continue
    lines.push(`${h.name}: ${safeText(h.value)}`)
  }
  lines.push(`Content-Length: ${body.length}`)
  const head = encoder.encode(`${lines.join("\r\n")}\r\n\r\n`)
  const out = new Uint8Array(head.length + body.length)
  out.set(head, 0)
  out.set(body, head.length)
  return out
}

/**
 * The response a UAS sends to a request (RFC 3261 §8.2.6.2): its Via values, From, Call-ID,
 * CSeq copied, To with `toTag` added when the request's To has none. Works on a request that
 * failed its checks (`RawRequest`), as a 400 needs; `undefined` when the request lacks a header
 * a response cannot go without (then it is dropped).
 *
 * @category responses
 */
export const response = (
  request: { readonly headers: ReadonlyArray<Header> },
  status: number,
  reason: string,
  options: { readonly toTag?: string; readonly headers?: ReadonlyArray<Header>; readonly body?: Uint8Array } = {}
): Outgoing | undefined => {
  const via = headerValues(request, "Via")
  const from = header(request, "From")
  const to = header(request, "To")
  const callId = header(request, "Call-ID")
  const cseq = header(request, "CSeq")
  if (via.length === 0 || from === undefined || to === undefined || callId === undefined || cseq === undefined) {
    return undefined
  }
  const hasTag = /;[ \t]*tag[ \t]*=/i.test(to.replace(/"(?:[^"\\]|\\.)*"/g, ""))
  const toValue = hasTag || options.toTag === undefined || status === 100 ? to : `${to};tag=${options.toTag}`
  return {
    _tag: "Response",
    status,
    reason,
    headers: [
      ...via.map((value) => ({ name: "Via", value })),
      { name: "From", value: from },
      { name: "To", value: toValue },
      { name: "Call-ID", value: callId },
      { name: "CSeq", value: cseq },
      ...(options.headers ?? [])
    ],
    body: options.body
  }
}

/**
 * The RFC 3261 reason phrase of common statuses.
 *
 * @category responses
 */
export const REASONS: Readonly<Record<number, string>> = {
  100: "Trying",
  180: "Ringing",
  183: "Session Progress",
  200: "OK",
  202: "Accepted",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  415: "Unsupported Media Type",
  416: "Unsupported URI Scheme",
  420: "Bad Extension",
  480: "Temporarily Unavailable",
  481: "Call/Transaction Does Not Exist",
  482: "Loop Detected",
  483: "Too Many Hops",
  486: "Busy Here",
  487: "Request Terminated",
  488: "Not Acceptable Here",
  491: "Request Pending",
  500: "Server Internal Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "Version Not Supported",
  600: "Busy Everywhere",
  603: "Decline"
}
