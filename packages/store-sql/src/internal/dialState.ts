/**
 * A contact's dialing state and its campaign's retry policy as the dialer's statements read
 * and write them: the columns (with explicit aliases), their row schemas, and the mapping to
 * and from core's `ContactDialState` and `RetryPolicy`, so each transition is computed by
 * ContactState on exactly what the row holds.
 */
import { CallingWindow } from "@voice-agent/core/CallingWindow"
import type { ContactDialState, RetryPolicy } from "@voice-agent/core/ContactState"
import { ContactStatus } from "@voice-agent/core/ContactState"
import { fromMillis } from "@voice-agent/core/Time"
import { Schema } from "effect"

/** The columns of {@link DialStateRow} of `contacts` aliased `alias` (SQL text). */
export const dialStateColumns = (alias: string): string =>
  `${alias}.status AS "status", ${alias}.attempts AS "attempts", ${alias}.next_attempt_at AS "nextAttemptAt", ` +
  `${alias}.last_attempted_at AS "lastAttemptedAt", ${alias}.dialing_worker AS "leaseWorker", ` +
  `${alias}.dialing_lease_expires_at AS "leaseExpiresAt", ` +
  `${alias}.dialing_conversation_id::text AS "leaseConversationId"`

/** A contact's dialing columns. */
export const DialStateRow = Schema.Struct({
  status: ContactStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.Date),
  lastAttemptedAt: Schema.NullOr(Schema.Date),
  leaseWorker: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Schema.Date),
  leaseConversationId: Schema.NullOr(Schema.String)
})

const millis = (date: Date | null): number | null => date === null ? null : date.getTime()

/** The row as ContactState's value (instants in epoch milliseconds). */
export const toDialState = (row: typeof DialStateRow.Type): ContactDialState => ({
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: millis(row.nextAttemptAt),
  lastAttemptedAt: millis(row.lastAttemptedAt),
  lease: row.leaseWorker === null || row.leaseExpiresAt === null
    ? null
    : { worker: row.leaseWorker, expiresAt: row.leaseExpiresAt.getTime(), conversationId: row.leaseConversationId }
})

/** What `sql/writeContactStates` writes for one contact, in `jsonb_to_recordset` column names. */
export const StateWrite = Schema.Struct({
  id: Schema.String,
  status: ContactStatus,
  attempts: Schema.Int,
  next_attempt_at: Schema.NullOr(Schema.Date),
  last_attempted_at: Schema.NullOr(Schema.Date),
  dialing_worker: Schema.NullOr(Schema.String),
  dialing_lease_expires_at: Schema.NullOr(Schema.Date),
  dialing_conversation_id: Schema.NullOr(Schema.String)
})

const date = (ms: number | null): Date | null => ms === null ? null : fromMillis(ms)

/** The row that stores `state` for the contact `id`. */
export const toStateWrite = (id: string, state: ContactDialState): typeof StateWrite.Type => ({
  id,
  status: state.status,
  attempts: state.attempts,
  next_attempt_at: date(state.nextAttemptAt),
  last_attempted_at: date(state.lastAttemptedAt),
  dialing_worker: state.lease?.worker ?? null,
  dialing_lease_expires_at: state.lease === null ? null : fromMillis(state.lease.expiresAt),
  dialing_conversation_id: state.lease?.conversationId ?? null
})

/** The columns of {@link PolicyRow} of `campaigns` aliased `alias` (SQL text). */
export const policyColumns = (alias: string): string =>
  `${alias}.max_attempts AS "maxAttempts", ${alias}.retry_delay_s AS "retryDelayS", ` +
  `${alias}.calling_windows AS "callingWindows", ${alias}.timezone AS "timeZone", ` +
  `${alias}.start_date::text AS "startDate", ${alias}.end_date::text AS "endDate"`

/** A campaign's retry settings and schedule as stored now. */
export const PolicyRow = Schema.Struct({
  maxAttempts: Schema.Int,
  retryDelayS: Schema.Int,
  callingWindows: Schema.Array(CallingWindow),
  timeZone: Schema.String,
  startDate: Schema.String,
  endDate: Schema.NullOr(Schema.String)
})

/** The row as ContactState's retry policy. */
export const toPolicy = (row: typeof PolicyRow.Type): RetryPolicy => ({
  maxAttempts: row.maxAttempts,
  retryDelayS: row.retryDelayS,
  schedule: { windows: row.callingWindows, timeZone: row.timeZone, startDate: row.startDate, endDate: row.endDate }
})
