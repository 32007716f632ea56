/**
 * The length of a lost call's recording (docs/MEDIA.md, "Lost calls"): when a call whose
 * daemon died is recovered, each of its channels is finalized at one length, the call's
 * recorded part (its longest channel, and at least as far as its transcript goes). A channel
 * that stopped short is served padded with silence up to it; audio stored past it (a writer
 * that outlived the recovery) is not served, so every channel, the duration and the transcript
 * agree. Null for a recording that ended normally: its length is its chunks'.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE recordings ADD COLUMN final_samples bigint CHECK (final_samples >= 0)`
})
