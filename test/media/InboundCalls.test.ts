/**
 * Inbound calls in the engine, on the embedded store: who owns the dialed number, the offer to
 * remote agents (CallControllers: a declined call is recorded, never answered), the `inbound`
 * conversation, and how each way a call can end closes it (the agent's verdict, the carrier's
 * end without a verdict, a call that outlives its limit and is hung up).
 */
import { assert, describe, it } from "@effect/vitest"
import type { AgentOutcome } from "@voice-agent/core/ports/Agent"
import type { CallOffer, OfferAnswer } from "@voice-agent/core/ports/CallControllers"
import { CallControllers } from "@voice-agent/core/ports/CallControllers"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { InboundAnswer } from "@voice-agent/core/ports/InboundCalls"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as InboundCallsModule from "@voice-agent/engine/InboundCalls"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Duration, Effect, Layer, Option, Schedule } from "effect"

const hungUp: Array<string> = []
const carrier = Layer.succeed(
  Carrier,
  Carrier.of({
    placeCall: () => Effect.die("unused"),
    hangUp: (callId) => Effect.sync(() => void hungUp.push(callId)),
    transfer: () => Effect.die("unused"),
    sendSms: () => Effect.die("unused")
  })
)

const settings: InboundCallsModule.InboundSettings = {
  mediaUrl: Effect.succeed("ws://127.0.0.1:9/carrier/twilio/media"),
  ringTimeoutMs: 60_000,
  maxCallMs: 1_500,
  verdictGraceMs: 200,
  sweepEveryMs: 200
}

/** The accepted call of an answer (the test fails on any other). */
const acceptedOf = (answer: InboundAnswer) => {
  if (answer._tag !== "Accepted") return assert.fail(`not accepted: ${answer._tag}`)
  return answer.call
}

const world = MemoryDialer.makeWorld()
const stack = InboundCallsModule.layer(settings).pipe(
  Layer.provideMerge(Layer.mergeAll(
    SqlStorage.layer.pipe(Layer.provideMerge(TestDatabase.pglite)),
    Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
    Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets),
    carrier
  ))
)

/** An organization owning one number, and a call to it accepted. */
const acceptedCall = Effect.gen(function*() {
  const org = yield* Fixtures.organization()
  const number = Fixtures.randomE164()
  yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: number, smsEnabled: false })
  const accepted = yield* (yield* InboundCalls).accept({ from: "+13035550123", to: number })
  return { org, number, accepted: acceptedOf(accepted) }
})

/** The conversation once it has ended (polled: its follower ends it in the background). */
const ended = (organizationId: string, callId: string) =>
  Effect.gen(function*() {
    const found = yield* (yield* ConversationRepository).findByCallId(organizationId, callId)
    const conversation = Option.getOrThrow(found)
    if (conversation.endedAt === null) return yield* Effect.fail("in progress" as const)
    return conversation
  }).pipe(Effect.retry(Schedule.spaced(Duration.millis(25))), Effect.timeout(Duration.seconds(10)))

const verdict = (callId: string, outcome: AgentOutcome, endedBy: "remote" | "agent") =>
  Effect.gen(function*() {
    const at = (yield* Clock.currentTimeMillis) + 7_300
    yield* (yield* CallEvents).publish(callId, { _tag: "AgentEnded", at, outcome, endedBy })
    return at
  })

