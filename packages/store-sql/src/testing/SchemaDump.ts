/**
 * The schema the migrations produce, as `pg_dump --schema-only` prints it on a fresh
 * PostgreSQL database, normalized (no comments, settings or session-specific lines) so that
 * the committed `schema.sql` changes exactly when a migration changes the schema. Regenerate
 * with `npm run db:dump`; `SchemaDump.test.ts` fails when the two differ.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import * as Database from "../Database.ts"
import { freshDatabaseUrl } from "./TestDatabase.ts"

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

/**
 * Migrates a fresh database on the test server, dumps its schema and drops it.
 *
 * @category constructors
 */
export const dump = Effect.scoped(Effect.gen(function*() {
  const url = yield* freshDatabaseUrl("voice_agent_schema")
  yield* Effect.provide(Effect.void, Database.layerPostgres(Redacted.make(url), { maxConnections: 1 }))
  const result = spawnSync("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--dbname", url], {
    encoding: "utf8"
  })
  if (result.status !== 0) {
    return yield* Effect.die(new Error(`pg_dump failed: ${result.error?.message ?? result.stderr}`))
  }
  return normalize(result.stdout)
}))
