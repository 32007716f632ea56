/**
 * The structured SIP header values a user agent reads (RFC 3261 §20, grammar of §25): header
 * names and their compact forms, comma-separated lists, parameters, name-addr (From, To,
 * Contact, Route), Via, CSeq.
 *
 * Owns: text of one unfolded header value to its parts and back. Every parser returns a
 * `Result` whose failure is a short English sentence saying what is wrong (it becomes a 400's
 * reason phrase); nothing here throws. Does not own framing or the message's start line
 * (`SipMessage`), nor URIs (`SipUri`).
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import * as SipUri from "./SipUri.ts"

/** RFC 3261 §7.3.3 and the registrations since (RFC 3265 o, RFC 3515 r, RFC 3892 b, RFC 4028 x). */
const COMPACT: Readonly<Record<string, string>> = {
  i: "Call-ID",
  m: "Contact",
  e: "Content-Encoding",
  l: "Content-Length",
  c: "Content-Type",
  f: "From",
  s: "Subject",
  k: "Supported",
  t: "To",
  v: "Via",
  o: "Event",
  r: "Refer-To",
  b: "Referred-By",
  u: "Allow-Events",
  x: "Session-Expires",
  a: "Accept-Contact",
  j: "Reject-Contact",
  d: "Request-Disposition",
  y: "Identity",
  n: "Identity-Info"
}

const KNOWN = [
  "Accept",
  "Accept-Contact",
  "Accept-Encoding",
  "Accept-Language",
  "Alert-Info",
  "Allow",
  "Allow-Events",
  "Authentication-Info",
  "Authorization",
  "Call-ID",
  "Call-Info",
  "Contact",
  "Content-Disposition",
  "Content-Encoding",
  "Content-Language",
  "Content-Length",
  "Content-Type",
  "CSeq",
  "Date",
  "Error-Info",
  "Event",
  "Expires",
  "From",
  "Identity",
  "Identity-Info",
  "In-Reply-To",
  "Max-Forwards",
  "Min-Expires",
  "Min-SE",
  "MIME-Version",
  "Organization",
  "P-Asserted-Identity",
  "Priority",
  "Privacy",
  "Proxy-Authenticate",
  "Proxy-Authorization",
  "Proxy-Require",
  "RAck",
  "Reason",
  "Record-Route",
  "Refer-To",
  "Referred-By",
  "Reject-Contact",
  "Reply-To",
  "Request-Disposition",
  "Require",
  "Retry-After",
  "Route",
  "RSeq",
  "Server",
  "Session-Expires",
  "Subject",
  "Subscription-State",
  "Supported",
  "Timestamp",
  "To",
  "Unsupported",
  "User-Agent",
  "Via",
  "Warning",
  "WWW-Authenticate"
]
const CANONICAL: ReadonlyMap<string, string> = new Map(KNOWN.map((name) => [name.toLowerCase(), name]))

/** Headers whose values are comma-separated lists (RFC 3261 §7.3.1): one entry per element. */
const LISTS: ReadonlySet<string> = new Set([
  "Accept",
  "Accept-Encoding",
  "Accept-Language",
  "Alert-Info",
  "Allow",
  "Allow-Events",
  "Call-Info",
  "Contact",
  "Content-Encoding",
  "Content-Language",
  "Error-Info",
  "In-Reply-To",
  "P-Asserted-Identity",
  "Proxy-Require",
  "Reason",
  "Record-Route",
  "Require",
  "Route",
  "Supported",
  "Unsupported",
  "Via",
  "Warning"
])

/**
 * A header's name in its usual spelling: compact forms expanded, known names in their RFC case,
 * unknown names as written.
 *
 * @category names
 */
export const canonicalName = (name: string): string =>
  COMPACT[name.toLowerCase()] ?? CANONICAL.get(name.toLowerCase()) ?? name

/**
 * Whether the header's values are a comma-separated list.
 *
 * @category names
 */
