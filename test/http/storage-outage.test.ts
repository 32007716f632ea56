/**
 * A request that fails because the database cannot be reached answers 503 with `Retry-After`
 * and a `{detail}` body; one that fails for any other reason stays a 500. The HTTP app asks
 * core's `StorageOutage` port, which the SQL storage layer provides (store-sql's
 * `SqlStorageOutage` reads the SQL client's errors): the routes below fail as a repository
 * does, with the SQL client's own error turned into a defect.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { assertDetail, layerWith, request } from "./support/ApiServer.ts"

/** A statement on a server that is not there: port 1 on the loopback refuses at once. */
const unreachable = Effect.scoped(Effect.gen(function*() {
  const context = yield* Layer.build(
    PgClient.layer({ url: Redacted.make("postgres://postgres@127.0.0.1:1/none"), maxConnections: 1 })
  )
  return yield* Context.get(context, SqlClient.SqlClient)`SELECT 1`
}))

const routes = Layer.mergeAll(
  HttpRouter.add(
    "GET",
    "/test/unreachable-database",
    Effect.as(Effect.orDie(unreachable), HttpServerResponse.empty())
  ),
  HttpRouter.add(
    "GET",
    "/test/bad-statement",
    Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.as(Effect.orDie(sql`SELEC 1`), HttpServerResponse.empty()))
  )
)

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`a database out of reach on ${backend.name}`, () => {
    layer(layerWith(backend.layer, routes), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("is 503 with Retry-After; any other failure of a statement is 500", () =>
        Effect.gen(function*() {
          const down = yield* request("GET", "/test/unreachable-database")
          assertDetail(down, 503)
          assert.strictEqual(down.body.detail, "The database is unavailable; try again shortly")
          assert.strictEqual(down.headers["retry-after"], "1")
          assertDetail(yield* request("GET", "/test/bad-statement"), 500)
        }))
    })
  })
}
