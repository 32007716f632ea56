/**
 * Direct calls (outbound, no campaign: `POST /v1/create-outbound`) left open by a daemon that
 * died while following them: the sweep that closes them (engine DirectCalls) looks for such
 * conversations with no end, oldest first; this partial index holds only those, as 0008 does
 * for inbound calls.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX conversations_open_direct ON conversations (started_at)
    WHERE direction = 'outbound' AND campaign_id IS NULL AND ended_at IS NULL`
})
