import { assert, describe, it } from "@effect/vitest"
import { Option, Result } from "effect"
import * as Goldens from "../test/fixtures/twilio-webhooks.goldens.ts"
import * as TwilioSignature from "./TwilioSignature.ts"
import * as TwilioWebhooks from "./TwilioWebhooks.ts"
import type { StatusCallback } from "./TwilioWebhooks.ts"

const now = 1_800_000_000_000

const decoded = <A>(result: Result.Result<A, TwilioWebhooks.TwilioWebhookError>): A => {
  if (Result.isFailure(result)) assert.fail(result.failure.message)
  return result.success
}
const failure = <A>(result: Result.Result<A, TwilioWebhooks.TwilioWebhookError>): string => {
  if (Result.isSuccess(result)) assert.fail(`decoded: ${JSON.stringify(result.success)}`)
  return result.failure.message
}

const callback = (fields: Partial<StatusCallback>): StatusCallback => ({
  CallSid: "CA0123456789abcdef0123456789abcdef",
  AccountSid: "AC0123456789abcdef0123456789abcdef",
  CallStatus: "ringing",
  ...fields
})

describe("parseForm", () => {
  it("decodes + and percent-escapes (UTF-8), and keeps every parameter", () => {
    const params = TwilioWebhooks.parseForm(Goldens.statusCallbackCompleted)
    assert.strictEqual(params["CalledCity"], "São Paulo")
    assert.strictEqual(params["Timestamp"], "Sun, 25 Mar 2018 09:53:19 +0000")
    assert.strictEqual(params["ToZip"], "")
    assert.strictEqual(Object.keys(params).length, 31)
  })
  it("gathers a repeated key's values in order", () => {
    assert.deepStrictEqual(TwilioWebhooks.parseForm("a=1&b=x+y&a=2&a=1"), { a: ["1", "2", "1"], b: "x y" })
    assert.deepStrictEqual(TwilioWebhooks.parseForm(""), {})
  })
  it("keeps parameters named like Object.prototype's members as the body's own", () => {
    // These threw ("seen is not iterable"): every webhook answered 500 before its signature was checked.
    const params = TwilioWebhooks.parseForm("constructor=a&toString=b&__proto__=c&hasOwnProperty=d&constructor=e")
    assert.deepStrictEqual(Object.keys(params), ["constructor", "toString", "__proto__", "hasOwnProperty"])
    assert.deepStrictEqual(params["constructor"], ["a", "e"])
    assert.strictEqual(params["toString"], "b")
    assert.strictEqual(params["__proto__"], "c")
    assert.strictEqual(Object.getPrototypeOf(params), Object.prototype)
    // Signed like any parameter, so Twilio's signature over such a body still matches.
    assert.strictEqual(
      TwilioSignature.stringToSign("https://x.test/sms", params),
      "https://x.test/sms__proto__cconstructoraconstructorehasOwnPropertydtoStringb"
    )
    assert.isTrue(Result.isFailure(TwilioWebhooks.decodeIncomingMessage(params)))
  })
})

describe("the NUL character", () => {
  it("makes any parameter a decoder reads malformed (PostgreSQL cannot store it)", () => {
    const message = {
      MessageSid: "SM0123456789abcdef0123456789abcdef",
      AccountSid: "AC0123456789abcdef0123456789abcdef",
      From: "+13035550111",
      To: "+12025550100",
      Body: "hello"
    }
    assert.isTrue(Result.isSuccess(TwilioWebhooks.decodeIncomingMessage(message)))
    for (const key of Object.keys(message)) {
      assert.match(
        failure(TwilioWebhooks.decodeIncomingMessage({ ...message, [key]: "a\u0000b" })),
        new RegExp(`^Not a Twilio incoming message: ${key}: must not contain the NUL character`),
        key
      )
    }
    assert.match(
      failure(TwilioWebhooks.decodeIncomingMessage({ ...message, NumMedia: "\u0000" })),
      /NumMedia: must not contain the NUL character/
    )
    assert.match(
      failure(
        TwilioWebhooks.decodeMessageStatusCallback({
          MessageSid: "SM\u0000",
          AccountSid: "AC1",
          MessageStatus: "delivered"
        })
      ),
      /^Not a Twilio message status callback: MessageSid: /
    )
    assert.match(
      failure(TwilioWebhooks.decodeStatusCallback({ ...callback({}), CallSid: "\u0000" })),
      /^Not a Twilio call status callback: CallSid: /
    )
    assert.match(
      failure(
        TwilioWebhooks.decodeVoiceRequest({
          CallSid: "CA1",
          AccountSid: "AC1",
          From: "+13035550111",
          To: "+12025550100\u0000",
          CallStatus: "ringing",
          Direction: "inbound"
        })
      ),
      /^Not a Twilio voice request: To: /
    )
  })
})

