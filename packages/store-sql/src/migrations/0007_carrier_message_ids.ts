/**
 * The carrier's id of each SMS (issue 9: Twilio's `MessageSid`), so that a webhook delivered
 * twice stores one inbound message, and a delivery status callback finds the outbound message
 * it reports on. Messages of the admin API's simulated inbound endpoint have none.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE messages ADD COLUMN carrier_message_id text`
  yield* sql`
    CREATE UNIQUE INDEX messages_carrier_message_id ON messages (carrier_message_id)
    WHERE carrier_message_id IS NOT NULL`
})
