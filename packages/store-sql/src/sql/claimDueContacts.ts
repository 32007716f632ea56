/**
 * The dialer's claim: up to `limit` callable contacts of the given campaigns, oldest due first,
 * each leased to `worker` until `now + leaseMs`, never more than the room left under the
 * campaign's `max_concurrency` nor under its organization's, counting the live leases of every
 * daemon on the database (docs/DIALER.md, "Caps across daemons").
 *
 * A short transaction of two statements:
 *
 * 1. `lockOrganizations` locks the rows of the campaigns' organizations, in id order
 *    (`FOR NO KEY UPDATE`).
 * 2. `claimDue` counts live leases (`dialing_lease_expires_at > now`) per campaign and per
 *    organization, picks per campaign at most its room of callable contacts
 *    (`FOR UPDATE SKIP LOCKED`), keeps per organization at most its room of those, oldest due
 *    first, then at most `limit`, and writes their leases.
 *
 * Why no cap can be exceeded, however many daemons claim at once: only a claim makes a lease
 * live (renewal extends live leases only, see renewLeases), and every claim of an organization
 * first takes that organization's row lock, held until commit. Claims of one organization are
 * therefore serialized across all connections and daemons. Under READ COMMITTED each statement
 * takes its snapshot when it starts, so statement 2, which starts after the lock is granted,
 * sees every lease committed by the claims before it and counts them; it then adds at most the
 * room it computed. (In one statement the snapshot would be taken before waiting for the lock,
 * and two claimers could both count the same free slot.) Everything else only ends leases
 * (end of call, release, recovery, delete), which can only make a count too high, never too
 * low. The campaign cap holds by the same lock, since a campaign has one organization. Lock
 * order (organizations by id, then contacts that are skipped rather than waited for) rules out
 * deadlocks between claimers.
 *
 * Lock strength: `FOR NO KEY UPDATE` conflicts with itself, which is all the serialization
 * needs, and not with the `FOR KEY SHARE` that inserts referencing the organization take
 * (conversations of starting calls, campaigns, numbers), so a claim never waits for a call
 * being started nor blocks one. The transaction never spans `placeCall`: on PGlite (one
 * connection) it holds the HTTP API for its own few milliseconds only.
 *
 * Contacts: the per-campaign pick is a range scan of `contacts_callable` in `next_attempt_at`
 * order that stops at the campaign's room. Its ORDER BY is that index's order and nothing more:
 * with an `id` tie-breaker (an upload gives all its contacts one `next_attempt_at`) the
 * planner sorted every due contact of the campaign instead (5.8 ms instead of 0.8 ms for one
 * claim among 10,000 due contacts); equal times come out in index (insertion) order.
 * `SKIP LOCKED` passes over a contact whose delete, DNC sweep or call step holds it (such a
 * contact is not callable or soon will not be). Live leases are counted on
 * `contacts_leases_by_campaign` / `_by_organization`, which hold only leased contacts.
 *
 * Measured (2-core box, Node 24 and PostgreSQL 15 on the same host, `scripts/bench-dialer.ts`,
 * 10,000 due contacts per campaign): 4 claimers on connections of their own, each claiming 1
 * contact and releasing it per round: 334 claims/s when all claim in one organization (serialized
 * by its row lock), 475 claims/s in 4 organizations; 1 claimer taking 10 per claim: 2,400
 * contacts/s (240 claims/s). PGlite, 1 claimer, claim and release: 209 claims/s. A dial loop claims
 * a few times a second at most.
 */
