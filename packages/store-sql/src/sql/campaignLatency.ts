/**
 * A campaign's turn latency (docs/HTTP_API.md, `GET /v2/campaigns/{campaign_code}/latency`):
 * over every agent reply of the campaign's calls, the count, the nearest-rank p50 and p90 and
 * the maximum of voice-to-voice, and how many calls have a reply. One statement, one row back,
 * whatever the campaign's size; the campaign must be the organization's.
 *
 * The rule is core's (TurnLatency `voiceToVoiceMs` and `summarize`), written in SQL:
 * voice-to-voice is `greatest(0, agent_started_ms - user_stopped_ms)` of the stored whole ms,
 * and `percentile_disc(p)` answers the first value whose position in the sorted list reaches
 * the fraction p, the value at rank ceil(p × n): nearest-rank (PostgreSQL computes that rank in
 * float8 as core does in JavaScript). SqlConversationRepository's tests hold the two to the
 * same answers on random sets.
 *
 * Index: `turn_latencies_by_campaign` (migration 0018: campaign_id, with the call and the two
 * figures included), one index-only range scan of the campaign's replies. Through
 * `conversations` instead (its index by campaign, then each call's replies by the primary key),
 * the planner weighs the campaign's calls against the whole table and reads all of it. Measured
 * on PostgreSQL 15, 1,200,000 replies of 200,000 calls in 20 campaigns, recorded interleaved as
 * simultaneous calls record them, one campaign's 60,000 replies (medians of 9, load 4 on 2
 * cores): through `conversations` 155 to 175 ms (a parallel hash join over the whole table;
 * 120 to 137 ms when forced into the nested loop, fetching scattered rows), with this index 40
 * to 52 ms, most of it sorting the 60,000 figures (the scan itself about 14 ms).
 */
import { Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient } from "effect/sql"

/**
 * @category constructors
 */
export const campaignLatency = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ organizationId: Schema.String, campaignId: Schema.String }),
    Result: Schema.Struct({
      calls: Schema.Int,
      count: Schema.Int,
      p50Ms: Schema.NullOr(Schema.Int),
      p90Ms: Schema.NullOr(Schema.Int),
      maxMs: Schema.NullOr(Schema.Int)
    }),
    execute: ({ campaignId, organizationId }) =>
      sql`
        SELECT count(DISTINCT r.conversation_id)::int AS "calls",
               count(*)::int AS "count",
               percentile_disc(0.5) WITHIN GROUP (ORDER BY r.ms) AS "p50Ms",
               percentile_disc(0.9) WITHIN GROUP (ORDER BY r.ms) AS "p90Ms",
               max(r.ms) AS "maxMs"
        FROM (
          SELECT t.conversation_id, greatest(0, t.agent_started_ms - t.user_stopped_ms) AS ms
          FROM turn_latencies t
          JOIN campaigns c ON c.id = t.campaign_id
          WHERE t.campaign_id = ${campaignId} AND c.organization_id = ${organizationId}
        ) AS r`
  })
