/**
 * SIP and SIPS URIs (RFC 3261 §19.1, grammar of §25): `sip:user:password@host:port;params?headers`.
 *
 * Owns: parsing one URI from text, formatting it back, reading its parameters, and the E.164
 * number a trunk puts in the user part (`sip:+14155550100@trunk`). Escapes (`%41`) are kept as
 * written in `user`, parameters and headers; `decodedUser` undoes them. Other schemes (`tel:`,
 * `mailto:`) are not SIP URIs: `parse` refuses them with `UnsupportedScheme`, which a UAS
 * answers 416 when it is the Request-URI.
 *
 * Hosts are a hostname, an IPv4 address or a bracketed IPv6 reference; ports 0..65535.
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"

/**
 * @category models
 */
export interface SipUri {
  readonly scheme: "sip" | "sips"
  /** As written (escapes kept); absent for `sip:host`. */
  readonly user: string | undefined
  readonly password: string | undefined
  /** Lower-cased; IPv6 references keep their brackets. */
  readonly host: string
  readonly port: number | undefined
  /** `;name=value` in order; a parameter with no `=` has value `undefined`. */
  readonly params: ReadonlyArray<readonly [string, string | undefined]>
  /** `?name=value&...` in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>
}

/**
 * Why text is not a SIP URI; `detail` says what is wrong, fit for a 400's reason phrase.
 *
 * @category errors
 */
export class SipUriError extends Data.TaggedError("SipUriError")<{
  readonly reason: "UnsupportedScheme" | "Malformed"
  readonly detail: string
}> {
  override get message(): string {
    return this.detail
  }
}

// RFC 3261 §25.1: unreserved, escaped, and the extra characters each part allows.
const UNRESERVED = "A-Za-z0-9\\-_.!~*'()"
const ESCAPED = "%[0-9A-Fa-f]{2}"
const USER = new RegExp(`^(?:[${UNRESERVED}&=+$,;?/]|${ESCAPED})+$`)
const PASSWORD = new RegExp(`^(?:[${UNRESERVED}&=+$,]|${ESCAPED})*$`)
const PARAM = new RegExp(`^(?:[${UNRESERVED}\\[\\]/:&+$]|${ESCAPED})+$`)
const HEADER = new RegExp(`^(?:[${UNRESERVED}\\[\\]/?:+$]|${ESCAPED})*$`)
const HOSTNAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?$/
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/
const SCHEME = /^([A-Za-z][A-Za-z0-9+\-.]*):/

const malformed = (detail: string) => Result.fail(new SipUriError({ reason: "Malformed", detail }))

/**
 * Whether `host` is a hostname, an IPv4 address or a bracketed IPv6 reference.
 *
 * @category predicates
 */
export const isHost = (host: string): boolean => IPV4.test(host) || IPV6.test(host) || HOSTNAME.test(host)

/**
 * Parses `host[:port]` (a Via's sent-by, `SIP_LISTEN`).
 *
 * @category decoding
 */
export const parseHostPort = (text: string): Result.Result<{ host: string; port: number | undefined }, SipUriError> => {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(text)
  if (match === null) return malformed(`bad host or port "${text}"`)
  const host = match[1]!
  if (!isHost(host)) return malformed(`bad host "${host}"`)
  const port = match[2] === undefined ? undefined : Number(match[2])
  if (port !== undefined && port > 65535) return malformed(`port ${port} out of range`)
  return Result.succeed({ host: host.toLowerCase(), port })
}

/**
 * Parses a `sip:` or `sips:` URI. Any other scheme fails with `UnsupportedScheme`.
 *
 * @category decoding
 */
export const parse = (text: string): Result.Result<SipUri, SipUriError> => {
  const schemeMatch = SCHEME.exec(text)
  if (schemeMatch === null) return malformed(`no URI scheme in "${text.slice(0, 64)}"`)
  const scheme = schemeMatch[1]!.toLowerCase()
  if (scheme !== "sip" && scheme !== "sips") {
    return Result.fail(new SipUriError({ reason: "UnsupportedScheme", detail: `unsupported URI scheme "${scheme}"` }))
  }
  let rest = text.slice(schemeMatch[0].length)
  if (/[\s<>"]/.test(rest)) return malformed("whitespace, quote or angle bracket in a SIP URI")
  let headers: Array<readonly [string, string]> = []
  const question = rest.indexOf("?")
  if (question >= 0) {
    const parsed = parseHeaders(rest.slice(question + 1))
    if (parsed === undefined) return malformed("bad URI headers")
    headers = parsed
    rest = rest.slice(0, question)
  }
  // The user part may hold ';' (user-unreserved), so find '@' before splitting parameters.
  const at = rest.lastIndexOf("@")
  let user: string | undefined
  let password: string | undefined
  if (at >= 0) {
    const userinfo = rest.slice(0, at)
    rest = rest.slice(at + 1)
    const colon = userinfo.indexOf(":")
    user = colon >= 0 ? userinfo.slice(0, colon) : userinfo
    password = colon >= 0 ? userinfo.slice(colon + 1) : undefined
    if (!USER.test(user)) return malformed(`bad user part "${user}"`)
    if (password !== undefined && !PASSWORD.test(password)) return malformed("bad password in URI")
  }
  const [hostport = "", ...rawParams] = rest.split(";")
  const hp = parseHostPort(hostport)
  if (Result.isFailure(hp)) return Result.fail(hp.failure)
  const params: Array<readonly [string, string | undefined]> = []
  for (const raw of rawParams) {
    const eq = raw.indexOf("=")
    const name = eq >= 0 ? raw.slice(0, eq) : raw
    const value = eq >= 0 ? raw.slice(eq + 1) : undefined
    if (!PARAM.test(name) || (value !== undefined && !PARAM.test(value))) {
      return malformed(`bad URI parameter "${raw}"`)
    }
    params.push([name, value])
  }
  return Result.succeed({
    scheme,
    user,
    password,
    host: hp.success.host,
    port: hp.success.port,
    params,
    headers
  })
}

const parseHeaders = (text: string): Array<readonly [string, string]> | undefined => {
  const headers: Array<readonly [string, string]> = []
  for (const pair of text.split("&")) {
    const eq = pair.indexOf("=")
    if (eq <= 0) return undefined
    const name = pair.slice(0, eq)
    const value = pair.slice(eq + 1)
    if (!HEADER.test(name) || !HEADER.test(value)) return undefined
    headers.push([name, value])
  }
  return headers
}

/**
 * The URI as text.
 *
 * @category encoding
 */
export const format = (uri: SipUri): string => {
  const userinfo = uri.user === undefined ? "" : `${uri.user}${uri.password === undefined ? "" : `:${uri.password}`}@`
  const port = uri.port === undefined ? "" : `:${uri.port}`
  const params = uri.params.map(([name, value]) => (value === undefined ? `;${name}` : `;${name}=${value}`)).join("")
  const headers = uri.headers.length === 0 ? "" : `?${uri.headers.map(([n, v]) => `${n}=${v}`).join("&")}`
  return `${uri.scheme}:${userinfo}${uri.host}${port}${params}${headers}`
}

/**
 * A URI's parameter (names compare case-insensitively): its value, `""` when present with no
 * value, `undefined` when absent.
 *
 * @category getters
 */
export const param = (uri: SipUri, name: string): string | undefined => {
  const found = uri.params.find(([n]) => n.toLowerCase() === name.toLowerCase())
  return found === undefined ? undefined : (found[1] ?? "")
}

/**
 * Undoes `%HH` escapes (RFC 3986 §2.1). An escape that is not two hex digits is kept as written.
 *
 * @category decoding
 */
export const unescape = (text: string): string => {
  const bytes: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3)
    if (text[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(...new TextEncoder().encode(text[i]))
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes))
}

/**
 * The user part with its escapes undone.
 *
 * @category getters
 */
export const decodedUser = (
  uri: SipUri
): string | undefined => (uri.user === undefined ? undefined : unescape(uri.user))

/**
 * The E.164 number in the user part (`+` optional, visual separators `-.()` ignored, as a
 * telephone-subscriber allows), always with its `+`; `undefined` when the user part is not one.
 *
 * @category getters
 */
export const e164 = (uri: SipUri): string | undefined => {
  const user = decodedUser(uri)
  if (user === undefined) return undefined
  const digits = user.replace(/[-.()]/g, "")
  const match = /^\+?([1-9]\d{1,14})$/.exec(digits)
  return match === null ? undefined : `+${match[1]}`
}

/**
 * `sip:<user>@<host>[:port]`, the URI of a number at a host (an outbound INVITE's Request-URI).
 *
 * @category constructors
 */
export const make = (
  options: { readonly user?: string; readonly host: string; readonly port?: number; readonly params?: SipUri["params"] }
): SipUri => ({
  scheme: "sip",
  user: options.user,
  password: undefined,
  host: options.host.toLowerCase(),
  port: options.port,
  params: options.params ?? [],
  headers: []
})
