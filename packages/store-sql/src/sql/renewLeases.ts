/**
 * Extends every live lease of one worker to `now + leaseMs`; answers how many it holds.
 *
 * Only live leases (`dialing_lease_expires_at > now`): an expired lease belongs to whoever
 * recovers it, and reviving it here could exceed a cap, since a claim may already have counted
 * its slot as free (claimDueContacts relies on claims being the only way a lease becomes live).
 * A worker whose lease expired finds it missing from the count and its call's end ignored
 * (the recovery closed it as `lost`).
 *
 * Locking: a plain UPDATE (row locks on the worker's contacts, read through
 * `contacts_leases_by_worker`); a row another transaction holds (a delete, the DNC sweep, a
 * step of the call) is waited for, which is never longer than that short transaction. No
 * organization lock is needed: extending a live lease changes no count.
 *
 * Measured (2-core box, Node 24 and PostgreSQL 15 on the same host, `scripts/bench-dialer.ts`):
 * 1,000 renewals/s of a worker holding 100 live leases (100,000 leases extended per second),
 * against one renewal per worker every 10 s.
 */
import { Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { beingDialed } from "../internal/beingDialed.ts"

/**
 * @category constructors
 */
export const renewLeases = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ worker: Schema.String, now: Schema.Date, expiresAt: Schema.Date }),
    Result: Schema.Struct({ count: Schema.Int }),
    execute: ({ expiresAt, now, worker }) =>
      sql`
        WITH renewed AS (
          UPDATE contacts SET dialing_lease_expires_at = ${expiresAt}
          WHERE dialing_worker = ${worker} AND ${beingDialed(sql, now)}
          RETURNING 1
        )
        SELECT count(*)::int AS "count" FROM renewed`
  })