describe("decodeStatusCallback", () => {
  it("decodes the captured callback (Twilio's status callback), ignoring what it does not know", () => {
    const value = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackCompleted))
    )
    assert.deepStrictEqual(value, {
      CallSid: "CAbe982f58915a2def4cf7aaa1f1766236",
      AccountSid: "AC47ebdee5f6d2049fe18cf3ca151ff3a7",
      CallStatus: "completed",
      From: "+16466063895",
      To: "+551135892112",
      Direction: "outbound-api",
      AnsweredBy: "human",
      Timestamp: "Sun, 25 Mar 2018 09:53:19 +0000",
      SequenceNumber: "3",
      CallbackSource: "call-progress-events",
      CallDuration: "49"
    })
  })
  it("decodes the constructed ringing and answered-by-machine callbacks", () => {
    const ringing = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackRinging))
    )
    assert.strictEqual(ringing.CallStatus, "ringing")
    assert.isUndefined(ringing.Timestamp)
    const machine = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackAnsweredByMachine))
    )
    assert.strictEqual(machine.AnsweredBy, "machine_start")
  })
  it("fails with one sentence naming the parameter", () => {
    const params = TwilioWebhooks.parseForm(Goldens.statusCallbackRinging)
    const { CallSid: _, ...withoutSid } = params
    assert.match(
      failure(TwilioWebhooks.decodeStatusCallback(withoutSid)),
      /^Not a Twilio call status callback: CallSid: /
    )
    assert.match(
      failure(TwilioWebhooks.decodeStatusCallback({ ...params, CallStatus: "answered" })),
      /^Not a Twilio call status callback: CallStatus: /
    )
    assert.match(
      failure(TwilioWebhooks.decodeStatusCallback({ ...params, CallSid: ["CA1", "CA2"] })),
      /CallSid/
    )
  })
})

describe("decodeVoiceRequest", () => {
  it("decodes an outbound call's request and an incoming call", () => {
    const outbound = decoded(TwilioWebhooks.decodeVoiceRequest(TwilioWebhooks.parseForm(Goldens.voiceRequestOutbound)))
    assert.deepStrictEqual(outbound, {
      CallSid: "CA0123456789abcdef0123456789abcdef",
      AccountSid: "AC0123456789abcdef0123456789abcdef",
      From: "+12025550100",
      To: "+12025550123",
      CallStatus: "in-progress",
      Direction: "outbound-api",
      AnsweredBy: "human"
    })
    const inbound = decoded(TwilioWebhooks.decodeVoiceRequest(TwilioWebhooks.parseForm(Goldens.voiceRequestInbound)))
    assert.strictEqual(inbound.Direction, "inbound")
    assert.strictEqual(inbound.CallerName, "ALEX MORGAN")
    assert.strictEqual(inbound.To, "+15558675310")
  })
  it("fails without To", () => {
    const { To: _, ...params } = TwilioWebhooks.parseForm(Goldens.voiceRequestInbound)
    assert.match(failure(TwilioWebhooks.decodeVoiceRequest(params)), /^Not a Twilio voice request: To: /)
  })
})

describe("decodeIncomingMessage", () => {
  it("decodes the incoming SMS, body in UTF-8", () => {
    const message = decoded(TwilioWebhooks.decodeIncomingMessage(TwilioWebhooks.parseForm(Goldens.incomingMessage)))
    assert.deepStrictEqual(message, {
      MessageSid: "SM0123456789abcdef0123456789abcdef",
      AccountSid: "AC0123456789abcdef0123456789abcdef",
      From: "+14017122661",
      To: "+15558675310",
      Body: "Yes, Tuesday at 10 works 👍",
      MessagingServiceSid: "MG0123456789abcdef0123456789abcdef",
      NumMedia: "0",
      NumSegments: "1"
    })
  })
  it("accepts an empty body and refuses a missing one", () => {
    const params = TwilioWebhooks.parseForm(Goldens.incomingMessage)
    assert.strictEqual(decoded(TwilioWebhooks.decodeIncomingMessage({ ...params, Body: "" })).Body, "")
    const { Body: _, ...withoutBody } = params
    assert.match(failure(TwilioWebhooks.decodeIncomingMessage(withoutBody)), /^Not a Twilio incoming message: Body: /)
  })
})

