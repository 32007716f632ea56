/**
 * Which database the process talks to (docs/DAEMON.md: `DATABASE_URL`, else `--data-dir`), as
 * layers that provide the SQL client with every migration applied.
 *
 * Owns: the choice between a PostgreSQL server (`DATABASE_URL`) and the embedded PGlite
 * persisted under a data directory (or in memory), and the lifetime of the embedded one.
 * Both run the same `@effect/sql-pg` driver: against PGlite it speaks the wire protocol
 * through an in-process stream, so the same SQL, codecs (int8 as bigint, timestamptz as Date)
 * and errors serve both. Does not own any query: the repositories do.
 *
 * Measured on a 2-core box (Node 24, PGlite 0.5.16): an in-memory PGlite boots in 3 to 7 s
 * for the first instance of a process (WASM compilation plus initdb) and about 1.5 s after;
 * an existing data directory opens, migrations checked, in about 0.65 s.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { PgMigrator } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"
import * as path from "node:path"
import * as DataDirLock from "./DataDirLock.ts"
import { pgliteStream } from "./internal/pgliteStream.ts"
import * as Migrations from "./Migrations.ts"

/**
 * The services a database layer provides.
 *
 * @category models
 */
export type Database = PgClient.PgClient | SqlClient.SqlClient

/**
 * How opening a database can fail.
 *
 * @category errors
 */
export type DatabaseError =
  | SqlError.SqlError
  | PgMigrator.MigrationError
  | DataDirLock.DataDirLocked
  | DataDirLock.DataDirUnavailable

/**
 * The data directory used when none is given (docs/DAEMON.md).
 *
 * @category constructors
 */
export const defaultDataDir = "./.voice-agent"

/**
 * The `--data-dir` value that keeps nothing.
 *
 * @category constructors
 */
export const memory = ":memory:"

/**
 * The PGlite files live in this subdirectory of the data directory, beside the lock file and
 * whatever else the daemon keeps there.
 *
 * @category constructors
 */
export const pgliteSubdirectory = "postgres"

/**
 * A client layer with every pending migration applied when it is built.
 *
 * @category layers
 */
export const migrated = <E>(client: Layer.Layer<Database, E>): Layer.Layer<Database, E | DatabaseError> =>
  Migrations.layer.pipe(Layer.provideMerge(client))

/**
 * A PostgreSQL server.
 *
 * @category layers
 */
export const layerPostgres = (
  url: Redacted.Redacted,
  options?: { readonly maxConnections?: number | undefined }
): Layer.Layer<Database, DatabaseError> =>
  migrated(PgClient.layer({ url, maxConnections: options?.maxConnections ?? 10 }))

const openPglite = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => dataDir === memory ? PGlite.create() : PGlite.create(path.join(dataDir, pgliteSubdirectory)),
      catch: (error) =>
        new DataDirLock.DataDirUnavailable({
          dataDir,
          reason: `PGlite could not open it: ${error instanceof Error ? error.message : String(error)}`
        })
    }),
    (pglite) => Effect.promise(() => pglite.close())
  )

/**
 * The SQL client over a PGlite instance that the caller opened and will close; no
 * migrations (see {@link layerPglite} for the whole thing).
 *
 * @category layers
 */
export const layerPgliteClient = (pglite: PGlite): Layer.Layer<Database, SqlError.SqlError> =>
  // One connection: PGlite is a single backend session, and a second connection over it
  // would interleave two transactions in one session.
  PgClient.layer({
    stream: pgliteStream(pglite),
    username: "postgres",
    database: "postgres",
    maxConnections: 1
  })

/**
 * True when the client talks to the embedded PGlite, the one client built over an in-process
 * stream ({@link layerPgliteClient}): one connection in one process. Notifications then stay
 * in the process (SqlCallEvents, SqlDialerWakeup), since a `LISTEN` would hold the only
 * connection and nobody else could send one.
 *
 * @category guards
 */
export const isEmbedded = (client: PgClient.PgClient): boolean => client.config.stream !== undefined

/**
 * The embedded PGlite, persisted under `dataDir` (created if missing, held exclusively by
 * this process until the layer is released), or kept in memory with {@link memory}.
 *
 * @category layers
 */
export const layerPglite = (dataDir: string): Layer.Layer<Database, DatabaseError> =>
  migrated(Layer.unwrap(Effect.gen(function*() {
    if (dataDir !== memory) yield* DataDirLock.acquire(dataDir)
    return layerPgliteClient(yield* openPglite(dataDir))
  }))).pipe(Layer.tap((context) => Effect.forkScoped(refreshStatistics(Context.get(context, SqlClient.SqlClient)))))

/**
 * PGlite runs no autovacuum, so nothing else keeps the planner's statistics current as tables
 * grow: refresh them every ten minutes (the first time ten minutes after opening).
 */
const refreshStatistics = (sql: SqlClient.SqlClient) =>
  Effect.sleep("10 minutes").pipe(
    Effect.andThen(sql`ANALYZE`),
    Effect.catchCause((cause) => Effect.logWarning("ANALYZE of the embedded database failed", cause)),
    Effect.forever
  )

/**
 * `DATABASE_URL` set (and not empty): that server; else PGlite under `dataDir`
 * ({@link defaultDataDir} when not given).
 *
 * @category layers
 */
export const layerFromConfig = (
  options?: { readonly dataDir?: string | undefined }
): Layer.Layer<Database, DatabaseError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const url = yield* Config.option(Config.Redacted("DATABASE_URL"))
    return Option.match(Option.filter(url, (u) => Redacted.value(u).trim() !== ""), {
      onNone: () => layerPglite(options?.dataDir ?? defaultDataDir),
      onSome: (u) => layerPostgres(u)
    })
  }))

/**
 * Whether an error or a cause says the database cannot be reached now (SqlStorageOutage).
 *
 * @category guards
 */
export { isUnavailable, isUnavailableCause } from "./SqlStorageOutage.ts"
