/**
 * The daemons on the database and where each call's media is served (docs/LISTEN.md, "Several
 * daemons"; the DaemonDirectory port): what a live listener on one daemon needs to reach a call
 * whose media another daemon (or worker process) serves.
 *
 * - `daemons`: one row per running daemon, by its id (the dialer's worker id: host, process id,
 *   a random suffix), with the URL other daemons reach it at (`VOICE_AGENT_INTERNAL_URL`) and
 *   when it was last heard from (a heartbeat). A daemon removes its row when it stops; rows of
 *   daemons that died are removed by the next daemon to start once they are a day old.
 * - `conversations.media_daemon_id`: the daemon whose media session serves the call (written
 *   when the session starts; null before, and for calls from before this migration). Not a
 *   foreign key: the row of a daemon goes away with it, the call keeps the id.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE daemons (
      id text PRIMARY KEY,
      internal_url text NOT NULL,
      started_at timestamptz NOT NULL,
      heard_at timestamptz NOT NULL
    )`
  yield* sql`ALTER TABLE conversations ADD COLUMN media_daemon_id text`
})
