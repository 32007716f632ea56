/**
 * How calls whose daemon died end (docs/DIALER.md, "Lost calls"): what was recorded of each is
 * kept, and its end agrees with it. Used by every statement that closes such calls as
 * `bot-failure` (closeLostConversations: expired leases and deleted contacts; the sweep of
 * abandoned inbound calls).
 *
 * - Answered: the conversation's answer when it has one (an inbound call's), else the carrier's
 *   `Answered` event (`call_events`: a campaign call's answer is written to the conversation
 *   only when the call ends, which a dead daemon never did); else, when something was
 *   recorded, the call's start.
 * - Recorded part: the longest of its recordings (finalized here: the database's by
 *   finalizeLostRecordings, those kept elsewhere by the caller's `finalizeRecordings`) and at
 *   least up to its last transcript turn's offset, so that every turn lies within it. Each
 *   channel is finalized at that length, silence filling a channel that stopped short.
 * - `duration_sec`: the carrier's own figure when it reported one (Twilio's `CallDuration`,
 *   docs/TWILIO.md: the call went on at the carrier after the daemon died); otherwise the
 *   recorded part in whole seconds rounded up (0 for a call never answered), so the recordings
 *   are never longer than the duration and never more than a second shorter.
 *
 * Locking: the conversations' rows (`FOR NO KEY UPDATE`, those still open only), so two
 * closers never finalize one call with different evidence; then the rows of their recordings.
 */
import type { FinalizeLost } from "@voice-agent/core/ports/RecordingStore"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { conversationColumns } from "../internal/webhookEvents.ts"
import { finalizeLostRecordings } from "./finalizeLostRecordings.ts"

const samplesPerMs = Wav.defaultFormat.sampleRate / 1000

/**
 * How one lost call ends.
 *
 * @category models
 */
export interface LostCallEnd {
  readonly id: string
  readonly answeredAt: Date | null
  readonly durationSec: number
}

/**
 * Locks the open conversations among `conversationIds`, finalizes their recordings and
 * answers how each ends (those already ended are left out).
 *
 * @category constructors
 */
export const lostCallEnds = (sql: SqlClient.SqlClient) => {
  const evidence = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: Schema.Struct({
      id: Schema.String,
      callId: Schema.String,
      startedAt: Schema.Date,
      answeredAt: Schema.NullOr(Schema.Date),
      lastTurnMs: Schema.NullOr(Schema.Int),
      carrierDurationSec: Schema.NullOr(Schema.Int)
    }),
    execute: (ids) =>
      sql`
        SELECT v.id::text AS "id", v.call_id AS "callId", v.started_at AS "startedAt",
               coalesce(v.answered_at, (
                 SELECT e.at FROM call_events e WHERE e.call_id = v.call_id AND e.kind = 'Answered'
               )) AS "answeredAt",
               (SELECT max(t.offset_ms) FROM transcript_turns t WHERE t.conversation_id = v.id) AS "lastTurnMs",
               v.carrier_duration_sec AS "carrierDurationSec"
        FROM conversations v
        WHERE v.id = ANY(${ids}::uuid[]) AND v.ended_at IS NULL
        FOR NO KEY UPDATE OF v`
  })
  const finalizeHere = finalizeLostRecordings(sql)

  return (input: {
    readonly conversationIds: ReadonlyArray<string>
    readonly finalizeRecordings?: FinalizeLost | undefined
  }) =>
    Effect.gen(function*() {
      if (input.conversationIds.length === 0) return []
      const calls = yield* evidence(input.conversationIds)
      const turnsReach = (call: (typeof calls)[number]) => (call.lastTurnMs ?? 0) * samplesPerMs
      const lost = calls.map((call) => ({ callId: call.callId, atLeastSamples: turnsReach(call) }))
      const elsewhere = input.finalizeRecordings === undefined || lost.length === 0
        ? new Map<string, number>()
        : yield* input.finalizeRecordings(lost)
      const here = yield* finalizeHere(
        lost.map((call) => ({
          callId: call.callId,
          atLeastSamples: Math.max(call.atLeastSamples, elsewhere.get(call.callId) ?? 0)
        }))
      )
      return calls.map((call): LostCallEnd => {
        const samples = Math.max(turnsReach(call), elsewhere.get(call.callId) ?? 0, here.get(call.callId) ?? 0)
        const answeredAt = call.answeredAt ?? (samples > 0 || call.lastTurnMs !== null ? call.startedAt : null)
        return {
          id: call.id,
          answeredAt,
          durationSec: answeredAt === null
            ? 0
            : call.carrierDurationSec ?? Math.ceil(samples / (samplesPerMs * 1000))
        }
      })
    })
}

/**
 * The statement that closes calls as `bot-failure` at `now` with their `ends`, returning
 * their rows (SqlConversationRepository's `ConversationRow` columns). Only open conversations
 * change.
 *
 * @category constructors
 */
export const closeLostStatement = (sql: SqlClient.SqlClient, ends: ReadonlyArray<LostCallEnd>, now: Date) =>
  sql`
    UPDATE conversations v SET
      ended_at = ${now},
      termination_reason = 'bot-failure',
      answered_at = nullif(e.answer, '')::timestamptz,
      duration_sec = e.seconds
    FROM unnest(
      ${ends.map((end) => end.id)}::uuid[],
      ${ends.map((end) => end.answeredAt?.toISOString() ?? "")}::text[],
      ${ends.map((end) => end.durationSec)}::int[]
    ) AS e(conversation_id, answer, seconds)
    WHERE v.id = e.conversation_id AND v.ended_at IS NULL
    RETURNING ${sql.literal(conversationColumns)}`
