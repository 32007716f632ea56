/**
 * The per-call token that authenticates a carrier's media stream (docs/MEDIA.md: media streams
 * connect with a per-call token). The dialer signs one for each call it places and hands it to
 * the carrier with the media URL; the media session accepts a stream only with a valid,
 * unexpired token, before a byte of audio is read. Twilio drops query strings from stream URLs,
 * so the token travels as the stream's custom parameter `token` (the `start` message's
 * `customParameters`).
 *
 * Format: `<callId as base64url>.<expiry, epoch ms>.<HMAC-SHA256 of both, base64url>`. The key is
 * derived from the installation's cursor key (ServerSecrets) with a label of its own, so every
 * daemon on one database accepts another's tokens and a cursor signature is never a token's.
 *
 * @since 0.1.0
 */
import { Option } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { derive, secretOf } from "./internal/hmacKeys.ts"

const label = "voice-agent media stream token v1"

/**
 * The token key for an installation's cursor key (derived once per cursor key).
 *
 * @category constructors
 */
export const keyFrom = (cursorKey: Uint8Array): Uint8Array => derive(cursorKey, label)

const mac = (key: Uint8Array, body: string): Buffer => createHmac("sha256", secretOf(key)).update(body).digest()

/**
 * A token for `callId`, valid until `expiresAt` (epoch ms).
 *
 * @category encoding
 */
export const sign = (key: Uint8Array, callId: string, expiresAt: number): string => {
  const body = `${Buffer.from(callId, "utf8").toString("base64url")}.${expiresAt}`
  return `${body}.${mac(key, body).toString("base64url")}`
}

/**
 * The call id of a valid token not expired at `now`; none for anything else (malformed,
 * tampered, signed with another key, expired).
 *
 * @category decoding
 */
export const verify = (key: Uint8Array, token: string, now: number): Option.Option<string> => {
  if (token.length > 512) return Option.none()
  const parts = token.split(".")
  if (parts.length !== 3) return Option.none()
  const [id, expiry, signature] = parts as [string, string, string]
  if (!/^\d{1,16}$/.test(expiry) || Number(expiry) <= now) return Option.none()
  const expected = mac(key, `${id}.${expiry}`)
  const given = Buffer.from(signature, "base64url")
  if (given.length !== expected.length || given.toString("base64url") !== signature) return Option.none()
  if (!timingSafeEqual(given, expected)) return Option.none()
  const callId = Buffer.from(id, "base64url").toString("utf8")
  return Buffer.from(callId, "utf8").toString("base64url") === id && callId !== "" ? Option.some(callId) : Option.none()
}
