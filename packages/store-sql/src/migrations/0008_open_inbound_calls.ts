/**
 * Inbound calls left open by a daemon that died while following them (issue 9): the sweep
 * that closes them looks for inbound conversations with no end, oldest first; this partial
 * index holds only those, so it stays as small as the calls in progress.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX conversations_open_inbound ON conversations (started_at)
    WHERE direction = 'inbound' AND ended_at IS NULL`
})
