import { assert, describe, it } from "@effect/vitest"
import type { CarrierError } from "@voice-agent/core/ports/Carrier"
import { Effect, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import * as RestServer from "../test/support/RestServer.ts"
import * as TwilioRest from "./TwilioRest.ts"

const ACCOUNT = "AC0123456789abcdef0123456789abcdef"
const TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed"
const API_KEY = "SKfedcba9876543210fedcba9876543210"
const API_SECRET = "s3cr3t-api-key-secret"
const CALL = "CA0123456789abcdef0123456789abcdef"
const MESSAGE = "SM0123456789abcdef0123456789abcdef"
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

/** The Call object Twilio answers a create with (the spec's example, as a new call). */
const createdCall = {
  account_sid: ACCOUNT,
  answered_by: null,
  api_version: "2010-04-01",
  direction: "outbound-api",
  from: "+12025550100",
  sid: CALL,
  status: "queued",
  to: "+12025550123",
  uri: `/2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL}.json`
}

/** The Message object of the spec's example (Twilio's Message resource). */
const createdMessage = {
  account_sid: ACCOUNT,
  api_version: "2010-04-01",
  body: "Hello! 👍",
  date_created: "Thu, 24 Aug 2023 05:01:45 +0000",
  direction: "outbound-api",
  error_code: null,
  error_message: null,
  from: "+14155552345",
  num_media: "0",
  num_segments: "1",
  price: null,
  messaging_service_sid: "MGaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  sid: MESSAGE,
  status: "queued",
  to: "+14155552345",
  uri: `/2010-04-01/Accounts/${ACCOUNT}/Messages/${MESSAGE}.json`
}

/** Twilio's error JSON. */
const twilioError = (status: number, code: number, message: string) => ({
  status,
  json: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }
})

const call: TwilioRest.CreateCall = {
  to: "+12025550123",
  from: "+12025550100",
  url: "https://agent.example.com/carrier/twilio/voice?call_id=call-1",
  statusCallback: "https://agent.example.com/carrier/twilio/status?call_id=call-1",
  statusCallbackEvents: ["initiated", "ringing", "answered", "completed"],
  machineDetection: "Enable",
  timeoutSec: 45
}

/** A client of a fresh server answering with `reply`, authenticated with the auth token. */
const setup = (reply: (request: RestServer.Recorded) => RestServer.Reply, options: Partial<TwilioRest.Options> = {}) =>
  Effect.gen(function*() {
    const server = yield* RestServer.make(reply)
    const rest = yield* TwilioRest.make({
      accountSid: ACCOUNT,
      credentials: { _tag: "AuthToken", authToken: Redacted.make(TOKEN) },
      apiBase: server.url,
      ...options
    }).pipe(Effect.provide(FetchHttpClient.layer))
    return { server, rest }
  })

