import { assert, describe, layer } from "@effect/vitest"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

/** Monday 2026-03-02, 09:00 in Los Angeles: inside the fixtures' Monday 9-to-5 window. */
const now = Date.parse("2026-03-02T17:00:00.000Z")
const at = (seconds: number) => new Date(now + seconds * 1000)
const sid = () => `CA${randomBytes(16).toString("hex")}`

/** An inbound call of a fresh organization, in progress, answered at 0 s. */
const inboundCall = (answered = true) =>
  Effect.gen(function*() {
    const org = yield* Fixtures.organization()
    const record = yield* (yield* ConversationRepository).insert({
      callId: `call-${randomBytes(8).toString("hex")}`,
      organizationId: org.id,
      campaignId: null,
      contactId: null,
      direction: "inbound",
      fromNumber: Fixtures.e164(1),
      toNumber: Fixtures.e164(2),
      startedAt: at(0),
      answeredAt: answered ? at(0) : null,
      endedAt: null,
      durationSec: null,
      terminationReason: null
    })
    return record
  })

const durationOf = (record: ConversationRecord) =>
  Effect.map(
    ConversationRepository.use((conversations) => conversations.findByCallId(record.organizationId, record.callId)),
    (found) => Option.getOrThrow(found).durationSec
  )

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlCarrierCalls on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("finds our call by the carrier's id once linked; the first link stays; unknown ids find nothing", () =>
        Effect.gen(function*() {
          const carrierCalls = yield* CarrierCalls
          const call = yield* inboundCall()
          const [first, second] = [sid(), sid()]
          assert.isTrue(Option.isNone(yield* carrierCalls.callIdOf(first)))
          assert.isTrue(Option.isNone(yield* carrierCalls.carrierCallIdOf(call.callId)))
          yield* carrierCalls.link(call.callId, first)
          yield* carrierCalls.link(call.callId, first)
          yield* carrierCalls.link(call.callId, second)
          assert.deepStrictEqual(yield* carrierCalls.callIdOf(first), Option.some(call.callId))
          assert.isTrue(Option.isNone(yield* carrierCalls.callIdOf(second)))
          // And back, for a transfer: the carrier's id of our call.
          assert.deepStrictEqual(yield* carrierCalls.carrierCallIdOf(call.callId), Option.some(first))
          assert.isTrue(Option.isNone(yield* carrierCalls.carrierCallIdOf("no-such-call")))
          assert.isTrue(Option.isNone(yield* carrierCalls.carrierCallIdOf("nul\u0000call")))
          // Nothing to link to, or ids no call can have: no change, no error.
          yield* carrierCalls.link("no-such-call", sid())
          yield* carrierCalls.link("nul\u0000call", sid())
          yield* carrierCalls.recordDuration("no-such-call", 5)
          assert.isTrue(Option.isNone(yield* carrierCalls.callIdOf("CA\u0000")))
        }))

      it.effect("a duration recorded before the end is the ended call's duration_sec", () =>
        Effect.gen(function*() {
          const call = yield* inboundCall()
          yield* (yield* CarrierCalls).recordDuration(call.callId, 9)
          assert.isNull(yield* durationOf(call))
          // The engine would say 4 s (0 to 4.9 s).
          yield* (yield* ConversationRepository).end(call.id, {
            answeredAt: at(0),
            endedAt: new Date(at(4).getTime() + 900),
            terminationReason: "user-hangup"
          })
          assert.strictEqual(yield* durationOf(call), 9)
        }))

      it.effect("a duration recorded after the end replaces the engine's measure; the last report wins", () =>
        Effect.gen(function*() {
          const call = yield* inboundCall()
          yield* (yield* ConversationRepository).end(call.id, {
            answeredAt: at(0),
            endedAt: at(1),
            terminationReason: "bot-hangup"
          })
          assert.strictEqual(yield* durationOf(call), 1)
          yield* (yield* CarrierCalls).recordDuration(call.callId, 2)
          assert.strictEqual(yield* durationOf(call), 2)
          yield* (yield* CarrierCalls).recordDuration(call.callId, 3)
          assert.strictEqual(yield* durationOf(call), 3)
        }))

      it.effect("a call never answered keeps 0 s, whenever the carrier's figure comes", () =>
        Effect.gen(function*() {
          const before = yield* inboundCall(false)
          yield* (yield* CarrierCalls).recordDuration(before.callId, 7)
          yield* (yield* ConversationRepository).end(before.id, {
            answeredAt: null,
            endedAt: at(3),
            terminationReason: "no-answer"
          })
          assert.strictEqual(yield* durationOf(before), 0)
          const after = yield* inboundCall(false)
          yield* (yield* ConversationRepository).end(after.id, {
            answeredAt: null,
            endedAt: at(3),
            terminationReason: "no-answer"
          })
          yield* (yield* CarrierCalls).recordDuration(after.callId, 7)
          assert.strictEqual(yield* durationOf(after), 0)
        }))

      it.effect("the sweep of abandoned inbound calls takes the carrier's figure too", () =>
        Effect.gen(function*() {
          const call = yield* inboundCall()
          yield* (yield* CarrierCalls).recordDuration(call.callId, 6)
          const closed = yield* (yield* ConversationRepository).closeAbandoned({
            kind: "inbound",
            startedBefore: at(1),
            now: at(3_600)
          })
          const mine = closed.find((c) => c.callId === call.callId)
          assert.strictEqual(mine?.durationSec, 6)
          assert.strictEqual(yield* durationOf(call), 6)
        }))

      it.effect("a dialed call's end takes the carrier's figure, recorded before or after it", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const carrierCalls = yield* CarrierCalls
          const org = yield* Fixtures.organization()
          const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 2 })
          yield* (yield* ContactRepository).upload(campaign, [
            Fixtures.contact(Fixtures.e164(1)),
            Fixtures.contact(Fixtures.e164(2))
          ], {
            allowDuplicates: true,
            now: new Date(now)
          }).pipe(Effect.orDie)
          const claimed = yield* dialer.claim({
            worker: "w",
            campaignIds: [campaign.id],
            now,
            leaseMs: 30_000,
            limit: 2
          })
          assert.strictEqual(claimed.length, 2)
          for (const [i, contact] of claimed.entries()) {
            const callId = `call-${randomBytes(8).toString("hex")}`
            const start = yield* dialer.startCall({ contactId: contact.contactId, worker: "w", callId, now })
            assert(start._tag === "Dial")
            const reportFirst = i === 0
            if (reportFirst) yield* carrierCalls.recordDuration(callId, 14)
            yield* dialer.endCall({
              contactId: contact.contactId,
              worker: "w",
              conversationId: start.conversationId,
              outcome: "completed",
              endedBy: "agent",
              answeredAt: now + 3_000,
              endedAt: now + 13_500
            })
            if (!reportFirst) yield* carrierCalls.recordDuration(callId, 14)
            const record = Option.getOrThrow(yield* (yield* ConversationRepository).findByCallId(org.id, callId))
            assert.strictEqual(record.durationSec, 14, reportFirst ? "reported before the end" : "after")
          }
        }))
    })
  })
}
