/**
 * Listen tickets (docs/LISTEN.md): one-use, 60-second
 * credentials for one call's live-listen WebSocket, for browsers, which cannot send the bearer
 * key on an upgrade.
 *
 * Forward-only and frozen once merged.
 *
 * - `ticket_hash`: lowercase hex SHA-256 of the ticket (the plaintext is never stored), the key
 *   every check and use goes by. One use is a conditional `DELETE ... RETURNING`: of two
 *   upgrades with one ticket, on any daemons, exactly one deletes the row.
 * - `call_id`: the call the ticket opens (the organization is the call's). The rows go with
 *   their conversation.
 * - `expires_at`: refused from then on; expired rows are deleted when tickets are issued,
 *   through `listen_tickets_by_expiry`, so the table holds about a minute of tickets.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE listen_tickets (
      ticket_hash text PRIMARY KEY,
      call_id text NOT NULL REFERENCES conversations (call_id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX listen_tickets_by_expiry ON listen_tickets (expires_at)`
  yield* sql`CREATE INDEX listen_tickets_by_call ON listen_tickets (call_id)`
})
