import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlReadiness from "@voice-agent/store-sql/SqlReadiness"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import { HttpClient, HttpRouter } from "effect/http"
import { SqlClient } from "effect/sql"
import * as Health from "./Health.ts"

const get = (url: string) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).get(url)
    return { status: response.status, body: yield* response.json, cacheControl: response.headers["cache-control"] }
  })

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`health on ${backend.name}`, () => {
    const served = HttpRouter.serve(Health.routes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layerTest),
      Layer.provideMerge(Health.Draining.layer),
      Layer.provideMerge(backend.layer)
    )
    layer(served, { timeout: "60 seconds" })((it) => {
      it.effect("/healthz is ok and /readyz ready on a migrated database", () =>
        Effect.gen(function*() {
          assert.deepStrictEqual(yield* get("/healthz"), {
            status: 200,
            body: { status: "ok" },
            cacheControl: "no-store"
          })
          assert.deepStrictEqual(yield* get("/readyz"), {
            status: 200,
            body: { status: "ready" },
            cacheControl: "no-store"
          })
        }))

      it.effect("/readyz is 503 on a database without this build's newest migration", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const latest = SqlReadiness.latestMigration
          const [row] = yield* sql<{ readonly name: string }>`
            DELETE FROM effect_sql_migrations WHERE migration_id = ${latest} RETURNING name`
          const answer = yield* get("/readyz")
          yield* sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (${latest}, ${row!.name})`
          assert.strictEqual(answer.status, 503)
          assert.deepStrictEqual(answer.body, {
            detail: `The database is not migrated (migration ${latest - 1} of ${latest} applied)`
          })
          assert.strictEqual((yield* get("/readyz")).status, 200)
        }))

      it.effect("/readyz is 503 once the process drains, /healthz still ok", () =>
        Effect.gen(function*() {
          yield* Ref.set(yield* Health.Draining, true)
          const answer = yield* get("/readyz")
          yield* Ref.set(yield* Health.Draining, false)
          assert.deepStrictEqual(answer.body, { detail: "Shutting down: draining calls in progress" })
          assert.strictEqual(answer.status, 503)
          assert.strictEqual((yield* get("/healthz")).status, 200)
        }))
    })
  })
}

describe("SqlReadiness.check", () => {
  it.effect("says why not when the database does not answer", () =>
    Effect.gen(function*() {
      const answer = yield* SqlReadiness.check.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@127.0.0.1:1/nothing") }))
      )
      assert.deepStrictEqual(answer, Option.some("The database does not answer"))
    }))
})
