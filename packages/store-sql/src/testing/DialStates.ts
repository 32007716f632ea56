/**
 * Contacts in any dialing state, for tests that compare the dialer's SQL with ContactState:
 * fast-check generators of states and campaign schedules, and direct writes and reads of the
 * state columns (bypassing the dialer, which only ever reaches some states).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { CampaignRecord, NewCampaign } from "@voice-agent/core/Campaign"
import type { ContactDialState, ContactStatus, Lease, RetryPolicy } from "@voice-agent/core/ContactState"
import { ContactStatuses } from "@voice-agent/core/ContactState"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { Effect } from "effect"
import { Schema } from "effect"
import * as fc from "fast-check"
import { dialStateColumns, DialStateRow, toDialState, toStateWrite } from "../internal/dialState.ts"

/**
 * A campaign's schedule settings: open at every instant, weekdays 9 to 5 in Los Angeles, or
 * over (its end date passed), so that transitions which look ahead see every case.
 *
 * @category constructors
 */
export const schedules = {
  alwaysOpen: {
    callingWindows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
    timeZone: "UTC",
    startDate: "2020-01-01",
    endDate: null
  },
  officeHours: {
    callingWindows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
    timeZone: "America/Los_Angeles",
    startDate: "2020-01-01",
    endDate: null
  },
  over: {
    callingWindows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
    timeZone: "America/Los_Angeles",
    startDate: "2020-01-01",
    endDate: "2021-01-01"
  }
} satisfies Record<string, Partial<NewCampaign>>

/**
 * Campaign settings that the transitions read: attempts, retry delay, schedule.
 *
 * @category constructors
 */
export const policySettings: fc.Arbitrary<Partial<NewCampaign>> = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 4 }),
  retryDelayS: fc.constantFrom(0, 3600, 86_400),
  schedule: fc.constantFrom(schedules.alwaysOpen, schedules.officeHours, schedules.over)
}).map(({ schedule, ...rest }) => ({ ...rest, ...schedule }))

/**
 * The policy ContactState reads from a stored campaign.
 *
 * @category constructors
 */
export const policyOf = (campaign: CampaignRecord): RetryPolicy => ({
  maxAttempts: campaign.maxAttempts,
  retryDelayS: campaign.retryDelayS,
  schedule: {
    windows: campaign.callingWindows,
    timeZone: campaign.timeZone,
    startDate: campaign.startDate,
    endDate: campaign.endDate
  }
})

const uuid = fc.uuid({ version: 4 })

/**
 * A lease around `now` (expired, expiring exactly at `now`, or live), by one of two workers,
 * with or without a call.
 *
 * @category constructors
 */
export const lease = (now: number, options?: { readonly conversationId?: fc.Arbitrary<string | null> }) =>
  fc.record({
    worker: fc.constantFrom("worker-a", "worker-b"),
    expiresAt: fc.oneof(fc.constant(now), fc.integer({ min: now - 60_000, max: now + 60_000 })),
    conversationId: options?.conversationId ?? fc.option(uuid, { nil: null })
  }) satisfies fc.Arbitrary<Lease>

/**
 * Any state the table admits: a next attempt time exactly when `TRYING` (around `now`, due or
 * not), attempts 0..5, a lease or none on any status (a listed number fails a contact in a
 * call and keeps its lease).
 *
 * @category constructors
 */
export const state = (
  now: number,
  options?: {
    readonly statuses?: ReadonlyArray<ContactStatus>
    readonly lease?: fc.Arbitrary<Lease | null>
  }
): fc.Arbitrary<ContactDialState> =>
  fc.record({
    status: fc.constantFrom(...(options?.statuses ?? ContactStatuses)),
    attempts: fc.integer({ min: 0, max: 5 }),
    next: fc.oneof(fc.constant(now), fc.integer({ min: now - 7_200_000, max: now + 7_200_000 })),
    lastAttemptedAt: fc.option(fc.integer({ min: now - 86_400_000, max: now }), { nil: null }),
    lease: options?.lease ?? fc.option(lease(now), { nil: null })
  }).map(({ next, ...s }) => ({ ...s, nextAttemptAt: s.status === "TRYING" ? next : null }))

/**
 * Inserts contacts of the campaign with the given numbers and states; answers their ids in
 * the same order.
 *
 * @category constructors
 */
export const insert = (
  campaign: { readonly id: string; readonly organizationId: string },
  contacts: ReadonlyArray<{ readonly phoneNumber: E164; readonly state: ContactDialState }>
) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const rows = contacts.map((c, ord) => ({ ...toStateWrite("0", c.state), phone_number: c.phoneNumber, ord }))
    const inserted = yield* sql<{ id: string }>`
      INSERT INTO contacts (
        campaign_id, organization_id, phone_number, status, attempts, next_attempt_at, last_attempted_at,
        dialing_worker, dialing_lease_expires_at, dialing_conversation_id
      )
      SELECT ${campaign.id}, ${campaign.organizationId}, s.phone_number, s.status, s.attempts, s.next_attempt_at,
             s.last_attempted_at, s.dialing_worker, s.dialing_lease_expires_at, s.dialing_conversation_id
      FROM jsonb_to_recordset(${sql.json(rows)}) AS s(
        phone_number text, status text, attempts int, next_attempt_at timestamptz, last_attempted_at timestamptz,
        dialing_worker text, dialing_lease_expires_at timestamptz, dialing_conversation_id uuid, ord int
      )
      ORDER BY s.ord
      RETURNING id::text AS "id"`
    return inserted.map((row) => row.id).sort((a, b) => Number(a) - Number(b))
  })

const decodeRow = Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String, ...DialStateRow.fields }))

/**
 * The states of the given contacts, in the order of `ids` (`undefined` for a contact gone).
 *
 * @category constructors
 */
export const read = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const rows = yield* sql`
      SELECT c.id::text AS "id", ${sql.literal(dialStateColumns("c"))}
      FROM contacts c WHERE c.id = ANY(${ids}::bigint[])`
    const byId = new Map(rows.map((row) => {
      const decoded = decodeRow(row)
      return [decoded.id, toDialState(decoded)] as const
    }))
    return ids.map((id) => byId.get(id))
  })

/**
 * Runs a fast-check property whose body is an Effect, with the services of the calling
 * effect (its failures and defects fail the property, and fast-check shrinks them).
 *
 * @category constructors
 */
export const property = <T, R>(
  arbitrary: fc.Arbitrary<T>,
  body: (value: T) => Effect.Effect<void, unknown, R>,
  numRuns = 25
) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(arbitrary, (value) => Effect.runPromiseWith(context)(Effect.orDie(body(value)))),
        { numRuns }
      )
    )
  })
