/**
 * Where the daemon keeps call recordings: WAV files under `<data-dir>/recordings`
 * (recordings-fs), whichever database holds the records. With `--data-dir :memory:` they go
 * to a fresh temporary directory that is removed at shutdown, so that nothing is kept.
 *
 * @since 0.1.0
 */
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import * as Database from "@voice-agent/store-sql/Database"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-recordings-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * @category layers
 */
export const layer = (dataDir: string): Layer.Layer<RecordingStore> =>
  dataDir === Database.memory
    ? Layer.unwrap(Effect.map(temporaryDirectory, (dir) => FileRecordingStore.layer(dir)))
    : FileRecordingStore.layer(path.join(dataDir, "recordings"))
