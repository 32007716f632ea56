import { PgClient } from "@effect/sql-pg"
import { afterAll, assert, describe, it, layer } from "@effect/vitest"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Cause, ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Database from "./Database.ts"
import * as DataDirLock from "./DataDirLock.ts"
import * as Migrations from "./Migrations.ts"
import * as SqlOrganizationRepository from "./SqlOrganizationRepository.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const backends = await TestDatabase.backends()

const tempDirs: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-store-test-"))
  tempDirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** A pid that belonged to a process that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid

const lockFile = (dataDir: string) => path.join(dataDir, DataDirLock.lockFileName)

const withOrganizations = (database: Layer.Layer<Database.Database, Database.DatabaseError>) =>
  SqlOrganizationRepository.layer.pipe(Layer.provideMerge(database))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`Migrations on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "60 seconds" })((it) => {
      it.effect("a fresh database gets every migration, and running them again is a no-op", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const applied = yield* sql<{ id: number; name: string }>`
            SELECT migration_id AS "id", name AS "name" FROM effect_sql_migrations ORDER BY migration_id`
          assert.deepStrictEqual(applied, [
            { id: 1, name: "initial" },
            { id: 2, name: "server_secrets" },
            { id: 3, name: "dialer" },
            { id: 4, name: "agent_events" },
            { id: 5, name: "recordings" },
            { id: 6, name: "webhooks" },
            { id: 7, name: "carrier_message_ids" },
            { id: 8, name: "open_inbound_calls" },
            { id: 9, name: "agents" },
            { id: 10, name: "media_streams" },
            { id: 11, name: "webhook_attempts" },
            { id: 12, name: "lost_call_recordings" },
            { id: 13, name: "carrier_calls" },
            { id: 14, name: "listen_tickets" },
            { id: 15, name: "api_keys_by_organization" },
            { id: 16, name: "open_direct_calls" },
            { id: 17, name: "turn_latencies" },
            { id: 18, name: "turn_latencies_by_campaign" },
            { id: 19, name: "daemons" }
          ])
          assert.deepStrictEqual(yield* Migrations.run, [])
          assert.deepStrictEqual(yield* Migrations.run, [])
          const indexes = yield* sql<{ name: string }>`
            SELECT indexname AS "name" FROM pg_indexes WHERE tablename = 'contacts' ORDER BY indexname`
          assert.deepStrictEqual(indexes.map((i) => i.name), [
            "contacts_by_campaign",
            "contacts_by_campaign_number",
            "contacts_by_last_attempt",
            "contacts_by_organization",
            "contacts_callable",
            "contacts_data",
            "contacts_dialing_lease",
            "contacts_leases_by_campaign",
            "contacts_leases_by_organization",
            "contacts_leases_by_worker",
            "contacts_pkey",
            "contacts_trying_by_number"
          ])
        }))
    })
  })
}

describe("Database.layerPglite on a data directory", () => {
  const dataDir = tempDir()

  it.live("persists across close and reopen", () =>
    Effect.gen(function*() {
      const created = yield* Fixtures.organization({ name: "persisted" }).pipe(
        Effect.provide(withOrganizations(Database.layerPglite(dataDir)))
      )
      assert.isTrue(fs.existsSync(path.join(dataDir, Database.pgliteSubdirectory, "PG_VERSION")))
      assert.isFalse(fs.existsSync(lockFile(dataDir)), "the lock is released on close")
      const reopened = yield* OrganizationRepository.use((organizations) => organizations.get(created.id)).pipe(
        Effect.provide(withOrganizations(Database.layerPglite(dataDir)))
      )
      assert.deepStrictEqual(reopened, created)
    }), 60_000)

  it.live("is held exclusively: a second open while it is held fails with DataDirLocked", () =>
    Effect.gen(function*() {
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(Database.layerPglite(dataDir))
        assert.strictEqual(fs.readFileSync(lockFile(dataDir), "utf8").trim(), String(process.pid))
        const error = yield* Effect.flip(Layer.build(Database.layerPglite(dataDir)))
        assert.strictEqual(error._tag, "DataDirLocked")
        if (error._tag !== "DataDirLocked") return
        assert.deepStrictEqual([error.dataDir, error.pid], [dataDir, process.pid])
        assert.include(error.message, `another voice-agent process (pid ${process.pid})`)
        assert.include(error.message, "admin API")
        // The failed open left the holder's lock alone.
        assert.strictEqual(fs.readFileSync(lockFile(dataDir), "utf8").trim(), String(process.pid))
      }))
      assert.isFalse(fs.existsSync(lockFile(dataDir)))
    }), 60_000)

  it.live("takes over a stale lock whose process is gone", () =>
    Effect.gen(function*() {
      fs.writeFileSync(lockFile(dataDir), `${deadPid()}\n`)
      const count = yield* OrganizationRepository.use((organizations) => organizations.count).pipe(
        Effect.provide(withOrganizations(Database.layerPglite(dataDir)))
      )
      assert.isAtLeast(count, 1)
      assert.isFalse(fs.existsSync(lockFile(dataDir)))
    }), 60_000)

  it.live("a lock held by another live process is respected", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      // pid 1 always exists (the init process), and is not us.
      fs.writeFileSync(lockFile(dir), "1\n")
      const error = yield* Effect.flip(Effect.scoped(DataDirLock.acquire(dir)))
      assert.deepStrictEqual([error._tag, error._tag === "DataDirLocked" && error.pid], ["DataDirLocked", 1])
      assert.strictEqual(fs.readFileSync(lockFile(dir), "utf8").trim(), "1")
    }))
})

describe("Database.layerFromConfig", () => {
  it.live("without DATABASE_URL opens PGlite under the data directory", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      yield* Effect.scoped(Effect.gen(function*() {
        const context = yield* Layer.build(Database.layerFromConfig({ dataDir }))
        const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 AS "one"`).pipe(
          Effect.provideContext(context)
        )
        assert.deepStrictEqual(rows, [{ one: 1 }])
        assert.isTrue(fs.existsSync(path.join(dataDir, Database.pgliteSubdirectory, "PG_VERSION")))
      })).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATABASE_URL: " " }))))
    }), 60_000)

  const postgres = backends.find((b) => b.name === "postgres")!
  describe.skipIf(postgres.skip !== undefined)("with DATABASE_URL", () => {
    layer(postgres.layer, { timeout: "60 seconds" })((it) => {
      it.effect("connects to that server", () =>
        Effect.gen(function*() {
          const server = yield* PgClient.PgClient
          const url = Redacted.value(Option.getOrThrow(Option.fromNullishOr(server.config.url)))
          const expected = new URL(url).pathname.slice(1)
          const database = yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql<{ name: string }>`SELECT current_database() AS "name"`
          ).pipe(
            Effect.provide(Database.layerFromConfig()),
            Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATABASE_URL: url })))
          )
          assert.deepStrictEqual(database, [{ name: expected }])
        }))
    })
  })
})

