import { assert, describe, it } from "@effect/vitest"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import {
  ConfigProvider,
  Deferred,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  PubSub,
  Queue,
  Redacted,
  Ref,
  Scope,
  Stream
} from "effect"
import { FetchHttpClient } from "effect/http"
import * as RestServer from "../test/support/RestServer.ts"
import * as TwilioCarrier from "./TwilioCarrier.ts"

const ACCOUNT = "AC0123456789abcdef0123456789abcdef"
const TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed"
const CALL_SID = "CA0123456789abcdef0123456789abcdef"
const MESSAGE_SID = "SM0123456789abcdef0123456789abcdef"
const PUBLIC_URL = "https://agent.example.com"
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

const request = (callId: string): PlaceCallRequest => ({
  from: "+12025550100",
  to: "+12025550123",
  callId,
  mediaUrl: "wss://agent.example.com/carrier/twilio/media",
  mediaToken: "token-not-sent-to-twilio"
})

/** What a Twilio-like server answers: a new call, a hang-up, a message. */
const twilio = (request: RestServer.Recorded): RestServer.Reply => {
  if (request.path.endsWith("/Calls.json")) return { status: 201, json: { sid: CALL_SID, status: "queued" } }
  if (request.path.endsWith("/Messages.json")) return { status: 201, json: { sid: MESSAGE_SID, status: "queued" } }
  return { status: 200, json: { sid: CALL_SID, status: "completed" } }
}

/**
 * An in-memory `CallEvents` (a second event of a kind is ignored, as the port says) that also
 * reports each subscription's end on `released`, so tests can wait for the carrier to forget.
 */
const makeCallEvents = Effect.gen(function*() {
  const recorded = yield* Ref.make(new Map<string, ReadonlyArray<CallEvent>>())
  const pubsub = yield* PubSub.unbounded<{ readonly callId: string; readonly event: CallEvent }>()
  const released = yield* Queue.unbounded<string>()
  const service = CallEvents.of({
    publish: (callId, event) =>
      Ref.modify(recorded, (map) => {
        const seen = map.get(callId) ?? []
        return seen.some((e) => e._tag === event._tag)
          ? [false, map]
          : [true, new Map(map).set(callId, [...seen, event])]
      }).pipe(
        Effect.flatMap((isNew) => isNew ? PubSub.publish(pubsub, { callId, event }) : Effect.void),
        Effect.asVoid
      ),
    subscribe: (callId) =>
      Effect.gen(function*() {
        yield* Effect.addFinalizer(() => Queue.offer(released, callId))
        const subscription = yield* PubSub.subscribe(pubsub)
        const before = (yield* Ref.get(recorded)).get(callId) ?? []
        const later = Stream.fromSubscription(subscription).pipe(
          Stream.filter((item) => item.callId === callId && !before.some((e) => e._tag === item.event._tag)),
          Stream.map((item) => item.event)
        )
        return Stream.concat(Stream.fromIterable(before), later)
      })
  })
  const eventsOf = (callId: string) => Ref.get(recorded).pipe(Effect.map((map) => map.get(callId) ?? []))
  return { service, eventsOf, released } as const
})

/** The links of our calls to Twilio's SIDs, as the voice webhooks record them. */
const makeCarrierCalls = () => {
  const links = new Map<string, string>()
  const service = CarrierCalls.of({
    link: (callId, carrierCallId) => Effect.sync(() => void (links.has(callId) || links.set(callId, carrierCallId))),
    callIdOf: (carrierCallId) =>
      Effect.sync(() => Option.fromNullishOr([...links].find(([, sid]) => sid === carrierCallId)?.[0])),
    carrierCallIdOf: (callId) => Effect.sync(() => Option.fromNullishOr(links.get(callId))),
    recordDuration: () => Effect.void
  })
  return { service, links }
}

/** A carrier on a fresh server answering with `reply`, built in a scope of its own. */
const setup = (
  reply: (request: RestServer.Recorded) => RestServer.Reply = twilio,
  options: Partial<TwilioCarrier.Options> = {}
) =>
  Effect.gen(function*() {
    const server = yield* RestServer.make(reply)
    const callEvents = yield* makeCallEvents
    const carrierCalls = makeCarrierCalls()
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const carrier = yield* TwilioCarrier.make({
      accountSid: ACCOUNT,
      credentials: { _tag: "AuthToken", authToken: Redacted.make(TOKEN) },
      apiBase: server.url,
      publicUrl: PUBLIC_URL,
      ...options
    }).pipe(
      Scope.provide(scope),
      Effect.provideService(CallEvents, callEvents.service),
      Effect.provideService(CarrierCalls, carrierCalls.service),
      Effect.provide(FetchHttpClient.layer)
    )
    return { server, carrier, callEvents, carrierCalls, scope }
  })

