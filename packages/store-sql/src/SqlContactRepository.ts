/**
 * ContactRepository on SQL (table `contacts`): the all-or-nothing upload, the filtered
 * newest-first list, deletion that respects calls in flight, and the contact-level half of
 * the callable predicate.
 *
 * Owns: the contact row and its decoding (exported for the dialer's queries). Does not own
 * the dialer's claim and completion statements, nor the campaign-level callable conditions.
 *
 * Locking, in short: an upload locks its campaign row (`FOR NO KEY UPDATE`), so uploads to
 * one campaign run one after another and the second sees the first's numbers; deletions lock
 * the matching contact rows (`FOR UPDATE`), which the dialer's `SKIP LOCKED` claim passes
 * over and its per-contact statements wait for, so a contact cannot start dialing between the
 * busy check and the delete. A delete is refused only for a live lease (internal/beingDialed);
 * a contact whose lease expired is deleted, and its call's conversation closed with
 * `bot-failure`, as recovery would have done.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { NewContact } from "@voice-agent/core/Contact"
import { ContactDataSchema } from "@voice-agent/core/Contact"
import { ContactStatus } from "@voice-agent/core/ContactState"
import { ContactBusy, ContactNotFound, ContactsRejected } from "@voice-agent/core/Errors"
import type { RejectedEntry } from "@voice-agent/core/Errors"
import type { E164 as E164Type } from "@voice-agent/core/PhoneNumber"
import { E164 } from "@voice-agent/core/PhoneNumber"
import type { ContactQuery } from "@voice-agent/core/ports/ContactRepository"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { isSerialId } from "@voice-agent/core/SerialId"
import { fromMillis } from "@voice-agent/core/Time"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlClient, Statement } from "effect/sql"
import { beingDialed, holdsLease } from "./internal/beingDialed.ts"
import { callableContact } from "./internal/callable.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import { closeLostConversations } from "./sql/closeLostConversations.ts"

/**
 * A decoded contact row (the port's ContactRecord).
 *
 * @category schemas
 */
export const ContactRow = Schema.Struct({
  id: Schema.String,
  campaignId: Schema.String,
  organizationId: Schema.String,
  phoneNumber: E164,
  status: ContactStatus,
  data: ContactDataSchema,
  outreachModalities: Schema.Array(Schema.String),
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.Date),
  lastAttemptedAt: Schema.NullOr(Schema.Date),
  dialing: Schema.Boolean,
  createdAt: Schema.Date
})

/**
 * The column list of {@link ContactRow}, qualified by a table alias. `dialing` is true while
 * the contact holds a lease, live or expired (a list has no `now` to judge it by; an expired
 * lease is recovered within the dialer's safety poll).
 *
 * @category constructors
 */
export const contactColumns = (sql: SqlClient.SqlClient, alias: string): Statement.Fragment =>
  sql.literal(
    `${alias}.id::text AS "id", ${alias}.campaign_id::text AS "campaignId", ` +
      `${alias}.organization_id::text AS "organizationId", ${alias}.phone_number AS "phoneNumber", ` +
      `${alias}.status AS "status", ${alias}.data AS "data", ${alias}.outreach_modalities AS "outreachModalities", ` +
      `${alias}.attempts AS "attempts", ${alias}.next_attempt_at AS "nextAttemptAt", ` +
      `${alias}.last_attempted_at AS "lastAttemptedAt", ` +
      `${holdsLease(alias)} AS "dialing", ${alias}.created_at AS "createdAt"`
  )

const Campaign = Schema.Struct({ id: Schema.String, organizationId: Schema.String })
const Count = Schema.Struct({ count: Schema.Int })
const Conflict = Schema.Struct({
  phoneNumber: Schema.String,
  reason: Schema.Literals(["do_not_call", "duplicate"])
})
const Copy = Schema.Struct({ id: Schema.String, busy: Schema.Boolean, conversationId: Schema.NullOr(Schema.String) })

/**
 * Uploads of at least this many contacts refresh the planner's statistics of `contacts`.
 * Embedded PGlite runs no autovacuum, so without this its planner never learns a table's
 * size; on a server autovacuum catches up only after a minute or so. With stale statistics
 * the newest-first page of 50,000 fresh contacts took 23-30 ms (a bitmap scan and a sort of
 * all of them) instead of about 1 ms (the index in order, stopping at the limit). ANALYZE
 * samples at most 30,000 rows: tens of milliseconds on an idle machine, 250 ms and more
 * under load, so it runs after the upload has answered, in the background, one at a time (an
 * upload that lands while one runs gets one more after it).
 */
const analyzeAfter = 1_000