export const isList = (canonical: string): boolean => LISTS.has(canonical)

/**
 * RFC 3261 §25.1 token characters.
 *
 * @category predicates
 */
export const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/
const TOKEN_CHAR = /[A-Za-z0-9\-.!%*_+`'~]/
// A parameter value: token, host (IPv6 included) or quoted-string (handled apart).
const VALUE_CHAR = /[A-Za-z0-9\-.!%*_+`'~:[\]]/
const WS = /[ \t]/

/**
 * Splits a list header's value at its top-level commas (not inside quotes or angle brackets),
 * trimming each element. Empty elements are kept, so that `a,,b` can be refused.
 *
 * @category lists
 */
export const splitList = (value: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  let quoted = false
  let angle = false
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]
    if (quoted) {
      if (ch === "\\") i++
      else if (ch === "\"") quoted = false
    } else if (ch === "\"") quoted = true
    else if (ch === "<") angle = true
    else if (ch === ">") angle = false
    else if (ch === "," && !angle) {
      parts.push(value.slice(start, i).trim())
      start = i + 1
    }
  }
  parts.push(value.slice(start).trim())
  return parts
}

/**
 * Parameters in order, names as written; a parameter with no `=` has value `undefined`, a
 * quoted value is kept with its quotes removed and escapes undone.
 *
 * @category models
 */
export type Params = ReadonlyArray<readonly [string, string | undefined]>

/**
 * A parameter's value by name (case-insensitive): `""` when present with no value.
 *
 * @category params
 */
export const param = (params: Params, name: string): string | undefined => {
  const found = params.find(([n]) => n.toLowerCase() === name.toLowerCase())
  return found === undefined ? undefined : (found[1] ?? "")
}

/** Reads a quoted-string starting at `text[start] === '"'`; `undefined` when unterminated. */
const readQuoted = (text: string, start: number): { value: string; end: number } | undefined => {
  let value = ""
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i]!
    if (ch === "\\") {
      if (i + 1 >= text.length) return undefined
      value += text[i + 1]
      i++
    } else if (ch === "\"") return { value, end: i + 1 }
    else value += ch
  }
  return undefined
}

const skipWs = (text: string, i: number): number => {
  while (i < text.length && WS.test(text[i]!)) i++
  return i
}

/**
 * Parses `*( SWS ";" SWS name [ SWS "=" SWS value ] )` to the end of `text`.
 *
 * @category params
 */
export const parseParams = (text: string, what: string): Result.Result<Params, string> => {
  const params: Array<readonly [string, string | undefined]> = []
  let i = skipWs(text, 0)
  while (i < text.length) {
    if (text[i] !== ";") return Result.fail(`unexpected "${text[i]}" in the ${what} parameters`)
    i = skipWs(text, i + 1)
    let name = ""
    while (i < text.length && TOKEN_CHAR.test(text[i]!)) name += text[i++]
    if (name === "") return Result.fail(`an empty parameter in ${what}`)
    i = skipWs(text, i)
    let value: string | undefined
    if (text[i] === "=") {
      i = skipWs(text, i + 1)
      if (text[i] === "\"") {
        const quoted = readQuoted(text, i)
        if (quoted === undefined) return Result.fail(`an unterminated quoted string in ${what}`)
        value = quoted.value
        i = quoted.end
      } else {
        value = ""
        while (i < text.length && VALUE_CHAR.test(text[i]!)) value += text[i++]
        if (value === "") return Result.fail(`parameter "${name}" of ${what} has an empty value`)
      }
      i = skipWs(text, i)
    }
    params.push([name, value])
  }
  return Result.succeed(params)
}

/**
 * Formats parameters as `;name=value`, quoting values that are not tokens or hosts.
 *
 * @category params
 */
