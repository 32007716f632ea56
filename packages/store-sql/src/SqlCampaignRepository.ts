/**
 * CampaignRepository on SQL (table `campaigns`).
 *
 * Owns: campaign codes (`gcmp-` + 20 lowercase hex digits, 80 random bits), soft deletion
 * (`deleted_at`; a deleted campaign is invisible here and its name is free again, through the
 * partial unique index `campaigns_live_name_unique`), and the per-status contact counts.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { CallingWindow } from "@voice-agent/core/CallingWindow"
import type { CampaignPatch, CampaignStatusCounts, NewCampaign } from "@voice-agent/core/Campaign"
import { CampaignNameTaken, CampaignNotFound } from "@voice-agent/core/Errors"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import { isStorableText } from "./internal/ids.ts"
import { isUniqueViolation, orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * A fresh public campaign code.
 *
 * @category constructors
 */
export const generateCampaignCode = (): string => `gcmp-${randomBytes(10).toString("hex")}`

const campaignFields = {
  name: Schema.String,
  originPhoneNumbers: Schema.Array(E164),
  startDate: Schema.String,
  endDate: Schema.NullOr(Schema.String),
  callingWindows: Schema.Array(CallingWindow),
  maxAttempts: Schema.Int,
  retryDelayS: Schema.Int,
  maxConcurrency: Schema.Int,
  timeZone: Schema.String,
  description: Schema.NullOr(Schema.String)
}

const CampaignRow = Schema.Struct({
  id: Schema.String,
  code: Schema.String,
  organizationId: Schema.String,
  ...campaignFields,
  enabled: Schema.Boolean,
  createdAt: Schema.Date
})

const NewCampaignRow = Schema.Struct({ organizationId: Schema.String, code: Schema.String, ...campaignFields })

const PatchRow = Schema.Struct({
  organizationId: Schema.String,
  id: Schema.String,
  name: Schema.optionalKey(campaignFields.name),
  originPhoneNumbers: Schema.optionalKey(campaignFields.originPhoneNumbers),
  startDate: Schema.optionalKey(campaignFields.startDate),
  endDate: Schema.optionalKey(campaignFields.endDate),
  callingWindows: Schema.optionalKey(campaignFields.callingWindows),
  maxAttempts: Schema.optionalKey(campaignFields.maxAttempts),
  retryDelayS: Schema.optionalKey(campaignFields.retryDelayS),
  maxConcurrency: Schema.optionalKey(campaignFields.maxConcurrency),
  timeZone: Schema.optionalKey(campaignFields.timeZone),
  description: Schema.optionalKey(campaignFields.description),
  enabled: Schema.optionalKey(Schema.Boolean)
})

const OrganizationAndId = Schema.Struct({ organizationId: Schema.String, id: Schema.String })

