/**
 * Outbound calls outside any campaign in the engine (`@voice-agent/engine/DirectCalls`), on the
 * embedded store with a scripted carrier: what `place` checks and records, what it hands the
 * carrier, and how each way a call can end closes its conversation (the agent's verdict, a busy
 * line, a refusal, no answer, no verdict, a call past its limit, the process stopping), with
 * `call.started` and `call.ended` to the organization's webhooks.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Organization } from "@voice-agent/core/Organization"
import type { AgentOutcome } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DirectCalls } from "@voice-agent/core/ports/DirectCalls"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as DirectCallsModule from "@voice-agent/engine/DirectCalls"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Duration, Effect, Exit, Fiber, Layer, Option, Schedule, Scope } from "effect"

/** Numbers the scripted carrier refuses. */
const refused = "+12025550177"

const placedRequests: Array<PlaceCallRequest> = []
const hungUp: Array<string> = []

/** Places every call but `refused`'s; a hang-up ends the call (`local-hangup`) as a carrier reports it. */
const carrier = Layer.effect(
  Carrier,
  Effect.gen(function*() {
    const events = yield* CallEvents
    return Carrier.of({
      placeCall: (request) =>
        request.to === refused
          ? Effect.fail(new CarrierError({ reason: "rejected", message: "Invalid 'To' number" }))
          : Effect.sync(() => {
            placedRequests.push(request)
            return { carrierCallId: `CA${placedRequests.length}` }
          }),
      hangUp: (callId) =>
        Effect.gen(function*() {
          hungUp.push(callId)
          yield* events.publish(callId, { _tag: "Ended", at: yield* Clock.currentTimeMillis, reason: "local-hangup" })
        }),
      transfer: () => Effect.void,
      sendSms: () => Effect.die("unused")
    })
  })
)

const settings: DirectCallsModule.DirectCallSettings = {
  mediaUrl: Effect.succeed("ws://127.0.0.1:9/carrier/twilio/media"),
  ringTimeoutMs: 400,
  maxCallMs: 1_500,
  verdictGraceMs: 300,
  drainMs: 300,
  sweepEveryMs: 60_000
}

const world = MemoryDialer.makeWorld()
const ports = Layer.mergeAll(
  SqlStorage.layer.pipe(Layer.provideMerge(TestDatabase.pglite)),
  carrier.pipe(Layer.provideMerge(Layer.effect(CallEvents, MemoryDialer.callEvents(world)))),
  Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets)
)
const stack = DirectCallsModule.layer(settings).pipe(Layer.provideMerge(ports))

/** An organization (with `settings`) owning one number, and a webhook endpoint of it. */
const organization = (flags: Partial<Pick<Organization, "outboundDialingEnabled" | "billingIssue">> = {}) =>
  Effect.gen(function*() {
    const org = yield* Fixtures.organization(flags)
    const number = Fixtures.randomE164()
    yield* (yield* PhoneNumberRepository).add(org.id, { phoneNumber: number, smsEnabled: false })
    const webhooks = yield* WebhookRepository
    const { endpoint } = yield* webhooks.createEndpoint({
      organizationId: org.id,
      url: "http://127.0.0.1:9/hooks",
      events: null,
      now: yield* Clock.currentTimeMillis
    })
    const eventTypes = Effect.map(
      webhooks.listDeliveries({ organizationId: org.id, endpointId: endpoint.id, limit: 10 }),
      (page) => page.deliveries.map((d) => d.eventType).reverse()
    )
    return { org, number, eventTypes }
  })

const conversation = (organizationId: string, callId: string) =>
  Effect.map(
    Effect.flatMap(ConversationRepository, (conversations) => conversations.findByCallId(organizationId, callId)),
    Option.getOrThrow
  )

/** The conversation once it has ended (polled: its follower ends it in the background). */
const ended = (organizationId: string, callId: string) =>
  conversation(organizationId, callId).pipe(
    Effect.filterOrFail((c) => c.endedAt !== null, () => "in progress" as const),
    Effect.retry(Schedule.spaced(Duration.millis(25))),
    Effect.timeout(Duration.seconds(10))
  )

const publish = (callId: string, event: CallEvent) =>
  Effect.flatMap(CallEvents, (events) => events.publish(callId, event))

const answer = (callId: string) =>
  Effect.gen(function*() {
    const at = yield* Clock.currentTimeMillis
    yield* publish(callId, { _tag: "Ringing", at: at - 1_000 })
    yield* publish(callId, { _tag: "Answered", at: at - 5_000, answeredBy: "human" })
    return at - 5_000
  })

