import { assert, describe, layer } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { ListenTicketRepository } from "@voice-agent/core/ports/ListenTicketRepository"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const t0 = new Date("2026-11-20T17:00:00.000Z")
const at = (ms: number) => new Date(t0.getTime() + ms)

/** A call of the organization that has not ended (as the dialer records one it places). */
const liveCall = (organizationId: string) =>
  Effect.flatMap(ConversationRepository, (conversations) =>
    conversations.insert({
      callId: `CA${randomBytes(12).toString("hex")}`,
      organizationId,
      campaignId: null,
      contactId: null,
      direction: "outbound",
      fromNumber: Fixtures.randomE164(),
      toNumber: Fixtures.randomE164(),
      startedAt: t0,
      answeredAt: null,
      endedAt: null,
      durationSec: null,
      terminationReason: null
    }))

const issue = (organizationId: string, callId: string, expiresAt = at(60_000), now = t0) =>
  Effect.flatMap(ListenTicketRepository, (tickets) => tickets.issue({ organizationId, callId, expiresAt, now }))

const issued = (organizationId: string, callId: string, expiresAt?: Date, now?: Date) =>
  Effect.map(issue(organizationId, callId, expiresAt, now), Option.getOrThrow)

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlListenTicketRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("issues for the organization's live call only, and stores only the ticket's SHA-256", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const call = yield* liveCall(org.id)
          const ticket = yield* issued(org.id, call.callId)
          assert.match(ticket.ticket, /^lt_[A-Za-z0-9_-]{43}$/)
          assert.deepStrictEqual(ticket.expiresAt, at(60_000))
          const rows = yield* sql<{ hash: string }>`
            SELECT ticket_hash AS "hash" FROM listen_tickets WHERE call_id = ${call.callId}`
          assert.deepStrictEqual(rows, [{ hash: createHash("sha256").update(ticket.ticket).digest("hex") }])

          assert.isTrue(Option.isNone(yield* issue(other.id, call.callId)), "another organization's call")
          assert.isTrue(Option.isNone(yield* issue(org.id, "CA-unknown")), "unknown call")
          assert.isTrue(Option.isNone(yield* issue("not-a-uuid", call.callId)), "malformed organization")
          assert.isTrue(Option.isNone(yield* issue(org.id, "CA\u0000")), "unstorable call id")
          yield* (yield* ConversationRepository).end(call.id, {
            answeredAt: null,
            endedAt: at(1_000),
            terminationReason: "no-answer"
          })
          assert.isTrue(Option.isNone(yield* issue(org.id, call.callId)), "ended call")
        }))

      it.effect("check leaves a ticket good until its expiry, for its call only; redeem uses it up once", () =>
        Effect.gen(function*() {
          const tickets = yield* ListenTicketRepository
          const org = yield* Fixtures.organization()
          const call = yield* liveCall(org.id)
          const otherCall = yield* liveCall(org.id)
          const { ticket } = yield* issued(org.id, call.callId)
          const use = { ticket, callId: call.callId }

          assert.deepStrictEqual(yield* tickets.check({ ...use, now: at(59_999) }), Option.some(org.id))
          assert.deepStrictEqual(yield* tickets.check({ ...use, now: at(59_999) }), Option.some(org.id), "unused")
          assert.isTrue(Option.isNone(yield* tickets.check({ ...use, now: at(60_000) })), "expired")
          assert.isTrue(Option.isNone(yield* tickets.check({ ticket, callId: otherCall.callId, now: t0 })))
          assert.isTrue(Option.isNone(yield* tickets.check({ ticket: `${ticket}x`, callId: call.callId, now: t0 })))
          assert.isFalse(yield* tickets.redeem({ ...use, now: at(60_000) }), "expired")
          assert.isFalse(yield* tickets.redeem({ ticket, callId: otherCall.callId, now: t0 }), "another call")
          assert.isTrue(yield* tickets.redeem({ ...use, now: at(59_999) }))
          assert.isFalse(yield* tickets.redeem({ ...use, now: at(59_999) }), "used")
          assert.isTrue(Option.isNone(yield* tickets.check({ ...use, now: t0 })), "used")
        }))

      it.effect("of 20 concurrent redeems of one ticket, exactly one succeeds", () =>
        Effect.gen(function*() {
          const tickets = yield* ListenTicketRepository
          const org = yield* Fixtures.organization()
          const call = yield* liveCall(org.id)
          const { ticket } = yield* issued(org.id, call.callId)
          const results = yield* Effect.all(
            Array.from({ length: 20 }, () => tickets.redeem({ ticket, callId: call.callId, now: t0 })),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(results.filter((ok) => ok).length, 1)
        }))

      it.effect("issuing prunes the tickets expired by then", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const org = yield* Fixtures.organization()
          const call = yield* liveCall(org.id)
          yield* issued(org.id, call.callId, at(60_000), t0)
          yield* issued(org.id, call.callId, at(90_000), at(30_000))
          yield* issued(org.id, call.callId, at(120_000), at(60_000))
          const left = yield* sql<{ expiresAt: Date }>`
            SELECT expires_at AS "expiresAt" FROM listen_tickets WHERE call_id = ${call.callId} ORDER BY expires_at`
          assert.deepStrictEqual(left.map((row) => row.expiresAt.getTime()), [at(90_000), at(120_000)].map(Number))
        }))
    })
  })
}
