/**
 * The storage every command opens (docs/DAEMON.md): `DATABASE_URL` set, that PostgreSQL server;
 * otherwise the embedded PGlite under `--data-dir`. Migrations run when it opens. The choice
 * itself is store-sql's (`Database.layerFromConfig`); this module names it in one log line
 * and adds the repositories, with the writes of calls in progress waiting out a database that
 * is briefly out of reach (StorageOutages).
 *
 * @since 0.1.0
 */
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import * as StorageOutages from "./StorageOutages.ts"

/**
 * The `--data-dir` default.
 *
 * @category constructors
 */
export const defaultDataDir = Database.defaultDataDir

/** A PostgreSQL URL without its credentials, for the log. */
const describeUrl = (url: string): string => {
  const parsed = URL.parse(url)
  return parsed === null ? "a PostgreSQL server" : `PostgreSQL at ${parsed.host}${parsed.pathname}`
}

/**
 * Which storage `dataDir` and the environment select, in words.
 *
 * @category constructors
 */
export const describe = (dataDir: string) =>
  Effect.map(
    Config.option(Config.Redacted("DATABASE_URL")),
    (url) =>
      Option.match(Option.filter(url, (u) => Redacted.value(u).trim() !== ""), {
        onSome: (u) => describeUrl(Redacted.value(u)),
        onNone: () =>
          dataDir === Database.memory
            ? "embedded PostgreSQL (PGlite) in memory; nothing is kept"
            : `embedded PostgreSQL (PGlite) under ${dataDir}`
      })
  )

/**
 * The SQL client (migrated) and every repository; the writes of calls in progress wait for a
 * database that is out of reach for a while (StorageOutages).
 *
 * @category layers
 */
export const layer = (dataDir: string) =>
  StorageOutages.layer.pipe(
    Layer.provideMerge(SqlStorage.layer),
    Layer.provideMerge(Database.layerFromConfig({ dataDir }))
  )
