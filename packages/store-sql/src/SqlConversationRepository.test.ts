import { assert, describe, layer } from "@effect/vitest"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import type { ConversationQuery } from "@voice-agent/core/ports/ConversationRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { summarize, voiceToVoiceMs } from "@voice-agent/core/TurnLatency"
import { Effect, Layer, Option } from "effect"
import * as fc from "fast-check"
import { randomBytes, randomUUID } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const base = new Date("2026-03-02T17:00:00.000Z")
const at = (seconds: number) => new Date(base.getTime() + seconds * 1000)

const call = (organizationId: string, overrides?: Partial<Omit<ConversationRecord, "id">>) => ({
  callId: `call-${randomBytes(8).toString("hex")}`,
  organizationId,
  campaignId: null,
  contactId: null,
  direction: "outbound" as const,
  fromNumber: Fixtures.e164(1),
  toNumber: Fixtures.e164(2),
  startedAt: base,
  answeredAt: null,
  endedAt: null,
  durationSec: null,
  terminationReason: null,
  ...overrides
})

/** Newest first, as the list orders: by start, then id, both descending. */
const newestFirst = (a: ConversationRecord, b: ConversationRecord) =>
  b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * Random campaigns' replies: per call, the end of the person's speech and the reply's start
 * (sometimes before it: clamped to 0), often with equal figures, a call sometimes without one.
 */
const campaignsOfReplies = fc.sample(
  fc.array(
    fc.array(
      fc.record({ userStoppedMs: fc.integer({ min: 0, max: 600_000 }), delta: fc.integer({ min: -40, max: 1500 }) }),
      { maxLength: 12 }
    ),
    { maxLength: 9 }
  ),
  { numRuns: 40, seed: 24 }
)

