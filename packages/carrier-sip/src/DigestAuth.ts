/**
 * Digest authentication, the client's side (RFC 3261 §22, RFC 8760 for SIP's algorithms, RFC
 * 7616 and RFC 2617 for the computation): a trunk's challenge in, the Authorization (or
 * Proxy-Authorization) value out.
 *
 * Owns: parsing `WWW-Authenticate` / `Proxy-Authenticate` (`realm`, `nonce`, `opaque`, `stale`,
 * `algorithm` MD5, MD5-sess, SHA-256, SHA-256-sess, SHA-512-256 and their `-sess`, `qop`),
 * choosing among several challenges (the first whose algorithm is supported, as RFC 8760 §2.4
 * asks: the server lists them in its order of preference), and computing the response with
 * `qop=auth` (or `auth-int` over the body) or, for an RFC 2069 challenge with no qop, without
 * `cnonce` and `nc`. The caller supplies `cnonce` and counts `nc` per nonce, so this stays pure.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import { createHash } from "node:crypto"

/**
 * @category models
 */
export type Algorithm = "MD5" | "MD5-sess" | "SHA-256" | "SHA-256-sess" | "SHA-512-256" | "SHA-512-256-sess"

const ALGORITHMS: ReadonlyArray<Algorithm> = [
  "MD5",
  "MD5-sess",
  "SHA-256",
  "SHA-256-sess",
  "SHA-512-256",
  "SHA-512-256-sess"
]

/**
 * A Digest challenge.
 *
 * @category models
 */
export interface Challenge {
  readonly realm: string
  readonly nonce: string
  readonly opaque: string | undefined
  /** The nonce expired but the credentials were right: retry with the new nonce. */
  readonly stale: boolean
  readonly algorithm: Algorithm
  /** The qop values offered, lower-cased; empty for an RFC 2069 challenge. */
  readonly qop: ReadonlyArray<string>
}

const WS = /[ \t]/

/**
 * Parses `auth-param` lists: `name=token` or `name="quoted"`, comma-separated.
 */
