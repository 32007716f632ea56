/**
 * DialerRepository on SQL: claims under the caps, leases, the start and end of each call, the
 * recovery of expired leases, and what the eligibility explainer reads (docs/DIALER.md).
 *
 * Owns: the transactions of the dialer. Each per-contact step locks the contact row
 * (sql/lockContactForCall), applies ContactState's transition (`dial`, `applyOutcome`,
 * `release`, `recover`) to the state it read there with the campaign's current policy, and
 * writes the result (sql/writeContactStates), so SQL and the state machine are one behavior.
 * The hot statements live under `sql/`, each with its locking choice and measured rate; this
 * module holds the rest and the transactions. Every instant is the caller's (epoch
 * milliseconds from its Clock); no statement here reads the database's clock.
 *
 * Webhook events: each transaction writes the events of the changes it makes, in the same
 * transaction (sql/enqueueWebhookEvents, one more statement when there are any): `call.started`
 * with the conversation record `startCall` creates, `call.ended` with the one `endCall` closes
 * (or `release` removes, a call the carrier refused before placing it: `failed`, 0 s), and
 * `contact.status_changed` whenever a transition moves the contact's status.
 *
 * Ownership of a call: a step applies only while the contact's lease is the caller's (its
 * worker, and for `endCall` and `release` the conversation it carries). `startCall` also needs
 * the lease live, so no call starts on a lease that recovery may take back; `endCall` and
 * `release` accept an expired lease still in place, since they only end it (recovery has not
 * run yet, and the caller's outcome is the truer one).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { CallingWindow } from "@voice-agent/core/CallingWindow"
import type { ContactDialState, NotPlacedReason } from "@voice-agent/core/ContactState"
import { applyOutcome, dial, release, terminationReasonFor } from "@voice-agent/core/ContactState"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import { E164 } from "@voice-agent/core/PhoneNumber"
import type { CallEnd, CallStart } from "@voice-agent/core/ports/DialerRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { isSerialId } from "@voice-agent/core/SerialId"
import { fromMillis } from "@voice-agent/core/Time"
import { isUuid } from "@voice-agent/core/Uuid"
import type { OutgoingEvent } from "@voice-agent/core/Webhook"
import { callEnded, callStarted } from "@voice-agent/core/Webhook"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql"
import { beingDialed } from "./internal/beingDialed.ts"
import { waitingContact } from "./internal/callable.ts"
import { dialStateColumns, DialStateRow, toDialState, toPolicy, toStateWrite } from "./internal/dialState.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"
import { conversationColumns, statusChanged } from "./internal/webhookEvents.ts"
import { claimDueContacts } from "./sql/claimDueContacts.ts"
import { enqueueWebhookEvents } from "./sql/enqueueWebhookEvents.ts"
import { lockContactForCall } from "./sql/lockContactForCall.ts"
import type { LockedContact } from "./sql/lockContactForCall.ts"
import { recoverExpiredLeases } from "./sql/recoverExpiredLeases.ts"
import { renewLeases } from "./sql/renewLeases.ts"
import { writeContactStates } from "./sql/writeContactStates.ts"
import { ConversationRow } from "./SqlConversationRepository.ts"

const DialableRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  callingWindows: Schema.Array(CallingWindow),
  timeZone: Schema.String,
  startDate: Schema.String,
  endDate: Schema.NullOr(Schema.String),
  maxAttempts: Schema.Int,
  nextDueAt: Schema.NullOr(Schema.Date)
})

const InspectionRow = Schema.Struct({
  ...DialStateRow.fields,
  isOnDnc: Schema.Boolean,
  campaignActive: Schema.Int,
  campaignMax: Schema.Int,
  organizationActive: Schema.Int,
  organizationMax: Schema.Int
})

/** True when `worker` holds the lease of `state` on `conversationId` (`null`: no call yet). */
const holds = (state: ContactDialState, worker: string, conversationId: string | null): boolean =>
  state.lease !== null && state.lease.worker === worker && state.lease.conversationId === conversationId

/**
 * Whole seconds from the answer to the end; 0 for a call never answered. An answered call's
 * record takes the carrier's own figure instead when one was recorded (SqlCarrierCalls).
 */