const form = (body: string | undefined) => [...new URLSearchParams(body)]

describe("placeCall", () => {
  it.live("asks Twilio for the call with our webhooks, AMD and the ring timeout; answers the call SID", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup()
      assert.deepStrictEqual(yield* carrier.placeCall(request("call-1")), { carrierCallId: CALL_SID })
      const [created] = server.requests
      assert.strictEqual(created?.method, "POST")
      assert.strictEqual(created?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls.json`)
      assert.strictEqual(created?.headers["authorization"], basic(ACCOUNT, TOKEN))
      assert.deepStrictEqual(form(created?.body), [
        ["To", "+12025550123"],
        ["From", "+12025550100"],
        ["Url", "https://agent.example.com/carrier/twilio/voice?call_id=call-1"],
        ["StatusCallback", "https://agent.example.com/carrier/twilio/status?call_id=call-1"],
        ["StatusCallbackEvent", "initiated"],
        ["StatusCallbackEvent", "ringing"],
        ["StatusCallbackEvent", "answered"],
        ["StatusCallbackEvent", "completed"],
        ["MachineDetection", "Enable"],
        ["Timeout", "60"]
      ])
      assert.notInclude(created?.body ?? "", "token-not-sent-to-twilio")
    }))
  it.live("uses ringTimeoutSec as Twilio's Timeout", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup(twilio, { ringTimeoutSec: 25 })
      yield* carrier.placeCall(request("call-1"))
      assert.deepInclude(form(server.requests[0]?.body), ["Timeout", "25"])
    }))
  it.live("refuses a call id that is still in a call", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      const error = yield* Effect.flip(carrier.placeCall(request("call-1")))
      assert.strictEqual(error.reason, "rejected")
      assert.strictEqual(error.message, "call call-1 is already in progress")
      assert.strictEqual(server.requests.length, 1)
    }))
  it.live("passes Twilio's refusal on, remembering nothing", () =>
    Effect.gen(function*() {
      let refuse = true
      const { callEvents, carrier } = yield* setup((recorded) =>
        refuse && recorded.path.endsWith("/Calls.json")
          ? {
            status: 400,
            json: { code: 21211, message: "Invalid 'To' Phone Number", more_info: "", status: 400 }
          }
          : twilio(recorded)
      )
      const error = yield* Effect.flip(carrier.placeCall(request("call-1")))
      assert.strictEqual(error.reason, "rejected")
      assert.strictEqual(error.message, "Twilio refused createCall (HTTP 400, code 21211): Invalid 'To' Phone Number")
      assert.strictEqual(yield* Queue.take(callEvents.released), "call-1")
      refuse = false
      assert.deepStrictEqual(yield* carrier.placeCall(request("call-1")), { carrierCallId: CALL_SID })
    }))
  it.live("a call being created when its placer is interrupted is still known to hangUp", () =>
    Effect.gen(function*() {
      const received = yield* Deferred.make<void>()
      const { carrier, server } = yield* setup((recorded) => {
        if (recorded.path.endsWith("/Calls.json")) {
          Deferred.doneUnsafe(received, Exit.void)
          return { status: 201, json: { sid: CALL_SID, status: "queued" }, delayMs: 100 }
        }
        return twilio(recorded)
      })
      const placing = yield* Effect.forkChild(carrier.placeCall(request("call-1")))
      yield* Deferred.await(received)
      yield* Fiber.interrupt(placing)
      yield* carrier.hangUp("call-1")
      assert.deepStrictEqual(server.requests.map((r) => r.path), [
        `/2010-04-01/Accounts/${ACCOUNT}/Calls.json`,
        `/2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL_SID}.json`
      ])
    }))
})

describe("hangUp", () => {
  it.live("posts Status=completed to the call and reports Ended local-hangup itself", () =>
    Effect.gen(function*() {
      const { callEvents, carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.hangUp("call-1")
      const hangUp = server.requests[1]
      assert.strictEqual(hangUp?.method, "POST")
      assert.strictEqual(hangUp?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL_SID}.json`)
      assert.strictEqual(hangUp?.headers["authorization"], basic(ACCOUNT, TOKEN))
      assert.strictEqual(hangUp?.body, "Status=completed")
      const events = yield* callEvents.eventsOf("call-1")
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]?._tag, "Ended")
      assert.strictEqual(events[0]?._tag === "Ended" ? events[0].reason : undefined, "local-hangup")
      assert.strictEqual(yield* Queue.take(callEvents.released), "call-1")
    }))
  it.live("the completed callback that follows changes nothing: the end stays ours", () =>
    Effect.gen(function*() {
      const { callEvents, carrier } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.hangUp("call-1")
      yield* callEvents.service.publish("call-1", { _tag: "Ended", at: 0, reason: "remote-hangup" })
      const events = yield* callEvents.eventsOf("call-1")
      assert.deepStrictEqual(events.map((e) => e._tag === "Ended" ? e.reason : e._tag), ["local-hangup"])
    }))
  it.live("a second hang-up, and one of a call never placed, ask Twilio nothing", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.hangUp("call-1")
      yield* carrier.hangUp("call-1")
      yield* carrier.hangUp("never-placed")
      assert.strictEqual(server.requests.length, 2)
    }))
  it.live("a call Twilio reports already ended is no error and reports nothing", () =>
    Effect.gen(function*() {
      const { callEvents, carrier } = yield* setup((recorded) =>
        recorded.path.endsWith(`/Calls/${CALL_SID}.json`)
          ? { status: 404, json: { code: 20404, message: "not found", more_info: "", status: 404 } }
          : twilio(recorded)
      )
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.hangUp("call-1")
      assert.deepStrictEqual(yield* callEvents.eventsOf("call-1"), [])
      assert.strictEqual(yield* Queue.take(callEvents.released), "call-1")
    }))
  it.live("a failed hang-up fails and keeps the call, so it can be tried again", () =>
    Effect.gen(function*() {
      let limited = true
      const { callEvents, carrier, server } = yield* setup((recorded) =>
        limited && recorded.path.endsWith(`/Calls/${CALL_SID}.json`)
          ? { status: 429, json: { code: 20429, message: "Too Many Requests", more_info: "", status: 429 } }
          : twilio(recorded)
      )
      yield* carrier.placeCall(request("call-1"))
      const error = yield* Effect.flip(carrier.hangUp("call-1"))
      assert.strictEqual(error.reason, "rate-limited")
      assert.deepStrictEqual(yield* callEvents.eventsOf("call-1"), [])
      limited = false
      yield* carrier.hangUp("call-1")
      assert.strictEqual(server.requests.length, 3)
      assert.strictEqual((yield* callEvents.eventsOf("call-1"))[0]?._tag, "Ended")
    }))
  it.live("a call whose end was reported (by a webhook, on any daemon) is forgotten", () =>
    Effect.gen(function*() {
      const { callEvents, carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* callEvents.service.publish("call-1", { _tag: "Ringing", at: 1 })
      yield* callEvents.service.publish("call-1", { _tag: "Ended", at: 2, reason: "busy" })
      assert.strictEqual(yield* Queue.take(callEvents.released), "call-1")
      yield* carrier.hangUp("call-1")
      assert.strictEqual(server.requests.length, 1)
      // and the id can be used again
      yield* carrier.placeCall(request("call-1"))
    }))
  it.live("a call is forgotten after maxCallMs at the latest", () =>
    Effect.gen(function*() {
      const { callEvents, carrier, server } = yield* setup(twilio, { maxCallMs: 50 })
      yield* carrier.placeCall(request("call-1"))
      assert.strictEqual(yield* Queue.take(callEvents.released), "call-1")
      yield* carrier.hangUp("call-1")
      assert.strictEqual(server.requests.length, 1)
    }))
  it.live("closing the carrier's scope ends every follower, and hangs nothing up", () =>
    Effect.gen(function*() {
      const { callEvents, carrier, scope, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.placeCall(request("call-2"))
      yield* Scope.close(scope, Exit.void)
      const released = [yield* Queue.take(callEvents.released), yield* Queue.take(callEvents.released)]
      assert.sameMembers(released, ["call-1", "call-2"])
      assert.strictEqual(server.requests.length, 2)
    }))
})