export const formatParams = (params: Params): string =>
  params.map(([name, value]) => {
    if (value === undefined) return `;${name}`
    return /^[A-Za-z0-9\-.!%*_+`'~:[\]]+$/.test(value) ? `;${name}=${value}` : `;${name}=${quote(value)}`
  }).join("")

/**
 * A quoted-string of `text` (RFC 3261 §25.1): `"` and `\` escaped.
 *
 * @category encoding
 */
export const quote = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/**
 * A name-addr or addr-spec with its header parameters (From, To, Contact, Route, Refer-To).
 * `uri` is the URI's text; `sip` its parse when it is a SIP URI. Contact's `*` has `uri` `"*"`.
 *
 * @category models
 */
export interface NameAddr {
  readonly displayName: string | undefined
  readonly uri: string
  readonly sip: SipUri.SipUri | undefined
  readonly params: Params
}

const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+\-.]*:[^\s<>"]+$/

const uriOf = (text: string, what: string): Result.Result<{ uri: string; sip: SipUri.SipUri | undefined }, string> => {
  if (!ABSOLUTE_URI.test(text)) return Result.fail(`${what} has a malformed URI "${text.slice(0, 80)}"`)
  const parsed = SipUri.parse(text)
  if (Result.isSuccess(parsed)) return Result.succeed({ uri: text, sip: parsed.success })
  if (parsed.failure.reason === "UnsupportedScheme") return Result.succeed({ uri: text, sip: undefined })
  return Result.fail(`${what}: ${parsed.failure.detail}`)
}

/**
 * Parses one name-addr (`"Name" <uri>;params`, `Name <uri>`, `<uri>`) or addr-spec
 * (`uri;params`, where the URI may not hold `;`, `,` or `?`: RFC 3261 §20.10).
 *
 * @category name-addr
 */
export const parseNameAddr = (value: string, what: string): Result.Result<NameAddr, string> => {
  const text = value.trim()
  if (text === "") return Result.fail(`${what} is empty`)
  let displayName: string | undefined
  let i = 0
  if (text[0] === "\"") {
    const quoted = readQuoted(text, 0)
    if (quoted === undefined) return Result.fail(`${what} has an unterminated quoted display name`)
    displayName = quoted.value
    i = skipWs(text, quoted.end)
    if (text[i] !== "<") return Result.fail(`${what} has a display name with no <URI> after it`)
  } else {
    const lt = text.indexOf("<")
    if (lt >= 0) {
      const name = text.slice(0, lt).trim()
      if (name !== "" && !name.split(/[ \t]+/).every((word) => TOKEN.test(word))) {
        return Result.fail(`${what} has a display name that must be quoted`)
      }
      displayName = name === "" ? undefined : name
      i = lt
    }
  }
  if (text[i] === "<") {
    const gt = text.indexOf(">", i)
    if (gt < 0) return Result.fail(`${what} has "<" with no ">"`)
    const inner = text.slice(i + 1, gt)
    if (inner !== inner.trim()) return Result.fail(`${what} has whitespace inside <>`)
    const uri = uriOf(inner, what)
    if (Result.isFailure(uri)) return Result.fail(uri.failure)
    const params = parseParams(text.slice(gt + 1), what)
    if (Result.isFailure(params)) return Result.fail(params.failure)
    return Result.succeed({ displayName, ...uri.success, params: params.success })
  }
  if (text === "*") return Result.succeed({ displayName: undefined, uri: "*", sip: undefined, params: [] })
  const semi = text.indexOf(";")
  const raw = (semi >= 0 ? text.slice(0, semi) : text).trim()
  if (/[,?]/.test(raw)) return Result.fail(`${what} has a URI with "," or "?" outside <>`)
  const uri = uriOf(raw, what)
  if (Result.isFailure(uri)) return Result.fail(uri.failure)
  const params = parseParams(semi >= 0 ? text.slice(semi) : "", what)
  if (Result.isFailure(params)) return Result.fail(params.failure)
  return Result.succeed({ displayName, ...uri.success, params: params.success })
}

/**
 * A name-addr as header text, always with angle brackets.
 *
 * @category name-addr
 */
export const formatNameAddr = (value: NameAddr): string => {
  if (value.uri === "*") return "*"
  const name = value.displayName === undefined ? "" : `${quote(value.displayName)} `
  return `${name}<${value.uri}>${formatParams(value.params)}`
}

/**
 * One Via value (RFC 3261 §20.42): `SIP/2.0/UDP host:port;branch=...;received=...;rport`.
 *
 * @category models
 */
export interface Via {
  /** Upper-cased: `UDP`, `TCP`, `TLS`, ... */
  readonly transport: string
  readonly host: string
  readonly port: number | undefined
  readonly params: Params
}

const VIA =
  /^SIP[ \t]*\/[ \t]*2\.0[ \t]*\/[ \t]*([A-Za-z0-9\-.!%*_+`'~]+)[ \t]+(\[[^\]]*\]|[^\s;:]+)(?:[ \t]*:[ \t]*(\d{1,5}))?(.*)$/i

/**
 * Parses one Via value.
 *
 * @category via
 */
export const parseVia = (value: string): Result.Result<Via, string> => {
  const match = VIA.exec(value.trim())
  if (match === null) return Result.fail("a malformed Via header")
  const host = match[2]!
  if (!SipUri.isHost(host)) return Result.fail(`Via has a bad host "${host}"`)
  const port = match[3] === undefined ? undefined : Number(match[3])
  if (port !== undefined && port > 65535) return Result.fail(`Via port ${port} is out of range`)
  const params = parseParams(match[4]!, "Via")
  if (Result.isFailure(params)) return Result.fail(params.failure)
  return Result.succeed({ transport: match[1]!.toUpperCase(), host: host.toLowerCase(), port, params: params.success })
}

/**
 * A Via as header text.
 *
 * @category via
 */
export const formatVia = (via: Via): string =>
  `SIP/2.0/${via.transport} ${via.host}${via.port === undefined ? "" : `:${via.port}`}${formatParams(via.params)}`

/**
 * The magic cookie of an RFC 3261 branch (§8.1.1.7).
 *
 * @category via
 */
export const BRANCH_COOKIE = "z9hG4bK"

/**
 * CSeq (RFC 3261 §20.16): a sequence number below 2^31 and the method.
 *
 * @category models
 */
export interface CSeq {
  readonly seq: number
  readonly method: string
}

/**
 * Parses a CSeq value.
 *
 * @category cseq
 */
export const parseCSeq = (value: string): Result.Result<CSeq, string> => {
  const match = /^(\d+)[ \t]+(\S+)$/.exec(value.trim())
  if (match === null || !TOKEN.test(match[2]!)) return Result.fail("a malformed CSeq header")
  const digits = match[1]!.replace(/^0+(?=\d)/, "")
  if (digits.length > 10 || Number(digits) > 0x7fffffff) return Result.fail("CSeq number too large (at most 2^31-1)")
  return Result.succeed({ seq: Number(digits), method: match[2]! })
}

/**
 * A non-negative decimal integer header (Content-Length, Max-Forwards, Expires) no larger
 * than `max`.
 *
 * @category numbers
 */
export const parseCount = (value: string, what: string, max: number): Result.Result<number, string> => {
  const text = value.trim()
  if (!/^\d+$/.test(text)) return Result.fail(`${what} is not a non-negative number`)
  const digits = text.replace(/^0+(?=\d)/, "")
  if (digits.length > 15 || Number(digits) > max) return Result.fail(`${what} too large (at most ${max})`)
  return Result.succeed(Number(digits))
}

/**
 * Whether a Call-ID is `word ["@" word]` (RFC 3261 §25.1).
 *
 * @category predicates
 */
export const isCallId = (value: string): boolean =>
  /^[A-Za-z0-9\-.!%*_+`'~()<>:\\"/[\]?{}]+(?:@[A-Za-z0-9\-.!%*_+`'~()<>:\\"/[\]?{}]+)?$/.test(value)
