/**
 * The schema the migrations produce, as `pg_dump --schema-only` prints it on a fresh
 * PostgreSQL database, normalized (no comments, settings or session-specific lines) so that
 * the committed `schema.sql` changes exactly when a migration changes the schema. Regenerate
 * with `npm run db:dump`; `SchemaDump.test.ts` fails when the two differ.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import * as Database from "../Database.ts"
import { adminUrl } from "./TestDatabase.ts"

/**
 * Where the committed dump lives.
 *
 * @category constructors
 */
export const schemaFile = path.join(import.meta.dirname, "..", "..", "schema.sql")

/**
 * Drops what varies between runs and carries no schema: comments, `SET` lines, the
 * `\restrict` guard lines newer pg_dump releases add with a random key, and blank-line runs.
 *
 * @category encoding
 */
export const normalize = (dump: string): string =>
  dump
    .split("\n")
    .filter((line) =>
      !line.startsWith("--") && !line.startsWith("SET ") && !line.startsWith("SELECT pg_catalog.set_config") &&
      !line.startsWith("\\restrict") && !line.startsWith("\\unrestrict")
    )
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim() + "\n"

const withAdmin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl()), maxConnections: 1 }))
  )

/**
 * Migrates a fresh database on the test server, dumps its schema and drops it.
 *
 * @category constructors
 */
export const dump = Effect.scoped(Effect.gen(function*() {
  const name = `voice_agent_schema_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(
    withAdmin((sql) => sql`CREATE DATABASE ${sql(name)}`),
    () => withAdmin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
  )
  const url = new URL(adminUrl())
  url.pathname = `/${name}`
  yield* Effect.provide(Effect.void, Database.layerPostgres(Redacted.make(url.toString()), { maxConnections: 1 }))
  const result = spawnSync("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--dbname", url.toString()], {
    encoding: "utf8"
  })
  if (result.status !== 0) {
    return yield* Effect.die(new Error(`pg_dump failed: ${result.error?.message ?? result.stderr}`))
  }
  return normalize(result.stdout)
}))
