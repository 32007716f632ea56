import { assert, describe, it } from "@effect/vitest"
import { parseSecret } from "@voice-agent/core/Webhook"
import { Result } from "effect"
import * as WebhookSignature from "./WebhookSignature.ts"

// The specification's own test vector (the Standard Webhooks libraries' tests and Svix's
// documentation use it). Its signature is `…/tmIKtSy…`; a copy that circulates with the tail
// `…/tOhKbjlMa7LHGbEPbUVuqgsyNU=` is corrupted (it shares only the first 13 bytes).
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: "{\"test\": 2432232314}",
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
}

const key = Result.getOrThrow(parseSecret(vector.secret))

describe("sign", () => {
  it("gives the specification's signature for its test vector", () => {
    assert.strictEqual(WebhookSignature.sign(key, vector.id, vector.timestamp, vector.body), vector.signature)
    assert.deepStrictEqual(WebhookSignature.headers(key, vector.id, vector.timestamp, vector.body), {
      "webhook-id": vector.id,
      "webhook-timestamp": "1614265330",
      "webhook-signature": vector.signature
    })
  })
})

describe("verify", () => {
  const received = { id: vector.id, timestamp: String(vector.timestamp), signature: vector.signature }

  it("accepts the vector within the tolerance, with the secret as text or bytes, among other signatures", () => {
    assert.isTrue(Result.isSuccess(WebhookSignature.verify(vector.secret, received, vector.body, vector.timestamp)))
    assert.isTrue(Result.isSuccess(WebhookSignature.verify(key, received, vector.body, vector.timestamp + 300)))
    const rotated = { ...received, signature: `v1,bm90IGl0 v2,abc ${vector.signature}` }
    assert.isTrue(Result.isSuccess(WebhookSignature.verify(vector.secret, rotated, vector.body, vector.timestamp)))
  })

  it("rejects a changed body, id or timestamp, another secret, an old or future timestamp", () => {
    const fails = (
      secret: string,
      message: typeof received,
      body: string,
      now = vector.timestamp
    ) => Result.isFailure(WebhookSignature.verify(secret, message, body, now))
    assert.isTrue(fails(vector.secret, received, "{\"test\": 2432232315}"))
    assert.isTrue(fails(vector.secret, { ...received, id: "msg_other" }, vector.body))
    assert.isTrue(fails(vector.secret, { ...received, timestamp: "1614265331" }, vector.body, 1614265331))
    assert.isTrue(fails("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", received, vector.body))
    assert.isTrue(fails(vector.secret, received, vector.body, vector.timestamp + 301))
    assert.isTrue(fails(vector.secret, received, vector.body, vector.timestamp - 301))
    assert.isTrue(fails(vector.secret, { ...received, timestamp: "1614265330.5" }, vector.body))
    assert.isTrue(fails(vector.secret, { ...received, signature: "v1," }, vector.body))
  })
})
