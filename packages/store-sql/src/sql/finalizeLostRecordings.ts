/**
 * Finalizes the database recordings (SqlRecordingStore's tables) of calls recovered as lost:
 * each call's channels get one length, `final_samples` (migration 0012): the longest of its
 * channels as stored, at least `atLeastSamples`, and never less than a length finalized before
 * (so running it again, from any daemon, changes nothing). Reads then serve every channel at
 * that length, padded with silence where a channel stopped short. Answers the length of each
 * call that has a recording here; calls without one are left out.
 *
 * One statement for the batch: a channel's stored length is one backward probe of the chunks'
 * primary key (as SqlRecordingStore reads it), and the rows updated are the calls' own
 * `recordings` rows (at most two a call), locked for the statement.
 */
import type { LostRecording } from "@voice-agent/core/ports/RecordingStore"
import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/**
 * @category constructors
 */
export const finalizeLostRecordings = (sql: SqlClient.SqlClient) =>
(
  calls: ReadonlyArray<LostRecording>
): Effect.Effect<ReadonlyMap<string, number>, SqlError.SqlError> => {
  if (calls.length === 0) return Effect.succeed(new Map())
  const callIds = calls.map((call) => call.callId)
  const atLeast = calls.map((call) => Math.max(0, Math.floor(call.atLeastSamples)))
  return sql<{ readonly callId: string; readonly samples: bigint }>`
    WITH lost AS (
      SELECT l.call_id, max(l.at_least) AS at_least
      FROM unnest(${callIds}::text[], ${atLeast}::int8[]) AS l(call_id, at_least)
      GROUP BY l.call_id
    ),
    stored AS (
      SELECT r.call_id, greatest(coalesce(r.final_samples, 0), coalesce((
               SELECT c.first_sample + octet_length(c.samples) / 2
               FROM recording_chunks c
               WHERE c.call_id = r.call_id AND c.channel = r.channel
               ORDER BY c.first_sample DESC
               LIMIT 1
             ), 0)) AS samples
      FROM recordings r JOIN lost l ON l.call_id = r.call_id
    ),
    target AS (
      SELECT s.call_id, greatest(max(s.samples), max(l.at_least)) AS samples
      FROM stored s JOIN lost l ON l.call_id = s.call_id
      GROUP BY s.call_id
    )
    UPDATE recordings r SET final_samples = t.samples
    FROM target t
    WHERE r.call_id = t.call_id
    RETURNING r.call_id AS "callId", r.final_samples AS "samples"`.pipe(
    Effect.map((rows) => new Map(rows.map((row) => [row.callId, Number(row.samples)] as const)))
  )
}
