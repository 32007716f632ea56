/**
 * Stores the dialing state ContactState computed for each of a batch of contacts: status,
 * attempts, next and last attempt times, and the lease (worker, expiry, conversation), whole.
 * Every per-contact transition of the dialer ends here (`startCall`, `endCall`, `release`,
 * recovery), so the SQL never decides a state itself.
 *
 * One statement per batch: the rows travel as one jsonb array and are joined to `contacts` by
 * id (as the upload does). Locking: the caller has locked these rows (`FOR UPDATE`) in its
 * transaction and computed the states from what it read there, so nothing changed them in
 * between. Measured as part of a call's steps: see lockContactForCall (233 calls/s) and
 * recoverExpiredLeases (8,300 contacts/s, batches of 100).
 */
import type { PgClient } from "@effect/sql-pg"
import { Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { StateWrite } from "../internal/dialState.ts"

/**
 * @category constructors
 */
export const writeContactStates = (sql: PgClient.PgClient) =>
  SqlSchema.void({
    Request: Schema.Array(StateWrite),
    execute: (rows) =>
      sql`
        UPDATE contacts c SET
          status = s.status,
          attempts = s.attempts,
          next_attempt_at = s.next_attempt_at,
          last_attempted_at = s.last_attempted_at,
          dialing_worker = s.dialing_worker,
          dialing_lease_expires_at = s.dialing_lease_expires_at,
          dialing_conversation_id = s.dialing_conversation_id
        FROM jsonb_to_recordset(${sql.json(rows)}) AS s(
          id bigint, status text, attempts int, next_attempt_at timestamptz, last_attempted_at timestamptz,
          dialing_worker text, dialing_lease_expires_at timestamptz, dialing_conversation_id uuid
        )
        WHERE c.id = s.id`
  })