describe("Database.isUnavailable", () => {
  /** The error `statement` fails with, on a client of `url` (one connection, its own scope). */
  const errorOf = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.scoped(
      Effect.gen(function*() {
        const context = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
        return yield* Effect.flip(statement(Context.get(context, SqlClient.SqlClient)))
      })
    )

  it.live("a server that does not answer is unavailable", () =>
    Effect.gen(function*() {
      // Port 1 on the loopback: nothing listens there, the connection is refused at once.
      const error = yield* errorOf("postgres://postgres@127.0.0.1:1/none", (sql) => sql`SELECT 1`)
      assert.isTrue(Database.isUnavailable(error), String(error))
      assert.isTrue(Database.isUnavailableCause(Cause.die(error)))
      assert.isFalse(Database.isUnavailableCause(Cause.combine(Cause.die(error), Cause.die(new Error("a bug")))))
    }))

  it("anything else is not", () => {
    assert.isFalse(Database.isUnavailable(new Error("connect ECONNREFUSED")))
    assert.isFalse(Database.isUnavailable(undefined))
    assert.isFalse(Database.isUnavailableCause(Cause.interrupt()))
    assert.isFalse(Database.isUnavailableCause(Cause.empty))
  })

  const postgres = backends.find((b) => b.name === "postgres")!
  describe.skipIf(postgres.skip !== undefined)("on a PostgreSQL server", () => {
    it.live(
      "a session the server ends (as `pg_ctl stop -m fast` ends them all) is unavailable; a bad statement is not",
      () =>
        Effect.gen(function*() {
          const url = yield* TestDatabase.freshDatabaseUrl("voice_agent_unavailable")
          const terminated = yield* errorOf(url, (sql) => sql`SELECT pg_terminate_backend(pg_backend_pid())`)
          assert.isTrue(Database.isUnavailable(terminated), String(terminated))
          const syntax = yield* errorOf(url, (sql) => sql`SELEC 1`)
          assert.isFalse(Database.isUnavailable(syntax))
        }).pipe(Effect.scoped),
      30_000
    )
  })
})
