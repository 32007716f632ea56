/**
 * Agent definitions as data (docs/AGENTS.md): the definitions, which
 * campaign and which number each is attached to, and the field values collected in calls.
 *
 * Forward-only and frozen once merged.
 *
 * - `agents`: `id` is the public id (`agt-` + 20 hex digits), made by the application.
 *   `persona` and `task` are the request's JSON as validated (core/AgentDefinition). Deletion
 *   is soft (`deleted_at`), as for campaigns: deleted campaigns keep pointing at the definition
 *   that ran their calls, and the name is unique among the organization's live definitions
 *   only, so it can be reused.
 * - `campaigns.agent_id`, `phone_numbers.agent_id`: the definition that answers the campaign's
 *   calls, and the inbound calls to the number. A live definition is never deleted while a
 *   live campaign or a number points at it (the repository refuses; see SqlAgentRepository).
 * - `conversation_fields`: one value per field key per call, replaced when recorded again;
 *   `value` is the typed JSON value (string, number, or `{year, month, day}`). Its rows go with
 *   their conversation (the dialer deletes the record of a call the carrier refused).
 *
 * Index policy as in 0001: one per query. `GET /v2/agents` (newest first, keyset on
 * `(created_at, id)`) is a range scan of `agents_live_by_organization`; the delete's "still
 * attached?" check reads `campaigns_live_by_agent` and `phone_numbers_by_agent`, both partial
 * (only attached rows), so campaigns and numbers without an agent pay nothing for them. The call
 * runtime's lookup goes by `conversations.call_id`, `campaigns.id`, the `phone_numbers` key and
 * `agents.id`, all unique already. A conversation's fields are its primary key's prefix.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE agents (
      id text PRIMARY KEY CHECK (id ~ '^agt-[0-9a-f]{20}$'),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      persona jsonb NOT NULL,
      task jsonb NOT NULL,
      instructions text,
      language text,
      llm text,
      stt text,
      tts text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`
  yield* sql`
    CREATE UNIQUE INDEX agents_live_name_unique ON agents (organization_id, name)
    WHERE deleted_at IS NULL`
  yield* sql`
    CREATE INDEX agents_live_by_organization ON agents (organization_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL`

  yield* sql`ALTER TABLE campaigns ADD COLUMN agent_id text REFERENCES agents (id)`
  yield* sql`
    CREATE INDEX campaigns_live_by_agent ON campaigns (agent_id)
    WHERE agent_id IS NOT NULL AND deleted_at IS NULL`

  yield* sql`ALTER TABLE phone_numbers ADD COLUMN agent_id text REFERENCES agents (id)`
  yield* sql`CREATE INDEX phone_numbers_by_agent ON phone_numbers (agent_id) WHERE agent_id IS NOT NULL`

  yield* sql`
    CREATE TABLE conversation_fields (
      conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      key text NOT NULL,
      value jsonb NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (conversation_id, key)
    )`
})