const listAll = (query: Omit<ConversationQuery, "limit" | "after">, limit: number) =>
  Effect.gen(function*() {
    const conversations = yield* ConversationRepository
    const seen: Array<ConversationRecord> = []
    let after: ConversationQuery["after"] = undefined
    for (;;) {
      const page: { conversations: ReadonlyArray<ConversationRecord>; hasMore: boolean } = yield* conversations.list(
        { ...query, limit, after }
      )
      seen.push(...page.conversations)
      if (!page.hasMore) return seen
      assert.strictEqual(page.conversations.length, limit)
      const last = page.conversations[page.conversations.length - 1]!
      after = { startedAt: last.startedAt, id: last.id }
    }
  })

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlConversationRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("inserts a call and finds it by call id within its organization", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const campaign = yield* Fixtures.campaign(org.id)
          const fields = call(org.id, {
            campaignId: campaign.id,
            contactId: "12345678901",
            answeredAt: at(2),
            endedAt: at(30),
            durationSec: 28,
            terminationReason: "user-hangup"
          })
          const stored = yield* conversations.insert(fields)
          assert.deepStrictEqual(stored, { ...fields, id: stored.id })
          assert.deepStrictEqual(yield* conversations.findByCallId(org.id, fields.callId), Option.some(stored))
          assert.isTrue(Option.isNone(yield* conversations.findByCallId(other.id, fields.callId)))
          assert.isTrue(Option.isNone(yield* conversations.findByCallId(org.id, "missing")))
        }))

      it.effect("ends a call in progress once: its end, duration from the answer and termination reason", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const inbound = yield* conversations.insert(call(org.id, { direction: "inbound", answeredAt: at(0) }))
          const end = { answeredAt: at(0), endedAt: at(41.7), terminationReason: "user-hangup" as const }
          assert.isTrue(yield* conversations.end(inbound.id, end))
          const ended = { ...inbound, endedAt: at(41.7), durationSec: 41, terminationReason: "user-hangup" as const }
          assert.deepStrictEqual(yield* conversations.findByCallId(org.id, inbound.callId), Option.some(ended))
          // a second end changes nothing
          assert.isFalse(
            yield* conversations.end(inbound.id, { ...end, endedAt: at(99), terminationReason: "bot-failure" })
          )
          assert.deepStrictEqual(yield* conversations.findByCallId(org.id, inbound.callId), Option.some(ended))
          // never answered: duration 0; an unknown or malformed id ends nothing
          const missed = yield* conversations.insert(call(org.id, { direction: "inbound" }))
          assert.isTrue(
            yield* conversations.end(missed.id, { answeredAt: null, endedAt: at(5), terminationReason: "bot-failure" })
          )
          const stored = yield* conversations.findByCallId(org.id, missed.callId)
          assert.strictEqual(Option.getOrThrow(stored).durationSec, 0)
          assert.isFalse(yield* conversations.end("not-a-uuid", end))
          assert.isFalse(yield* conversations.end("00000000-0000-4000-8000-000000000000", end))
        }))

      it.effect("writes a call's call.ended with its end, once; the sweep of one kind closes that kind only", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const webhooks = yield* WebhookRepository
          const org = yield* Fixtures.organization()
          const { endpoint } = yield* webhooks.createEndpoint({
            organizationId: org.id,
            url: "http://127.0.0.1:9/",
            events: null,
            now: base.getTime()
          })
          const types = Effect.map(
            webhooks.listDeliveries({ organizationId: org.id, endpointId: endpoint.id, limit: 10 }),
            (page) => page.deliveries.map((d) => d.eventType)
          )
          const direct = yield* conversations.insert(call(org.id))
          const end = { answeredAt: at(1), endedAt: at(9), terminationReason: "user-hangup" as const }
          assert.isTrue(yield* conversations.end(direct.id, end))
          assert.isFalse(yield* conversations.end(direct.id, end))
          assert.deepStrictEqual(yield* types, ["call.ended"])
          // open since `base`: a direct call, an inbound one and a campaign call
          const campaign = yield* Fixtures.campaign(org.id)
          const open = {
            direct: yield* conversations.insert(call(org.id)),
            inbound: yield* conversations.insert(call(org.id, { direction: "inbound", answeredAt: base })),
            campaign: yield* conversations.insert(call(org.id, { campaignId: campaign.id }))
          }
          const sweep = (kind: "inbound" | "direct") =>
            Effect.map(
              conversations.closeAbandoned({ kind, startedBefore: at(1), now: at(3_600) }),
              (closed) => closed.filter((c) => c.organizationId === org.id).map((c) => c.callId)
            )
          assert.deepStrictEqual(yield* sweep("direct"), [open.direct.callId])
          assert.deepStrictEqual(yield* sweep("direct"), [])
          assert.deepStrictEqual(yield* sweep("inbound"), [open.inbound.callId])
          const campaignCall = yield* conversations.findByCallId(org.id, open.campaign.callId)
          assert.isNull(Option.getOrThrow(campaignCall).endedAt)
          assert.deepStrictEqual(yield* types, ["call.ended", "call.ended", "call.ended"])
        }))

      it.effect("reads a call's context by call id alone, with its contact's data", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const contacts = yield* ContactRepository
          const org = yield* Fixtures.organization()
          const campaign = yield* Fixtures.campaign(org.id)
          const number = Fixtures.e164(7)
          yield* Effect.orDie(
            contacts.upload(campaign, [Fixtures.contact(number, { name: "Ada" })], {
              allowDuplicates: false,
              now: base
            })
          )
          const page = yield* contacts.list({ organizationId: org.id, campaignId: campaign.id, limit: 1 })
          const contactId = page.contacts[0]!.id
          const withContact = yield* conversations.insert(call(org.id, { campaignId: campaign.id, contactId }))
          assert.deepStrictEqual(
            yield* conversations.callContext(withContact.callId),
            Option.some({ conversation: withContact, data: { name: "Ada" } })
          )
          const inbound = yield* conversations.insert(call(org.id, { direction: "inbound" }))
          assert.deepStrictEqual(
            yield* conversations.callContext(inbound.callId),
            Option.some({ conversation: inbound, data: {} })
          )
          assert.isTrue(Option.isNone(yield* conversations.callContext("missing")))
          assert.isTrue(Option.isNone(yield* conversations.callContext("nul\u0000")))
        }))

      it.effect("one stream claims a call: again by the same claim, never by another, nor after the end", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const live = yield* conversations.insert(call(org.id, { answeredAt: at(1) }))
          const [first, second] = [randomUUID(), randomUUID()]
          // Two streams at once: exactly one wins.
          const raced = yield* Effect.all(
            [conversations.claimStream(live.callId, first), conversations.claimStream(live.callId, second)],
            { concurrency: "unbounded" }
          )
          assert.strictEqual(raced.filter(Boolean).length, 1, "exactly one of two streams at once claims the call")
          const [winner, loser] = raced[0] ? [first, second] : [second, first]
          assert.isTrue(yield* conversations.claimStream(live.callId, winner), "the same claim again holds")
          assert.isFalse(yield* conversations.claimStream(live.callId, loser))
          // An ended call is claimed by no stream; unknown and malformed ids claim nothing.
          const ended = yield* conversations.insert(call(org.id, { endedAt: at(9), terminationReason: "user-hangup" }))
          assert.isFalse(yield* conversations.claimStream(ended.callId, randomUUID()))
          assert.isFalse(yield* conversations.claimStream("missing", randomUUID()))
          assert.isFalse(yield* conversations.claimStream("nul\u0000", randomUUID()))
          const fresh = yield* conversations.insert(call(org.id))
          assert.isFalse(yield* conversations.claimStream(fresh.callId, "not-a-uuid"))
          assert.isTrue(yield* conversations.claimStream(fresh.callId, randomUUID()), "a bad claim left it free")
        }))

      it.effect("appends transcript turns after the stored ones, in call order", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const stored = yield* conversations.insert(call(org.id))
          assert.deepStrictEqual(yield* conversations.transcript(stored.id), [])
          const first = [
            { speaker: "AGENT" as const, text: "Hello, this is the clinic.", offsetMs: 0 },
            { speaker: "HUMAN" as const, text: "Hi! Who's this? \"quotes\", {braces}", offsetMs: 1200 }
          ]
          const second = [{ speaker: "AGENT" as const, text: "Goodbye.", offsetMs: 4100 }]
          yield* conversations.appendTurns(stored.id, first)
          yield* conversations.appendTurns(stored.id, [])
          yield* conversations.appendTurns(stored.id, second)
          assert.deepStrictEqual(yield* conversations.transcript(stored.id), [...first, ...second])
          assert.deepStrictEqual(yield* conversations.transcript("junk"), [])
        }))

      it.effect("concurrent appends to one call keep every turn", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const stored = yield* conversations.insert(call(org.id))
          const turn = (i: number) => [{ speaker: "HUMAN" as const, text: `turn ${i}`, offsetMs: i }]
          yield* Effect.all(Array.from({ length: 6 }, (_, i) => conversations.appendTurns(stored.id, turn(i))), {
            concurrency: "unbounded"
          })
          const texts = (yield* conversations.transcript(stored.id)).map((t) => t.text).sort()
          assert.deepStrictEqual(texts, Array.from({ length: 6 }, (_, i) => `turn ${i}`))
        }))

      it.effect("pages newest first through every filter, ties on start time broken by id", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const a = yield* Fixtures.campaign(org.id)
          const b = yield* Fixtures.campaign(org.id)
          const stored: Array<ConversationRecord> = []
          for (let i = 0; i < 24; i++) {
            stored.push(
              yield* conversations.insert(call(org.id, {
                // Groups of three share a start time, so the keyset needs the id too.
                startedAt: at(Math.floor(i / 3) * 60),
                direction: i % 4 === 0 ? "inbound" : "outbound",
                fromNumber: Fixtures.e164(i % 3),
                toNumber: Fixtures.e164(10 + (i % 2)),
                campaignId: i % 4 === 0 ? null : i % 2 === 0 ? a.id : b.id
              }))
            )
          }
          yield* conversations.insert(call(other.id, { startedAt: at(60) }))
          const expected = (keep: (c: ConversationRecord) => boolean) =>
            stored.filter(keep).sort(newestFirst).map((c) => c.id)
          const cases: ReadonlyArray<
            readonly [Omit<ConversationQuery, "limit" | "after">, (c: ConversationRecord) => boolean]
          > = [
            [{ organizationId: org.id }, () => true],
            [{ organizationId: org.id, fromNumber: Fixtures.e164(1) }, (c) => c.fromNumber === Fixtures.e164(1)],
            [{ organizationId: org.id, toNumber: Fixtures.e164(11) }, (c) => c.toNumber === Fixtures.e164(11)],
            [{ organizationId: org.id, direction: "inbound" }, (c) => c.direction === "inbound"],
            [{ organizationId: org.id, direction: "outbound" }, (c) => c.direction === "outbound"],
            [{ organizationId: org.id, campaignId: a.id }, (c) => c.campaignId === a.id],
            [
              { organizationId: org.id, dateFrom: at(120), dateTo: at(300) },
              (c) => c.startedAt >= at(120) && c.startedAt <= at(300)
            ],
            [
              {
                organizationId: org.id,
                fromNumber: Fixtures.e164(2),
                toNumber: Fixtures.e164(11),
                direction: "outbound",
                campaignId: b.id,
                dateFrom: at(0),
                dateTo: at(420)
              },
              (c) =>
                c.fromNumber === Fixtures.e164(2) && c.toNumber === Fixtures.e164(11) && c.direction === "outbound" &&
                c.campaignId === b.id && c.startedAt <= at(420)
            ]
          ]
          for (const [query, keep] of cases) {
            for (const limit of [1, 2, 5, 100]) {
              const all = yield* listAll(query, limit)
              assert.deepStrictEqual(all.map((c) => c.id), expected(keep), JSON.stringify({ query, limit }))
            }
          }
          const malformed = yield* conversations.list({ organizationId: org.id, campaignId: "x", limit: 5 })
          assert.deepStrictEqual(malformed, { conversations: [], hasMore: false })
        }))

      it.effect("records typed field values per call; a key recorded again replaces its value", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const one = yield* conversations.insert(call(org.id))
          const two = yield* conversations.insert(call(org.id))
          assert.deepStrictEqual(yield* conversations.fields(one.id), {})
          yield* conversations.recordField(one.id, "name", "Alex Morgan")
          yield* conversations.recordField(one.id, "age", 42)
          yield* conversations.recordField(one.id, "birthday", { year: 2027, month: 3, day: 3 })
          yield* conversations.recordField(one.id, "slot", "2027-03-09T10:00")
          yield* conversations.recordField(one.id, "pin", "1234")
          yield* conversations.recordField(two.id, "name", "Sam")
          yield* conversations.recordField(one.id, "age", 43)
          const fields = yield* conversations.fields(one.id)
          assert.deepStrictEqual(fields, {
            age: 43,
            birthday: { year: 2027, month: 3, day: 3 },
            name: "Alex Morgan",
            pin: "1234",
            slot: "2027-03-09T10:00"
          })
          assert.deepStrictEqual(Object.keys(fields), ["age", "birthday", "name", "pin", "slot"])
          assert.deepStrictEqual(yield* conversations.fields(two.id), { name: "Sam" })
          assert.deepStrictEqual(yield* conversations.fields("not-a-uuid"), {})
        }))

      it.effect("a campaign's turn latency is core's summary of its calls' replies, in one statement", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const elsewhere = yield* Fixtures.campaign(org.id)
          // Replies of calls outside the campaign: another campaign's, a direct call's.
          for (const campaignId of [elsewhere.id, null]) {
            const outside = yield* conversations.insert(call(org.id, { campaignId }))
            yield* conversations.recordLatency(outside.id, { userStoppedMs: 0, agentStartedMs: 99_999, stages: {} })
          }
          const edgeCases = [[], [[]], [[{ userStoppedMs: 5, delta: 7 }]], [
            Array.from({ length: 10 }, (_, i) => ({ userStoppedMs: i * 1000, delta: (i + 1) * 100 })),
            [{ userStoppedMs: 0, delta: 1100 }]
          ]]
          for (const replies of [...edgeCases, ...campaignsOfReplies]) {
            const campaign = yield* Fixtures.campaign(org.id)
            const figures: Array<number> = []
            for (const [i, turns] of replies.entries()) {
              const stored = yield* conversations.insert(call(org.id, { campaignId: campaign.id, startedAt: at(i) }))
              for (const { delta, userStoppedMs } of turns) {
                const turn = { userStoppedMs, agentStartedMs: Math.max(0, userStoppedMs + delta), stages: {} }
                yield* conversations.recordLatency(stored.id, turn)
                figures.push(voiceToVoiceMs(turn))
              }
            }
            const expected = summarize(figures)
            assert.deepStrictEqual(yield* conversations.campaignLatency(org.id, campaign.id), {
              calls: replies.filter((turns) => turns.length > 0).length,
              count: expected.count,
              p50Ms: expected.p50_ms,
              p90Ms: expected.p90_ms,
              maxMs: expected.max_ms
            }, JSON.stringify(replies))
          }
          // Scoped by the organization too; ids that are not UUIDs find nothing.
          const none = { calls: 0, count: 0, p50Ms: null, p90Ms: null, maxMs: null }
          assert.deepStrictEqual(yield* conversations.campaignLatency(other.id, elsewhere.id), none)
          assert.deepStrictEqual(yield* conversations.campaignLatency(org.id, "gcmp-x"), none)
          assert.deepStrictEqual(
            yield* conversations.campaignLatency(org.id, elsewhere.id),
            { calls: 1, count: 1, p50Ms: 99_999, p90Ms: 99_999, maxMs: 99_999 }
          )
        }))
    })
  })
}