/** One rejection entry per occurrence of a conflicting number, in the numbers' order. */
const inRequestOrder = (
  phoneNumbers: ReadonlyArray<string>,
  conflicts: ReadonlyArray<typeof Conflict.Type>
): Array<RejectedEntry> => {
  const reasons = new Map(conflicts.map((c) => [c.phoneNumber, c.reason]))
  return phoneNumbers.flatMap((phoneNumber): Array<RejectedEntry> => {
    const reason = reasons.get(phoneNumber)
    return reason === undefined ? [] : [{ phone_number: phoneNumber, reason }]
  })
}

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const columns = contactColumns(sql, "c")
  const scope = yield* Effect.scope

  // The background refresh of the planner's statistics (see `analyzeAfter`).
  let analyzing = false
  let stale = false
  const refreshStatistics = Effect.suspend(() => {
    stale = true
    if (analyzing) return Effect.void
    analyzing = true
    const loop: Effect.Effect<void> = Effect.suspend(() => {
      if (!stale) {
        analyzing = false
        return Effect.void
      }
      stale = false
      return sql`ANALYZE contacts`.pipe(
        Effect.catchCause((cause) => Effect.logWarning("ANALYZE contacts failed", cause)),
        Effect.andThen(loop)
      )
    })
    return Effect.asVoid(
      Effect.forkIn(Effect.onInterrupt(loop, () => Effect.sync(() => void (analyzing = false))), scope)
    )
  })

  const lockCampaign = SqlSchema.findOneOption({
    Request: Campaign,
    Result: Schema.Struct({ id: Schema.String }),
    // NO KEY UPDATE, not UPDATE: it serializes uploads (it conflicts with itself) without
    // blocking inserts elsewhere that only take the foreign key's KEY SHARE lock on the
    // campaign (conversations of its calls).
    execute: ({ id, organizationId }) =>
      sql`
        SELECT id::text AS "id" FROM campaigns
        WHERE id = ${id} AND organization_id = ${organizationId}
        FOR NO KEY UPDATE`
  })

  // One statement for both checks, whatever the upload's size. A number both listed and
  // already present is reported as do_not_call.
  const findConflicts = SqlSchema.findAll({
    Request: Schema.Struct({
      campaign: Campaign,
      phoneNumbers: Schema.Array(Schema.String),
      allowDuplicates: Schema.Boolean
    }),
    Result: Conflict,
    execute: ({ allowDuplicates, campaign, phoneNumbers }) =>
      sql`
        SELECT n.phone_number AS "phoneNumber",
               CASE WHEN d.phone_number IS NOT NULL THEN 'do_not_call' ELSE 'duplicate' END AS "reason"
        FROM (SELECT DISTINCT u.phone_number FROM unnest(${phoneNumbers}::text[]) AS u(phone_number)) AS n
        LEFT JOIN dnc_entries d ON d.organization_id = ${campaign.organizationId} AND d.phone_number = n.phone_number
        WHERE d.phone_number IS NOT NULL OR ${
        allowDuplicates
          ? sql`FALSE`
          : sql`EXISTS (
              SELECT 1 FROM contacts c WHERE c.campaign_id = ${campaign.id} AND c.phone_number = n.phone_number
            )`
      }`
  })

  // All rows travel as one jsonb array parameter and are expanded server-side: one round
  // trip and one statement for 10,000 contacts. Ordinality keeps ids in upload order.
  // Measured for a whole 10,000-contact upload (2-core box, Node 24): 0.35-0.55 s on PGlite
  // once warm, 0.7-1.4 s for the first large upload after boot (V8 is still tiering up
  // PGlite's WASM; about 1.3 s of CPU), 0.25-0.45 s on PostgreSQL 15. Unnesting separate
  // arrays instead measured the same; the GIN index on `data` is about a quarter of it.
  const insertAll = SqlSchema.findOne({
    Request: Schema.Struct({
      campaign: Campaign,
      contacts: Schema.Array(Schema.Struct({
        phone_number: Schema.String,
        data: ContactDataSchema,
        outreach_modalities: Schema.Array(Schema.String)
      })),
      now: Schema.Date
    }),
    Result: Count,
    execute: ({ campaign, contacts, now }) =>
      sql`
        WITH inserted AS (
          INSERT INTO contacts (
            campaign_id, organization_id, phone_number, status, data, outreach_modalities, attempts, next_attempt_at
          )
          SELECT ${campaign.id}, ${campaign.organizationId}, x.phone_number, 'TRYING', x.data,
                 x.outreach_modalities, 0, ${now}
          FROM ROWS FROM (
                 jsonb_to_recordset(${
        sql.json(contacts)
      }) AS (phone_number text, data jsonb, outreach_modalities text[])
               ) WITH ORDINALITY AS x(phone_number, data, outreach_modalities, ord)
          ORDER BY x.ord
          RETURNING 1
        )
        SELECT count(*)::int AS "count" FROM inserted`
  })

  const listPage = SqlSchema.findAll({
    Request: Schema.Struct({
      organizationId: Schema.String,
      campaignId: Schema.optional(Schema.String),
      statuses: Schema.optional(Schema.Array(Schema.String)),
      data: Schema.optional(ContactDataSchema),
      attemptedAfter: Schema.optional(Schema.Date),
      attemptedBefore: Schema.optional(Schema.Date),
      afterId: Schema.optional(Schema.String),
      limit: Schema.Int
    }),
    Result: ContactRow,
    execute: (q) => {
      const filters: Array<Statement.Fragment> = [sql`c.organization_id = ${q.organizationId}`]
      if (q.campaignId !== undefined) filters.push(sql`c.campaign_id = ${q.campaignId}`)
      if (q.statuses !== undefined && q.statuses.length > 0) {
        filters.push(sql`c.status = ANY(${q.statuses}::text[])`)
      }
      if (q.data !== undefined) filters.push(sql`c.data @> ${sql.json(q.data)}`)
      if (q.attemptedAfter !== undefined) filters.push(sql`c.last_attempted_at >= ${q.attemptedAfter}`)
      if (q.attemptedBefore !== undefined) filters.push(sql`c.last_attempted_at <= ${q.attemptedBefore}`)
      if (q.afterId !== undefined) filters.push(sql`c.id < ${q.afterId}::bigint`)
      // Contacts of deleted campaigns are gone from the API's point of view, like the campaign.
      // NOT IN over the organization's few deleted campaigns is one hashed subplan, so the
      // page is always read newest first from contacts_by_organization and stops at the
      // limit. (EXISTS per row let the planner, on fresh statistics after a bulk upload, join
      // from campaigns and sort every contact: 23 ms instead of 0.3 ms for 50,000 contacts.)
      filters.push(sql`c.campaign_id NOT IN (
        SELECT k.id FROM campaigns k WHERE k.organization_id = ${q.organizationId} AND k.deleted_at IS NOT NULL
      )`)
      return sql`
        SELECT ${columns} FROM contacts c
        WHERE ${sql.and(filters)}
        ORDER BY c.id DESC
        LIMIT ${q.limit + 1}`
    }
  })

  const copyColumns = (now: Date) =>
    sql`id::text AS "id", coalesce(${beingDialed(sql, now)}, false) AS "busy",
        dialing_conversation_id::text AS "conversationId"`

  const lockCopiesByNumber = SqlSchema.findAll({
    Request: Schema.Struct({ campaignId: Schema.String, phoneNumber: Schema.String, now: Schema.Date }),
    Result: Copy,
    execute: ({ campaignId, now, phoneNumber }) =>
      sql`
        SELECT ${copyColumns(now)} FROM contacts
        WHERE campaign_id = ${campaignId} AND phone_number = ${phoneNumber}
        ORDER BY id
        FOR UPDATE`
  })

  const lockById = SqlSchema.findAll({
    Request: Schema.Struct({ campaignId: Schema.String, contactId: Schema.String, now: Schema.Date }),
    Result: Copy,
    execute: ({ campaignId, contactId, now }) =>
      sql`
        SELECT ${copyColumns(now)} FROM contacts
        WHERE id = ${contactId}::bigint AND campaign_id = ${campaignId}
        FOR UPDATE`
  })

  const closeConversations = closeLostConversations(sql)

  const deleteIds = SqlSchema.findOne({
    Request: Schema.Array(Schema.String),
    Result: Count,
    execute: (ids) =>
      sql`
        WITH deleted AS (DELETE FROM contacts WHERE id = ANY(${ids}::bigint[]) RETURNING 1)
        SELECT count(*)::int AS "count" FROM deleted`
  })

  // The earliest due callable contact, rather than EXISTS (...): PostgreSQL plans an EXISTS
  // for its first row and, with contacts clustered by campaign in the heap, picked a
  // sequential scan over the whole table (seen with 100k contacts in 20 campaigns). The
  // ORDER BY makes the `contacts_callable` index range scan the plan.
  const firstCallable = SqlSchema.findOneOption({
    Request: Schema.Struct({ campaignId: Schema.String, maxAttempts: Schema.Int, now: Schema.Date }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ campaignId, maxAttempts, now }) =>
      sql`
        SELECT c.id::text AS "id" FROM contacts c
        WHERE c.campaign_id = ${campaignId}
          AND ${callableContact(sql, "c", { now, maxAttempts: sql`${maxAttempts}` })}
        ORDER BY c.next_attempt_at
        LIMIT 1`
  })

  /**
   * Deletes the locked copies, or none when one is being dialed; closes the conversations
   * that copies with an expired lease were still carrying.
   */
  const deleteLocked = (copies: ReadonlyArray<typeof Copy.Type>, contactRef: string, now: Date) =>
    Effect.gen(function*() {
      if (copies.length === 0) return yield* new ContactNotFound({ contactRef })
      const busy = copies.filter((copy) => copy.busy).map((copy) => copy.id)
      if (busy.length > 0) return yield* new ContactBusy({ contactIds: busy })
      const conversationIds = copies.flatMap((copy) => copy.conversationId === null ? [] : [copy.conversationId])
      if (conversationIds.length > 0) yield* closeConversations({ conversationIds, now })
      const deleted = yield* deleteIds(copies.map((copy) => copy.id))
      return deleted.count
    })

  return ContactRepository.of({
    findConflicts: Effect.fn("ContactRepository.findConflicts")(function*(campaign, phoneNumbers, options) {
      if (phoneNumbers.length === 0 || !isUuid(campaign.id) || !isUuid(campaign.organizationId)) return []
      const conflicts = yield* findConflicts({ campaign, phoneNumbers, allowDuplicates: options.allowDuplicates }).pipe(
        orDieInfrastructure
      )
      return inRequestOrder(phoneNumbers, conflicts)
    }),
    upload: Effect.fn("ContactRepository.upload")(
      function*(
        campaign: { readonly id: string; readonly organizationId: string },
        contacts: ReadonlyArray<NewContact>,
        options: { readonly allowDuplicates: boolean; readonly now: Date }
      ) {
        if (contacts.length === 0) return { created: 0 }
        return yield* sql.withTransaction(Effect.gen(function*() {
          const locked = isUuid(campaign.id) && isUuid(campaign.organizationId)
            ? yield* lockCampaign(campaign)
            : yield* Effect.die(`Upload to a malformed campaign reference ${campaign.id}`)
          if (Option.isNone(locked)) {
            return yield* Effect.die(`Upload to campaign ${campaign.id}, which the organization does not have`)
          }
          const conflicts = yield* findConflicts({
            campaign,
            phoneNumbers: contacts.map((c) => c.phoneNumber),
            allowDuplicates: options.allowDuplicates
          })
          if (conflicts.length > 0) {
            return yield* new ContactsRejected({
              rejected: inRequestOrder(contacts.map((c) => c.phoneNumber), conflicts)
            })
          }
          const inserted = yield* insertAll({
            campaign,
            contacts: contacts.map((c) => ({
              phone_number: c.phoneNumber,
              data: c.data,
              outreach_modalities: c.outreachModalities
            })),
            now: options.now
          })
          return { created: inserted.count }
        })).pipe(Effect.tap(({ created }) => created >= analyzeAfter ? refreshStatistics : Effect.void))
      },
      orDieInfrastructure
    ),
    list: Effect.fn("ContactRepository.list")(
      function*(query: ContactQuery) {
        const wellFormed = isUuid(query.organizationId) &&
          (query.campaignId === undefined || isUuid(query.campaignId)) &&
          (query.afterId === undefined || isSerialId(query.afterId))
        if (!wellFormed) return { contacts: [], hasMore: false }
        const rows = yield* listPage(query)
        return { contacts: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
      },
      orDieInfrastructure
    ),
    deleteByPhoneNumber: Effect.fn("ContactRepository.deleteByPhoneNumber")(
      function*(campaignId: string, phoneNumber: E164Type, nowMs: number) {
        if (!isUuid(campaignId)) return yield* new ContactNotFound({ contactRef: phoneNumber })
        const now = fromMillis(nowMs)
        return yield* sql.withTransaction(
          Effect.flatMap(
            lockCopiesByNumber({ campaignId, phoneNumber, now }),
            (copies) => deleteLocked(copies, phoneNumber, now)
          )
        )
      },
      orDieInfrastructure
    ),
    deleteById: Effect.fn("ContactRepository.deleteById")(
      function*(campaignId: string, contactId: string, nowMs: number) {
        if (!isUuid(campaignId) || !isSerialId(contactId)) return yield* new ContactNotFound({ contactRef: contactId })
        const now = fromMillis(nowMs)
        yield* sql.withTransaction(
          Effect.flatMap(lockById({ campaignId, contactId, now }), (copies) => deleteLocked(copies, contactId, now))
        )
      },
      orDieInfrastructure
    ),
    hasCallable: Effect.fn("ContactRepository.hasCallable")(
      function*(campaignId: string, options: { readonly maxAttempts: number; readonly now: Date }) {
        if (!isUuid(campaignId)) return false
        return Option.isSome(yield* firstCallable({ campaignId, ...options }))
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(ContactRepository, make)