const parseAuthParams = (text: string): Map<string, string> | undefined => {
  const params = new Map<string, string>()
  let i = 0
  const skip = () => {
    while (i < text.length && (WS.test(text[i]!) || text[i] === ",")) i++
  }
  skip()
  while (i < text.length) {
    const nameMatch = /^[A-Za-z0-9\-.!%*_+`'~]+/.exec(text.slice(i))
    if (nameMatch === null) return undefined
    const name = nameMatch[0].toLowerCase()
    i += nameMatch[0].length
    while (i < text.length && WS.test(text[i]!)) i++
    if (text[i] !== "=") return undefined
    i++
    while (i < text.length && WS.test(text[i]!)) i++
    let value = ""
    if (text[i] === "\"") {
      i++
      for (;;) {
        if (i >= text.length) return undefined
        const ch = text[i]!
        if (ch === "\\" && i + 1 < text.length) {
          value += text[i + 1]
          i += 2
        } else if (ch === "\"") {
          i++
          break
        } else {
          value += ch
          i++
        }
      }
    } else {
      while (i < text.length && text[i] !== "," && !WS.test(text[i]!)) value += text[i++]
      if (value === "") return undefined
    }
    params.set(name, value)
    while (i < text.length && WS.test(text[i]!)) i++
    if (i < text.length && text[i] !== ",") return undefined
    skip()
  }
  return params
}

/**
 * Parses one challenge header value. Fails (with why) for a scheme other than Digest, a missing
 * realm or nonce, or an algorithm this client does not compute.
 *
 * @category decoding
 */
export const parseChallenge = (value: string): Result.Result<Challenge, string> => {
  const match = /^[ \t]*([A-Za-z0-9\-.!%*_+`'~]+)[ \t]+(.*)$/.exec(value)
  if (match === null) return Result.fail("a malformed challenge")
  if (match[1]!.toLowerCase() !== "digest") return Result.fail(`unsupported authentication scheme ${match[1]}`)
  const params = parseAuthParams(match[2]!)
  if (params === undefined) return Result.fail("malformed challenge parameters")
  const realm = params.get("realm")
  const nonce = params.get("nonce")
  if (realm === undefined || nonce === undefined) return Result.fail("a challenge with no realm or nonce")
  const algorithmText = params.get("algorithm") ?? "MD5"
  const algorithm = ALGORITHMS.find((a) => a.toLowerCase() === algorithmText.toLowerCase())
  if (algorithm === undefined) return Result.fail(`unsupported digest algorithm ${algorithmText}`)
  const qop = (params.get("qop") ?? "").split(",").map((q) => q.trim().toLowerCase()).filter((q) => q !== "")
  return Result.succeed({
    realm,
    nonce,
    opaque: params.get("opaque"),
    stale: params.get("stale")?.toLowerCase() === "true",
    algorithm,
    qop
  })
}

/**
 * The challenge to answer among a response's: the first this client can compute with a qop it
 * supports (`auth`, `auth-int`, or none). Fails with the reasons when none fits.
 *
 * @category decoding
 */
export const chooseChallenge = (values: ReadonlyArray<string>): Result.Result<Challenge, string> => {
  const reasons: Array<string> = []
  for (const value of values) {
    const parsed = parseChallenge(value)
    if (Result.isFailure(parsed)) {
      reasons.push(parsed.failure)
      continue
    }
    const qop = parsed.success.qop
    if (qop.length === 0 || qop.includes("auth") || qop.includes("auth-int")) return parsed
    reasons.push(`unsupported qop ${qop.join(",")}`)
  }
  return Result.fail(reasons.length === 0 ? "no challenge" : reasons.join("; "))
}

const hashName = (algorithm: Algorithm): string =>
  algorithm.startsWith("MD5") ? "md5" : algorithm.startsWith("SHA-256") ? "sha256" : "sha512-256"

/**
 * What the client knows when answering.
 *
 * @category models
 */
export interface Credentials {
  readonly username: string
  readonly password: string
  readonly method: string
  /** The Request-URI as sent. */
  readonly uri: string
  /** Required by `auth-int`; the empty body otherwise. */
  readonly body?: Uint8Array
  /** A fresh random string per nonce (or per request). */
  readonly cnonce: string
  /** How many requests this client has sent with this nonce, this one included (1, 2, ...). */
  readonly nc: number
}

/**
 * The parts of an answer, before formatting (exposed for tests against published vectors).
 *
 * @category models
 */
export interface Answer {
  readonly response: string
  readonly qop: "auth" | "auth-int" | undefined
  readonly nc: string
}

/**
 * Computes the digest response (RFC 7616 §3.4.1, RFC 2617 §3.2.2).
 *
 * @category encoding
 */
export const answer = (challenge: Challenge, credentials: Credentials): Answer => {
  const name = hashName(challenge.algorithm)
  const h = (text: string | Uint8Array) => createHash(name).update(text).digest("hex")
  const qop = challenge.qop.includes("auth") ? "auth" : challenge.qop.includes("auth-int") ? "auth-int" : undefined
  const nc = credentials.nc.toString(16).padStart(8, "0")
  let ha1 = h(`${credentials.username}:${challenge.realm}:${credentials.password}`)
  if (challenge.algorithm.endsWith("-sess")) ha1 = h(`${ha1}:${challenge.nonce}:${credentials.cnonce}`)
  const ha2 = qop === "auth-int"
    ? h(`${credentials.method}:${credentials.uri}:${h(credentials.body ?? new Uint8Array(0))}`)
    : h(`${credentials.method}:${credentials.uri}`)
  const response = qop === undefined
    ? h(`${ha1}:${challenge.nonce}:${ha2}`)
    : h(`${ha1}:${challenge.nonce}:${nc}:${credentials.cnonce}:${qop}:${ha2}`)
  return { response, qop, nc }
}

const quoted = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/**
 * The `Authorization` / `Proxy-Authorization` header value answering `challenge`.
 *
 * @category encoding
 */
export const authorization = (challenge: Challenge, credentials: Credentials): string => {
  const computed = answer(challenge, credentials)
  const parts = [
    `username=${quoted(credentials.username)}`,
    `realm=${quoted(challenge.realm)}`,
    `nonce=${quoted(challenge.nonce)}`,
    `uri=${quoted(credentials.uri)}`,
    `response=${quoted(computed.response)}`,
    `algorithm=${challenge.algorithm}`
  ]
  if (computed.qop !== undefined) {
    parts.push(`qop=${computed.qop}`, `nc=${computed.nc}`, `cnonce=${quoted(credentials.cnonce)}`)
  }
  if (challenge.opaque !== undefined) parts.push(`opaque=${quoted(challenge.opaque)}`)
  return `Digest ${parts.join(", ")}`
}
