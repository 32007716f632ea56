import { assert, describe, it, layer } from "@effect/vitest"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as SqlDialerWakeup from "./SqlDialerWakeup.ts"
import * as SqlStorage from "./SqlStorage.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const next = (wakeups: Stream.Stream<void>) => Stream.runCollect(Stream.take(wakeups, 1))

const backends = await TestDatabase.backends()

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`SqlDialerWakeup on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("a wake-up reaches every subscriber", () =>
        Effect.gen(function*() {
          const wakeup = yield* DialerWakeup
          const first = yield* wakeup.wakeups
          const second = yield* wakeup.wakeups
          yield* wakeup.notify
          assert.deepStrictEqual(yield* next(first), [undefined])
          assert.deepStrictEqual(yield* next(second), [undefined])
          yield* wakeup.notify
          assert.deepStrictEqual(yield* next(first), [undefined])
        }))
    })
  })
}

const postgres = backends.find((b) => b.name === "postgres")!

const stack = (url: string) =>
  Layer.build(
    Layer.fresh(
      SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(Redacted.make(url), { maxConnections: 2 })))
    )
  )

describe.skipIf(postgres.skip !== undefined)("SqlDialerWakeup across daemons on PostgreSQL", () => {
  it.live("a wake-up from one daemon reaches another", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabase.freshDatabaseUrl()
      const listening = Context.get(yield* stack(url), DialerWakeup)
      const notifying = Context.get(yield* stack(url), DialerWakeup)
      const wakeups = yield* listening.wakeups
      yield* notifying.notify
      assert.deepStrictEqual(yield* next(wakeups), [undefined])
    }), 60_000)

  it.live(
    "after its LISTEN connection dies, a daemon listens again and wakes its loops once",
    () =>
      Effect.gen(function*() {
        const url = yield* TestDatabase.freshDatabaseUrl()
        const daemon = yield* stack(url)
        const wakeups = yield* Context.get(daemon, DialerWakeup).wakeups
        const sql = Context.get(daemon, SqlClient.SqlClient)
        const [listener] = yield* sql<{ pid: number }>`
        SELECT pid AS "pid" FROM pg_stat_activity
        WHERE datname = current_database() AND query = ${`LISTEN "${SqlDialerWakeup.channel}"`}`
        yield* sql`SELECT pg_terminate_backend(${listener!.pid}, 10000)`
        assert.deepStrictEqual(yield* next(wakeups), [undefined])
      }),
    60_000
  )
})