describe("transfer", () => {
  const dialed = `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+12025550188</Dial></Response>`

  it.live("updates the live call to <Dial> the target, and hangs nothing up", () =>
    Effect.gen(function*() {
      const { callEvents, carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      yield* carrier.transfer("call-1", "+12025550188")
      const [, update] = server.requests
      assert.strictEqual(update?.method, "POST")
      assert.strictEqual(update?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls/${CALL_SID}.json`)
      assert.deepStrictEqual(form(update?.body), [["Twiml", dialed]])
      assert.strictEqual(server.requests.length, 2)
      // The call is still Twilio's (bridged to the target): no end reported for it.
      assert.deepStrictEqual(yield* callEvents.eventsOf("call-1"), [])
    }))
  it.live("a call this process did not place is found by the SID its voice webhook linked", () =>
    Effect.gen(function*() {
      const { carrier, carrierCalls, server } = yield* setup()
      const inboundSid = "CAfedcba9876543210fedcba9876543210"
      carrierCalls.links.set("inbound-1", inboundSid)
      yield* carrier.transfer("inbound-1", "+12025550188")
      assert.strictEqual(server.requests[0]?.path, `/2010-04-01/Accounts/${ACCOUNT}/Calls/${inboundSid}.json`)
      assert.deepStrictEqual(form(server.requests[0]?.body), [["Twiml", dialed]])
    }))
  it.live("refused, asking Twilio nothing: a target that is not E.164, a call with no SID known", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup()
      yield* carrier.placeCall(request("call-1"))
      const notANumber = yield* Effect.flip(carrier.transfer("call-1", "sip:desk@pbx"))
      assert.strictEqual(notANumber.reason, "rejected")
      assert.include(notANumber.message, "not an E.164 number")
      const unknown = yield* Effect.flip(carrier.transfer("never-placed", "+12025550188"))
      assert.strictEqual(unknown.reason, "rejected")
      assert.include(unknown.message, "no call never-placed")
      assert.strictEqual(server.requests.length, 1)
    }))
  it.live("a call Twilio cannot update (no longer in progress) is refused with Twilio's reason", () =>
    Effect.gen(function*() {
      const { carrier } = yield* setup((recorded) =>
        recorded.path.endsWith(`/Calls/${CALL_SID}.json`)
          ? {
            status: 400,
            json: { code: 21220, message: "Call is not in-progress. Cannot redirect.", more_info: "", status: 400 }
          }
          : twilio(recorded)
      )
      yield* carrier.placeCall(request("call-1"))
      const error = yield* Effect.flip(carrier.transfer("call-1", "+12025550188"))
      assert.strictEqual(error.reason, "rejected")
      assert.strictEqual(
        error.message,
        "Twilio refused updateCall (HTTP 400, code 21220): Call is not in-progress. Cannot redirect."
      )
    }))
})

describe("sendSms", () => {
  it.live("posts the message with our status callback and answers its SID and status", () =>
    Effect.gen(function*() {
      const { carrier, server } = yield* setup()
      const sent = yield* carrier.sendSms({ from: "+12025550100", to: "+12025550123", body: "Hello" })
      assert.deepStrictEqual(sent, { messageId: MESSAGE_SID, status: "queued" })
      const [message] = server.requests
      assert.strictEqual(message?.path, `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`)
      assert.deepStrictEqual(form(message?.body), [
        ["To", "+12025550123"],
        ["From", "+12025550100"],
        ["Body", "Hello"],
        ["StatusCallback", "https://agent.example.com/carrier/twilio/sms-status"]
      ])
    }))
})

describe("layerConfig", () => {
  it.live("builds the carrier from the environment (API key credentials, API base, public URL)", () =>
    Effect.gen(function*() {
      const server = yield* RestServer.make(twilio)
      const callEvents = yield* makeCallEvents
      const env = {
        TWILIO_ACCOUNT_SID: ACCOUNT,
        TWILIO_AUTH_TOKEN: TOKEN,
        TWILIO_API_KEY: "SKfedcba9876543210fedcba9876543210",
        TWILIO_API_SECRET: "s3cr3t",
        TWILIO_API_BASE: `${server.url}/`,
        VOICE_AGENT_PUBLIC_URL: "https://example.com/agent/"
      }
      const sent = yield* Carrier.use((carrier) => carrier.sendSms({ from: "+1", to: "+2", body: "x" })).pipe(
        Effect.provide(
          TwilioCarrier.layerConfig.pipe(
            Layer.provide(Layer.succeed(CallEvents, callEvents.service)),
            Layer.provide(Layer.succeed(CarrierCalls, makeCarrierCalls().service)),
            Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
          )
        )
      )
      assert.strictEqual(sent.messageId, MESSAGE_SID)
      assert.strictEqual(server.requests[0]?.headers["authorization"], basic(env.TWILIO_API_KEY, env.TWILIO_API_SECRET))
      assert.deepInclude(form(server.requests[0]?.body), [
        "StatusCallback",
        "https://example.com/agent/carrier/twilio/sms-status"
      ])
    }))
  it.effect("fails with the configuration's sentence", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(
        TwilioCarrier.layerConfig.pipe(
          Layer.provide(Layer.succeed(
            CallEvents,
            CallEvents.of({ publish: () => Effect.void, subscribe: () => Effect.succeed(Stream.empty) })
          )),
          Layer.provide(Layer.succeed(CarrierCalls, makeCarrierCalls().service)),
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({})))
        )
      ).pipe(Effect.flip)
      assert.strictEqual(
        error.cause.message,
        "TWILIO_ACCOUNT_SID is not set: the Twilio carrier needs the account's SID"
      )
    }))
})
