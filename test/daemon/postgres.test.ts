/**
 * `voice-agent serve` on a PostgreSQL server (`DATABASE_URL`): two daemons starting together on
 * one fresh database migrate it once and seed one demo organization between them.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Daemon from "../support/Daemon.ts"

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")

const onAdminDatabase = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(TestDatabase.adminUrl()), maxConnections: 1 }))
  )

/** A fresh, empty database on the test server, dropped when the scope closes; its URL. */
const freshDatabase = Effect.gen(function*() {
  const name = `voice_agent_test_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(
    onAdminDatabase((sql) => sql`CREATE DATABASE ${sql(name)}`),
    () => onAdminDatabase((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
  )
  const url = new URL(TestDatabase.adminUrl())
  url.pathname = `/${name}`
  return url.toString()
})

describe.skipIf(postgres?.skip !== undefined)("voice-agent serve on PostgreSQL", () => {
  it.live(
    "two daemons starting together seed one demo organization, and both accept its key",
    () =>
      Effect.gen(function*() {
        const env = { DATABASE_URL: yield* freshDatabase }
        const daemons = yield* Effect.all(
          [Daemon.serve(["--port", "0"], env), Daemon.serve(["--port", "0"], env)],
          { concurrency: 2 }
        )
        const keys = daemons.flatMap((daemon) => Option.toArray(daemon.apiKey))
        assert.strictEqual(keys.length, 1, daemons.map((d) => d.stdout.join("\n")).join("\n----\n"))
        for (const daemon of daemons) {
          assert.deepStrictEqual(yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(keys[0]!)), {
            status: 200,
            body: []
          })
        }
        for (const daemon of daemons) assert.strictEqual(yield* daemon.stop(), 0)
      }),
    { timeout: 60_000 }
  )
})
