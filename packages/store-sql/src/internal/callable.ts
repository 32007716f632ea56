/**
 * The contact-level half of `ContactState.isCallable` in SQL, shared by has-callable-contacts
 * (SqlContactRepository), the dialer's claim (sql/claimDueContacts) and its next due time
 * (SqlDialerRepository.dialableCampaigns), so they cannot drift:
 * `TRYING`, no lease at all (an expired one is recovered first), attempts left, next attempt
 * due at `now`, and the number not on the organization's DNC list. The campaign-level half
 * (enabled, not deleted, dates and windows) is the caller's: the claim checks the flags and
 * is only given open campaigns; has-callable checks them in CampaignService.
 *
 * `status = 'TRYING'` and the no-lease test are written as the partial index
 * `contacts_callable` declares them, so both statements range-scan it by
 * `(campaign_id, next_attempt_at)`. Tests compare this fragment with `isCallable` on
 * generated contacts.
 */
import type { SqlClient, Statement } from "effect/sql"
import { noLease } from "./beingDialed.ts"

/**
 * True for a contact that waits for a call (alias `alias` of `contacts`): callable as soon as
 * its next attempt is due. `maxAttempts` is the campaign's: a parameter or a column of a
 * joined campaign.
 */
export const waitingContact = (
  sql: SqlClient.SqlClient,
  alias: string,
  maxAttempts: Statement.Fragment
): Statement.Fragment =>
  sql`${sql.literal(`${alias}.status = 'TRYING' AND ${noLease(alias)}`)}
    AND ${sql.literal(`${alias}.attempts`)} < ${maxAttempts}
    AND NOT EXISTS (
      SELECT 1 FROM dnc_entries dnc
      WHERE ${
    sql.literal(`dnc.organization_id = ${alias}.organization_id AND dnc.phone_number = ${alias}.phone_number`)
  }
    )`

/** True for a callable contact at `now`: waiting ({@link waitingContact}) and due. */
export const callableContact = (
  sql: SqlClient.SqlClient,
  alias: string,
  options: { readonly now: Date; readonly maxAttempts: Statement.Fragment }
): Statement.Fragment =>
  sql`${waitingContact(sql, alias, options.maxAttempts)}
    AND ${sql.literal(`${alias}.next_attempt_at`)} <= ${options.now}`
