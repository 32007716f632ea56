/**
 * The dialer (issue 7): the call a lease carries, the round-robin counter of origin numbers,
 * the carriers' call events, and the indexes of the dialer's statements.
 *
 * Forward-only and frozen once merged. Event kinds are spelled out here on purpose (core's
 * `CallEvent` tags at the time of writing).
 *
 * Leases: a contact is held by a dialer through `dialing_worker` and
 * `dialing_lease_expires_at` (0001), and now `dialing_conversation_id`, set when its call is
 * handed to the carrier. The CHECKs say what the dialer always writes: worker and expiry
 * together, and a conversation only under a lease.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE contacts ADD COLUMN dialing_conversation_id uuid`
  yield* sql`
    ALTER TABLE contacts ADD CONSTRAINT contacts_lease_whole
    CHECK ((dialing_worker IS NULL) = (dialing_lease_expires_at IS NULL))`
  yield* sql`
    ALTER TABLE contacts ADD CONSTRAINT contacts_conversation_under_lease
    CHECK (dialing_conversation_id IS NULL OR dialing_lease_expires_at IS NOT NULL)`

  // How many calls the campaign has started: call n uses origin number n mod count.
  yield* sql`ALTER TABLE campaigns ADD COLUMN dials bigint NOT NULL DEFAULT 0`

  // One row per (call, kind): a repeated carrier report changes nothing. `call_id` is our
  // call id (conversations.call_id), with no foreign key: a carrier may report before or
  // without the conversation row, and a refused call's record is removed.
  yield* sql`
    CREATE TABLE call_events (
      call_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('Ringing', 'Answered', 'Ended')),
      at timestamptz NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      PRIMARY KEY (call_id, kind)
    )`

  // The claim's caps and the eligibility explainer count live leases per campaign and per
  // organization (`dialing_lease_expires_at > now`): ranges of these, over held contacts only.
  yield* sql`
    CREATE INDEX contacts_leases_by_campaign ON contacts (campaign_id, dialing_lease_expires_at)
    WHERE dialing_lease_expires_at IS NOT NULL`
  yield* sql`
    CREATE INDEX contacts_leases_by_organization ON contacts (organization_id, dialing_lease_expires_at)
    WHERE dialing_lease_expires_at IS NOT NULL`
  // Lease renewal: every contact one worker holds.
  yield* sql`
    CREATE INDEX contacts_leases_by_worker ON contacts (dialing_worker)
    WHERE dialing_worker IS NOT NULL`
})
