/**
 * The admin API lists an organization's API keys (the console's admin pages): an index on the
 * keys' organization, in the order the list answers them, so the list reads only that
 * organization's keys however many the installation has.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX api_keys_by_organization ON api_keys (organization_id, created_at, id)`
})
