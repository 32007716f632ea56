/**
 * Where the daemon keeps call recordings, by `VOICE_AGENT_RECORDINGS`:
 *
 * - `fs` (the default): WAV files under `<data-dir>/recordings` (recordings-fs), whichever
 *   database holds the records. With `--data-dir :memory:` they go to a fresh temporary
 *   directory that is removed at shutdown, so that nothing is kept. Only the daemon that wrote
 *   a recording can serve it, unless the directory is shared.
 * - `database`: in the database the daemon stores everything else in (store-sql's
 *   `SqlRecordingStore`: chunks inserted as the call runs), so any daemon sharing that
 *   PostgreSQL serves any recording. On the embedded database it works too, but files are
 *   the lighter choice for a single process.
 *
 * Any other value stops the daemon at start with a sentence naming the variable, before a
 * call could be recorded nowhere.
 *
 * @since 0.1.0
 */
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlRecordingStore from "@voice-agent/store-sql/SqlRecordingStore"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-recordings-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * The recordings as files under `<dataDir>/recordings` (a temporary directory for `:memory:`).
 *
 * @category layers
 */
export const layerFiles = (dataDir: string): Layer.Layer<RecordingStore> =>
  dataDir === Database.memory
    ? Layer.unwrap(Effect.map(temporaryDirectory, (dir) => FileRecordingStore.layer(dir)))
    : FileRecordingStore.layer(path.join(dataDir, "recordings"))

/**
 * The store `VOICE_AGENT_RECORDINGS` names (`fs` unless set), over the daemon's database.
 *
 * @category layers
 */
export const layer = (dataDir: string): Layer.Layer<RecordingStore, Config.ConfigError, SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const name = (yield* Config.String("VOICE_AGENT_RECORDINGS").pipe(Config.withDefault("fs"))).trim().toLowerCase()
      if (name === "fs") return layerFiles(dataDir)
      if (name === "database") return SqlRecordingStore.layer()
      return yield* Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({
            message: `VOICE_AGENT_RECORDINGS must be fs or database, not ${JSON.stringify(name)}`
          })
        )
      )
    })
  )