const nameTaken = isUniqueViolation("campaigns_live_name_unique")

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const columns = sql.literal(
    `id::text AS "id", code AS "code", organization_id::text AS "organizationId", name AS "name", ` +
      `origin_phone_numbers AS "originPhoneNumbers", start_date::text AS "startDate", end_date::text AS "endDate", ` +
      `calling_windows AS "callingWindows", max_attempts AS "maxAttempts", retry_delay_s AS "retryDelayS", ` +
      `max_concurrency AS "maxConcurrency", timezone AS "timeZone", description AS "description", ` +
      `enabled AS "enabled", created_at AS "createdAt"`
  )

  const insert = SqlSchema.findOne({
    Request: NewCampaignRow,
    Result: CampaignRow,
    execute: (c) =>
      sql`
        INSERT INTO campaigns (
          code, organization_id, name, origin_phone_numbers, start_date, end_date, calling_windows,
          max_attempts, retry_delay_s, max_concurrency, timezone, description
        ) VALUES (
          ${c.code}, ${c.organizationId}, ${c.name}, ${c.originPhoneNumbers}::text[], ${c.startDate}::date,
          ${c.endDate}::date, ${sql.json(c.callingWindows)}, ${c.maxAttempts}, ${c.retryDelayS},
          ${c.maxConcurrency}, ${c.timeZone}, ${c.description}
        )
        RETURNING ${columns}`
  })

  const listLive = SqlSchema.findAll({
    Request: Schema.String,
    Result: CampaignRow,
    execute: (organizationId) =>
      sql`
        SELECT ${columns} FROM campaigns
        WHERE organization_id = ${organizationId} AND deleted_at IS NULL
        ORDER BY created_at, id`
  })

  const findLiveByCode = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, code: Schema.String }),
    Result: CampaignRow,
    execute: ({ code, organizationId }) =>
      sql`
        SELECT ${columns} FROM campaigns
        WHERE code = ${code} AND organization_id = ${organizationId} AND deleted_at IS NULL`
  })

  const findLiveById = SqlSchema.findOneOption({
    Request: OrganizationAndId,
    Result: CampaignRow,
    execute: ({ id, organizationId }) =>
      sql`
        SELECT ${columns} FROM campaigns
        WHERE id = ${id} AND organization_id = ${organizationId} AND deleted_at IS NULL`
  })

  const assignments = (p: typeof PatchRow.Encoded): Array<Statement.Fragment> => {
    const sets: Array<Statement.Fragment> = []
    if (p.name !== undefined) sets.push(sql`name = ${p.name}`)
    if (p.originPhoneNumbers !== undefined) sets.push(sql`origin_phone_numbers = ${p.originPhoneNumbers}::text[]`)
    if (p.startDate !== undefined) sets.push(sql`start_date = ${p.startDate}::date`)
    if (p.endDate !== undefined) sets.push(sql`end_date = ${p.endDate}::date`)
    if (p.callingWindows !== undefined) sets.push(sql`calling_windows = ${sql.json(p.callingWindows)}`)
    if (p.maxAttempts !== undefined) sets.push(sql`max_attempts = ${p.maxAttempts}`)
    if (p.retryDelayS !== undefined) sets.push(sql`retry_delay_s = ${p.retryDelayS}`)
    if (p.maxConcurrency !== undefined) sets.push(sql`max_concurrency = ${p.maxConcurrency}`)
    if (p.timeZone !== undefined) sets.push(sql`timezone = ${p.timeZone}`)
    if (p.description !== undefined) sets.push(sql`description = ${p.description}`)
    if (p.enabled !== undefined) sets.push(sql`enabled = ${p.enabled}`)
    return sets
  }

  const updateLive = SqlSchema.findOneOption({
    Request: PatchRow,
    Result: CampaignRow,
    execute: (p) =>
      sql`
        UPDATE campaigns SET ${sql.csv(assignments(p))}
        WHERE id = ${p.id} AND organization_id = ${p.organizationId} AND deleted_at IS NULL
        RETURNING ${columns}`
  })

  const deleteLive = SqlSchema.findOneOption({
    Request: OrganizationAndId,
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ id, organizationId }) =>
      sql`
        UPDATE campaigns SET deleted_at = now()
        WHERE id = ${id} AND organization_id = ${organizationId} AND deleted_at IS NULL
        RETURNING id::text AS "id"`
  })

  const countByStatus = SqlSchema.findAll({
    Request: Schema.String,
    Result: Schema.Struct({ status: Schema.String, count: Schema.Int }),
    execute: (campaignId) =>
      sql`
        SELECT status AS "status", count(*)::int AS "count" FROM contacts
        WHERE campaign_id = ${campaignId}
        GROUP BY status`
  })

  const findById = Effect.fn("CampaignRepository.findById")(
    (organizationId: string, id: string) =>
      isUuid(organizationId) && isUuid(id) ? findLiveById({ organizationId, id }) : Effect.succeedNone,
    orDieInfrastructure
  )

  return CampaignRepository.of({
    create: Effect.fn("CampaignRepository.create")(
      (organizationId: string, campaign: NewCampaign) =>
        insert({ ...campaign, organizationId, code: generateCampaignCode() }).pipe(
          Effect.catchIf(nameTaken, () => Effect.fail(new CampaignNameTaken({ name: campaign.name })))
        ),
      orDieInfrastructure
    ),
    list: Effect.fn("CampaignRepository.list")(
      (organizationId: string) => isUuid(organizationId) ? listLive(organizationId) : Effect.succeed([]),
      orDieInfrastructure
    ),
    findByCode: Effect.fn("CampaignRepository.findByCode")(
      (organizationId: string, code: string) =>
        isUuid(organizationId) && isStorableText(code) ? findLiveByCode({ organizationId, code }) : Effect.succeedNone,
      orDieInfrastructure
    ),
    findById,
    update: Effect.fn("CampaignRepository.update")(
      function*(organizationId: string, id: string, patch: CampaignPatch) {
        const valid = isUuid(organizationId) && isUuid(id)
        const changes = Object.values(patch).some((value) => value !== undefined)
        const updated = !valid
          ? Option.none()
          : changes
          ? yield* updateLive({ ...patch, organizationId, id }).pipe(
            Effect.catchIf(nameTaken, () => Effect.fail(new CampaignNameTaken({ name: patch.name ?? "" })))
          )
          : yield* findById(organizationId, id)
        if (Option.isNone(updated)) return yield* new CampaignNotFound({ campaignRef: id })
        return updated.value
      },
      orDieInfrastructure
    ),
    softDelete: Effect.fn("CampaignRepository.softDelete")(
      function*(organizationId: string, id: string) {
        const deleted = isUuid(organizationId) && isUuid(id) ? yield* deleteLive({ organizationId, id }) : Option.none()
        if (Option.isNone(deleted)) return yield* new CampaignNotFound({ campaignRef: id })
      },
      orDieInfrastructure
    ),
    statusCounts: Effect.fn("CampaignRepository.statusCounts")(
      function*(campaignId: string) {
        const counts: { -readonly [K in keyof CampaignStatusCounts]: number } = {
          TRYING: 0,
          COMPLETED: 0,
          PARTIALLY_COMPLETED: 0,
          FAILED: 0
        }
        const rows = isUuid(campaignId) ? yield* countByStatus(campaignId) : []
        for (const row of rows) {
          if (row.status in counts) counts[row.status as keyof CampaignStatusCounts] = row.count
        }
        return counts
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(CampaignRepository, make)
