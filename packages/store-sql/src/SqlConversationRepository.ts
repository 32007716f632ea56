/**
 * ConversationRepository on SQL (tables `conversations`, `transcript_turns`,
 * `conversation_fields` and `turn_latencies`).
 *
 * Owns: the conversation row, the newest-first keyset list on `(started_at, id)`, the
 * numbering of transcript turns (`seq`, continuing after the stored ones), and the collected
 * field values (one row per key, replaced when recorded again; JSON values in `jsonb`). An
 * answered call's `duration_sec` is the carrier's figure when one was recorded
 * (SqlCarrierCalls), else the engine's measure from the answer. Turn latencies are numbered
 * (`seq`) in the order recorded, each with its call's campaign (migration 0018); a step that
 * did not run is a null column; a campaign's are summarized in one statement (sql/campaignLatency).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { FieldValueSchema } from "@voice-agent/core/AgentDefinition"
import type { FieldValue } from "@voice-agent/core/AgentTask"
import { ContactDataSchema } from "@voice-agent/core/Contact"
import type { ConversationRecord, TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import { Direction, Speaker, TerminationReason } from "@voice-agent/core/Conversation"
import type { AbandonedCalls, ConversationQuery } from "@voice-agent/core/ports/ConversationRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { fromMillis } from "@voice-agent/core/Time"
import type { TurnLatencyRecord, TurnStages } from "@voice-agent/core/TurnLatency"
import { isUuid } from "@voice-agent/core/Uuid"
import { callEnded } from "@voice-agent/core/Webhook"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { Statement } from "effect/sql"
import { isStorableText } from "./internal/ids.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import { conversationColumns } from "./internal/webhookEvents.ts"
import { campaignLatency } from "./sql/campaignLatency.ts"
import { enqueueWebhookEvents } from "./sql/enqueueWebhookEvents.ts"
import { closeLostStatement, lostCallEnds } from "./sql/lostCallEnds.ts"

const conversationFields = {
  callId: Schema.String,
  organizationId: Schema.String,
  campaignId: Schema.NullOr(Schema.String),
  contactId: Schema.NullOr(Schema.String),
  direction: Direction,
  fromNumber: Schema.String,
  toNumber: Schema.String,
  startedAt: Schema.Date,
  answeredAt: Schema.NullOr(Schema.Date),
  endedAt: Schema.NullOr(Schema.Date),
  durationSec: Schema.NullOr(Schema.Int),
  terminationReason: Schema.NullOr(TerminationReason)
}

/**
 * A decoded conversation row (the port's ConversationRecord).
 *
 * @category schemas
 */
export const ConversationRow = Schema.Struct({ id: Schema.String, ...conversationFields })

const TurnRow = Schema.Struct({ speaker: Speaker, text: Schema.String, offsetMs: Schema.Int })

const LatencyRow = Schema.Struct({
  userStoppedMs: Schema.Int,
  agentStartedMs: Schema.Int,
  sttMs: Schema.NullOr(Schema.Int),
  llmFirstTokenMs: Schema.NullOr(Schema.Int),
  ttsFirstByteMs: Schema.NullOr(Schema.Int),
  engineMs: Schema.NullOr(Schema.Int)
})

