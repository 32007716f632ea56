/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the headers a delivery
 * carries and their verification, for our worker and for receivers written against this
 * package (and the tests).
 *
 * - `webhook-id`: the message id (`msg_…`), the same on every retry of an event;
 * - `webhook-timestamp`: the attempt's instant, integer seconds since the epoch;
 * - `webhook-signature`: `v1,` + base64 of HMAC-SHA256 over `${id}.${timestamp}.${body}`,
 *   keyed by the secret's bytes (the base64 after `whsec_`); a space-separated list on the
 *   wire, so that a secret can rotate with both signatures sent for a while.
 *
 * `body` is the exact text sent: a receiver verifies the raw bytes it received, before parsing.
 *
 * @since 0.1.0
 */
import { parseSecret } from "@voice-agent/core/Webhook"
import { Result } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * The three headers of a signed delivery.
 *
 * @category models
 */
export interface SignatureHeaders {
  readonly "webhook-id": string
  readonly "webhook-timestamp": string
  readonly "webhook-signature": string
}

/**
 * How far a timestamp may be from the receiver's clock, either way (the specification's
 * recommendation, five minutes).
 *
 * @category constructors
 */
export const defaultToleranceSeconds = 300

const hmac = (key: Uint8Array, id: string, timestamp: number, body: string): Buffer =>
  createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest()

/**
 * The `v1,<base64>` signature of one message.
 *
 * @category encoding
 */
export const sign = (key: Uint8Array, id: string, timestampSeconds: number, body: string): string =>
  `v1,${hmac(key, id, timestampSeconds, body).toString("base64")}`

/**
 * The headers of a delivery of `body` as message `id`, sent at `timestampSeconds`.
 *
 * @category encoding
 */
export const headers = (key: Uint8Array, id: string, timestampSeconds: number, body: string): SignatureHeaders => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestampSeconds),
  "webhook-signature": sign(key, id, timestampSeconds, body)
})

/**
 * Checks a received message against `secret` (`whsec_…` or its bytes): the timestamp is within
 * `toleranceSeconds` of `nowSeconds`, and one of the `v1` signatures matches (compared in
 * constant time). Fails with the reason.
 *
 * @category decoding
 */
export const verify = (
  secret: string | Uint8Array,
  received: { readonly id: string; readonly timestamp: string; readonly signature: string },
  body: string,
  nowSeconds: number,
  toleranceSeconds = defaultToleranceSeconds
): Result.Result<void, string> => {
  const key = typeof secret === "string" ? parseSecret(secret) : Result.succeed(secret)
  if (Result.isFailure(key)) return Result.fail(key.failure)
  if (!/^\d{1,12}$/.test(received.timestamp)) return Result.fail("webhook-timestamp is not an integer")
  const timestamp = Number(received.timestamp)
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return Result.fail("webhook-timestamp is out of tolerance")
  const expected = hmac(key.success, received.id, timestamp, body)
  for (const candidate of received.signature.split(" ")) {
    const [version, encoded] = candidate.split(",", 2)
    if (version !== "v1" || encoded === undefined) continue
    const given = Buffer.from(encoded, "base64")
    if (given.length === expected.length && timingSafeEqual(given, expected)) return Result.succeed(undefined)
  }
  return Result.fail("no webhook-signature matches")
}
