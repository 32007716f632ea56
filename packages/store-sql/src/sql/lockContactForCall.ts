/**
 * Locks one contact for a step of its call (`startCall`, `endCall`, `release`) and reads what
 * ContactState needs to decide the step: the contact's dialing state, whether its number is on
 * the organization's DNC list now, whether its campaign may still dial (a pause, a delete or
 * the organization's dialing switched off between the claim and the dial stops the dial), and
 * its campaign's current retry policy and schedule.
 *
 * Locking: `FOR UPDATE OF c` on the contact row only (a primary-key lookup). The claim passes
 * a locked row over (`SKIP LOCKED`), recovery too, and a delete, the DNC sweep or another step
 * of the same call waits for this transaction, so the state read here is the state the
 * transaction's write replaces. The campaign row is read, not locked: a policy changed
 * meanwhile applies from the next transition (a new `retry_delay_s` from the next retry).
 * Measured (2-core box, Node 24 and PostgreSQL 15 on the same host, `scripts/bench-dialer.ts`): a
 * call's `startCall` and `endCall` together, one contact after another on one connection, 233
 * calls/s (two transactions of three and four statements).
 */
import { ContactDataSchema } from "@voice-agent/core/Contact"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { dialStateColumns, DialStateRow, policyColumns, PolicyRow } from "../internal/dialState.ts"

/**
 * The locked contact: where it belongs, its number, `data` (for its webhook events) and DNC
 * listing, its dialing state and its campaign's policy, and whether its organization has any
 * webhook endpoint (when not, the step writes no event and saves the statement that would).
 *
 * @category schemas
 */
export const LockedContact = Schema.Struct({
  campaignId: Schema.String,
  organizationId: Schema.String,
  phoneNumber: E164,
  data: ContactDataSchema,
  onDnc: Schema.Boolean,
  webhooks: Schema.Boolean,
  /** The campaign is enabled and not deleted, and its organization may dial out (now). */
  dialable: Schema.Boolean,
  ...DialStateRow.fields,
  ...PolicyRow.fields
})

/**
 * @category constructors
 */
export const lockContactForCall = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOneOption({
    Request: Schema.String,
    Result: LockedContact,
    execute: (contactId) =>
      sql`
        SELECT c.campaign_id::text AS "campaignId", c.organization_id::text AS "organizationId",
               c.phone_number AS "phoneNumber", c.data AS "data",
               EXISTS (
                 SELECT 1 FROM dnc_entries d WHERE d.organization_id = c.organization_id AND d.phone_number = c.phone_number
               ) AS "onDnc",
               EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.organization_id = c.organization_id) AS "webhooks",
               (k.enabled AND k.deleted_at IS NULL AND o.outbound_dialing_enabled AND NOT o.billing_issue) AS "dialable",
               ${sql.literal(dialStateColumns("c"))}, ${sql.literal(policyColumns("k"))}
        FROM contacts c JOIN campaigns k ON k.id = c.campaign_id JOIN organizations o ON o.id = c.organization_id
        WHERE c.id = ${contactId}::bigint
        FOR UPDATE OF c`
  })
