/**
 * Migrated databases for tests, on both backends, so one test body runs against each.
 *
 * Owns: the throwaway databases (an in-memory PGlite; a fresh `voice_agent_test_<random>`
 * database on a PostgreSQL server, dropped on release) and the rule for a server that does
 * not answer: in CI (`CI=true`) that is an error, never a skip; elsewhere that backend's
 * tests are skipped with the reason printed.
 *
 * Usage (one PGlite per test file: it boots in seconds, so share it through `layer`):
 *
 * ```ts
 * import { assert, describe, layer } from "@effect/vitest"
 * import { Layer } from "effect"
 * import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
 * import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
 *
 * for (const backend of await TestDatabase.backends()) {
 *   describe.skipIf(backend.skip !== undefined)(backend.name, () => {
 *     layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
 *       it.effect("...", () => ...)
 *     })
 *   })
 * }
 * ```
 *
 * Boot time: an in-memory PGlite runs initdb and the migrations on every start (3 to 7 s for
 * the first instance of a process here). The first boot of a run dumps the migrated data
 * directory to a file in the OS temp directory, named after a hash of the migrations and the
 * PGlite version; later boots load it instead (about 0.4 s).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { Cause, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Database from "../Database.ts"

/**
 * A backend to run a test suite against; `skip` says why it cannot run here, if it cannot.
 *
 * @category models
 */
export interface Backend {
  readonly name: "pglite" | "postgres"
  readonly layer: Layer.Layer<Database.Database, Database.DatabaseError>
  readonly skip: string | undefined
}

// ---------------------------------------------------------------------------------- PGlite

const templateFile = (): string => {
  const hash = createHash("sha256")
  const migrationsDir = fileURLToPath(new URL("../migrations/", import.meta.url))
  for (const name of fs.readdirSync(migrationsDir).sort()) {
    hash.update(name).update(fs.readFileSync(path.join(migrationsDir, name)))
  }
  const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const pgliteManifest = path.join(path.dirname(pgliteEntry), "..", "package.json")
  hash.update(fs.existsSync(pgliteManifest) ? fs.readFileSync(pgliteManifest) : pgliteEntry)
  return path.join(os.tmpdir(), `voice-agent-pglite-template-${hash.digest("hex").slice(0, 16)}.tar`)
}

const readTemplate = (file: string): Effect.Effect<Option.Option<Blob>> =>
  Effect.sync(() => fs.existsSync(file) ? Option.some(new Blob([fs.readFileSync(file)])) : Option.none())

/** Writes the dump beside its final name, then renames: concurrent writers never tear it. */
const saveTemplate = (pglite: PGlite, file: string): Effect.Effect<void> =>
  Effect.promise(() => pglite.dumpDataDir("none")).pipe(
    Effect.flatMap((dump) => Effect.promise(() => dump.arrayBuffer())),
    Effect.flatMap((bytes) =>
      Effect.sync(() => {
        const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`
        fs.writeFileSync(partial, new Uint8Array(bytes))
        fs.renameSync(partial, file)
      })
    ),
    Effect.catchCause((cause) => Effect.logWarning("Could not save the PGlite template", cause))
  )

/**
 * A migrated in-memory PGlite, closed on release.
 *
 * @category layers
 */
export const pglite: Layer.Layer<Database.Database, Database.DatabaseError> = Layer.unwrap(
  Effect.gen(function*() {
    const file = templateFile()
    const template = yield* readTemplate(file)
    const instance = yield* Effect.acquireRelease(
      Effect.promise(() =>
        Option.match(template, {
          onNone: () => PGlite.create(),
          onSome: (loadDataDir) => PGlite.create({ loadDataDir })
        })
      ),
      (db) => Effect.promise(() => db.close())
    )
    const database = Database.migrated(Database.layerPgliteClient(instance))
    return Option.isSome(template)
      ? database
      : Layer.effectDiscard(saveTemplate(instance, file)).pipe(Layer.provideMerge(database))
  })
)

// -------------------------------------------------------------------------------- PostgreSQL

/**
 * The server tests create their databases on: `TEST_DATABASE_URL`, else the local default.
 *
 * @category constructors
 */
export const adminUrl = (): string => process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withAdmin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl()), maxConnections: 1, connectTimeout: "3 seconds" }))
  )

/**
 * The URL of an empty database created on the test server for the scope, dropped
 * (`WITH (FORCE)`) when the scope closes.
 *
 * @category constructors
 */
export const freshDatabaseUrl = (prefix = "voice_agent_test") =>
  Effect.gen(function*() {
    const name = `${prefix}_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      withAdmin((sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => withAdmin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const url = new URL(adminUrl())
    url.pathname = `/${name}`
    return url.toString()
  })

/**
 * A fresh, migrated database on the test server, dropped on release.
 *
 * @category layers
 */
export const postgres: Layer.Layer<Database.Database, Database.DatabaseError> = Layer.unwrap(
  Effect.map(freshDatabaseUrl(), (url) => Database.layerPostgres(Redacted.make(url), { maxConnections: 4 }))
)

/** The innermost message of an error chain (`ECONNREFUSED ...` rather than the wrappers). */
const rootMessage = (error: unknown): string => {
  let current = error
  while (current instanceof Error && current.cause instanceof Error) current = current.cause
  return current instanceof Error ? current.message : String(current)
}

/** Why the test server cannot be used, or `undefined` when it answers. */
const probePostgres: Effect.Effect<string | undefined> = withAdmin((sql) => sql`SELECT 1`).pipe(
  Effect.timeout("5 seconds"),
  Effect.as(undefined),
  Effect.catchCause((cause) =>
    Effect.succeed(`PostgreSQL at ${new URL(adminUrl()).host} does not answer (${rootMessage(Cause.squash(cause))})`)
  )
)

/**
 * Both backends. PostgreSQL carries a `skip` reason when its server does not answer, and the
 * reason is printed; with `CI=true` an unanswering server fails instead.
 *
 * @category constructors
 */
export const backends = (): Promise<ReadonlyArray<Backend>> =>
  Effect.runPromise(Effect.gen(function*() {
    const unavailable = yield* probePostgres
    if (unavailable !== undefined) {
      if (process.env["CI"] === "true") {
        return yield* Effect.die(new Error(`${unavailable}; in CI the PostgreSQL tests never skip`))
      }
      yield* Effect.sync(() =>
        console.warn(`Skipping the PostgreSQL tests: ${unavailable}. Start it or set TEST_DATABASE_URL.`)
      )
    }
    return [
      { name: "pglite", layer: pglite, skip: undefined },
      { name: "postgres", layer: postgres, skip: unavailable }
    ] as const
  }))