import type { PgClient } from "@effect/sql-pg"
import { ContactDataSchema } from "@voice-agent/core/Contact"
import { E164 } from "@voice-agent/core/PhoneNumber"
import type { ClaimedContact } from "@voice-agent/core/ports/DialerRepository"
import { Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { beingDialed } from "../internal/beingDialed.ts"
import { callableContact } from "../internal/callable.ts"

const Claim = Schema.Struct({
  worker: Schema.String,
  campaignIds: Schema.Array(Schema.String),
  now: Schema.Date,
  expiresAt: Schema.Date,
  limit: Schema.Int
})

const Claimed = Schema.Struct({
  contactId: Schema.String,
  campaignId: Schema.String,
  organizationId: Schema.String,
  phoneNumber: E164,
  data: ContactDataSchema
})

/**
 * Claims in one transaction (see the module header). Campaigns must be well-formed ids.
 *
 * @category constructors
 */
export const claimDueContacts = (sql: PgClient.PgClient) => {
  const lockOrganizations = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (campaignIds) =>
      sql`
        SELECT o.id::text AS "id" FROM organizations o
        WHERE o.id IN (SELECT k.organization_id FROM campaigns k WHERE k.id = ANY(${campaignIds}::uuid[]))
        ORDER BY o.id
        FOR NO KEY UPDATE`
  })

  const claimDue = SqlSchema.findAll({
    Request: Claim,
    Result: Claimed,
    execute: ({ campaignIds, expiresAt, limit, now, worker }) =>
      sql`
        WITH campaign_room AS (
          SELECT k.id, k.organization_id, k.max_attempts,
                 k.max_concurrency - (
                   SELECT count(*) FROM contacts l WHERE l.campaign_id = k.id AND ${beingDialed(sql, now, "l")}
                 ) AS room
          FROM campaigns k JOIN organizations o ON o.id = k.organization_id
          WHERE k.id = ANY(${campaignIds}::uuid[])
            AND k.enabled AND k.deleted_at IS NULL
            AND o.outbound_dialing_enabled AND NOT o.billing_issue
        ),
        organization_room AS (
          SELECT o.id,
                 o.max_concurrency - (
                   SELECT count(*) FROM contacts l WHERE l.organization_id = o.id AND ${beingDialed(sql, now, "l")}
                 ) AS room
          FROM organizations o
          WHERE o.id IN (SELECT organization_id FROM campaign_room)
        ),
        candidates AS (
          SELECT c.id, c.organization_id, c.next_attempt_at
          FROM campaign_room k
          CROSS JOIN LATERAL (
            SELECT c.id, c.organization_id, c.next_attempt_at FROM contacts c
            WHERE c.campaign_id = k.id
              AND ${callableContact(sql, "c", { now, maxAttempts: sql`k.max_attempts` })}
            ORDER BY c.next_attempt_at
            LIMIT greatest(0, least(k.room, ${limit}))
            FOR UPDATE OF c SKIP LOCKED
          ) c
        ),
        ranked AS (
          SELECT cand.id, cand.next_attempt_at,
                 row_number() OVER (PARTITION BY cand.organization_id ORDER BY cand.next_attempt_at, cand.id) AS rank,
                 o.room
          FROM candidates cand JOIN organization_room o ON o.id = cand.organization_id
        ),
        chosen AS (
          SELECT id FROM ranked WHERE rank <= room
          ORDER BY next_attempt_at, id
          LIMIT ${limit}
        ),
        claimed AS (
          UPDATE contacts c SET dialing_worker = ${worker}, dialing_lease_expires_at = ${expiresAt}
          FROM chosen WHERE c.id = chosen.id
          RETURNING c.id, c.campaign_id, c.organization_id, c.phone_number, c.data, c.next_attempt_at
        )
        SELECT id::text AS "contactId", campaign_id::text AS "campaignId", organization_id::text AS "organizationId",
               phone_number AS "phoneNumber", data AS "data"
        FROM claimed
        ORDER BY next_attempt_at, id`
  })

  return (input: typeof Claim.Type) =>
    input.campaignIds.length === 0 || input.limit <= 0
      ? Effect.succeed([])
      : sql.withTransaction(Effect.gen(function*() {
        const organizations = yield* lockOrganizations(input.campaignIds)
        if (organizations.length === 0) return []
        const claimed: ReadonlyArray<ClaimedContact> = yield* claimDue(input)
        return claimed
      }))
}
