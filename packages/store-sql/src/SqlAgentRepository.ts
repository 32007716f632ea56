/**
 * AgentRepository on SQL (table `agents`, the `agent_id` columns of `campaigns` and
 * `phone_numbers`; migration 0009).
 *
 * Owns: agent ids (`agt-` + 20 lowercase hex digits, 80 random bits), soft deletion (a deleted
 * definition is invisible here and its name is free again, through the partial unique index
 * `agents_live_name_unique`), the newest-first keyset list on `(created_at, id)`, and the
 * serialization of attach against delete.
 *
 * Attach and delete of one definition are serialized on its row: an attach takes `FOR KEY
 * SHARE` on the definition before it points a campaign or number at it, a delete takes `FOR
 * UPDATE` before it looks for what still points at it. Whichever comes second waits for the
 * first to commit and then sees its result: a delete after an attach finds the attachment
 * (409), an attach after a delete finds no live definition (404). `KEY SHARE` rather than
 * `SHARE`, so an attach does not wait for a concurrent PATCH of the definition (a non-key
 * update), and the foreign key check of the attach's own UPDATE takes the same lock anyway.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { AgentDefinition, AgentPatch, NewAgentDefinition } from "@voice-agent/core/AgentDefinition"
import { AgentIdPrefix, isAgentId } from "@voice-agent/core/AgentDefinition"
import { Task } from "@voice-agent/core/AgentTask"
import { AgentInUse, AgentNameTaken, AgentNotFound } from "@voice-agent/core/Errors"
import { CampaignNotFound, PhoneNumberNotOwned } from "@voice-agent/core/Errors"
import type { AgentQuery } from "@voice-agent/core/ports/AgentRepository"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema, Struct } from "effect"
import { SqlSchema } from "effect/sql"
import type { Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import { isStorableText } from "./internal/ids.ts"
import { isUniqueViolation, orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * A fresh agent id.
 *
 * @category constructors
 */
export const generateAgentId = (): string => `${AgentIdPrefix}${randomBytes(10).toString("hex")}`

const PersonaRow = Schema.Struct({
  agent_name: Schema.NullOr(Schema.String),
  organization_name: Schema.NullOr(Schema.String),
  agent_purpose: Schema.NullOr(Schema.String),
  voice: Schema.NullOr(Schema.String)
})

const agentColumns = (alias: string) =>
  [
    `${alias}.id AS "id"`,
    `${alias}.organization_id::text AS "organizationId"`,
    `${alias}.name AS "name"`,
    `${alias}.persona AS "persona"`,
    `${alias}.task AS "task"`,
    `${alias}.instructions AS "instructions"`,
    `${alias}.language AS "language"`,
    `${alias}.llm AS "llm"`,
    `${alias}.stt AS "stt"`,
    `${alias}.tts AS "tts"`,
    `${alias}.created_at AS "createdAt"`,
    `${alias}.updated_at AS "updatedAt"`
  ].join(", ")

const definitionFields = {
  name: Schema.String,
  persona: PersonaRow,
  task: Task,
  instructions: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Schema.String),
  llm: Schema.NullOr(Schema.String),
  stt: Schema.NullOr(Schema.String),
  tts: Schema.NullOr(Schema.String)
}

const NewAgentRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  ...definitionFields,
  now: Schema.Date
})

const PatchRow = Schema.Struct({
  organizationId: Schema.String,
  agentId: Schema.String,
  now: Schema.Date,
  ...Struct.map(definitionFields, Schema.optionalKey)
})

const AgentRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  ...definitionFields,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
})

const OrganizationAndAgent = Schema.Struct({ organizationId: Schema.String, agentId: Schema.String })
const Id = Schema.Struct({ id: Schema.String })
const AgentRef = Schema.Struct({ agentId: Schema.NullOr(Schema.String) })

