/**
 * The one definition of "being dialed" for every statement that asks (listing, deletes, the
 * DNC sweep, has-callable-contacts): the contact holds a dialing lease. Each is SQL text for
 * `sql.literal` or a column list. The partial index `contacts_callable` (migration 0001) is
 * declared on the negation, so that text stays `dialing_lease_expires_at IS NULL` for the
 * planner to match it.
 */

const column = (alias: string | undefined) =>
  alias === undefined ? "dialing_lease_expires_at" : `${alias}.dialing_lease_expires_at`

/** True for a contact that a dialer holds (its row has a lease). */
export const beingDialed = (alias?: string): string => `${column(alias)} IS NOT NULL`

/** True for a contact that no dialer holds. */
export const notBeingDialed = (alias?: string): string => `${column(alias)} IS NULL`
