import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as Migrations from "./Migrations.ts"
import * as SqlConversationRepository from "./SqlConversationRepository.ts"
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

    it.effect(
      "0018 gives the replies stored before it their call's campaign, so the campaign's summary counts them",
      () =>
        Effect.gen(function*() {
          yield* Migrations.runThrough(17)
          const sql = yield* SqlClient.SqlClient
          const [organization] = yield* sql<{ id: string }>`
            INSERT INTO organizations (name, outbound_dialing_enabled, sms_registered, billing_issue, max_concurrency)
            VALUES ('before 0018', true, true, false, 1) RETURNING id::text AS "id"`
          const [campaign] = yield* sql<{ id: string }>`
            INSERT INTO campaigns (code, organization_id, name, origin_phone_numbers, start_date, calling_windows,
              max_attempts, retry_delay_s, max_concurrency, timezone)
            VALUES ('gcmp-00000000000000000018', ${organization!.id}, 'c', '{}', '2026-01-01', '[]', 1, 0, 1, 'UTC')
            RETURNING id::text AS "id"`
          const calls = yield* sql<{ id: string }>`
            INSERT INTO conversations (call_id, organization_id, campaign_id, direction, from_number, to_number, started_at)
            VALUES ('CA-in-campaign', ${organization!.id}, ${campaign!.id}, 'outbound', '+1', '+1', now()),
                   ('CA-direct', ${organization!.id}, NULL, 'outbound', '+1', '+1', now())
            RETURNING id::text AS "id"`
          for (const [i, call] of calls.entries()) {
            yield* sql`
              INSERT INTO turn_latencies (conversation_id, seq, user_stopped_ms, agent_started_ms)
              VALUES (${call.id}, 1, 1000, ${1400 + i}), (${call.id}, 2, 5000, ${5900 + i})`
          }
          assert.deepStrictEqual((yield* Migrations.runThrough(18)).map(([id]) => id), [18])
          const stored = yield* sql<{ id: string; campaignId: string | null }>`
            SELECT conversation_id::text AS "id", campaign_id::text AS "campaignId" FROM turn_latencies`
          const campaignOf = (id: string) => stored.filter((row) => row.id === id).map((row) => row.campaignId)
          assert.deepStrictEqual(campaignOf(calls[0]!.id), [campaign!.id, campaign!.id])
          assert.deepStrictEqual(campaignOf(calls[1]!.id), [null, null])
          const summary = yield* (yield* ConversationRepository).campaignLatency(organization!.id, campaign!.id)
          assert.deepStrictEqual(summary, { calls: 1, count: 2, p50Ms: 400, p90Ms: 900, maxMs: 900 })
        }).pipe(
          Effect.provide(SqlConversationRepository.layer.pipe(Layer.provideMerge(unmigrated[backend.name])))
        ),
      { timeout: 60_000 }
    )
  })
}