/** A figure as stored: whole ms, never negative. */
const ms = (value: number): number => Math.max(0, Math.round(value))
const stage = (value: number | undefined): number | null => value === undefined ? null : ms(value)

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const enqueue = enqueueWebhookEvents(sql)
  const columns = sql.literal(conversationColumns)

  const insertRow = SqlSchema.findOne({
    Request: Schema.Struct(conversationFields),
    Result: ConversationRow,
    execute: (c) =>
      sql`
        INSERT INTO conversations (
          call_id, organization_id, campaign_id, contact_id, direction, from_number, to_number,
          started_at, answered_at, ended_at, duration_sec, termination_reason
        ) VALUES (
          ${c.callId}, ${c.organizationId}, ${c.campaignId}::uuid, ${c.contactId}::bigint, ${c.direction},
          ${c.fromNumber}, ${c.toNumber}, ${c.startedAt}, ${c.answeredAt}, ${c.endedAt}, ${c.durationSec},
          ${c.terminationReason}
        )
        RETURNING ${columns}`
  })

  // The conversation row lock makes concurrent appends to one call queue up instead of
  // computing the same next seq; the numbering then runs in one statement.
  const lockConversation = SqlSchema.findAll({
    Request: Schema.String,
    Result: Schema.Struct({ id: Schema.String }),
    execute: (id) => sql`SELECT id::text AS "id" FROM conversations WHERE id = ${id} FOR NO KEY UPDATE`
  })

  const insertTurns = SqlSchema.void({
    Request: Schema.Struct({
      conversationId: Schema.String,
      speakers: Schema.Array(Schema.String),
      texts: Schema.Array(Schema.String),
      offsets: Schema.Array(Schema.Int)
    }),
    execute: ({ conversationId, offsets, speakers, texts }) =>
      sql`
        INSERT INTO transcript_turns (conversation_id, seq, speaker, text, offset_ms)
        SELECT ${conversationId}, last.seq + t.ord, t.speaker, t.text, t.offset_ms
        FROM (SELECT coalesce(max(seq), 0) AS seq FROM transcript_turns WHERE conversation_id = ${conversationId}) AS last,
             unnest(${speakers}::text[], ${texts}::text[], ${offsets}::int[]) WITH ORDINALITY AS t(speaker, text, offset_ms, ord)`
  })

  const listPage = SqlSchema.findAll({
    Request: Schema.Struct({
      organizationId: Schema.String,
      fromNumber: Schema.optional(Schema.String),
      toNumber: Schema.optional(Schema.String),
      direction: Schema.optional(Direction),
      dateFrom: Schema.optional(Schema.Date),
      dateTo: Schema.optional(Schema.Date),
      campaignId: Schema.optional(Schema.String),
      after: Schema.optional(Schema.Struct({ startedAt: Schema.Date, id: Schema.String })),
      limit: Schema.Int
    }),
    Result: ConversationRow,
    execute: (q) => {
      const filters: Array<Statement.Fragment> = [sql`organization_id = ${q.organizationId}`]
      if (q.fromNumber !== undefined) filters.push(sql`from_number = ${q.fromNumber}`)
      if (q.toNumber !== undefined) filters.push(sql`to_number = ${q.toNumber}`)
      if (q.direction !== undefined) filters.push(sql`direction = ${q.direction}`)
      if (q.dateFrom !== undefined) filters.push(sql`started_at >= ${q.dateFrom}`)
      if (q.dateTo !== undefined) filters.push(sql`started_at <= ${q.dateTo}`)
      if (q.campaignId !== undefined) filters.push(sql`campaign_id = ${q.campaignId}`)
      if (q.after !== undefined) filters.push(sql`(started_at, id) < (${q.after.startedAt}, ${q.after.id}::uuid)`)
      return sql`
        SELECT ${columns} FROM conversations
        WHERE ${sql.and(filters)}
        ORDER BY started_at DESC, id DESC
        LIMIT ${q.limit + 1}`
    }
  })

  const findByCall = SqlSchema.findOneOption({
    Request: Schema.Struct({ organizationId: Schema.String, callId: Schema.String }),
    Result: ConversationRow,
    execute: ({ callId, organizationId }) =>
      sql`SELECT ${columns} FROM conversations WHERE call_id = ${callId} AND organization_id = ${organizationId}`
  })

  const insertLatency = SqlSchema.void({
    Request: Schema.Struct({
      conversationId: Schema.String,
      userStoppedMs: Schema.Int,
      agentStartedMs: Schema.Int,
      sttMs: Schema.NullOr(Schema.Int),
      llmFirstTokenMs: Schema.NullOr(Schema.Int),
      ttsFirstByteMs: Schema.NullOr(Schema.Int),
      engineMs: Schema.NullOr(Schema.Int)
    }),
    execute: (row) =>
      sql`
        INSERT INTO turn_latencies (conversation_id, campaign_id, seq, user_stopped_ms, agent_started_ms, stt_ms,
          llm_first_token_ms, tts_first_byte_ms, engine_ms)
        SELECT ${row.conversationId}, (SELECT campaign_id FROM conversations WHERE id = ${row.conversationId}),
          coalesce(max(seq), 0) + 1, ${row.userStoppedMs}, ${row.agentStartedMs},
          ${row.sttMs}, ${row.llmFirstTokenMs}, ${row.ttsFirstByteMs}, ${row.engineMs}
        FROM turn_latencies WHERE conversation_id = ${row.conversationId}`
  })

  const latenciesOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: LatencyRow,
    execute: (conversationId) =>
      sql`
        SELECT user_stopped_ms AS "userStoppedMs", agent_started_ms AS "agentStartedMs", stt_ms AS "sttMs",
          llm_first_token_ms AS "llmFirstTokenMs", tts_first_byte_ms AS "ttsFirstByteMs", engine_ms AS "engineMs"
        FROM turn_latencies WHERE conversation_id = ${conversationId}
        ORDER BY seq`
  })

  const summarizeCampaign = campaignLatency(sql)

  const turnsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: TurnRow,
    execute: (conversationId) =>
      sql`
        SELECT speaker AS "speaker", text AS "text", offset_ms AS "offsetMs" FROM transcript_turns
        WHERE conversation_id = ${conversationId}
        ORDER BY offset_ms, seq`
  })

  const endRow = SqlSchema.findAll({
    Request: Schema.Struct({
      id: Schema.String,
      answeredAt: Schema.NullOr(Schema.Date),
      endedAt: Schema.Date,
      terminationReason: Schema.String
    }),
    Result: ConversationRow,
    execute: ({ answeredAt, endedAt, id, terminationReason }) =>
      sql`
        UPDATE conversations SET answered_at = ${answeredAt}, ended_at = ${endedAt},
               termination_reason = ${terminationReason},
               duration_sec = CASE WHEN ${answeredAt}::timestamptz IS NULL THEN 0
                 ELSE coalesce(
                   carrier_duration_sec,
                   greatest(0, floor(extract(epoch FROM (${endedAt}::timestamptz - ${answeredAt}::timestamptz))))::int
                 )
               END
        WHERE id = ${id} AND ended_at IS NULL
        RETURNING ${columns}`
  })

  // Abandoned calls (inbound, or direct: outbound with no campaign) end as lost campaign calls
  // do (sql/lostCallEnds); SKIP LOCKED lets several daemons sweep at once, each closing the
  // calls it locked. Each kind has its partial index of open calls (migrations 0008, 0016).
  const lockAbandoned = SqlSchema.findAll({
    Request: Schema.Struct({ kind: Schema.Literals(["inbound", "direct"]), startedBefore: Schema.Date }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ kind, startedBefore }) =>
      sql`
        SELECT id::text AS "id" FROM conversations
        WHERE ${
        kind === "inbound"
          ? sql`direction = 'inbound'`
          : sql`direction = 'outbound' AND campaign_id IS NULL`
      } AND ended_at IS NULL AND started_at < ${startedBefore}
        FOR NO KEY UPDATE SKIP LOCKED`
  })
  const lostEnds = lostCallEnds(sql)
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ConversationRow))

  const findContext = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ ...ConversationRow.fields, data: Schema.NullOr(ContactDataSchema) }),
    execute: (callId) =>
      sql`
        SELECT ${columns},
               (SELECT c.data FROM contacts c WHERE c.id = conversations.contact_id) AS "data"
        FROM conversations WHERE call_id = ${callId}`
  })

  const claimStreamRow = SqlSchema.findAll({
    Request: Schema.Struct({ callId: Schema.String, streamId: Schema.String }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ callId, streamId }) =>
      sql`
        UPDATE conversations SET stream_id = ${streamId}
        WHERE call_id = ${callId} AND ended_at IS NULL AND (stream_id IS NULL OR stream_id = ${streamId})
        RETURNING id`
  })

  // The value travels as JSON text cast to jsonb (a string value is a JSON string), so this
  // needs only the generic SQL client.
  const upsertField = SqlSchema.void({
    Request: Schema.Struct({ conversationId: Schema.String, key: Schema.String, value: Schema.String }),
    execute: ({ conversationId, key, value }) =>
      sql`
        INSERT INTO conversation_fields (conversation_id, key, value) VALUES (${conversationId}, ${key}, ${value}::jsonb)
        ON CONFLICT (conversation_id, key) DO UPDATE SET value = excluded.value, recorded_at = excluded.recorded_at`
  })

  const fieldsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: Schema.Struct({ key: Schema.String, value: FieldValueSchema }),
    execute: (conversationId) =>
      sql`
        SELECT key AS "key", value AS "value" FROM conversation_fields
        WHERE conversation_id = ${conversationId}
        ORDER BY key COLLATE "C"`
  })

  return ConversationRepository.of({
    insert: Effect.fn("ConversationRepository.insert")(
      (conversation: Omit<ConversationRecord, "id">) => insertRow(conversation),
      orDieInfrastructure
    ),
    end: Effect.fn("ConversationRepository.end")(
      function*(conversationId: string, end: {
        readonly answeredAt: Date | null
        readonly endedAt: Date
        readonly terminationReason: TerminationReason
      }) {
        if (!isUuid(conversationId)) return false
        const now = fromMillis(yield* Clock.currentTimeMillis)
        return yield* sql.withTransaction(Effect.gen(function*() {
          const ended = yield* endRow({ id: conversationId, ...end })
          yield* enqueue(ended.map(callEnded), now)
          return ended.length > 0
        }))
      },
      orDieInfrastructure
    ),
    closeAbandoned: Effect.fn("ConversationRepository.closeAbandoned")(
      (input: AbandonedCalls) =>
        sql.withTransaction(Effect.gen(function*() {
          const abandoned = yield* lockAbandoned(input)
          const ends = yield* lostEnds({
            conversationIds: abandoned.map((row) => row.id),
            finalizeRecordings: input.finalizeRecordings
          })
          if (ends.length === 0) return []
          const closed = yield* decodeRows(yield* closeLostStatement(sql, ends, input.now))
          yield* enqueue(closed.map(callEnded), input.now)
          return closed
        })),
      orDieInfrastructure
    ),
    appendTurns: Effect.fn("ConversationRepository.appendTurns")(
      function*(conversationId: string, turns: ReadonlyArray<TranscriptTurnRecord>) {
        if (turns.length === 0) return
        yield* sql.withTransaction(Effect.gen(function*() {
          const found = isUuid(conversationId) ? yield* lockConversation(conversationId) : []
          if (found.length === 0) return yield* Effect.die(`No conversation ${conversationId} to append turns to`)
          yield* insertTurns({
            conversationId,
            speakers: turns.map((t) => t.speaker),
            texts: turns.map((t) => t.text),
            offsets: turns.map((t) => t.offsetMs)
          })
        }))
      },
      orDieInfrastructure
    ),
    list: Effect.fn("ConversationRepository.list")(
      function*(query: ConversationQuery) {
        const wellFormed = isUuid(query.organizationId) &&
          (query.campaignId === undefined || isUuid(query.campaignId)) &&
          (query.after === undefined || isUuid(query.after.id))
        if (!wellFormed) return { conversations: [], hasMore: false }
        const rows = yield* listPage(query)
        return { conversations: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
      },
      orDieInfrastructure
    ),
    findByCallId: Effect.fn("ConversationRepository.findByCallId")(
      (organizationId: string, callId: string) =>
        isUuid(organizationId) && isStorableText(callId) ? findByCall({ organizationId, callId }) : Effect.succeedNone,
      orDieInfrastructure
    ),
    callContext: Effect.fn("ConversationRepository.callContext")(
      (callId: string) =>
        isStorableText(callId)
          ? Effect.map(
            findContext(callId),
            Option.map(({ data, ...conversation }) => ({ conversation, data: data ?? {} }))
          )
          : Effect.succeedNone,
      orDieInfrastructure
    ),
    claimStream: Effect.fn("ConversationRepository.claimStream")(
      function*(callId: string, streamId: string) {
        if (!isStorableText(callId) || !isUuid(streamId)) return false
        const claimed = yield* claimStreamRow({ callId, streamId })
        return claimed.length > 0
      },
      orDieInfrastructure
    ),
    transcript: Effect.fn("ConversationRepository.transcript")(
      (conversationId: string) => isUuid(conversationId) ? turnsOf(conversationId) : Effect.succeed([]),
      orDieInfrastructure
    ),
    recordField: Effect.fn("ConversationRepository.recordField")(
      function*(conversationId: string, key: string, value: FieldValue) {
        if (!isUuid(conversationId)) return yield* Effect.die(`No conversation ${conversationId} to record a field of`)
        yield* upsertField({ conversationId, key, value: JSON.stringify(value) })
      },
      orDieInfrastructure
    ),
    recordLatency: Effect.fn("ConversationRepository.recordLatency")(
      function*(conversationId: string, turn: TurnLatencyRecord) {
        yield* sql.withTransaction(Effect.gen(function*() {
          const found = isUuid(conversationId) ? yield* lockConversation(conversationId) : []
          if (found.length === 0) return yield* Effect.die(`No conversation ${conversationId} to record latency of`)
          yield* insertLatency({
            conversationId,
            userStoppedMs: ms(turn.userStoppedMs),
            agentStartedMs: ms(turn.agentStartedMs),
            sttMs: stage(turn.stages.stt_ms),
            llmFirstTokenMs: stage(turn.stages.llm_first_token_ms),
            ttsFirstByteMs: stage(turn.stages.tts_first_byte_ms),
            engineMs: stage(turn.stages.engine_ms)
          })
        }))
      },
      orDieInfrastructure
    ),
    latency: Effect.fn("ConversationRepository.latency")(
      function*(conversationId: string) {
        const rows = isUuid(conversationId) ? yield* latenciesOf(conversationId) : []
        return rows.map((row): TurnLatencyRecord => {
          const stages: { -readonly [K in keyof TurnStages]: number } = {}
          if (row.sttMs !== null) stages.stt_ms = row.sttMs
          if (row.llmFirstTokenMs !== null) stages.llm_first_token_ms = row.llmFirstTokenMs
          if (row.ttsFirstByteMs !== null) stages.tts_first_byte_ms = row.ttsFirstByteMs
          if (row.engineMs !== null) stages.engine_ms = row.engineMs
          return { userStoppedMs: row.userStoppedMs, agentStartedMs: row.agentStartedMs, stages }
        })
      },
      orDieInfrastructure
    ),
    campaignLatency: Effect.fn("ConversationRepository.campaignLatency")(
      (organizationId: string, campaignId: string) =>
        isUuid(organizationId) && isUuid(campaignId)
          ? summarizeCampaign({ organizationId, campaignId })
          : Effect.succeed({ calls: 0, count: 0, p50Ms: null, p90Ms: null, maxMs: null }),
      orDieInfrastructure
    ),
    fields: Effect.fn("ConversationRepository.fields")(
      function*(conversationId: string) {
        const rows = isUuid(conversationId) ? yield* fieldsOf(conversationId) : []
        const fields: Record<string, FieldValue> = {}
        for (const row of rows) fields[row.key] = row.value
        return fields
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(ConversationRepository, make)
