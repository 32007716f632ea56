/**
 * A campaign's turn latency (docs/HTTP_API.md, `GET /v2/campaigns/{campaign_code}/latency`,
 * sql/campaignLatency): each reply's row carries its call's campaign (a copy of
 * `conversations.campaign_id`, which never changes once the call is stored; null for calls
 * outside a campaign), and a partial index by campaign holds the figures the summary reads, so
 * it is one range scan of the campaign's replies, whatever the rest of the table holds. Rows
 * stored before this migration get their call's campaign here.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE turn_latencies ADD COLUMN campaign_id uuid`
  yield* sql`
    UPDATE turn_latencies t SET campaign_id = c.campaign_id
    FROM conversations c
    WHERE c.id = t.conversation_id AND c.campaign_id IS NOT NULL`
  yield* sql`
    CREATE INDEX turn_latencies_by_campaign ON turn_latencies (campaign_id)
    INCLUDE (conversation_id, user_stopped_ms, agent_started_ms)
    WHERE campaign_id IS NOT NULL`
})