const nameTaken = isUniqueViolation("agents_live_name_unique")

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const columns = sql.literal(agentColumns("a"))

  const insert = SqlSchema.findOne({
    Request: NewAgentRow,
    Result: AgentRow,
    execute: (d) =>
      sql`
        INSERT INTO agents AS a (
          id, organization_id, name, persona, task, instructions, language, llm, stt, tts, created_at, updated_at
        ) VALUES (
          ${d.id}, ${d.organizationId}, ${d.name}, ${sql.json(d.persona)}, ${sql.json(d.task)}, ${d.instructions},
          ${d.language}, ${d.llm}, ${d.stt}, ${d.tts}, ${d.now}, ${d.now}
        )
        RETURNING ${columns}`
  })

  const listPage = SqlSchema.findAll({
    Request: Schema.Struct({
      organizationId: Schema.String,
      after: Schema.optional(Schema.Struct({ createdAt: Schema.Date, id: Schema.String })),
      limit: Schema.Int
    }),
    Result: AgentRow,
    execute: ({ after, limit, organizationId }) =>
      sql`
        SELECT ${columns} FROM agents a
        WHERE a.organization_id = ${organizationId} AND a.deleted_at IS NULL
          ${after === undefined ? sql`` : sql`AND (a.created_at, a.id) < (${after.createdAt}, ${after.id})`}
        ORDER BY a.created_at DESC, a.id DESC
        LIMIT ${limit + 1}`
  })

  const findLive = SqlSchema.findOneOption({
    Request: OrganizationAndAgent,
    Result: AgentRow,
    execute: ({ agentId, organizationId }) =>
      sql`
        SELECT ${columns} FROM agents a
        WHERE a.id = ${agentId} AND a.organization_id = ${organizationId} AND a.deleted_at IS NULL`
  })

  const assignments = (p: typeof PatchRow.Encoded): Array<Statement.Fragment> => {
    const sets: Array<Statement.Fragment> = [sql`updated_at = ${p.now}`]
    if (p.name !== undefined) sets.push(sql`name = ${p.name}`)
    if (p.persona !== undefined) sets.push(sql`persona = ${sql.json(p.persona)}`)
    if (p.task !== undefined) sets.push(sql`task = ${sql.json(p.task)}`)
    if (p.instructions !== undefined) sets.push(sql`instructions = ${p.instructions}`)
    if (p.language !== undefined) sets.push(sql`language = ${p.language}`)
    if (p.llm !== undefined) sets.push(sql`llm = ${p.llm}`)
    if (p.stt !== undefined) sets.push(sql`stt = ${p.stt}`)
    if (p.tts !== undefined) sets.push(sql`tts = ${p.tts}`)
    return sets
  }

  const updateLive = SqlSchema.findOneOption({
    Request: PatchRow,
    Result: AgentRow,
    execute: (p) =>
      sql`
        UPDATE agents AS a SET ${sql.csv(assignments(p))}
        WHERE a.id = ${p.agentId} AND a.organization_id = ${p.organizationId} AND a.deleted_at IS NULL
        RETURNING ${columns}`
  })

  /** Locks the organization's live definition with the id (see the module's comment for the modes). */
  const lockLive = (mode: "UPDATE" | "KEY SHARE") =>
    SqlSchema.findOneOption({
      Request: OrganizationAndAgent,
      Result: Id,
      execute: ({ agentId, organizationId }) =>
        sql`
          SELECT id AS "id" FROM agents
          WHERE id = ${agentId} AND organization_id = ${organizationId} AND deleted_at IS NULL
          FOR ${sql.literal(mode)}`
    })
  const lockForDelete = lockLive("UPDATE")
  const lockForAttach = lockLive("KEY SHARE")

  const attachments = SqlSchema.findAll({
    Request: Schema.String,
    Result: Schema.Struct({ kind: Schema.Literals(["campaign", "number"]), ref: Schema.String }),
    execute: (agentId) =>
      sql`
        SELECT 'campaign' AS "kind", code AS "ref" FROM campaigns WHERE agent_id = ${agentId} AND deleted_at IS NULL
        UNION ALL
        SELECT 'number', phone_number FROM phone_numbers WHERE agent_id = ${agentId}
        ORDER BY 1, 2`
  })

  const softDelete = SqlSchema.void({
    Request: Schema.Struct({ agentId: Schema.String, now: Schema.Date }),
    execute: ({ agentId, now }) => sql`UPDATE agents SET deleted_at = ${now} WHERE id = ${agentId}`
  })

  const campaignRef = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, code: Schema.String }),
    Result: AgentRef,
    execute: ({ code, organizationId }) =>
      sql`
        SELECT agent_id AS "agentId" FROM campaigns
        WHERE code = ${code} AND organization_id = ${organizationId} AND deleted_at IS NULL`
  })

  const setCampaignAgent = SqlSchema.findOneOption({
    Request: Schema.Struct({
      organizationId: Schema.String,
      code: Schema.String,
      agentId: Schema.NullOr(Schema.String)
    }),
    Result: Id,
    execute: ({ agentId, code, organizationId }) =>
      sql`
        UPDATE campaigns SET agent_id = ${agentId}
        WHERE code = ${code} AND organization_id = ${organizationId} AND deleted_at IS NULL
        RETURNING id::text AS "id"`
  })

  const numberRef = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, phoneNumber: Schema.String }),
    Result: AgentRef,
    execute: ({ organizationId, phoneNumber }) =>
      sql`
        SELECT agent_id AS "agentId" FROM phone_numbers
        WHERE phone_number = ${phoneNumber} AND organization_id = ${organizationId}`
  })

  const setNumberAgent = SqlSchema.findOneOption({
    Request: Schema.Struct({
      organizationId: Schema.String,
      phoneNumber: Schema.String,
      agentId: Schema.NullOr(Schema.String)
    }),
    Result: Schema.Struct({ phoneNumber: Schema.String }),
    execute: ({ agentId, organizationId, phoneNumber }) =>
      sql`
        UPDATE phone_numbers SET agent_id = ${agentId}
        WHERE phone_number = ${phoneNumber} AND organization_id = ${organizationId}
        RETURNING phone_number AS "phoneNumber"`
  })

  // One statement: the conversation's agent reference is an InitPlan evaluated once (the call
  // by its unique call_id, then the campaign by id or the number by its key), then the
  // definition by primary key. Attachments never cross organizations (attach checks both
  // sides), so the definition needs no organization check here.
  const findForCall = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: AgentRow,
    execute: (callId) =>
      sql`
        SELECT ${columns} FROM agents a
        WHERE a.deleted_at IS NULL AND a.id = (
          SELECT CASE c.direction
            WHEN 'outbound' THEN (SELECT k.agent_id FROM campaigns k WHERE k.id = c.campaign_id)
            ELSE (
              SELECT p.agent_id FROM phone_numbers p
              WHERE p.phone_number = c.to_number AND p.organization_id = c.organization_id
            )
          END
          FROM conversations c WHERE c.call_id = ${callId}
        )`
  })

  const validAgent = (organizationId: string, agentId: string) => isUuid(organizationId) && isAgentId(agentId)

  /** Locks the live definition for an attach; false when the organization has none with the id. */
  const lockAttachable = (organizationId: string, agentId: string) =>
    validAgent(organizationId, agentId)
      ? Effect.map(lockForAttach({ organizationId, agentId }), Option.isSome)
      : Effect.succeed(false)

  return AgentRepository.of({
    create: Effect.fn("AgentRepository.create")(
      (organizationId: string, definition: NewAgentDefinition, now: Date) =>
        insert({ ...definition, id: generateAgentId(), organizationId, now }).pipe(
          Effect.catchIf(nameTaken, () => Effect.fail(new AgentNameTaken({ name: definition.name })))
        ),
      orDieInfrastructure
    ),
    list: Effect.fn("AgentRepository.list")(
      function*(query: AgentQuery) {
        const wellFormed = isUuid(query.organizationId) && (query.after === undefined || isAgentId(query.after.id))
        if (!wellFormed) return { agents: [], hasMore: false }
        const rows = yield* listPage(query)
        const agents: ReadonlyArray<AgentDefinition> = rows.slice(0, query.limit)
        return { agents, hasMore: rows.length > query.limit }
      },
      orDieInfrastructure
    ),
    get: Effect.fn("AgentRepository.get")(
      (organizationId: string, agentId: string) =>
        validAgent(organizationId, agentId) ? findLive({ organizationId, agentId }) : Effect.succeedNone,
      orDieInfrastructure
    ),
    update: Effect.fn("AgentRepository.update")(
      function*(organizationId: string, agentId: string, patch: AgentPatch, now: Date) {
        const updated = validAgent(organizationId, agentId)
          ? yield* updateLive({ ...patch, organizationId, agentId, now }).pipe(
            Effect.catchIf(nameTaken, () => Effect.fail(new AgentNameTaken({ name: patch.name ?? "" })))
          )
          : Option.none()
        if (Option.isNone(updated)) return yield* new AgentNotFound({ agentId })
        return updated.value
      },
      orDieInfrastructure
    ),
    delete: Effect.fn("AgentRepository.delete")(
      function*(organizationId: string, agentId: string, now: Date) {
        if (!validAgent(organizationId, agentId)) return yield* new AgentNotFound({ agentId })
        yield* sql.withTransaction(Effect.gen(function*() {
          const locked = yield* lockForDelete({ organizationId, agentId })
          if (Option.isNone(locked)) return yield* new AgentNotFound({ agentId })
          // A new statement after the lock: it sees every attach committed before the lock.
          const attached = yield* attachments(agentId)
          if (attached.length > 0) {
            return yield* new AgentInUse({
              agentId,
              campaignCodes: attached.filter((a) => a.kind === "campaign").map((a) => a.ref),
              phoneNumbers: attached.filter((a) => a.kind === "number").map((a) => a.ref)
            })
          }
          yield* softDelete({ agentId, now })
        }))
      },
      orDieInfrastructure
    ),
    attachToCampaign: Effect.fn("AgentRepository.attachToCampaign")(
      function*(organizationId: string, campaignCode: string, agentId: string | null) {
        const notFound = new CampaignNotFound({ campaignRef: campaignCode })
        if (!isUuid(organizationId) || !isStorableText(campaignCode)) return yield* notFound
        yield* sql.withTransaction(Effect.gen(function*() {
          const campaign = yield* campaignRef({ organizationId, code: campaignCode })
          if (Option.isNone(campaign)) return yield* notFound
          if (agentId !== null && !(yield* lockAttachable(organizationId, agentId))) {
            return yield* new AgentNotFound({ agentId })
          }
          const updated = yield* setCampaignAgent({ organizationId, code: campaignCode, agentId })
          if (Option.isNone(updated)) return yield* notFound
        }))
      },
      orDieInfrastructure
    ),
    attachToNumber: Effect.fn("AgentRepository.attachToNumber")(
      function*(organizationId: string, phoneNumber: string, agentId: string | null) {
        const notOwned = new PhoneNumberNotOwned({ phoneNumbers: [phoneNumber] })
        if (!isUuid(organizationId) || !isStorableText(phoneNumber)) return yield* notOwned
        yield* sql.withTransaction(Effect.gen(function*() {
          const number = yield* numberRef({ organizationId, phoneNumber })
          if (Option.isNone(number)) return yield* notOwned
          if (agentId !== null && !(yield* lockAttachable(organizationId, agentId))) {
            return yield* new AgentNotFound({ agentId })
          }
          const updated = yield* setNumberAgent({ organizationId, phoneNumber, agentId })
          if (Option.isNone(updated)) return yield* notOwned
        }))
      },
      orDieInfrastructure
    ),
    campaignAgent: Effect.fn("AgentRepository.campaignAgent")(
      function*(organizationId: string, campaignCode: string) {
        const found = isUuid(organizationId) && isStorableText(campaignCode)
          ? yield* campaignRef({ organizationId, code: campaignCode })
          : Option.none()
        if (Option.isNone(found)) return yield* new CampaignNotFound({ campaignRef: campaignCode })
        return found.value.agentId
      },
      orDieInfrastructure
    ),
    numberAgent: Effect.fn("AgentRepository.numberAgent")(
      function*(organizationId: string, phoneNumber: string) {
        const found = isUuid(organizationId) && isStorableText(phoneNumber)
          ? yield* numberRef({ organizationId, phoneNumber })
          : Option.none()
        if (Option.isNone(found)) return yield* new PhoneNumberNotOwned({ phoneNumbers: [phoneNumber] })
        return found.value.agentId
      },
      orDieInfrastructure
    ),
    forCall: Effect.fn("AgentRepository.forCall")(
      (callId: string) => isStorableText(callId) ? findForCall(callId) : Effect.succeedNone,
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(AgentRepository, make)
