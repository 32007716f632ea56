/**
 * The event webhook backlog of the whole database, for the daemon's metrics: how many deliveries
 * are pending and when the oldest of them was made. One statement over the pending deliveries
 * (the partial index `webhook_deliveries_due` holds only them).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * @category models
 */
export interface Backlog {
  readonly pending: number
  /** When the oldest pending delivery was made (ms since the epoch); `null` when none is. */
  readonly oldestCreatedAt: number | null
}

/**
 * @category constructors
 */
export const backlog = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly pending: string | number; readonly oldest: Date | string | null }>`
    SELECT count(*) AS pending, min(created_at) AS oldest
    FROM webhook_deliveries
    WHERE status = 'pending'`
  const row = rows[0]
  return {
    pending: Number(row?.pending ?? 0),
    oldestCreatedAt: row?.oldest == null ? null : new Date(row.oldest).getTime()
  } satisfies Backlog
})
