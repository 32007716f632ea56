import { assert, describe, it, layer } from "@effect/vitest"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Database from "./Database.ts"
import * as SqlCallEvents from "./SqlCallEvents.ts"
import * as SqlStorage from "./SqlStorage.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const at = Date.parse("2026-03-02T17:00:00.000Z")
const ringing: CallEvent = { _tag: "Ringing", at }
const answered: CallEvent = { _tag: "Answered", at: at + 2000, answeredBy: "human" }
const ended: CallEvent = { _tag: "Ended", at: at + 9000, reason: "remote-hangup" }
const verdict: CallEvent = { _tag: "AgentEnded", at: at + 9500, outcome: "completed", endedBy: "remote" }

const callId = () => `call-${randomBytes(8).toString("hex")}`

const collect = (stream: Stream.Stream<CallEvent>) => Stream.runCollect(stream)

const backends = await TestDatabase.backends()

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`SqlCallEvents on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("delivers what was recorded before the subscription, then what follows, and ends after Ended", () =>
        Effect.gen(function*() {
          const events = yield* CallEvents
          const id = callId()
          yield* events.publish(id, ringing)
          const stream = yield* events.subscribe(id)
          yield* events.publish(id, answered)
          yield* events.publish(id, ended)
          yield* events.publish(id, verdict)
          assert.deepStrictEqual(yield* collect(stream), [ringing, answered, ended, verdict])
          // A call never answered ends with Ended.
          const unanswered = callId()
          const busy: CallEvent = { _tag: "Ended", at, reason: "busy" }
          const short = yield* events.subscribe(unanswered)
          yield* events.publish(unanswered, ringing)
          yield* events.publish(unanswered, busy)
          assert.deepStrictEqual(yield* collect(short), [ringing, busy])
        }))

      it.effect("an answered call ends once the agent's verdict is in too, whichever comes first", () =>
        Effect.gen(function*() {
          const events = yield* CallEvents
          const id = callId()
          const stream = yield* events.subscribe(id)
          yield* events.publish(id, answered)
          yield* events.publish(id, verdict)
          yield* events.publish(id, { ...verdict, outcome: "cut-short" })
          yield* events.publish(id, ended)
          assert.deepStrictEqual(yield* collect(stream), [answered, verdict, ended])
          assert.deepStrictEqual(yield* collect(yield* events.subscribe(id)), [answered, verdict, ended])
        }))

      it.effect("records each kind once: a repeated report changes nothing", () =>
        Effect.gen(function*() {
          const events = yield* CallEvents
          const sql = yield* SqlClient.SqlClient
          const id = callId()
          const stream = yield* events.subscribe(id)
          yield* events.publish(id, answered)
          yield* events.publish(id, { ...answered, at: at + 5000, answeredBy: "machine" })
          yield* events.publish(id, ended)
          yield* events.publish(id, { ...ended, reason: "failed" })
          yield* events.publish(id, verdict)
          assert.deepStrictEqual(yield* collect(stream), [answered, ended, verdict])
          const rows = yield* sql<{ kind: string; data: unknown }>`
            SELECT kind AS "kind", data AS "data" FROM call_events WHERE call_id = ${id} ORDER BY kind`
          assert.deepStrictEqual(rows, [
            { kind: "AgentEnded", data: { outcome: "completed", endedBy: "remote" } },
            { kind: "Answered", data: { answeredBy: "human" } },
            { kind: "Ended", data: { reason: "remote-hangup" } }
          ])
        }))

      it.effect("keeps the order Ringing, Answered, Ended: a kind arriving after a later one is dropped", () =>
        Effect.gen(function*() {
          const events = yield* CallEvents
          const early = callId()
          yield* events.publish(early, ended)
          yield* events.publish(early, ringing)
          assert.deepStrictEqual(yield* collect(yield* events.subscribe(early)), [ringing, ended])
          const late = callId()
          const stream = yield* events.subscribe(late)
          yield* events.publish(late, answered)
          yield* events.publish(late, ringing)
          yield* events.publish(late, ended)
          yield* events.publish(late, verdict)
          assert.deepStrictEqual(yield* collect(stream), [answered, ended, verdict])
        }))

      it.effect("delivers to every subscriber of the call and to no other call", () =>
        Effect.gen(function*() {
          const events = yield* CallEvents
          const [id, other] = [callId(), callId()]
          const first = yield* events.subscribe(id)
          const second = yield* events.subscribe(id)
          const unrelated = yield* events.subscribe(other)
          yield* events.publish(id, ringing)
          yield* events.publish(id, ended)
          yield* events.publish(other, ended)
          assert.deepStrictEqual(yield* collect(first), [ringing, ended])
          assert.deepStrictEqual(yield* collect(second), [ringing, ended])
          assert.deepStrictEqual(yield* collect(unrelated), [ended])
        }))
    })
  })
}

const postgres = backends.find((b) => b.name === "postgres")!

/** A whole storage stack of its own (own pool, own LISTEN) on the database at `url`. */
const stack = (url: string) =>
  Layer.build(
    Layer.fresh(
      SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(Redacted.make(url), { maxConnections: 2 })))
    )
  )

/** The pid of the connection that listens on `channel` (its last statement was the LISTEN). */
const listenerPid = (channel: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ pid: number }>`
        SELECT pid AS "pid" FROM pg_stat_activity
        WHERE datname = current_database() AND query = ${`LISTEN "${channel}"`}`,
      (rows) => rows.map((r) => r.pid)
    ))

describe.skipIf(postgres.skip !== undefined)("SqlCallEvents across daemons on PostgreSQL", () => {
  it.live("a publisher on one pool reaches a subscriber on another", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabase.freshDatabaseUrl()
      const subscriberSide = Context.get(yield* stack(url), CallEvents)
      const publisherSide = Context.get(yield* stack(url), CallEvents)
      const id = callId()
      yield* publisherSide.publish(id, ringing)
      const stream = yield* subscriberSide.subscribe(id)
      yield* publisherSide.publish(id, answered)
      yield* publisherSide.publish(id, ended)
      yield* publisherSide.publish(id, verdict)
      assert.deepStrictEqual(yield* collect(stream), [ringing, answered, ended, verdict])
    }), 60_000)

  it.live(
    "after its LISTEN connection dies, a daemon listens again and catches up on what it missed",
    () =>
      Effect.gen(function*() {
        const url = yield* TestDatabase.freshDatabaseUrl()
        const subscriber = yield* stack(url)
        const publisherSide = Context.get(yield* stack(url), CallEvents)
        const id = callId()
        const stream = yield* Context.get(subscriber, CallEvents).subscribe(id)
        const sql = Context.get(subscriber, SqlClient.SqlClient)
        const pids = yield* listenerPid(SqlCallEvents.channel).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        assert.strictEqual(pids.length, 1)
        // Waits until the backend is gone, so nothing published next can reach that connection.
        yield* sql`SELECT pg_terminate_backend(${pids[0]!}, 10000)`
        yield* publisherSide.publish(id, ringing)
        yield* publisherSide.publish(id, ended)
        assert.deepStrictEqual(yield* collect(stream), [ringing, ended])
      }),
    60_000
  )
})
