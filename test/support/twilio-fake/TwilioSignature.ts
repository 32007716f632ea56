/**
 * Twilio's request signature (`X-Twilio-Signature`, twilio.com/docs/usage/webhooks/webhooks-security), written from
 * the documented algorithm for the fake's side: base64 of HMAC-SHA1, keyed by the account's auth
 * token, over the full URL Twilio requests followed by every parameter's name and value with the
 * names sorted (a name given several values: its distinct values sorted, each as name + value).
 * A GET request, or a WebSocket upgrade (signed over its `wss://` URL), has no parameters: the
 * URL alone is signed. Pinned by Twilio's official vectors in `TwilioSignature.test.ts`.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * Request parameters: pairs in the order they were sent (a name may repeat), or a record.
 *
 * @category models
 */
export type Params =
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | ReadonlyArray<string>>>

const isPairs = (params: Params): params is Iterable<readonly [string, string]> => Symbol.iterator in params

const entriesOf = (params: Params): ReadonlyArray<readonly [string, string]> =>
  isPairs(params)
    ? [...params]
    : Object.entries(params).flatMap(([name, value]) =>
      typeof value === "string" ? [[name, value] as const] : value.map((v) => [name, v] as const)
    )

/**
 * The text Twilio signs: the URL, then for each parameter name in sorted order its distinct
 * values, sorted, each as name + value.
 *
 * @category constructors
 */
export const dataToSign = (url: string, params: Params): string => {
  const byName = new Map<string, Set<string>>()
  for (const [name, value] of entriesOf(params)) {
    const values = byName.get(name) ?? new Set<string>()
    values.add(value)
    byName.set(name, values)
  }
  let data = url
  for (const name of [...byName.keys()].sort()) {
    for (const value of [...byName.get(name)!].sort()) data += name + value
  }
  return data
}

/**
 * The `X-Twilio-Signature` of a request to `url` with `params`, signed with `authToken`.
 *
 * @category constructors
 */
export const sign = (authToken: string, url: string, params: Params = []): string =>
  createHmac("sha1", authToken).update(Buffer.from(dataToSign(url, params), "utf-8")).digest("base64")

/** `url` without its port, and with the scheme's default port when it has none. */
const portVariants = (url: string): ReadonlyArray<string> => {
  const parts = /^(\w+):\/\/([^/?#:]+)(?::\d+)?(.*)$/.exec(url)
  if (parts === null) return []
  const [, scheme, host, rest] = parts
  const defaultPort = scheme === "https" || scheme === "wss" ? 443 : 80
  return [`${scheme}://${host}${rest}`, `${scheme}://${host}:${defaultPort}${rest}`]
}

/**
 * Whether `signature` is Twilio's for a request to `url` with `params`: the URL as given, then
 * without its port and with the default port (as Twilio's SDKs accept), compared in constant
 * time.
 *
 * @category predicates
 */
export const isValid = (
  authToken: string,
  signature: string | undefined,
  url: string,
  params: Params = []
): boolean => {
  if (signature === undefined) return false
  const given = Buffer.from(signature)
  return [url, ...portVariants(url)].some((candidate) => {
    const expected = Buffer.from(sign(authToken, candidate, params))
    return expected.length === given.length && timingSafeEqual(expected, given)
  })
}
