/**
 * DncRepository on SQL (table `dnc_entries`), including the sweep that fails an
 * organization's `TRYING` contacts when their number is listed (docs/DECISIONS.md, "Dialing"): the
 * `ContactState.onDoNotCall` transition over many rows at once, in one statement, tested
 * against that function. Each contact it fails gets its `contact.status_changed` webhook event,
 * written in the same transaction (sql/enqueueWebhookEvents).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { ContactDataSchema } from "@voice-agent/core/Contact"
import type { E164 as E164Type } from "@voice-agent/core/PhoneNumber"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { nowDate } from "@voice-agent/core/Time"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import { statusChanged } from "./internal/webhookEvents.ts"
import { enqueueWebhookEvents } from "./sql/enqueueWebhookEvents.ts"

const Numbers = Schema.Struct({ organizationId: Schema.String, phoneNumbers: Schema.Array(Schema.String) })
const Count = Schema.Struct({ count: Schema.Int })

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const enqueue = enqueueWebhookEvents(sql)

  const insertNew = SqlSchema.findOne({
    Request: Numbers,
    Result: Count,
    execute: ({ organizationId, phoneNumbers }) =>
      sql`
        WITH added AS (
          INSERT INTO dnc_entries (organization_id, phone_number)
          SELECT ${organizationId}, n.phone_number FROM unnest(${phoneNumbers}::text[]) AS n(phone_number)
          ON CONFLICT DO NOTHING
          RETURNING 1
        )
        SELECT count(*)::int AS "count" FROM added`
  })

  // ContactState.onDoNotCall: every TRYING contact with the number becomes FAILED with no
  // next attempt, leased ones too; their lease stays until the dialer ends or releases the
  // call (its DNC re-check before the dial, in the statement that marks the dial, then finds
  // the contact FAILED and places nothing). A claim racing with this UPDATE either locked the
  // row first (this UPDATE waits, then re-reads it: still TRYING, so it fails too) or finds it
  // locked and skips it.
  const failTryingContacts = SqlSchema.findAll({
    Request: Numbers,
    Result: Schema.Struct({
      id: Schema.String,
      campaignId: Schema.String,
      organizationId: Schema.String,
      phoneNumber: Schema.String,
      data: ContactDataSchema
    }),
    execute: ({ organizationId, phoneNumbers }) =>
      sql`
        UPDATE contacts SET status = 'FAILED', next_attempt_at = NULL
        WHERE organization_id = ${organizationId}
          AND status = 'TRYING'
          AND phone_number = ANY(${phoneNumbers}::text[])
        RETURNING id::text AS "id", campaign_id::text AS "campaignId", organization_id::text AS "organizationId",
                  phone_number AS "phoneNumber", data AS "data"`
  })

  const deleteEntry = SqlSchema.findOne({
    Request: Schema.Struct({ organizationId: Schema.String, phoneNumber: Schema.String }),
    Result: Count,
    execute: ({ organizationId, phoneNumber }) =>
      sql`
        WITH removed AS (
          DELETE FROM dnc_entries WHERE organization_id = ${organizationId} AND phone_number = ${phoneNumber}
          RETURNING 1
        )
        SELECT count(*)::int AS "count" FROM removed`
  })

  // A range scan of the primary key (organization_id, phone_number).
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ organizationId: Schema.String, after: Schema.NullOr(Schema.String), limit: Schema.Int }),
    Result: Schema.Struct({ phoneNumber: E164, createdAt: Schema.Date }),
    execute: ({ after, limit, organizationId }) =>
      sql`
        SELECT phone_number AS "phoneNumber", created_at AS "createdAt" FROM dnc_entries
        WHERE organization_id = ${organizationId}
          ${after === null ? sql`` : sql`AND phone_number > ${after}`}
        ORDER BY phone_number
        LIMIT ${limit + 1}`
  })

  const findListedAmong = SqlSchema.findAll({
    Request: Numbers,
    Result: Schema.Struct({ phoneNumber: E164 }),
    execute: ({ organizationId, phoneNumbers }) =>
      sql`
        SELECT phone_number AS "phoneNumber" FROM dnc_entries
        WHERE organization_id = ${organizationId} AND phone_number = ANY(${phoneNumbers}::text[])
        ORDER BY phone_number`
  })

  return DncRepository.of({
    add: Effect.fn("DncRepository.add")(
      function*(organizationId: string, phoneNumbers: ReadonlyArray<E164Type>) {
        if (phoneNumbers.length === 0) return { added: 0, contactsFailed: 0 }
        const request = { organizationId, phoneNumbers }
        return yield* sql.withTransaction(Effect.gen(function*() {
          const added = yield* insertNew(request)
          const failed = yield* failTryingContacts(request)
          yield* enqueue(failed.flatMap((contact) => statusChanged(contact, "TRYING", "FAILED")), yield* nowDate)
          return { added: added.count, contactsFailed: failed.length }
        }))
      },
      orDieInfrastructure
    ),
    remove: Effect.fn("DncRepository.remove")(
      (organizationId: string, phoneNumber: E164Type) =>
        isUuid(organizationId)
          ? Effect.map(deleteEntry({ organizationId, phoneNumber }), (r) => r.count)
          : Effect.succeed(0),
      orDieInfrastructure
    ),
    list: Effect.fn("DncRepository.list")(function*(query) {
      if (!isUuid(query.organizationId)) return { entries: [], hasMore: false }
      const rows = yield* page({ organizationId: query.organizationId, after: query.after ?? null, limit: query.limit })
      return { entries: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
    }, orDieInfrastructure),
    findListed: Effect.fn("DncRepository.findListed")(
      (organizationId: string, phoneNumbers: ReadonlyArray<E164Type>) =>
        isUuid(organizationId) && phoneNumbers.length > 0
          ? Effect.map(findListedAmong({ organizationId, phoneNumbers }), (rows) => rows.map((r) => r.phoneNumber))
          : Effect.succeed([]),
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(DncRepository, make)
