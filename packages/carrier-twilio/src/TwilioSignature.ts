/**
 * The `X-Twilio-Signature` of a webhook request (twilio.com/docs/usage/webhooks/webhooks-security): what Twilio
 * signs, and whether a request's header matches it. Pure: strings in, a boolean out.
 *
 * What Twilio signs: the URL it requested, exactly as it was given to Twilio (query string
 * included), then every form parameter as `key + value`, keys in sorted order; a key sent
 * several times contributes each of its distinct values, sorted (twilio-node 5's
 * `getExpectedTwilioSignature`, rule for rule: the URL is signed as a string, not normalized).
 * The signature is `base64(HMAC-SHA1(authToken, that text as UTF-8))`.
 *
 * `validate` accepts the URL as given and what twilio-node 5's `validateRequest` accepts,
 * "since signature generation on the back end is inconsistent": the URL without its port and
 * with the scheme's default port written out (`:443`, `:80`), each also with its query string
 * re-encoded by Node's legacy `querystring` (`+` read as a space, everything re-escaped, a
 * space as `%20`; no cap on the number of keys, so padding cannot push a parameter out of the
 * re-encoded URL). Twilio's own test vectors (twilio-node `spec/validation.spec.js`) pin each
 * of these. Comparison is constant-time. JSON-bodied webhooks carry `bodySHA256=<hex SHA-256
 * of the raw body>` in the URL instead of form parameters: `validateWithBody` checks the
 * signature over the URL alone and that hash.
 *
 * The key is the account's auth token (an API key secret never signs webhooks), always a
 * `Redacted`. Owns neither the request (the daemon reads the header, the URL it published to
 * Twilio and the body) nor decoding (TwilioWebhooks).
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import * as querystring from "node:querystring"

/**
 * Form parameters as posted: a key sent once has a string, a repeated key its values in order.
 *
 * @category models
 */
export type Params = Readonly<Record<string, string | ReadonlyArray<string>>>

/** `key + value`, a repeated key's distinct values sorted (twilio-node `toFormUrlEncodedParam`). */
const keyValues = (key: string, value: string | ReadonlyArray<string>): string =>
  typeof value === "string" ? key + value : [...new Set(value)].sort().map((v) => key + v).join("")

/**
 * The text that is signed: the URL as given, then each parameter as `key + value`, keys sorted.
 *
 * @category encoding
 */
export const stringToSign = (url: string, params: Params): string =>
  Object.keys(params).sort().reduce((data, key) => data + keyValues(key, params[key]!), url)

/**
 * The signature Twilio sends for a request to `url` with form parameters `params` (`{}` for a
 * request without form parameters, such as a JSON-bodied webhook or a WebSocket upgrade).
 *
 * @category encoding
 */
export const sign = (authToken: Redacted.Redacted, url: string, params: Params): string =>
  createHmac("sha1", Redacted.value(authToken)).update(Buffer.from(stringToSign(url, params), "utf8")).digest("base64")

/**
 * The hex SHA-256 of a raw body, as a JSON-bodied webhook's `bodySHA256` carries it.
 *
 * @category encoding
 */
export const bodySha256 = (body: string): string => createHash("sha256").update(Buffer.from(body, "utf8")).digest("hex")

/** Equal, in time that depends only on the lengths (twilio-node's `scmp`). */
const constantTimeEqual = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, "utf8")
  const b = Buffer.from(expected, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

const defaultPort = (url: URL): string => url.protocol === "https:" ? "443" : "80"

/** The URL with the scheme's default port written out when it has none (twilio-node `addPort`). */
const withPort = (url: URL): string => {
  if (url.port !== "") return url.toString()
  const userinfo = url.username === "" && url.password === ""
    ? ""
    : `${url.username}${url.password === "" ? "" : `:${url.password}`}@`
  return `${url.protocol}//${userinfo}${url.host}:${defaultPort(url)}${url.pathname}${url.search}${url.hash}`
}

/** The URL without its port (twilio-node `removePort`). */
const withoutPort = (url: URL): string => {
  const copy = new URL(url.toString())
  copy.port = ""
  return copy.toString()
}

/** The query string re-encoded by Node's legacy `querystring` (twilio-node `withLegacyQuerystring`). */
const withLegacyQuerystring = (url: string): string => {
  const parsed = new URL(url)
  if (parsed.search === "") return url
  const query = querystring.stringify(querystring.parse(parsed.search.slice(1), "&", "=", { maxKeys: 0 }))
  parsed.search = ""
  return `${parsed.toString()}?${query}`
}

/**
 * The URLs a signature is checked against: `url` as given, then without and with the default
 * port, each also with a legacy-encoded query string (duplicates dropped). `url` must be an
 * absolute URL.
 *
 * @category encoding
 */
export const urlVariants = (url: string): ReadonlyArray<string> => {
  const parsed = new URL(url)
  const ports = [withoutPort(parsed), withPort(parsed)]
  return [...new Set([url, ...ports, ...ports.map(withLegacyQuerystring)])]
}

/**
 * Whether `signature` (the `X-Twilio-Signature` header; absent or empty is never valid) is
 * Twilio's for a form-bodied request to `url` with `params`. `url` is the URL Twilio was given
 * (for the daemon: `VOICE_AGENT_PUBLIC_URL` + path + query, the `wss://` one for a media
 * stream's upgrade, whose `params` are `{}`).
 *
 * @category guards
 */
export const validate = (
  authToken: Redacted.Redacted,
  signature: string | undefined,
  url: string,
  params: Params
): boolean => {
  if (signature === undefined || signature === "" || !URL.canParse(url)) return false
  // every variant is computed and compared, so the time taken does not say which one matched
  return urlVariants(url).map((variant) => constantTimeEqual(signature, sign(authToken, variant, params))).includes(
    true
  )
}

/**
 * Whether `signature` is Twilio's for a JSON-bodied request to `url` (which carries
 * `bodySHA256`) with raw body `body`: the signature over the URL alone, and the body's hash.
 *
 * @category guards
 */
export const validateWithBody = (
  authToken: Redacted.Redacted,
  signature: string | undefined,
  url: string,
  body: string
): boolean => {
  if (!URL.canParse(url)) return false
  const hash = new URL(url).searchParams.get("bodySHA256")
  const signed = validate(authToken, signature, url, {})
  return hash !== null && constantTimeEqual(hash, bodySha256(body)) && signed
}