describe("decodeMessageStatusCallback", () => {
  it("decodes sent and undelivered (with ErrorCode)", () => {
    const sent = decoded(
      TwilioWebhooks.decodeMessageStatusCallback(TwilioWebhooks.parseForm(Goldens.messageStatusSent))
    )
    assert.deepStrictEqual(sent, {
      MessageSid: "SM0123456789abcdef0123456789abcdef",
      AccountSid: "AC0123456789abcdef0123456789abcdef",
      MessageStatus: "sent",
      From: "+14155552345",
      To: "+14155552345"
    })
    const undelivered = decoded(
      TwilioWebhooks.decodeMessageStatusCallback(TwilioWebhooks.parseForm(Goldens.messageStatusUndelivered))
    )
    assert.strictEqual(undelivered.MessageStatus, "undelivered")
    assert.strictEqual(undelivered.ErrorCode, "30003")
    assert.strictEqual(undelivered.RawDlrDoneDate, "2611281504")
  })
  it("keeps a status it does not know", () => {
    const params = TwilioWebhooks.parseForm(Goldens.messageStatusSent)
    assert.strictEqual(
      decoded(TwilioWebhooks.decodeMessageStatusCallback({ ...params, MessageStatus: "some_new_status" }))
        .MessageStatus,
      "some_new_status"
    )
    assert.include(TwilioWebhooks.messageStatuses, "partially_delivered")
  })
})

describe("parseRfc2822", () => {
  it("reads Twilio's Timestamp", () => {
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("Sun, 25 Mar 2018 09:53:19 +0000"), Option.some(1521971599000))
  })
  it("applies the offset, and reads GMT, no weekday, no seconds", () => {
    const utc = 1521971599000
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("Sun, 25 Mar 2018 11:23:19 +0130"), Option.some(utc))
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("Sun, 25 Mar 2018 04:53:19 -0500"), Option.some(utc))
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("25 Mar 2018 09:53:19 GMT"), Option.some(utc))
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("Sun, 25 Mar 2018 09:53 +0000"), Option.some(utc - 19_000))
    assert.deepStrictEqual(TwilioWebhooks.parseRfc2822("Thu, 29 Feb 2024 00:00:00 +0000"), Option.some(1709164800000))
  })
  it("refuses anything else", () => {
    for (
      const text of [
        "",
        "2018-03-25T09:53:19Z",
        "Sun, 25 Mar 2018 09:53:19",
        "Sun, 32 Mar 2018 09:53:19 +0000",
        "Thu, 29 Feb 2023 00:00:00 +0000",
        "Sun, 25 Foo 2018 09:53:19 +0000",
        "Sun, 25 Mar 2018 24:00:00 +0000",
        "Sun, 25 Mar 2018 09:53:19 +0000 trailing"
      ]
    ) {
      assert.isTrue(Option.isNone(TwilioWebhooks.parseRfc2822(text)), text)
    }
  })
})

describe("answeredBy", () => {
  it("is a machine for machine_* and fax, a human for human, unknown and nothing", () => {
    for (const value of ["machine_start", "machine_end_beep", "machine_end_silence", "machine_end_other", "fax"]) {
      assert.strictEqual(TwilioWebhooks.answeredBy(value), "machine", value)
    }
    for (const value of ["human", "unknown", undefined]) {
      assert.strictEqual(TwilioWebhooks.answeredBy(value), "human", String(value))
    }
  })
})

