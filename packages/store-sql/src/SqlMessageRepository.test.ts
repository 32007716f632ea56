import { assert, describe, layer } from "@effect/vitest"
import type { MessageRecord } from "@voice-agent/core/Message"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const base = new Date("2026-03-02T17:00:00.000Z")
const at = (seconds: number) => new Date(base.getTime() + seconds * 1000)

const inbound = (
  organizationId: string,
  overrides?: Partial<Omit<MessageRecord, "id">>
): Omit<MessageRecord, "id"> => ({
  organizationId,
  direction: "inbound",
  modality: "sms",
  fromNumber: Fixtures.e164(1),
  toNumber: Fixtures.e164(100),
  content: "hello",
  receivedAt: base,
  status: "received",
  ...overrides
})

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlMessageRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("stores a message with a fresh id", () =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const org = yield* Fixtures.organization()
          const fields = inbound(org.id, { content: "emoji 👋 and \"quotes\"" })
          const stored = yield* messages.insert(fields)
          assert.deepStrictEqual(stored, { ...fields, id: stored.id })
          assert.notStrictEqual((yield* messages.insert(fields)).id, stored.id)
        }))

      it.effect("stores a carrier's message once per carrier id, also when two deliveries race", () =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const org = yield* Fixtures.organization()
          const sid = `SM${randomBytes(16).toString("hex")}`
          const first = yield* messages.receive(inbound(org.id, { content: "first" }), sid)
          assert.isTrue(first.created)
          const again = yield* messages.receive(inbound(org.id, { content: "retried" }), sid)
          assert.deepStrictEqual(again, { message: first.message, created: false })
          const racing = `SM${randomBytes(16).toString("hex")}`
          const both = yield* Effect.all(
            Array.from({ length: 8 }, () => messages.receive(inbound(org.id), racing)),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(both.filter((r) => r.created).length, 1)
          assert.strictEqual(new Set(both.map((r) => r.message.id)).size, 1)
          const listed = yield* messages.listInbound({
            organizationId: org.id,
            toNumber: inbound(org.id).toNumber,
            limit: 50
          })
          assert.deepStrictEqual(
            listed.messages.map((m) => m.id).sort(),
            [first.message.id, both[0]!.message.id].sort()
          )
        }))

      it.effect("updates the status of the message a carrier id names", () =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const org = yield* Fixtures.organization()
          const sid = `SM${randomBytes(16).toString("hex")}`
          yield* messages.insert(inbound(org.id, { direction: "outbound", status: "queued" }), sid)
          assert.isTrue(yield* messages.updateStatus(sid, "delivered"))
          assert.isFalse(yield* messages.updateStatus(`SM${randomBytes(16).toString("hex")}`, "delivered"))
        }))

      it.effect("lists inbound messages to a number oldest first, start inclusive, with has_more", () =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const to = Fixtures.e164(100)
          const stored: Array<MessageRecord> = []
          for (let i = 0; i < 6; i++) {
            // Messages 2 and 3 arrive in the same millisecond.
            stored.push(yield* messages.insert(inbound(org.id, { receivedAt: at(i === 3 ? 2 : i), content: `m${i}` })))
          }
          yield* messages.insert(inbound(org.id, { direction: "outbound", fromNumber: to, toNumber: Fixtures.e164(1) }))
          yield* messages.insert(inbound(org.id, { direction: "outbound", toNumber: to }))
          yield* messages.insert(inbound(org.id, { toNumber: Fixtures.e164(101) }))
          yield* messages.insert(inbound(other.id, { toNumber: to }))
          const byTime = [...stored].sort((a, b) =>
            a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
          )

          const all = yield* messages.listInbound({ organizationId: org.id, toNumber: to, limit: 50 })
          assert.deepStrictEqual(all, { messages: byTime, hasMore: false })

          const first = yield* messages.listInbound({ organizationId: org.id, toNumber: to, limit: 3 })
          assert.deepStrictEqual(first, { messages: byTime.slice(0, 3), hasMore: true })
          // Next page as docs/DECISIONS.md ("SMS") says: start = received_at of the last message,
          // which comes again.
          const next = yield* messages.listInbound({
            organizationId: org.id,
            toNumber: to,
            start: first.messages[2]!.receivedAt,
            limit: 3
          })
          assert.deepStrictEqual(next.messages.map((m) => m.content).sort(), ["m2", "m3", "m4"])
          assert.isTrue(next.hasMore)

          const exact = yield* messages.listInbound({ organizationId: org.id, toNumber: to, start: at(5), limit: 1 })
          assert.deepStrictEqual(exact, { messages: [stored[5]!], hasMore: false })
          const full = yield* messages.listInbound({ organizationId: org.id, toNumber: to, start: at(4), limit: 2 })
          assert.deepStrictEqual(full, { messages: [stored[4]!, stored[5]!], hasMore: false })
        }))

      it.effect("filters by sender and modality", () =>
        Effect.gen(function*() {
          const messages = yield* MessageRepository
          const org = yield* Fixtures.organization()
          const to = Fixtures.e164(100)
          const a = yield* messages.insert(inbound(org.id, { fromNumber: Fixtures.e164(1), receivedAt: at(1) }))
          const b = yield* messages.insert(inbound(org.id, { fromNumber: Fixtures.e164(2), receivedAt: at(2) }))
          const fromA = yield* messages.listInbound({
            organizationId: org.id,
            toNumber: to,
            fromNumber: Fixtures.e164(1),
            limit: 10
          })
          assert.deepStrictEqual(fromA, { messages: [a], hasMore: false })
          const sms = yield* messages.listInbound({ organizationId: org.id, toNumber: to, modality: "sms", limit: 10 })
          assert.deepStrictEqual(sms, { messages: [a, b], hasMore: false })
          const none = yield* messages.listInbound({ organizationId: "junk", toNumber: to, limit: 10 })
          assert.deepStrictEqual(none, { messages: [], hasMore: false })
        }))
    })
  })
}