describe("InboundCalls", () => {
  it.layer(stack, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("a call to a number nobody owns, or with a number that is not E.164, is not accepted", () =>
      Effect.gen(function*() {
        const inbound = yield* InboundCalls
        const notOurs = { _tag: "NotOurs" }
        assert.deepStrictEqual(yield* inbound.accept({ from: "+13035550123", to: Fixtures.randomE164() }), notOurs)
        const org = yield* Fixtures.organization()
        const number = Fixtures.randomE164()
        yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: number, smsEnabled: false })
        assert.deepStrictEqual(yield* inbound.accept({ from: "anonymous", to: number }), notOurs)
        assert.deepStrictEqual(yield* inbound.accept({ from: "+13035550123", to: "12025550100" }), notOurs)
        const page = yield* (yield* ConversationRepository).list({ organizationId: org.id, limit: 10 })
        assert.deepStrictEqual(page.conversations, [])
      }))

    it.effect("an accepted call is an inbound conversation of the number's owner, answered, with a media token for it", () =>
      Effect.gen(function*() {
        const { accepted, number, org } = yield* acceptedCall
        assert.strictEqual(accepted.organizationId, org.id)
        assert.strictEqual(accepted.mediaUrl, "ws://127.0.0.1:9/carrier/twilio/media")
        const key = MediaToken.keyFrom(yield* MemoryDialer.serverSecrets.cursorKey)
        const now = yield* Clock.currentTimeMillis
        assert.deepStrictEqual(MediaToken.verify(key, accepted.mediaToken, now), Option.some(accepted.callId))
        const found = yield* (yield* ConversationRepository).findByCallId(org.id, accepted.callId)
        const conversation = Option.getOrThrow(found)
        assert.strictEqual(conversation.id, accepted.conversationId)
        assert.strictEqual(conversation.direction, "inbound")
        assert.strictEqual(conversation.toNumber, number)
        assert.strictEqual(conversation.fromNumber, "+13035550123")
        assert.isNull(conversation.campaignId)
        assert.isNull(conversation.contactId)
        assert.isNotNull(conversation.answeredAt)
        assert.isNull(conversation.endedAt)
        yield* verdict(accepted.callId, "completed", "agent")
        yield* ended(org.id, accepted.callId)
      }))

    it.effect("announces call.started when accepted and call.ended when over to the organization's webhooks", () =>
      Effect.gen(function*() {
        const webhooks = yield* WebhookRepository
        const org = yield* Fixtures.organization()
        const number = Fixtures.randomE164()
        yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: number, smsEnabled: false })
        const { endpoint } = yield* webhooks.createEndpoint({
          organizationId: org.id,
          url: "http://127.0.0.1:9/hooks",
          events: null,
          now: yield* Clock.currentTimeMillis
        })
        const accepted = acceptedOf(yield* (yield* InboundCalls).accept({ from: "+13035550123", to: number }))
        const types = Effect.map(
          webhooks.listDeliveries({ organizationId: org.id, endpointId: endpoint.id, limit: 10 }),
          (page) => page.deliveries.map((d) => d.eventType).reverse()
        )
        assert.deepStrictEqual(yield* types, ["call.started"])
        yield* verdict(accepted.callId, "completed", "remote")
        yield* ended(org.id, accepted.callId)
        const both = yield* types.pipe(
          Effect.filterOrFail((seen) => seen.length === 2),
          Effect.retry(Schedule.spaced(Duration.millis(25))),
          Effect.timeout(Duration.seconds(10))
        )
        assert.deepStrictEqual(both, ["call.started", "call.ended"])
      }))

    it.effect("offers the call to SDK agents: declined, it is recorded ended and never answered; taken or none, accepted with the offered call id", () =>
      Effect.gen(function*() {
        const org = yield* Fixtures.organization()
        const answers = new Map<string, OfferAnswer>()
        const offers: Array<CallOffer> = []
        // The service as an embedder with SDK agents builds it, over this test's storage.
        const inbound = yield* InboundCallsModule.make(settings).pipe(
          Effect.provideService(
            CallControllers,
            CallControllers.of({
              offer: (offer) =>
                Effect.sync(() => {
                  offers.push(offer)
                  return offer._tag === "Inbound" ? answers.get(offer.to) ?? "none" : "none"
                })
            })
          )
        )
        const conversationsRepository = yield* ConversationRepository
        const conversations = Effect.map(
          conversationsRepository.list({ organizationId: org.id, limit: 10 }),
          (page) => page.conversations
        )

        const webhooks = yield* WebhookRepository
        const { endpoint } = yield* webhooks.createEndpoint({
          organizationId: org.id,
          url: "http://127.0.0.1:9/hooks",
          events: null,
          now: yield* Clock.currentTimeMillis
        })
        const declinedNumber = Fixtures.randomE164()
        yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: declinedNumber, smsEnabled: false })
        answers.set(declinedNumber, "declined")
        const declined = yield* inbound.accept({ from: "+13035550123", to: declinedNumber })
        assert.strictEqual(declined._tag, "Declined")
        const declinedId = declined._tag === "Declined" ? declined.callId : ""
        assert.deepStrictEqual(declined, { _tag: "Declined", callId: declinedId, organizationId: org.id })
        assert.deepStrictEqual(offers, [{
          _tag: "Inbound",
          callId: declinedId,
          organizationId: org.id,
          from: "+13035550123",
          to: declinedNumber
        }])
        const [record, ...none] = yield* conversations
        assert.deepStrictEqual(none, [])
        assert.strictEqual(record!.callId, declinedId)
        assert.strictEqual(record!.direction, "inbound")
        assert.strictEqual(record!.fromNumber, "+13035550123")
        assert.strictEqual(record!.toNumber, declinedNumber)
        assert.isNull(record!.answeredAt)
        assert.isNotNull(record!.endedAt)
        assert.isAtLeast(record!.endedAt.getTime(), record!.startedAt.getTime())
        assert.strictEqual(record!.durationSec, 0)
        assert.strictEqual(record!.terminationReason, InboundCallsModule.declinedReason)
        assert.deepStrictEqual(yield* conversationsRepository.transcript(record!.id), [])
        // Like any call: one call.started, one call.ended (ended as recorded).
        const deliveries = yield* webhooks.listDeliveries({
          organizationId: org.id,
          endpointId: endpoint.id,
          limit: 10
        })
        assert.deepStrictEqual(deliveries.deliveries.map((d) => d.eventType).reverse(), ["call.started", "call.ended"])

        for (const answer of ["taken", "none"] as const) {
          const number = Fixtures.randomE164()
          yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: number, smsEnabled: false })
          answers.set(number, answer)
          const accepted = acceptedOf(yield* inbound.accept({ from: "+13035550123", to: number }))
          const offer = offers.at(-1)!
          assert.deepStrictEqual(offer, {
            _tag: "Inbound",
            callId: accepted.callId,
            organizationId: org.id,
            from: "+13035550123",
            to: number
          }, answer)
          const found = yield* conversationsRepository.findByCallId(org.id, accepted.callId)
          assert.strictEqual(Option.getOrThrow(found).direction, "inbound", answer)
          yield* verdict(accepted.callId, "completed", "agent")
          yield* ended(org.id, accepted.callId)
        }
        assert.strictEqual((yield* conversations).length, 3)
      }))

    it.effect("an inbound call no daemon follows any more is closed as bot-failure once older than any call", () =>
      Effect.gen(function*() {
        const conversations = yield* ConversationRepository
        const org = yield* Fixtures.organization()
        const now = yield* Clock.currentTimeMillis
        // accepted by a daemon that died 10 s ago (its follower is gone), and one that is recent
        const orphan = yield* conversations.insert({
          callId: `orphan-${now}`,
          organizationId: org.id,
          campaignId: null,
          contactId: null,
          direction: "inbound",
          fromNumber: "+13035550123",
          toNumber: Fixtures.randomE164(),
          startedAt: new Date(now - 10_000),
          answeredAt: new Date(now - 10_000),
          endedAt: null,
          durationSec: null,
          terminationReason: null
        })
        // what its dead daemon wrote before dying: a turn 9.5 s into the call
        yield* conversations.appendTurns(orphan.id, [{ speaker: "HUMAN", text: "Still there?", offsetMs: 9_500 }])
        const recent = yield* conversations.insert({ ...orphan, callId: `recent-${now}`, startedAt: new Date(now) })
        const closed = yield* ended(org.id, orphan.callId)
        assert.strictEqual(closed.terminationReason, "bot-failure")
        // the part recorded (docs/DIALER.md, "Lost calls"): up to its last turn, in whole seconds
        assert.strictEqual(closed.durationSec, 10)
        const open = yield* conversations.findByCallId(org.id, recent.callId)
        assert.isNull(Option.getOrThrow(open).endedAt)
        yield* conversations.end(recent.id, {
          answeredAt: recent.answeredAt,
          endedAt: new Date(now),
          terminationReason: "user-hangup"
        })
      }))

    it.effect("the agent's verdict ends it: termination reason by outcome and who hung up, duration from the answer", () =>
      Effect.gen(function*() {
        const cases = [
          ["completed", "remote", "user-hangup"],
          ["completed", "agent", "bot-hangup"],
          ["transfer", "agent", "bot-transfer"],
          ["agent-failure", "agent", "bot-failure"]
        ] as const
        for (const [outcome, endedBy, reason] of cases) {
          const { accepted, org } = yield* acceptedCall
          const at = yield* verdict(accepted.callId, outcome, endedBy)
          const conversation = yield* ended(org.id, accepted.callId)
          assert.strictEqual(conversation.terminationReason, reason, `${outcome} by ${endedBy}`)
          assert.strictEqual(conversation.endedAt!.getTime(), at)
          assert.strictEqual(conversation.durationSec, 7)
        }
      }))

    it.effect("the agent's verdict after the carrier's end, within the grace, counts; at once or together too", () =>
      Effect.gen(function*() {
        const events = yield* CallEvents
        // The person hangs up: the carrier reports the end, the agent's verdict follows.
        for (const gapMs of [50, 0]) {
          const { accepted, org } = yield* acceptedCall
          const at = (yield* Clock.currentTimeMillis) + 3_000
          yield* events.publish(accepted.callId, { _tag: "Ended", at, reason: "remote-hangup" })
          if (gapMs > 0) yield* Effect.sleep(Duration.millis(gapMs))
          yield* events.publish(accepted.callId, { _tag: "AgentEnded", at, outcome: "completed", endedBy: "remote" })
          const conversation = yield* ended(org.id, accepted.callId)
          assert.strictEqual(conversation.terminationReason, "user-hangup", `verdict ${gapMs} ms after the end`)
        }
      }))

    it.effect("the carrier's end with no verdict within the grace is bot-failure; a call past its limit is hung up", () =>
      Effect.gen(function*() {
        const first = yield* acceptedCall
        const endedAt = (yield* Clock.currentTimeMillis) + 2_000
        yield* (yield* CallEvents).publish(first.accepted.callId, {
          _tag: "Ended",
          at: endedAt,
          reason: "remote-hangup"
        })
        const noVerdict = yield* ended(first.org.id, first.accepted.callId)
        assert.strictEqual(noVerdict.terminationReason, "bot-failure")
        assert.strictEqual(noVerdict.endedAt!.getTime(), endedAt)
        assert.notInclude(hungUp, first.accepted.callId)

        const second = yield* acceptedCall
        const silent = yield* ended(second.org.id, second.accepted.callId)
        assert.strictEqual(silent.terminationReason, "bot-failure")
        assert.include(hungUp, second.accepted.callId)
      }))
  })
})