describe("callEvent", () => {
  it("maps the captured completed callback to Ended remote-hangup at its Timestamp", () => {
    const value = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackCompleted))
    )
    assert.deepStrictEqual(
      TwilioWebhooks.callEvent(value, now),
      Option.some({ _tag: "Ended", at: 1521971599000, reason: "remote-hangup" })
    )
  })
  it("maps ringing (no Timestamp: now) and an answer by a machine", () => {
    const ringing = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackRinging))
    )
    assert.deepStrictEqual(TwilioWebhooks.callEvent(ringing, now), Option.some({ _tag: "Ringing", at: now }))
    const machine = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackAnsweredByMachine))
    )
    assert.deepStrictEqual(
      TwilioWebhooks.callEvent(machine, now),
      Option.some({ _tag: "Answered", at: 1796137445000, answeredBy: "machine" })
    )
  })
  it("maps every status", () => {
    const at = (status: StatusCallback["CallStatus"], fields: Partial<StatusCallback> = {}) =>
      TwilioWebhooks.callEvent(callback({ CallStatus: status, ...fields }), now)
    assert.isTrue(Option.isNone(at("queued")))
    assert.isTrue(Option.isNone(at("initiated")))
    assert.deepStrictEqual(at("in-progress"), Option.some({ _tag: "Answered", at: now, answeredBy: "human" }))
    assert.deepStrictEqual(
      at("in-progress", { AnsweredBy: "unknown" }),
      Option.some({ _tag: "Answered", at: now, answeredBy: "human" })
    )
    assert.deepStrictEqual(
      at("in-progress", { AnsweredBy: "fax" }),
      Option.some({ _tag: "Answered", at: now, answeredBy: "machine" })
    )
    assert.deepStrictEqual(at("completed"), Option.some({ _tag: "Ended", at: now, reason: "remote-hangup" }))
    assert.deepStrictEqual(at("canceled"), Option.some({ _tag: "Ended", at: now, reason: "local-hangup" }))
    assert.deepStrictEqual(at("busy"), Option.some({ _tag: "Ended", at: now, reason: "busy" }))
    assert.deepStrictEqual(at("no-answer"), Option.some({ _tag: "Ended", at: now, reason: "no-answer" }))
    assert.deepStrictEqual(at("failed"), Option.some({ _tag: "Ended", at: now, reason: "failed" }))
  })
  it("uses now when the Timestamp does not parse", () => {
    assert.deepStrictEqual(
      TwilioWebhooks.callEvent(callback({ Timestamp: "yesterday" }), now),
      Option.some({ _tag: "Ringing", at: now })
    )
  })
})

describe("callDuration", () => {
  it("is the captured completed callback's CallDuration (Twilio's status callback: 49 s)", () => {
    const value = decoded(
      TwilioWebhooks.decodeStatusCallback(TwilioWebhooks.parseForm(Goldens.statusCallbackCompleted))
    )
    assert.deepStrictEqual(TwilioWebhooks.callDuration(value), Option.some(49))
  })
  it("is Twilio's figure for a completed call, 0 and 2 s included", () => {
    for (const seconds of [0, 2, 14_400]) {
      assert.deepStrictEqual(
        TwilioWebhooks.callDuration(callback({ CallStatus: "completed", CallDuration: String(seconds) })),
        Option.some(seconds)
      )
    }
  })
  it("is nothing for a call never answered, a callback without it, or a value that is not whole seconds", () => {
    for (const status of ["busy", "no-answer", "failed", "canceled", "ringing", "in-progress"] as const) {
      assert.isTrue(Option.isNone(TwilioWebhooks.callDuration(callback({ CallStatus: status, CallDuration: "0" }))))
    }
    assert.isTrue(Option.isNone(TwilioWebhooks.callDuration(callback({ CallStatus: "completed" }))))
    for (const malformed of ["", "-1", "2.5", "1e3", " 7", "9999999999", "99999999"]) {
      assert.isTrue(
        Option.isNone(TwilioWebhooks.callDuration(callback({ CallStatus: "completed", CallDuration: malformed }))),
        malformed
      )
    }
  })
})

describe("answered", () => {
  it("is Answered for our answered outbound call, with AMD's verdict", () => {
    const request = decoded(TwilioWebhooks.decodeVoiceRequest(TwilioWebhooks.parseForm(Goldens.voiceRequestOutbound)))
    assert.deepStrictEqual(
      TwilioWebhooks.answered(request, now),
      Option.some({ _tag: "Answered", at: now, answeredBy: "human" })
    )
    assert.deepStrictEqual(
      TwilioWebhooks.answered({ ...request, AnsweredBy: "machine_end_beep" }, now),
      Option.some({ _tag: "Answered", at: now, answeredBy: "machine" })
    )
  })
  it("is nothing for an incoming call", () => {
    const request = decoded(TwilioWebhooks.decodeVoiceRequest(TwilioWebhooks.parseForm(Goldens.voiceRequestInbound)))
    assert.isTrue(Option.isNone(TwilioWebhooks.answered(request, now)))
  })
})
