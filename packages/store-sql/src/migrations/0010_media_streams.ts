/**
 * Which media stream a call has (SECURITY.md, "Media streams"): the first stream to present a
 * call's token claims the call with an id of its own, so a second stream of that call (a
 * replayed token, a carrier's duplicate) is refused on any daemon, before anything of it is set
 * up; the same claim made again (its answer lost to a dropped connection) still holds. Null
 * for calls whose stream never started, and for calls from before this migration.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE conversations ADD COLUMN stream_id uuid`
})
