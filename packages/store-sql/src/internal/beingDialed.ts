/**
 * The one definition of a dialing lease in SQL, as ContactState has it: a contact is *being
 * dialed* while its lease has not expired (`dialing_lease_expires_at > now`); an expired lease
 * blocks nothing and waits for recovery; a contact is callable only with *no lease at all*.
 * Every statement that asks uses these: deletes (409 only for a live lease), the caps of the
 * claim and the explainer's load (live leases), the callable condition (no lease), recovery
 * (expired leases). `now` is always a parameter from the application's Clock, never the
 * database's `now()` (docs/DIALER.md, "One clock").
 *
 * The partial indexes `contacts_callable` (0001) and `contacts_leases_*` (0003) are declared
 * on `dialing_lease_expires_at IS NULL` / `IS NOT NULL`, which these texts imply, so the
 * planner uses them.
 */
import type { SqlClient, Statement } from "effect/sql"

const column = (alias: string | undefined) =>
  alias === undefined ? "dialing_lease_expires_at" : `${alias}.dialing_lease_expires_at`

/** True for a contact with no lease, live or expired (SQL text for `sql.literal`). */
export const noLease = (alias?: string): string => `${column(alias)} IS NULL`

/** True for a contact with a lease, live or expired (SQL text for `sql.literal`). */
export const holdsLease = (alias?: string): string => `${column(alias)} IS NOT NULL`

/** True for a contact being dialed at `now`: its lease has not expired. */
export const beingDialed = (sql: SqlClient.SqlClient, now: Date, alias?: string): Statement.Fragment =>
  sql`${sql.literal(column(alias))} > ${now}`

/** True for a contact whose lease expired at `now`: any dialer may recover it. */
export const leaseExpired = (sql: SqlClient.SqlClient, now: Date, alias?: string): Statement.Fragment =>
  sql`${sql.literal(column(alias))} <= ${now}`
