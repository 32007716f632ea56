/**
 * Call events gain the agent's verdict (`AgentEnded`): the media session that ran a call's
 * agent records how the agent ended the call, for the dialer that holds the call.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE call_events DROP CONSTRAINT call_events_kind_check`
  yield* sql`
    ALTER TABLE call_events ADD CONSTRAINT call_events_kind_check
    CHECK (kind IN ('Ringing', 'Answered', 'Ended', 'AgentEnded'))`
})