const assertNoSecret = (error: CarrierError) => {
  for (const secret of [TOKEN, API_SECRET, Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")]) {
    assert.notInclude(error.message, secret)
    assert.notInclude(JSON.stringify(error), secret)
    assert.notInclude(String(error), secret)
  }
}

describe("createCall", () => {
  it.live("POSTs the form to Calls.json with Basic auth and answers the call's SID", () =>
    Effect.gen(function*() {
      const { rest, server } = yield* setup(() => ({ status: 201, json: createdCall }))
      assert.strictEqual(yield* rest.createCall(call), CALL)
      const [request] = server.requests
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls.json`)
      assert.strictEqual(request?.headers["authorization"], basic(ACCOUNT, TOKEN))
      assert.strictEqual(request?.headers["content-type"], "application/x-www-form-urlencoded")
      assert.strictEqual(
        request?.body,
        "To=%2B12025550123&From=%2B12025550100" +
          "&Url=https%3A%2F%2Fagent.example.com%2Fcarrier%2Ftwilio%2Fvoice%3Fcall_id%3Dcall-1" +
          "&StatusCallback=https%3A%2F%2Fagent.example.com%2Fcarrier%2Ftwilio%2Fstatus%3Fcall_id%3Dcall-1" +
          "&StatusCallbackEvent=initiated&StatusCallbackEvent=ringing&StatusCallbackEvent=answered" +
          "&StatusCallbackEvent=completed&MachineDetection=Enable&Timeout=45"
      )
    }))
  it.live("leaves out MachineDetection and Timeout when not given", () =>
    Effect.gen(function*() {
      const { rest, server } = yield* setup(() => ({ status: 201, json: createdCall }))
      yield* rest.createCall({ ...call, machineDetection: undefined, timeoutSec: undefined, statusCallbackEvents: [] })
      assert.deepStrictEqual([...new URLSearchParams(server.requests[0]?.body).keys()], [
        "To",
        "From",
        "Url",
        "StatusCallback"
      ])
    }))
  it.live("authenticates with an API key, the account SID still in the path", () =>
    Effect.gen(function*() {
      const { rest, server } = yield* setup(() => ({ status: 201, json: createdCall }), {
        credentials: { _tag: "ApiKey", apiKeySid: API_KEY, apiKeySecret: Redacted.make(API_SECRET) }
      })
      yield* rest.createCall(call)
      assert.strictEqual(server.requests[0]?.headers["authorization"], basic(API_KEY, API_SECRET))
      assert.strictEqual(server.requests[0]?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls.json`)
    }))
  it.live("keeps a path prefix of the base URL and drops its trailing slash", () =>
    Effect.gen(function*() {
      const server = yield* RestServer.make(() => ({ status: 201, json: createdCall }))
      const rest = yield* TwilioRest.make({
        accountSid: ACCOUNT,
        credentials: { _tag: "AuthToken", authToken: Redacted.make(TOKEN) },
        apiBase: `${server.url}/twilio/`
      }).pipe(Effect.provide(FetchHttpClient.layer))
      yield* rest.createCall(call)
      assert.strictEqual(server.requests[0]?.path, `/twilio/2010-04-01/Accounts/${ACCOUNT}/Calls.json`)
    }))
  it.live("a 4xx is rejected, with Twilio's code and message", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(400, 21211, "Invalid 'To' Phone Number: +1202555012X"))
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "rejected")
      assert.isFalse(error.isRetryable)
      assert.strictEqual(
        error.message,
        "Twilio refused createCall (HTTP 400, code 21211): Invalid 'To' Phone Number: +1202555012X"
      )
      assertNoSecret(error)
    }))
  it.live("bad credentials (401) are rejected, and the token is not in the text", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(401, 20003, "Authenticate"))
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "rejected")
      assert.strictEqual(error.message, "Twilio refused createCall (HTTP 401, code 20003): Authenticate")
      assertNoSecret(error)
    }))
  it.live("429 (code 20429) is rate-limited, retryable", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(429, 20429, "Too Many Requests"))
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "rate-limited")
      assert.isTrue(error.isRetryable)
      assert.strictEqual(error.message, "Twilio is rate-limiting createCall (HTTP 429, code 20429): Too Many Requests")
    }))
  it.live("code 20429 under another status is rate-limited too", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(400, 20429, "Too Many Requests"))
      assert.strictEqual((yield* Effect.flip(rest.createCall(call))).reason, "rate-limited")
    }))
  it.live("a 5xx is unreachable, retryable, with or without Twilio's JSON", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup((request) =>
        request.body.includes("Timeout") ? twilioError(503, 20503, "Service Unavailable") : {
          status: 502,
          text: "<html>Bad Gateway</html>"
        }
      )
      const first = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(first.reason, "unreachable")
      assert.isTrue(first.isRetryable)
      assert.strictEqual(first.message, "Twilio failed createCall (HTTP 503, code 20503): Service Unavailable")
      const second = yield* Effect.flip(rest.createCall({ ...call, timeoutSec: undefined }))
      assert.strictEqual(second.message, "Twilio failed createCall (HTTP 502)")
    }))
  it.live("a 2xx that is not the documented JSON is unreachable", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => ({ status: 201, text: "ok" }))
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "unreachable")
      assert.strictEqual(error.message, "Twilio answered createCall with HTTP 201 but not the documented JSON")
    }))
  it.live("no server is unreachable, and says where, without secrets", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(RestServer.make(() => "never").pipe(Effect.map((server) => server.url)))
      const rest = yield* TwilioRest.make({
        accountSid: ACCOUNT,
        credentials: { _tag: "AuthToken", authToken: Redacted.make(TOKEN) },
        apiBase: url
      }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "unreachable")
      assert.match(
        error.message,
        new RegExp(`^Twilio API at ${url} unreachable for createCall: TransportError: .*ECONNREFUSED`)
      )
      assertNoSecret(error)
    }))
  it.live("no answer within timeoutMs is unreachable", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => "never", { timeoutMs: 200 })
      const error = yield* Effect.flip(rest.createCall(call))
      assert.strictEqual(error.reason, "unreachable")
      assert.match(error.message, /did not answer createCall within 200ms$/)
    }))
})

