/**
 * OrganizationRepository on SQL (table `organizations`).
 *
 * Owns: the organization row, its column list and its decoding, which the API key
 * repository reuses for authentication.
 *
 * @since 0.1.0
 */
import { OrganizationNotFound } from "@voice-agent/core/Errors"
import type { OrganizationSettings } from "@voice-agent/core/Organization"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { Statement } from "effect/sql"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * A decoded organization row.
 *
 * @category schemas
 */
export const OrganizationRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  outboundDialingEnabled: Schema.Boolean,
  smsRegistered: Schema.Boolean,
  billingIssue: Schema.Boolean,
  maxConcurrency: Schema.Int,
  createdAt: Schema.Date
})

/**
 * The column list of {@link OrganizationRow}, qualified by a table alias.
 *
 * @category constructors
 */
export const organizationColumns = (sql: SqlClient.SqlClient, alias: string): Statement.Fragment =>
  sql.literal(
    `${alias}.id::text AS "id", ${alias}.name AS "name", ` +
      `${alias}.outbound_dialing_enabled AS "outboundDialingEnabled", ${alias}.sms_registered AS "smsRegistered", ` +
      `${alias}.billing_issue AS "billingIssue", ${alias}.max_concurrency AS "maxConcurrency", ` +
      `${alias}.created_at AS "createdAt"`
  )

const settingColumns: { readonly [K in keyof OrganizationSettings]: string } = {
  name: "name",
  outboundDialingEnabled: "outbound_dialing_enabled",
  smsRegistered: "sms_registered",
  billingIssue: "billing_issue",
  maxConcurrency: "max_concurrency"
}

const Settings = Schema.Struct({
  name: Schema.String,
  outboundDialingEnabled: Schema.Boolean,
  smsRegistered: Schema.Boolean,
  billingIssue: Schema.Boolean,
  maxConcurrency: Schema.Int
})

const SettingsPatch = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  outboundDialingEnabled: Schema.optionalKey(Schema.Boolean),
  smsRegistered: Schema.optionalKey(Schema.Boolean),
  billingIssue: Schema.optionalKey(Schema.Boolean),
  maxConcurrency: Schema.optionalKey(Schema.Int)
})

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = organizationColumns(sql, "o")

  const insert = SqlSchema.findOne({
    Request: Settings,
    Result: OrganizationRow,
    execute: (s) =>
      sql`
        INSERT INTO organizations AS o (name, outbound_dialing_enabled, sms_registered, billing_issue, max_concurrency)
        VALUES (${s.name}, ${s.outboundDialingEnabled}, ${s.smsRegistered}, ${s.billingIssue}, ${s.maxConcurrency})
        RETURNING ${columns}`
  })

  const findById = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: OrganizationRow,
    execute: (id) => sql`SELECT ${columns} FROM organizations o WHERE o.id = ${id}`
  })

  const updateById = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: Schema.String, patch: SettingsPatch }),
    Result: OrganizationRow,
    execute: ({ id, patch }) => {
      const sets = Object.entries(patch).flatMap(([key, value]) =>
        value === undefined ? [] : [sql`${sql(settingColumns[key as keyof OrganizationSettings])} = ${value}`]
      )
      return sql`UPDATE organizations AS o SET ${sql.csv(sets)} WHERE o.id = ${id} RETURNING ${columns}`
    }
  })

  const listAll = SqlSchema.findAll({
    Request: Schema.Void,
    Result: OrganizationRow,
    execute: () => sql`SELECT ${columns} FROM organizations o ORDER BY o.created_at, o.id`
  })

  const get = Effect.fn("OrganizationRepository.get")(function*(id: string) {
    const found = isUuid(id) ? yield* findById(id) : Option.none()
    return yield* Option.match(found, {
      onNone: () => Effect.fail(new OrganizationNotFound({ organizationId: id })),
      onSome: Effect.succeed
    })
  }, orDieInfrastructure)

  return OrganizationRepository.of({
    create: Effect.fn("OrganizationRepository.create")(
      (settings: OrganizationSettings) => insert(settings),
      orDieInfrastructure
    ),
    update: Effect.fn("OrganizationRepository.update")(function*(id: string, patch: Partial<OrganizationSettings>) {
      if (Object.values(patch).every((value) => value === undefined)) return yield* get(id)
      const updated = isUuid(id) ? yield* updateById({ id, patch }) : Option.none()
      return yield* Option.match(updated, {
        onNone: () => Effect.fail(new OrganizationNotFound({ organizationId: id })),
        onSome: Effect.succeed
      })
    }, orDieInfrastructure),
    get,
    list: listAll(undefined).pipe(Effect.withSpan("OrganizationRepository.list"), orDieInfrastructure),
    count: sql<{ readonly count: number }>`SELECT count(*)::int AS "count" FROM organizations`.pipe(
      Effect.map((rows) => rows[0]?.count ?? 0),
      Effect.withSpan("OrganizationRepository.count"),
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(OrganizationRepository, make)