const verdict = (callId: string, outcome: AgentOutcome, endedBy: "remote" | "agent") =>
  Effect.gen(function*() {
    const at = yield* Clock.currentTimeMillis
    yield* publish(callId, { _tag: "Ended", at, reason: endedBy === "agent" ? "local-hangup" : "remote-hangup" })
    yield* publish(callId, { _tag: "AgentEnded", at, outcome, endedBy })
  })

describe("DirectCalls", () => {
  it.layer(stack, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("records an outbound call without campaign or contact and hands it to the carrier with a media token", () =>
      Effect.gen(function*() {
        const { eventTypes, number, org } = yield* organization()
        const to = Fixtures.randomE164()
        const placed = yield* (yield* DirectCalls).place({ organizationId: org.id, from: number, to })
        const request = placedRequests.find((r) => r.callId === placed.callId)!
        assert.deepStrictEqual(
          [request.from, request.to, request.mediaUrl],
          [number, to, "ws://127.0.0.1:9/carrier/twilio/media"]
        )
        const key = MediaToken.keyFrom(yield* MemoryDialer.serverSecrets.cursorKey)
        const now = yield* Clock.currentTimeMillis
        assert.deepStrictEqual(MediaToken.verify(key, request.mediaToken, now), Option.some(placed.callId))
        const record = yield* conversation(org.id, placed.callId)
        assert.strictEqual(record.id, placed.conversationId)
        assert.deepStrictEqual(
          [record.direction, record.fromNumber, record.toNumber, record.campaignId, record.contactId],
          ["outbound", number, to, null, null]
        )
        assert.isNull(record.answeredAt)
        assert.isNull(record.endedAt)
        assert.deepStrictEqual(yield* eventTypes, ["call.started"])

        // Answered; the agent ends it: its verdict is the termination reason.
        const answeredAt = yield* answer(placed.callId)
        yield* verdict(placed.callId, "completed", "agent")
        const done = yield* ended(org.id, placed.callId)
        assert.strictEqual(done.terminationReason, "bot-hangup")
        assert.strictEqual(done.answeredAt?.getTime(), answeredAt)
        assert.isAtLeast(done.durationSec ?? 0, 4)
        const both = yield* eventTypes.pipe(
          Effect.filterOrFail((seen) => seen.length === 2),
          Effect.retry(Schedule.spaced(Duration.millis(25))),
          Effect.timeout(Duration.seconds(10))
        )
        assert.deepStrictEqual(both, ["call.started", "call.ended"])
      }))

    it.effect("refuses numbers that are not E.164, a sender not owned, a number on the DNC list, and organizations that may not dial; records nothing", () =>
      Effect.gen(function*() {
        const calls = yield* DirectCalls
        const { number, org } = yield* organization()
        const to = Fixtures.randomE164()
        const attempt = (from: string, target: string, organizationId = org.id) =>
          Effect.flip(calls.place({ organizationId, from, to: target }))
        assert.strictEqual((yield* attempt("2025550100", to))._tag, "InvalidPhoneNumber")
        assert.strictEqual((yield* attempt(number, "+1 202 555 0100"))._tag, "InvalidPhoneNumber")
        const notOwned = yield* attempt(Fixtures.randomE164(), to)
        assert.strictEqual(notOwned._tag, "PhoneNumberNotOwned")
        yield* (yield* DncRepository).add(org.id, [to])
        const listed = yield* attempt(number, to)
        assert.strictEqual(listed._tag, "NumberOnDoNotCallList")
        const off = yield* organization({ outboundDialingEnabled: false })
        assert.strictEqual(
          (yield* attempt(off.number, Fixtures.randomE164(), off.org.id))._tag,
          "OutboundDialingDisabled"
        )
        const owing = yield* organization({ billingIssue: true })
        assert.strictEqual((yield* attempt(owing.number, Fixtures.randomE164(), owing.org.id))._tag, "BillingIssue")
        const page = yield* (yield* ConversationRepository).list({ organizationId: org.id, limit: 10 })
        assert.deepStrictEqual(page.conversations, [])
      }))

    it.effect("a transfer: the verdict ends it bot-transfer at once; nothing hangs the moved call up, not even the longest-call timer", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({
          organizationId: org.id,
          from: number,
          to: Fixtures.randomE164()
        })
        yield* answer(placed.callId)
        // The carrier moved the call: its end comes when the transferred conversation does (not here).
        const at = yield* Clock.currentTimeMillis
        yield* publish(placed.callId, { _tag: "AgentEnded", at, outcome: "transfer", endedBy: "agent" })
        const done = yield* ended(org.id, placed.callId)
        assert.strictEqual(done.terminationReason, "bot-transfer")
        assert.strictEqual(done.endedAt?.getTime(), at)
        // Past `maxCallMs` (1.5 s) from the answer, the call is still not hung up.
        yield* Effect.sleep(Duration.millis(settings.maxCallMs + 300))
        assert.notInclude(hungUp, placed.callId)
      }))

    it.effect("a busy line ends as busy, never answered, no duration", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({
          organizationId: org.id,
          from: number,
          to: Fixtures.randomE164()
        })
        const now = yield* Clock.currentTimeMillis
        yield* publish(placed.callId, { _tag: "Ringing", at: now })
        yield* publish(placed.callId, { _tag: "Ended", at: now + 100, reason: "busy" })
        const done = yield* ended(org.id, placed.callId)
        assert.deepStrictEqual([done.terminationReason, done.answeredAt, done.durationSec], ["busy", null, 0])
      }))

    it.effect("a call the carrier refuses is placed (its id answered) and ends at once as failed, published as ended", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({ organizationId: org.id, from: number, to: refused })
        const done = yield* ended(org.id, placed.callId)
        assert.deepStrictEqual([done.terminationReason, done.durationSec], ["failed", 0])
        // Its end is published for whoever follows the call by its id (no carrier will report it).
        assert.deepStrictEqual(world.events.get(placed.callId)?.map((e) => e._tag === "Ended" && e.reason), ["failed"])
      }))

    it.effect("no answer within the ring timeout: hung up, no-answer", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({
          organizationId: org.id,
          from: number,
          to: Fixtures.randomE164()
        })
        const done = yield* ended(org.id, placed.callId)
        assert.strictEqual(done.terminationReason, "no-answer")
        assert.include(hungUp, placed.callId)
      }))

    it.effect("answered, then ended without the agent's verdict: bot-failure after the grace", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({
          organizationId: org.id,
          from: number,
          to: Fixtures.randomE164()
        })
        yield* answer(placed.callId)
        yield* publish(placed.callId, { _tag: "Ended", at: yield* Clock.currentTimeMillis, reason: "remote-hangup" })
        const done = yield* ended(org.id, placed.callId)
        assert.strictEqual(done.terminationReason, "bot-failure")
        assert.isNotNull(done.answeredAt)
      }))

    it.effect("answered and never ended: hung up after the call limit", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const placed = yield* (yield* DirectCalls).place({
          organizationId: org.id,
          from: number,
          to: Fixtures.randomE164()
        })
        yield* answer(placed.callId)
        const done = yield* ended(org.id, placed.callId)
        assert.include(hungUp, placed.callId)
        assert.strictEqual(done.terminationReason, "bot-failure")
      }))

    it.effect("the voicemail verdict and the person hanging up map to their reasons", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const calls = yield* DirectCalls
        const cases = [["voicemail", "agent", "voicemail"], ["completed", "remote", "user-hangup"]] as const
        for (const [outcome, endedBy, reason] of cases) {
          const placed = yield* calls.place({ organizationId: org.id, from: number, to: Fixtures.randomE164() })
          yield* answer(placed.callId)
          yield* verdict(placed.callId, outcome, endedBy)
          assert.strictEqual((yield* ended(org.id, placed.callId)).terminationReason, reason)
        }
      }))

    it.effect("stopping: calls in progress get the drain time to end, then are hung up and recorded as bot-failure", () =>
      Effect.gen(function*() {
        const { number, org } = yield* organization()
        const scope = yield* Scope.make()
        const calls = yield* DirectCallsModule.make({ ...settings, maxCallMs: 60_000, drainMs: 1_500 }).pipe(
          Scope.provide(scope)
        )
        const ending = yield* calls.place({ organizationId: org.id, from: number, to: Fixtures.randomE164() })
        const lasting = yield* calls.place({ organizationId: org.id, from: number, to: Fixtures.randomE164() })
        yield* answer(ending.callId)
        yield* answer(lasting.callId)
        const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
        // Shutdown has begun (a call not drained would be interrupted at once); one call ends meanwhile.
        yield* Effect.sleep(Duration.millis(100))
        yield* verdict(ending.callId, "completed", "agent")
        yield* Fiber.join(closing)
        // Closing returns after the drain and the recorded ends.
        assert.strictEqual((yield* conversation(org.id, ending.callId)).terminationReason, "bot-hangup")
        assert.strictEqual((yield* conversation(org.id, lasting.callId)).terminationReason, "bot-failure")
        assert.include(hungUp, lasting.callId)
        assert.notInclude(hungUp, ending.callId)
      }))
  })
})