describe("hangUp", () => {
  it.live("POSTs Status=completed to the call", () =>
    Effect.gen(function*() {
      const { rest, server } = yield* setup(() => ({ status: 200, json: { ...createdCall, status: "completed" } }))
      assert.strictEqual(yield* rest.hangUp(CALL), "hung-up")
      const [request] = server.requests
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL}.json`)
      assert.strictEqual(request?.headers["authorization"], basic(ACCOUNT, TOKEN))
      assert.strictEqual(request?.body, "Status=completed")
    }))
  it.live("404 with code 20404 is a call already ended", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() =>
        twilioError(
          404,
          20404,
          `The requested resource /2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL}.json was not found`
        )
      )
      assert.strictEqual(yield* rest.hangUp(CALL), "already-ended")
    }))
  it.live("400 with code 21220 (not in progress) is a call already ended", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(400, 21220, "Call is not in-progress. Cannot redirect."))
      assert.strictEqual(yield* rest.hangUp(CALL), "already-ended")
    }))
  it.live("another 404, and a 429, are failures", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup((request) =>
        request.path.includes("CAother")
          ? { status: 404, text: "Not Found" }
          : twilioError(429, 20429, "Too Many Requests")
      )
      const notFound = yield* Effect.flip(rest.hangUp("CAother"))
      assert.strictEqual(notFound.reason, "rejected")
      assert.strictEqual(notFound.message, "Twilio refused hangUp (HTTP 404)")
      assert.strictEqual((yield* Effect.flip(rest.hangUp(CALL))).reason, "rate-limited")
    }))
})

describe("sendMessage", () => {
  it.live("POSTs the form to Messages.json and answers the message's SID and status", () =>
    Effect.gen(function*() {
      const { rest, server } = yield* setup(() => ({ status: 201, json: createdMessage }))
      const sent = yield* rest.sendMessage({
        to: "+14155552345",
        from: "+14155552345",
        body: "Hello! 👍 & more",
        statusCallback: "https://agent.example.com/carrier/twilio/sms-status"
      })
      assert.deepStrictEqual(sent, { sid: MESSAGE, status: "queued" })
      const [request] = server.requests
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.path, `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`)
      assert.strictEqual(request?.headers["authorization"], basic(ACCOUNT, TOKEN))
      assert.strictEqual(
        request?.body,
        "To=%2B14155552345&From=%2B14155552345&Body=Hello%21+%F0%9F%91%8D+%26+more" +
          "&StatusCallback=https%3A%2F%2Fagent.example.com%2Fcarrier%2Ftwilio%2Fsms-status"
      )
    }))
  it.live("a refused message is rejected with Twilio's text", () =>
    Effect.gen(function*() {
      const { rest } = yield* setup(() => twilioError(400, 21610, "Attempt to send to unsubscribed recipient"))
      const error = yield* Effect.flip(rest.sendMessage({ to: "+14155552345", from: "+14155552345", body: "Hi" }))
      assert.strictEqual(error.reason, "rejected")
      assert.strictEqual(
        error.message,
        "Twilio refused sendMessage (HTTP 400, code 21610): Attempt to send to unsubscribed recipient"
      )
    }))
})
