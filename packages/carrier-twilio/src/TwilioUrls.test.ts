import { assert, describe, it } from "@effect/vitest"
import * as TwilioUrls from "./TwilioUrls.ts"

const publicUrl = "https://agent.example.com"

describe("voiceUrl and statusUrl", () => {
  it("carry our call id in the query", () => {
    assert.strictEqual(
      TwilioUrls.voiceUrl(publicUrl, "6f1c1c9e-2f6b-4c55-9a57-3f3d7d0c1a11"),
      "https://agent.example.com/carrier/twilio/voice?call_id=6f1c1c9e-2f6b-4c55-9a57-3f3d7d0c1a11"
    )
    assert.strictEqual(
      TwilioUrls.statusUrl(publicUrl, "call-1"),
      "https://agent.example.com/carrier/twilio/status?call_id=call-1"
    )
  })
  it("escape a call id that needs it, and keep a path prefix", () => {
    assert.strictEqual(
      TwilioUrls.statusUrl("https://example.com/agent", "a b&c=d"),
      "https://example.com/agent/carrier/twilio/status?call_id=a%20b%26c%3Dd"
    )
    assert.strictEqual(
      new URL(TwilioUrls.statusUrl(publicUrl, "a b&c=d")).searchParams.get(TwilioUrls.callIdParameter),
      "a b&c=d"
    )
  })
})

describe("smsStatusUrl and mediaUrl", () => {
  it("are the paths of docs/TWILIO.md under the public URL, media on its WebSocket twin", () => {
    assert.strictEqual(TwilioUrls.smsStatusUrl(publicUrl), "https://agent.example.com/carrier/twilio/sms-status")
    assert.strictEqual(TwilioUrls.mediaUrl(publicUrl), "wss://agent.example.com/carrier/twilio/media")
    assert.strictEqual(TwilioUrls.mediaUrl("http://127.0.0.1:8080"), "ws://127.0.0.1:8080/carrier/twilio/media")
    assert.deepStrictEqual(TwilioUrls.paths, {
      voice: "/carrier/twilio/voice",
      status: "/carrier/twilio/status",
      sms: "/carrier/twilio/sms",
      smsStatus: "/carrier/twilio/sms-status",
      media: "/carrier/twilio/media"
    })
  })
})
