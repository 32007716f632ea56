/**
 * The initial schema: organizations and their keys, numbers and Do-Not-Call list; campaigns,
 * contacts, conversations with transcript turns, and messages.
 *
 * Forward-only and frozen once merged: later changes are new migrations. Values that core
 * also names (contact statuses, directions, speakers) are spelled out here on purpose, so
 * this file keeps meaning what it meant when it ran.
 *
 * Index policy: one index per list query and filter of the documented API, each named after the
 * query it serves, and nothing speculative, since every index is paid for on the 10,000-row upload.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      outbound_dialing_enabled boolean NOT NULL,
      sms_registered boolean NOT NULL,
      billing_issue boolean NOT NULL,
      max_concurrency integer NOT NULL CHECK (max_concurrency >= 1),
      created_at timestamptz NOT NULL DEFAULT now()
    )`

  // key_hash: SHA-256 hex of the key. Keys are 32 random bytes, so a fast hash is enough (no
  // dictionary to attack) and lets authentication be one lookup on this unique index.
  yield* sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`

  // A number has at most one owner across all organizations (inbound calls and messages are
  // routed by it), hence the global primary key. The second index serves the organization's
  // number list and the ownership checks (`= ANY(...)`).
  yield* sql`
    CREATE TABLE phone_numbers (
      phone_number text PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      sms_enabled boolean NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX phone_numbers_by_organization ON phone_numbers (organization_id, phone_number)`

  yield* sql`
    CREATE TABLE dnc_entries (
      organization_id uuid NOT NULL REFERENCES organizations (id),
      phone_number text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, phone_number)
    )`

  // Campaigns are soft-deleted: rows stay (conversations and contacts point at them), and the
  // name is unique among the organization's live campaigns only, so a deleted campaign's name
  // can be reused.
  yield* sql`
    CREATE TABLE campaigns (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      code text NOT NULL UNIQUE,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      origin_phone_numbers text[] NOT NULL,
      start_date date NOT NULL,
      end_date date,
      calling_windows jsonb NOT NULL,
      max_attempts integer NOT NULL CHECK (max_attempts >= 1),
      retry_delay_s integer NOT NULL CHECK (retry_delay_s >= 0),
      max_concurrency integer NOT NULL CHECK (max_concurrency >= 1),
      timezone text NOT NULL,
      description text,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  yield* sql`
    CREATE UNIQUE INDEX campaigns_live_name_unique ON campaigns (organization_id, name)
    WHERE deleted_at IS NULL`
  // GET /v2/campaigns: the organization's live campaigns, oldest first.
  yield* sql`
    CREATE INDEX campaigns_live_by_organization ON campaigns (organization_id, created_at)
    WHERE deleted_at IS NULL`

  // Contacts. `organization_id` is copied from the campaign at upload (it never changes), so
  // the organization-wide list and the DNC sweep need no join; it has no foreign key of its
  // own because the campaign's already implies it and every key check is paid per row on
  // the 10,000-row upload. A contact is being dialed iff it holds a lease
  // (`dialing_lease_expires_at` not null); the dialer sets and clears it.
  // A TRYING contact always has a next attempt time, which the callable index relies on.
  yield* sql`
    CREATE TABLE contacts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      campaign_id uuid NOT NULL REFERENCES campaigns (id),
      organization_id uuid NOT NULL,
      phone_number text NOT NULL,
      status text NOT NULL CHECK (status IN ('TRYING', 'COMPLETED', 'PARTIALLY_COMPLETED', 'FAILED')),
      data jsonb NOT NULL DEFAULT '{}',
      outreach_modalities text[] NOT NULL DEFAULT '{}',
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_attempted_at timestamptz,
      dialing_worker text,
      dialing_lease_expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (status <> 'TRYING' OR next_attempt_at IS NOT NULL)
    )`
  // GET /v2/contacts, newest first (keyset on id), with or without a campaign filter.
  yield* sql`CREATE INDEX contacts_by_organization ON contacts (organization_id, id DESC)`
  yield* sql`CREATE INDEX contacts_by_campaign ON contacts (campaign_id, id DESC)`
  // Upload duplicate check and delete by phone number, within one campaign.
  yield* sql`CREATE INDEX contacts_by_campaign_number ON contacts (campaign_id, phone_number)`
  // The DNC sweep: the organization's TRYING contacts with a given number.
  yield* sql`
    CREATE INDEX contacts_trying_by_number ON contacts (organization_id, phone_number)
    WHERE status = 'TRYING'`
  // GET /v2/contacts attempted_after / attempted_before. Partial: those filters only match
  // attempted contacts, and an upload (all never attempted) then pays nothing for it.
  yield* sql`
    CREATE INDEX contacts_by_last_attempt ON contacts (organization_id, last_attempted_at)
    WHERE last_attempted_at IS NOT NULL`
  // GET /v2/contacts `data` exact-match filters (`data @> ...`); jsonb_path_ops is smaller
  // and faster than the default opclass and supports exactly the containment operator.
  yield* sql`CREATE INDEX contacts_data ON contacts USING gin (data jsonb_path_ops)`
  // has-callable-contacts and the dialer's claim: due, idle TRYING contacts of a campaign.
  yield* sql`
    CREATE INDEX contacts_callable ON contacts (campaign_id, next_attempt_at)
    WHERE status = 'TRYING' AND dialing_lease_expires_at IS NULL`
  // The dialer's recovery of leases whose worker died.
  yield* sql`
    CREATE INDEX contacts_dialing_lease ON contacts (dialing_lease_expires_at)
    WHERE dialing_lease_expires_at IS NOT NULL`

  // Conversations (calls). `contact_id` has no foreign key: contacts can be deleted while
  // the call record stays. Timestamps come from the application as millisecond instants, so
  // the (started_at, id) keyset cursor round-trips exactly through a JavaScript Date.
  yield* sql`
    CREATE TABLE conversations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      call_id text NOT NULL UNIQUE,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      campaign_id uuid REFERENCES campaigns (id),
      contact_id bigint,
      direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
      from_number text NOT NULL,
      to_number text NOT NULL,
      started_at timestamptz NOT NULL,
      answered_at timestamptz,
      ended_at timestamptz,
      duration_sec integer,
      termination_reason text
    )`
  // GET /v1/conversations, newest first, keyset on (started_at, id); one variant per
  // equality filter so each filtered list is still a single index range scan. `direction`
  // and the date range filter within these.
  yield* sql`
    CREATE INDEX conversations_by_organization ON conversations (organization_id, started_at DESC, id DESC)`
  yield* sql`
    CREATE INDEX conversations_by_from_number
    ON conversations (organization_id, from_number, started_at DESC, id DESC)`
  yield* sql`
    CREATE INDEX conversations_by_to_number
    ON conversations (organization_id, to_number, started_at DESC, id DESC)`
  yield* sql`
    CREATE INDEX conversations_by_campaign
    ON conversations (organization_id, campaign_id, started_at DESC, id DESC)`

  yield* sql`
    CREATE TABLE transcript_turns (
      conversation_id uuid NOT NULL REFERENCES conversations (id),
      seq integer NOT NULL,
      speaker text NOT NULL CHECK (speaker IN ('HUMAN', 'AGENT')),
      text text NOT NULL,
      offset_ms integer NOT NULL,
      PRIMARY KEY (conversation_id, seq)
    )`

  yield* sql`
    CREATE TABLE messages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
      modality text NOT NULL,
      from_number text NOT NULL,
      to_number text NOT NULL,
      content text NOT NULL,
      received_at timestamptz NOT NULL,
      status text NOT NULL
    )`
  // GET /v1/messages: inbound messages to one number, oldest first. Partial on inbound, so
  // outbound traffic (to arbitrary numbers) does not grow it.
  yield* sql`
    CREATE INDEX messages_inbound_by_number ON messages (organization_id, to_number, received_at, id)
    WHERE direction = 'inbound'`
})
