/**
 * MessageRepository on SQL (table `messages`): SMS in both directions, and the inbound list
 * of `GET /v1/messages` (oldest first, `start` inclusive).
 *
 * @since 0.1.0
 */
import type { MessageRecord } from "@voice-agent/core/Message"
import { Modality } from "@voice-agent/core/Message"
import type { InboundMessageQuery } from "@voice-agent/core/ports/MessageRepository"
import { MessageRepository } from "@voice-agent/core/ports/MessageRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { Statement } from "effect/sql"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

const messageFields = {
  organizationId: Schema.String,
  direction: Schema.Literals(["inbound", "outbound"]),
  modality: Modality,
  fromNumber: Schema.String,
  toNumber: Schema.String,
  content: Schema.String,
  receivedAt: Schema.Date,
  status: Schema.String
}

const MessageRow = Schema.Struct({ id: Schema.String, ...messageFields })

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(
    `id::text AS "id", organization_id::text AS "organizationId", direction AS "direction", ` +
      `modality AS "modality", from_number AS "fromNumber", to_number AS "toNumber", content AS "content", ` +
      `received_at AS "receivedAt", status AS "status"`
  )

  const Insertion = Schema.Struct({ ...messageFields, carrierMessageId: Schema.NullOr(Schema.String) })
  const insertInto = (m: typeof Insertion.Encoded) =>
    sql`
      INSERT INTO messages (
        organization_id, direction, modality, from_number, to_number, content, received_at, status, carrier_message_id
      )
      VALUES (
        ${m.organizationId}, ${m.direction}, ${m.modality}, ${m.fromNumber}, ${m.toNumber}, ${m.content},
        ${m.receivedAt}, ${m.status}, ${m.carrierMessageId}
      )`

  const insertRow = SqlSchema.findOne({
    Request: Insertion,
    Result: MessageRow,
    execute: (m) => sql`${insertInto(m)} RETURNING ${columns}`
  })

  /** Inserts unless the carrier id is stored already; then answers the stored row, flagged. */
  const receiveRow = SqlSchema.findOne({
    Request: Insertion,
    Result: Schema.Struct({ ...MessageRow.fields, created: Schema.Boolean }),
    execute: (m) =>
      sql`
        WITH inserted AS (
          ${insertInto(m)}
          ON CONFLICT (carrier_message_id) WHERE carrier_message_id IS NOT NULL DO NOTHING
          RETURNING ${columns}, true AS "created"
        )
        SELECT * FROM inserted
        UNION ALL
        SELECT ${columns}, false AS "created" FROM messages
        WHERE carrier_message_id = ${m.carrierMessageId} AND NOT EXISTS (SELECT 1 FROM inserted)`
  })

  const updateStatusRows = SqlSchema.findAll({
    Request: Schema.Struct({ carrierMessageId: Schema.String, status: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ carrierMessageId, status }) =>
      sql`
        UPDATE messages SET status = ${status}
        WHERE carrier_message_id = ${carrierMessageId}
        RETURNING id::text AS "id"`
  })

  const listPage = SqlSchema.findAll({
    Request: Schema.Struct({
      organizationId: Schema.String,
      toNumber: Schema.String,
      start: Schema.optional(Schema.Date),
      fromNumber: Schema.optional(Schema.String),
      modality: Schema.optional(Modality),
      limit: Schema.Int
    }),
    Result: MessageRow,
    execute: (q) => {
      const filters: Array<Statement.Fragment> = [
        sql`organization_id = ${q.organizationId}`,
        sql`direction = 'inbound'`,
        sql`to_number = ${q.toNumber}`
      ]
      if (q.start !== undefined) filters.push(sql`received_at >= ${q.start}`)
      if (q.fromNumber !== undefined) filters.push(sql`from_number = ${q.fromNumber}`)
      if (q.modality !== undefined) filters.push(sql`modality = ${q.modality}`)
      return sql`
        SELECT ${columns} FROM messages
        WHERE ${sql.and(filters)}
        ORDER BY received_at, id
        LIMIT ${q.limit + 1}`
    }
  })

  return MessageRepository.of({
    insert: Effect.fn("MessageRepository.insert")(
      (message: Omit<MessageRecord, "id">, carrierMessageId?: string) =>
        insertRow({ ...message, carrierMessageId: carrierMessageId ?? null }),
      orDieInfrastructure
    ),
    receive: Effect.fn("MessageRepository.receive")(
      function*(message: Omit<MessageRecord, "id">, carrierMessageId: string) {
        // a concurrent first delivery may commit between the two halves: then read it again
        for (;;) {
          const found = yield* receiveRow({ ...message, carrierMessageId }).pipe(
            Effect.map(Option.some),
            Effect.catchTag("NoSuchElementError", () => Effect.succeedNone)
          )
          if (Option.isSome(found)) {
            const { created, ...stored } = found.value
            return { message: stored, created }
          }
        }
      },
      orDieInfrastructure
    ),
    updateStatus: Effect.fn("MessageRepository.updateStatus")(
      function*(carrierMessageId: string, status: string) {
        return (yield* updateStatusRows({ carrierMessageId, status })).length > 0
      },
      orDieInfrastructure
    ),
    listInbound: Effect.fn("MessageRepository.listInbound")(
      function*(query: InboundMessageQuery) {
        if (!isUuid(query.organizationId)) return { messages: [], hasMore: false }
        const rows = yield* listPage(query)
        return { messages: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(MessageRepository, make)
