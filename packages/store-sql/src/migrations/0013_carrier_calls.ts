/**
 * What a carrier says of a call under its own id (docs/TWILIO.md, "Twilio's figures"): the
 * carrier's call id (Twilio's `CallSid`), which matches status callbacks that do not carry our
 * `call_id` (a number's console status callback, incoming calls included), and the carrier's
 * duration of the call (Twilio's `CallDuration`), which `duration_sec` takes whether it is
 * reported before or after the call ends. Both null until the carrier tells them; the index
 * holds only calls that have a carrier id.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE conversations ADD COLUMN carrier_call_id text, ADD COLUMN carrier_duration_sec integer`
  yield* sql`
    CREATE INDEX conversations_by_carrier_call ON conversations (carrier_call_id)
    WHERE carrier_call_id IS NOT NULL`
})
