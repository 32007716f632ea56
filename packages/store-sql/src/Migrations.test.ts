import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as Migrations from "./Migrations.ts"
import * as SqlOrganizationRepository from "./SqlOrganizationRepository.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

/** A database with no migration applied, per backend: a new PGlite, or a new database on the server. */
const unmigrated = {
  pglite: Layer.unwrap(
    Effect.acquireRelease(Effect.promise(() => PGlite.create()), (pglite) => Effect.promise(() => pglite.close())).pipe(
      Effect.map(Database.layerPgliteClient)
    )
  ),
  postgres: Layer.unwrap(
    Effect.map(TestDatabase.freshDatabaseUrl(), (url) => PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  )
}

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`Migrations on ${backend.name}`, () => {
    it.effect(
      "the latest migration applies to a database an older release left, keeping its data",
      () =>
        Effect.gen(function*() {
          // By id, not count: ids reserved for work merged later leave gaps.
          const ids = Object.keys(Migrations.migrations).map((key) => Number.parseInt(key, 10))
          const latest = Math.max(...ids)
          const older = yield* Migrations.runThrough(latest - 1)
          assert.strictEqual(older.length, ids.length - 1)
          const organization = yield* (yield* OrganizationRepository).create({
            name: "from an older release",
            outboundDialingEnabled: true,
            smsRegistered: false,
            billingIssue: false,
            maxConcurrency: 3
          })
          const applied = yield* Migrations.run
          assert.deepStrictEqual(applied.map(([id]) => id), [latest])
          assert.deepStrictEqual(yield* Migrations.run, [])
          const kept = yield* (yield* OrganizationRepository).get(organization.id)
          assert.deepStrictEqual(kept, organization)
          const sql = yield* SqlClient.SqlClient
          const secrets = yield* sql<{ name: string }>`SELECT name FROM server_secrets ORDER BY name`
          assert.deepStrictEqual(secrets.map((s) => s.name), ["cursor_key"])
        }).pipe(
          Effect.provide(SqlOrganizationRepository.layer.pipe(Layer.provideMerge(unmigrated[backend.name])))
        ),
      { timeout: 60_000 }
    )
  })
}
