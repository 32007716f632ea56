/**
 * Call recordings in the database (issue 8), for `SqlRecordingStore`: any daemon sharing the
 * database serves any recording.
 *
 * Forward-only and frozen once merged.
 *
 * - `recordings`: one row per call and channel whose writer was opened, written before any
 *   audio. It tells a channel opened with no audio yet (an empty WAV) from one never opened
 *   (404), and its primary key refuses a second writer for the same channel. `call_id` is our
 *   call id (conversations.call_id) with no foreign key, as for call_events: the store knows
 *   calls by id only.
 * - `recording_chunks`: the audio, 16-bit little-endian PCM exactly as it appears in the WAV
 *   data chunk, in chunks of a few seconds appended while the call runs. The key's last
 *   column is the chunk's first sample (not a sequence number), so a byte range finds its
 *   first chunk by one backward probe of the primary key (`first_sample <= s ORDER BY
 *   first_sample DESC LIMIT 1`) and the rest by a forward range scan, and a channel's length
 *   is its last chunk's `first_sample` plus its length, another single probe. Chunks of one
 *   channel are contiguous: the writer computes `first_sample` as the sum of the lengths
 *   before it. `samples` keeps the default storage (TOAST, pglz): a chunk of silence, common
 *   in a channel while the other side talks, shrinks to almost nothing, and a chunk that
 *   starts with speech is stored as is (pglz gives up on input that does not compress within
 *   its first kilobyte), so trying costs little.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE recordings (
      call_id text NOT NULL,
      channel text NOT NULL CHECK (channel IN ('agent', 'remote')),
      PRIMARY KEY (call_id, channel)
    )`
  yield* sql`
    CREATE TABLE recording_chunks (
      call_id text NOT NULL,
      channel text NOT NULL,
      first_sample bigint NOT NULL CHECK (first_sample >= 0),
      samples bytea NOT NULL CHECK (octet_length(samples) > 0 AND octet_length(samples) % 2 = 0),
      PRIMARY KEY (call_id, channel, first_sample),
      FOREIGN KEY (call_id, channel) REFERENCES recordings (call_id, channel) ON DELETE CASCADE
    )`
})