const durationSec = (answeredAt: number | null, endedAt: number): number =>
  answeredAt === null ? 0 : Math.max(0, Math.floor((endedAt - answeredAt) / 1000))

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient

  const claim = claimDueContacts(sql)
  const renew = renewLeases(sql)
  const recoverExpired = recoverExpiredLeases(sql)
  const lockContact = lockContactForCall(sql)
  const writeStates = writeContactStates(sql)
  const enqueue = enqueueWebhookEvents(sql)

  const dialable = SqlSchema.findAll({
    Request: Schema.Void,
    Result: DialableRow,
    execute: () =>
      sql`
        SELECT k.id::text AS "id", k.organization_id::text AS "organizationId",
               k.calling_windows AS "callingWindows", k.timezone AS "timeZone",
               k.start_date::text AS "startDate", k.end_date::text AS "endDate", k.max_attempts AS "maxAttempts",
               (
                 SELECT c.next_attempt_at FROM contacts c
                 WHERE c.campaign_id = k.id AND ${waitingContact(sql, "c", sql`k.max_attempts`)}
                 ORDER BY c.next_attempt_at
                 LIMIT 1
               ) AS "nextDueAt"
        FROM campaigns k JOIN organizations o ON o.id = k.organization_id
        WHERE k.enabled AND k.deleted_at IS NULL AND o.outbound_dialing_enabled AND NOT o.billing_issue
        ORDER BY k.id`
  })

  // The round-robin: call n of the campaign (counting from 1) uses origin number n mod count.
  // The UPDATE locks the campaign row until commit, so concurrent starts take turns.
  const nextOrigin = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ from: E164 }),
    execute: (campaignId) =>
      sql`
        UPDATE campaigns SET dials = dials + 1
        WHERE id = ${campaignId}
        RETURNING origin_phone_numbers[((dials - 1) % cardinality(origin_phone_numbers))::int + 1] AS "from"`
  })

  const insertConversation = SqlSchema.findOne({
    Request: Schema.Struct({
      callId: Schema.String,
      organizationId: Schema.String,
      campaignId: Schema.String,
      contactId: Schema.String,
      from: Schema.String,
      to: Schema.String,
      startedAt: Schema.Date
    }),
    Result: Schema.Struct({ id: Schema.String }),
    execute: (c) =>
      sql`
        INSERT INTO conversations (
          call_id, organization_id, campaign_id, contact_id, direction, from_number, to_number, started_at
        ) VALUES (
          ${c.callId}, ${c.organizationId}, ${c.campaignId}, ${c.contactId}::bigint, 'outbound', ${c.from}, ${c.to},
          ${c.startedAt}
        )
        RETURNING id::text AS "id"`
  })

  const closeConversation = SqlSchema.findAll({
    Request: Schema.Struct({
      id: Schema.String,
      answeredAt: Schema.NullOr(Schema.Date),
      endedAt: Schema.Date,
      durationSec: Schema.Int,
      terminationReason: Schema.String
    }),
    Result: ConversationRow,
    execute: (c) =>
      sql`
        UPDATE conversations SET answered_at = ${c.answeredAt}, ended_at = ${c.endedAt},
               duration_sec = CASE WHEN ${c.answeredAt}::timestamptz IS NULL THEN ${c.durationSec}
                 ELSE coalesce(carrier_duration_sec, ${c.durationSec}) END,
               termination_reason = ${c.terminationReason}
        WHERE id = ${c.id} AND ended_at IS NULL
        RETURNING ${sql.literal(conversationColumns)}`
  })

  const deleteConversation = SqlSchema.findAll({
    Request: Schema.String,
    Result: ConversationRow,
    execute: (id) =>
      sql`
        DELETE FROM conversations WHERE id = ${id} AND ended_at IS NULL
        RETURNING ${sql.literal(conversationColumns)}`
  })

  const inspectRow = SqlSchema.findOneOption({
    Request: Schema.Struct({ campaignId: Schema.String, contactId: Schema.String, now: Schema.Date }),
    Result: InspectionRow,
    execute: ({ campaignId, contactId, now }) =>
      sql`
        SELECT ${sql.literal(dialStateColumns("c"))},
               EXISTS (
                 SELECT 1 FROM dnc_entries d WHERE d.organization_id = c.organization_id AND d.phone_number = c.phone_number
               ) AS "isOnDnc",
               (SELECT count(*) FROM contacts l WHERE l.campaign_id = c.campaign_id AND ${
        beingDialed(sql, now, "l")
      })::int
                 AS "campaignActive",
               k.max_concurrency AS "campaignMax",
               (SELECT count(*) FROM contacts l WHERE l.organization_id = c.organization_id AND ${
        beingDialed(sql, now, "l")
      })::int
                 AS "organizationActive",
               o.max_concurrency AS "organizationMax"
        FROM contacts c
        JOIN campaigns k ON k.id = c.campaign_id
        JOIN organizations o ON o.id = c.organization_id
        WHERE c.id = ${contactId}::bigint AND c.campaign_id = ${campaignId}`
  })

  /** Locks the contact; none when the id is malformed or the contact is gone. */
  const lock = (
    contactId: string
  ): Effect.Effect<Option.Option<typeof LockedContact.Type>, SqlError.SqlError | Schema.SchemaError> =>
    isSerialId(contactId) ? lockContact(contactId) : Effect.succeedNone

  /**
   * Stores the locked contact's next state, and writes `events` with its
   * `contact.status_changed` when the status moved. Nothing is written when the contact's
   * organization had no webhook endpoint when it was locked: the enqueue would find none, and
   * the hot path keeps its statement count (an endpoint registered during the step misses it).
   */
  const transition = (
    contactId: string,
    locked: typeof LockedContact.Type,
    next: ContactDialState,
    now: number,
    events: ReadonlyArray<OutgoingEvent> = []
  ) =>
    Effect.andThen(
      writeStates([toStateWrite(contactId, next)]),
      locked.webhooks
        ? enqueue(
          [...events, ...statusChanged({ ...locked, id: contactId }, locked.status, next.status)],
          fromMillis(now)
        )
        : Effect.succeed(0)
    )

  return DialerRepository.of({
    dialableCampaigns: Effect.fn("DialerRepository.dialableCampaigns")(
      // `now` is not needed: the flags do not depend on time, and whether a campaign is open
      // is the caller's (CallingSchedule).
      (_now: number) =>
        Effect.map(dialable(undefined), (rows) =>
          rows.map((row) => ({
            id: row.id,
            organizationId: row.organizationId,
            schedule: {
              windows: row.callingWindows,
              timeZone: row.timeZone,
              startDate: row.startDate,
              endDate: row.endDate
            },
            maxAttempts: row.maxAttempts,
            nextDueAt: row.nextDueAt === null ? null : row.nextDueAt.getTime()
          }))),
      orDieInfrastructure
    ),
    claim: Effect.fn("DialerRepository.claim")(
      (input) =>
        claim({
          worker: input.worker,
          campaignIds: input.campaignIds.filter(isUuid),
          now: fromMillis(input.now),
          expiresAt: fromMillis(input.now + input.leaseMs),
          limit: input.limit
        }),
      orDieInfrastructure
    ),
    startCall: Effect.fn("DialerRepository.startCall")(
      (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const claimLost: CallStart = { _tag: "NotPlaced", reason: "claim-lost" }
          const locked = yield* lock(input.contactId)
          if (Option.isNone(locked)) return claimLost
          const row = locked.value
          const state = toDialState(row)
          if (!holds(state, input.worker, null) || state.lease!.expiresAt <= input.now) return claimLost
          if (row.onDnc || state.status !== "TRYING") {
            yield* transition(input.contactId, row, release(state, "do-not-call", toPolicy(row), input.now), input.now)
            const notPlaced: CallStart = { _tag: "NotPlaced", reason: "do-not-call" }
            return notPlaced
          }
          if (!row.dialable) {
            yield* transition(
              input.contactId,
              row,
              release(state, "campaign-stopped", toPolicy(row), input.now),
              input.now
            )
            const notPlaced: CallStart = { _tag: "NotPlaced", reason: "campaign-stopped" }
            return notPlaced
          }
          const { from } = yield* nextOrigin(row.campaignId)
          const conversation = yield* insertConversation({
            callId: input.callId,
            organizationId: row.organizationId,
            campaignId: row.campaignId,
            contactId: input.contactId,
            from,
            to: row.phoneNumber,
            startedAt: fromMillis(input.now)
          })
          const record: ConversationRecord = {
            id: conversation.id,
            callId: input.callId,
            organizationId: row.organizationId,
            campaignId: row.campaignId,
            contactId: input.contactId,
            direction: "outbound",
            fromNumber: from,
            toNumber: row.phoneNumber,
            startedAt: fromMillis(input.now),
            answeredAt: null,
            endedAt: null,
            durationSec: null,
            terminationReason: null
          }
          yield* transition(input.contactId, row, dial(state, conversation.id, input.now), input.now, [
            callStarted(record)
          ])
          const started: CallStart = { _tag: "Dial", conversationId: conversation.id, from }
          return started
        })),
      orDieInfrastructure
    ),
    endCall: Effect.fn("DialerRepository.endCall")(
      (end: CallEnd) =>
        !isUuid(end.conversationId) ? Effect.void : sql.withTransaction(Effect.gen(function*() {
          const locked = yield* lock(end.contactId)
          const closed = yield* closeConversation({
            id: end.conversationId,
            answeredAt: end.answeredAt === null ? null : fromMillis(end.answeredAt),
            endedAt: fromMillis(end.endedAt),
            durationSec: durationSec(end.answeredAt, end.endedAt),
            terminationReason: terminationReasonFor(end.outcome, end.endedBy)
          })
          const ended = closed.map(callEnded)
          if (Option.isNone(locked) || !holds(toDialState(locked.value), end.worker, end.conversationId)) {
            if (Option.isNone(locked) || locked.value.webhooks) yield* enqueue(ended, fromMillis(end.endedAt))
            return
          }
          const next = applyOutcome(toDialState(locked.value), end.outcome, toPolicy(locked.value), end.endedAt)
          yield* transition(end.contactId, locked.value, next, end.endedAt, ended)
        })),
      orDieInfrastructure
    ),
    release: Effect.fn("DialerRepository.release")(
      (input: {
        readonly contactId: string
        readonly worker: string
        readonly reason: NotPlacedReason
        readonly now: number
        readonly conversationId?: string | undefined
      }) =>
        sql.withTransaction(Effect.gen(function*() {
          const conversationId = input.conversationId ?? null
          if (conversationId !== null && !isUuid(conversationId)) return
          const locked = yield* lock(input.contactId)
          if (Option.isNone(locked)) return
          const state = toDialState(locked.value)
          if (!holds(state, input.worker, conversationId)) return
          // The carrier refused the call before placing it: its record goes, and its end is told
          // as a call that failed at once.
          const removed = conversationId === null ? [] : yield* deleteConversation(conversationId)
          const ended = removed.map((record) =>
            callEnded({ ...record, endedAt: fromMillis(input.now), durationSec: 0, terminationReason: "failed" })
          )
          const next = release(state, input.reason, toPolicy(locked.value), input.now)
          yield* transition(input.contactId, locked.value, next, input.now, ended)
        })),
      orDieInfrastructure
    ),
    renewLeases: Effect.fn("DialerRepository.renewLeases")(
      (input) =>
        Effect.map(
          renew({
            worker: input.worker,
            now: fromMillis(input.now),
            expiresAt: fromMillis(input.now + input.leaseMs)
          }),
          (r) => r.count
        ),
      orDieInfrastructure
    ),
    recoverExpired: Effect.fn("DialerRepository.recoverExpired")(
      (input) => recoverExpired(input),
      orDieInfrastructure
    ),
    inspect: Effect.fn("DialerRepository.inspect")(
      (campaignId: string, contactId: string, now: number) =>
        !isUuid(campaignId) || !isSerialId(contactId)
          ? Effect.succeedNone
          : Effect.map(
            inspectRow({ campaignId, contactId, now: fromMillis(now) }),
            Option.map((row) => ({
              state: toDialState(row),
              isOnDnc: row.isOnDnc,
              load: {
                campaignActive: row.campaignActive,
                campaignMax: row.campaignMax,
                organizationActive: row.organizationActive,
                organizationMax: row.organizationMax
              }
            }))
          ),
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(DialerRepository, make)
