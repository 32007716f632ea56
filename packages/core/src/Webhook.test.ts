import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import {
  callEnded,
  contactStatusChanged,
  defaultRetrySchedule,
  formatSecret,
  messageReceived,
  parseRetrySchedule,
  parseSecret,
  retryAt,
  toBody
} from "./Webhook.ts"

describe("retryAt", () => {
  it("follows the Standard Webhooks schedule, then gives up after the eighth attempt", () => {
    const now = 1_000_000
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryAt(defaultRetrySchedule, attempt, now)! - now)
    assert.deepStrictEqual(delays, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    assert.isNull(retryAt(defaultRetrySchedule, 8, now))
    assert.isNull(retryAt(defaultRetrySchedule, 9, now))
  })

  it("takes any schedule; an empty one never retries", () => {
    assert.strictEqual(retryAt([100, 200], 2, 0), 200)
    assert.isNull(retryAt([100, 200], 3, 0))
    assert.isNull(retryAt([], 1, 0))
  })
})

describe("parseRetrySchedule", () => {
  it("reads durations with units", () => {
    assert.deepStrictEqual(
      Result.getOrThrow(parseRetrySchedule("5s,5m,30m,2h,5h,10h,10h")),
      defaultRetrySchedule
    )
    assert.deepStrictEqual(Result.getOrThrow(parseRetrySchedule(" 250ms, 1.5s ,1d")), [250, 1_500, 86_400_000])
    assert.deepStrictEqual(Result.getOrThrow(parseRetrySchedule("none")), [])
  })

  it("rejects anything else", () => {
    for (const text of ["", "5", "5x", "5s,,1m", "-1s", "1s;2s"]) {
      assert.isTrue(Result.isFailure(parseRetrySchedule(text)), text)
    }
  })
})

describe("secrets", () => {
  it("format as whsec_ + base64 and parse back, with or without the prefix", () => {
    const bytes = Uint8Array.from({ length: 24 }, (_, i) => i * 10)
    const text = formatSecret(bytes)
    assert.match(text, /^whsec_[A-Za-z0-9+/]{32}$/)
    assert.deepStrictEqual(Result.getOrThrow(parseSecret(text)), bytes)
    assert.deepStrictEqual(Result.getOrThrow(parseSecret(text.slice(6))), bytes)
    assert.isTrue(Result.isFailure(parseSecret("whsec_not base64!")))
    assert.isTrue(Result.isFailure(parseSecret("whsec_abc")))
  })
})

describe("events", () => {
  const conversation = {
    id: "7b0e6f9c-2a49-4c1c-9d57-0f0d1f1f5a11",
    callId: "call-1",
    organizationId: "org-1",
    campaignId: "camp-1",
    contactId: "42",
    direction: "outbound" as const,
    fromNumber: "+12025550100",
    toNumber: "+12025550123",
    startedAt: new Date(Date.UTC(2030, 0, 1, 12)),
    answeredAt: new Date(Date.UTC(2030, 0, 1, 12, 0, 2)),
    endedAt: new Date(Date.UTC(2030, 0, 1, 12, 0, 9)),
    durationSec: 7,
    terminationReason: "user-hangup" as const
  }

  it("call.ended carries the Conversation resource and the contact id", () => {
    assert.deepStrictEqual(callEnded(conversation), {
      organizationId: "org-1",
      type: "call.ended",
      data: {
        conversation: {
          id: conversation.id,
          call_id: "call-1",
          ts: "2030-01-01T12:00:00.000Z",
          direction: "outbound",
          from_number: "+12025550100",
          to_number: "+12025550123",
          duration_sec: 7,
          campaign_id: "camp-1",
          termination_reason: "user-hangup"
        },
        contact_id: "42"
      }
    })
  })

  it("contact.status_changed carries the Contact resource, the previous status and the campaign", () => {
    const event = contactStatusChanged({
      id: "42",
      campaignId: "camp-1",
      organizationId: "org-1",
      phoneNumber: "+12025550123",
      data: { name: "Ada" },
      previousStatus: "TRYING",
      status: "COMPLETED"
    })
    assert.deepStrictEqual(event.data, {
      contact: { id: "42", phone_number: "+12025550123", status: "COMPLETED", data: { name: "Ada" } },
      previous_status: "TRYING",
      campaign_id: "camp-1"
    })
  })

  it("message.received carries the InboundMessage resource", () => {
    const event = messageReceived({
      id: "m-1",
      organizationId: "org-1",
      direction: "inbound",
      modality: "sms",
      fromNumber: "+12025550123",
      toNumber: "+12025550100",
      content: "STOP",
      receivedAt: new Date(Date.UTC(2030, 0, 1)),
      status: "received"
    })
    assert.strictEqual(event.type, "message.received")
    assert.deepStrictEqual(event.data, {
      message: {
        id: "m-1",
        from_number: "+12025550123",
        to_number: "+12025550100",
        content: "STOP",
        received_at: "2030-01-01T00:00:00.000Z",
        modality: "sms",
        direction: "inbound"
      }
    })
  })

  it("the body is {type, timestamp, data} with the event's instant", () => {
    assert.deepStrictEqual(toBody("call.started", Date.UTC(2030, 0, 1), { a: 1 }), {
      type: "call.started",
      timestamp: "2030-01-01T00:00:00.000Z",
      data: { a: 1 }
    })
  })
})
