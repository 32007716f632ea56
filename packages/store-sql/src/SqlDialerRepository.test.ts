import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import type { CampaignRecord, NewCampaign } from "@voice-agent/core/Campaign"
import type { ContactDialState, NotPlacedReason } from "@voice-agent/core/ContactState"
import * as ContactState from "@voice-agent/core/ContactState"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { randomBytes, randomUUID } from "node:crypto"
import * as Database from "./Database.ts"
import * as SqlDialerRepository from "./SqlDialerRepository.ts"
import * as SqlStorage from "./SqlStorage.ts"
import * as DialStates from "./testing/DialStates.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

/** Monday 2026-03-02, 09:00 in Los Angeles: inside the fixtures' Monday 9-to-5 window. */
const now = Date.parse("2026-03-02T17:00:00.000Z")
const leaseMs = 30_000
const seconds = (n: number) => now + n * 1000

const callId = () => `call-${randomBytes(8).toString("hex")}`

const upload = (campaign: CampaignRecord, numbers: ReadonlyArray<E164>, at = now) =>
  ContactRepository.use((contacts) =>
    contacts.upload(campaign, numbers.map((n) => Fixtures.contact(n)), {
      allowDuplicates: true,
      now: new Date(at)
    })
  ).pipe(Effect.orDie)

const stateOf = (id: string) => Effect.map(DialStates.read([id]), ([state]) => state)

/** A campaign of its own organization, with contacts in the given states; their ids in order. */
const seeded = (
  states: ReadonlyArray<ContactDialState>,
  options?: { readonly campaign?: Partial<NewCampaign>; readonly listed?: ReadonlyArray<boolean> }
) =>
  Effect.gen(function*() {
    const org = yield* Fixtures.organization({ maxConcurrency: 1000 })
    const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 1000, ...options?.campaign })
    const numbers = states.map((_, i) => Fixtures.e164(i))
    const ids = yield* DialStates.insert(campaign, states.map((state, i) => ({ phoneNumber: numbers[i]!, state })))
    const listed = numbers.filter((_, i) => options?.listed?.[i] === true)
    if (listed.length > 0) {
      const sql = yield* SqlClient.SqlClient
      // Straight into the table: DncRepository.add would also sweep the contacts.
      yield* sql`
        INSERT INTO dnc_entries (organization_id, phone_number)
        SELECT ${org.id}, n FROM unnest(${listed}::text[]) AS n`
    }
    return { org, campaign, ids, numbers }
  })

/** The state with a conversation id of its own, if its lease carries one (generated ids repeat). */
const freshConversation = (state: ContactDialState): ContactDialState =>
  state.lease?.conversationId == null ? state : { ...state, lease: { ...state.lease, conversationId: randomUUID() } }

const backends = await TestDatabase.backends()

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`SqlDialerRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "120 seconds" })((it) => {
      describe("dialableCampaigns", () => {
        it.effect("lists the campaigns the flags allow, each with its earliest waiting contact", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const campaigns = yield* CampaignRepository
            const org = yield* Fixtures.organization()
            const busy = yield* Fixtures.campaign(org.id, { maxAttempts: 2 })
            const empty = yield* Fixtures.campaign(org.id)
            const paused = yield* Fixtures.campaign(org.id)
            const deleted = yield* Fixtures.campaign(org.id)
            yield* campaigns.update(org.id, paused.id, { enabled: false }).pipe(Effect.orDie)
            yield* campaigns.softDelete(org.id, deleted.id).pipe(Effect.orDie)
            const notDialing = yield* Fixtures.campaign(
              (yield* Fixtures.organization({ outboundDialingEnabled: false })).id
            )
            const billing = yield* Fixtures.campaign((yield* Fixtures.organization({ billingIssue: true })).id)
            // Earliest waiting: the leased, exhausted, listed and final ones are earlier and do not count.
            const waiting = (next: number): ContactDialState => ({ ...ContactState.initial(next) })
            yield* DialStates.insert(busy, [
              { phoneNumber: Fixtures.e164(1), state: waiting(seconds(50)) },
              { phoneNumber: Fixtures.e164(2), state: waiting(seconds(90)) },
              {
                phoneNumber: Fixtures.e164(3),
                state: { ...waiting(seconds(10)), lease: { worker: "w", expiresAt: seconds(5), conversationId: null } }
              },
              { phoneNumber: Fixtures.e164(4), state: { ...waiting(seconds(20)), attempts: 2 } },
              { phoneNumber: Fixtures.e164(5), state: waiting(seconds(30)) },
              { phoneNumber: Fixtures.e164(6), state: { ...waiting(0), status: "COMPLETED", nextAttemptAt: null } }
            ])
            const sql = yield* SqlClient.SqlClient
            yield* sql`INSERT INTO dnc_entries (organization_id, phone_number) VALUES (${org.id}, ${Fixtures.e164(5)})`

            const listed = (yield* dialer.dialableCampaigns(now)).filter((c) =>
              [busy, empty, paused, deleted, notDialing, billing].some((k) => k.id === c.id)
            )
            const byId = new Map(listed.map((c) => [c.id, c]))
            assert.deepStrictEqual([...byId.keys()].sort(), [busy.id, empty.id].sort())
            assert.deepStrictEqual(byId.get(busy.id), {
              id: busy.id,
              organizationId: org.id,
              schedule: {
                windows: busy.callingWindows,
                timeZone: busy.timeZone,
                startDate: busy.startDate,
                endDate: busy.endDate
              },
              maxAttempts: 2,
              nextDueAt: seconds(50)
            })
            assert.strictEqual(byId.get(empty.id)?.nextDueAt, null)
          }))
      })

      describe("claim", () => {
        it.effect("leases callable contacts oldest due first, up to the limit", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 5 })
            yield* upload(campaign, [Fixtures.e164(1)], seconds(-10))
            yield* upload(campaign, [Fixtures.e164(2)], seconds(-30))
            yield* upload(campaign, [Fixtures.e164(3)], seconds(-20))
            yield* upload(campaign, [Fixtures.e164(4)], seconds(10))
            const claimed = yield* dialer.claim({ worker: "w1", campaignIds: [campaign.id], now, leaseMs, limit: 2 })
            assert.deepStrictEqual(claimed.map((c) => c.phoneNumber), [Fixtures.e164(2), Fixtures.e164(3)])
            const [first] = claimed
            assert.deepStrictEqual({ ...first!, contactId: "" }, {
              contactId: "",
              campaignId: campaign.id,
              organizationId: org.id,
              phoneNumber: Fixtures.e164(2),
              data: {}
            })
            assert.deepStrictEqual((yield* stateOf(first!.contactId))?.lease, {
              worker: "w1",
              expiresAt: now + leaseMs,
              conversationId: null
            })
            const rest = yield* dialer.claim({ worker: "w2", campaignIds: [campaign.id], now, leaseMs, limit: 10 })
            assert.deepStrictEqual(rest.map((c) => c.phoneNumber), [Fixtures.e164(1)], "the not yet due one stays")
            assert.deepStrictEqual(
              yield* dialer.claim({ worker: "w2", campaignIds: [campaign.id], now, leaseMs, limit: 10 }),
              []
            )
          }))

        it.effect("holds the campaign's cap, counting live leases only", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const lease = (expiresAt: number) => ({ worker: "other", expiresAt, conversationId: null })
            const { campaign } = yield* seeded([
              { ...ContactState.initial(seconds(-100)), lease: lease(seconds(1)) },
              { ...ContactState.initial(seconds(-100)), lease: lease(now) },
              ...[1, 2, 3, 4].map((i) => ContactState.initial(seconds(-i)))
            ], { campaign: { maxConcurrency: 3 } })
            const claimed = yield* dialer.claim({ worker: "w", campaignIds: [campaign.id], now, leaseMs, limit: 10 })
            assert.deepStrictEqual(claimed.map((c) => c.phoneNumber), [Fixtures.e164(5), Fixtures.e164(4)])
          }))

        it.effect("holds the organization's cap across its campaigns, oldest due first", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const org = yield* Fixtures.organization({ maxConcurrency: 3 })
            const a = yield* Fixtures.campaign(org.id, { maxConcurrency: 5 })
            const b = yield* Fixtures.campaign(org.id, { maxConcurrency: 5 })
            yield* DialStates.insert(
              a,
              [1, 3, 5].map((i) => ({
                phoneNumber: Fixtures.e164(i),
                state: ContactState.initial(seconds(-i))
              }))
            )
            yield* DialStates.insert(
              b,
              [2, 4, 6].map((i) => ({
                phoneNumber: Fixtures.e164(i),
                state: ContactState.initial(seconds(-i))
              }))
            )
            const claimed = yield* dialer.claim({ worker: "w", campaignIds: [a.id, b.id], now, leaseMs, limit: 10 })
            assert.deepStrictEqual(claimed.map((c) => c.phoneNumber), [6, 5, 4].map(Fixtures.e164))
            assert.deepStrictEqual(
              yield* dialer.claim({ worker: "w", campaignIds: [a.id, b.id], now, leaseMs, limit: 10 }),
              []
            )
          }))

        it.effect("claims nothing from a paused or deleted campaign, nor for an organization that may not dial", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const campaigns = yield* CampaignRepository
            const claimAll = (campaignId: string) =>
              dialer.claim({ worker: "w", campaignIds: [campaignId], now, leaseMs, limit: 10 })
            const paused = yield* seeded([ContactState.initial(now)])
            yield* campaigns.update(paused.org.id, paused.campaign.id, { enabled: false }).pipe(Effect.orDie)
            assert.deepStrictEqual(yield* claimAll(paused.campaign.id), [])
            const deleted = yield* seeded([ContactState.initial(now)])
            yield* campaigns.softDelete(deleted.org.id, deleted.campaign.id).pipe(Effect.orDie)
            assert.deepStrictEqual(yield* claimAll(deleted.campaign.id), [])
            for (const flag of ["outbound_dialing_enabled = false", "billing_issue = true"]) {
              const { campaign, org } = yield* seeded([ContactState.initial(now)])
              const sql = yield* SqlClient.SqlClient
              yield* sql`UPDATE organizations SET ${sql.literal(flag)} WHERE id = ${org.id}`
              assert.deepStrictEqual(yield* claimAll(campaign.id), [], flag)
            }
            assert.deepStrictEqual(yield* claimAll("not-a-uuid"), [])
            assert.deepStrictEqual(
              yield* dialer.claim({ worker: "w", campaignIds: [], now, leaseMs, limit: 10 }),
              []
            )
          }))

        it.effect("claim and has-callable agree with ContactState.isCallable on generated contacts", () =>
          DialStates.property(
            fc.record({
              states: fc.array(DialStates.state(now), { minLength: 1, maxLength: 12 }),
              listed: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
              maxAttempts: fc.integer({ min: 1, max: 4 }),
              enabled: fc.boolean(),
              deleted: fc.boolean(),
              outboundDialingEnabled: fc.boolean(),
              billingIssue: fc.boolean()
            }),
            (g) =>
              Effect.gen(function*() {
                const dialer = yield* DialerRepository
                const contacts = yield* ContactRepository
                const sql = yield* SqlClient.SqlClient
                const { campaign, ids, org } = yield* seeded(g.states, {
                  listed: g.listed,
                  campaign: { maxAttempts: g.maxAttempts, ...DialStates.schedules.alwaysOpen }
                })
                yield* sql`
                  UPDATE organizations SET outbound_dialing_enabled = ${g.outboundDialingEnabled},
                                           billing_issue = ${g.billingIssue}
                  WHERE id = ${org.id}`
                yield* sql`
                  UPDATE campaigns SET enabled = ${g.enabled},
                                       deleted_at = ${g.deleted ? new Date(now) : null}
                  WHERE id = ${campaign.id}`
                const dialing = {
                  enabled: g.enabled,
                  deleted: g.deleted,
                  maxAttempts: g.maxAttempts,
                  schedule: DialStates.policyOf(campaign).schedule
                }
                const contactLevel = g.states.map((state, i) =>
                  ContactState.isCallable(state, { ...dialing, enabled: true, deleted: false }, g.listed[i]!, now)
                )
                assert.strictEqual(
                  yield* contacts.hasCallable(campaign.id, { maxAttempts: g.maxAttempts, now: new Date(now) }),
                  contactLevel.some(Boolean)
                )
                const expected = ids.filter((_, i) =>
                  ContactState.isCallable(g.states[i]!, dialing, g.listed[i]!, now) && g.outboundDialingEnabled &&
                  !g.billingIssue
                )
                const claimed = yield* dialer.claim({
                  worker: "w",
                  campaignIds: [campaign.id],
                  now,
                  leaseMs,
                  limit: 100
                })
                assert.deepStrictEqual(claimed.map((c) => c.contactId).sort(), [...expected].sort())
              })
          ))
      })

      describe("startCall", () => {
        it.effect("creates the conversation, marks the lease with it, and uses origin numbers round-robin", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const conversations = yield* ConversationRepository
            const origins: Array<E164> = [Fixtures.randomE164(), Fixtures.randomE164(), Fixtures.randomE164()]
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id, { originPhoneNumbers: origins, maxConcurrency: 10 })
            yield* upload(campaign, [1, 2, 3, 4].map(Fixtures.e164), seconds(-60))
            const claimed = yield* dialer.claim({ worker: "w", campaignIds: [campaign.id], now, leaseMs, limit: 4 })
            const starts = []
            for (const contact of claimed) {
              const id = callId()
              const start = yield* dialer.startCall({ contactId: contact.contactId, worker: "w", callId: id, now })
              starts.push({ id, start, contact })
            }
            assert.deepStrictEqual(starts.map((s) => s.start._tag === "Dial" && s.start.from), [
              ...origins,
              origins[0]!
            ])
            for (const { contact, id, start } of starts) {
              assert(start._tag === "Dial")
              const record = Option.getOrThrow(yield* conversations.findByCallId(org.id, id))
              assert.deepStrictEqual(record, {
                id: start.conversationId,
                callId: id,
                organizationId: org.id,
                campaignId: campaign.id,
                contactId: contact.contactId,
                direction: "outbound",
                fromNumber: start.from,
                toNumber: contact.phoneNumber,
                startedAt: new Date(now),
                answeredAt: null,
                endedAt: null,
                durationSec: null,
                terminationReason: null
              })
              assert.deepStrictEqual(yield* stateOf(contact.contactId), {
                ...ContactState.initial(seconds(-60)),
                lastAttemptedAt: now,
                lease: { worker: "w", expiresAt: now + leaseMs, conversationId: start.conversationId }
              })
            }
          }))

        it.effect("places nothing when the caller does not hold a live lease", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const lease = (worker: string, expiresAt: number, conversationId: string | null = null) => ({
              worker,
              expiresAt,
              conversationId
            })
            const states: Array<ContactDialState> = [
              { ...ContactState.initial(now), lease: lease("other", seconds(10)) },
              { ...ContactState.initial(now), lease: lease("w", now) },
              ContactState.initial(now),
              { ...ContactState.initial(now), lease: lease("w", seconds(10), "6f1c3c39-3c3c-4c3c-8c3c-3c3c3c3c3c3c") }
            ]
            const { ids } = yield* seeded(states)
            for (const contactId of [...ids, "999999999999", "junk"]) {
              assert.deepStrictEqual(
                yield* dialer.startCall({ contactId, worker: "w", callId: callId(), now }),
                { _tag: "NotPlaced", reason: "claim-lost" }
              )
            }
            assert.deepStrictEqual(yield* DialStates.read(ids), states, "nothing changed")
          }))

        it.effect("fails the contact when its number is on the DNC list, also when the sweep got there first", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const dnc = yield* DncRepository
            const held = { worker: "w", expiresAt: seconds(10), conversationId: null }
            const { ids, numbers, org } = yield* seeded(
              [{ ...ContactState.initial(now), lease: held }, { ...ContactState.initial(now), lease: held }],
              { listed: [true, false] }
            )
            yield* dnc.add(org.id, [numbers[1]!])
            for (const contactId of ids) {
              assert.deepStrictEqual(
                yield* dialer.startCall({ contactId, worker: "w", callId: callId(), now }),
                { _tag: "NotPlaced", reason: "do-not-call" }
              )
            }
            const failed = { ...ContactState.initial(now), status: "FAILED" as const, nextAttemptAt: null }
            assert.deepStrictEqual(yield* DialStates.read(ids), [failed, failed])
          }))

        it.effect("places nothing once the campaign is paused or deleted, or its organization may not dial", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const campaigns = yield* CampaignRepository
            const organizations = yield* OrganizationRepository
            const held = { worker: "w", expiresAt: seconds(10), conversationId: null }
            const stops = [
              (org: { id: string }, campaignId: string) =>
                Effect.asVoid(Effect.orDie(campaigns.update(org.id, campaignId, { enabled: false }))),
              (org: { id: string }, campaignId: string) =>
                Effect.asVoid(Effect.orDie(campaigns.softDelete(org.id, campaignId))),
              (org: { id: string }) =>
                Effect.asVoid(Effect.orDie(organizations.update(org.id, { outboundDialingEnabled: false })))
            ]
            for (const stop of stops) {
              const claimed = { ...ContactState.initial(now), lease: held }
              const { campaign, ids, org } = yield* seeded([claimed])
              yield* stop(org, campaign.id)
              assert.deepStrictEqual(
                yield* dialer.startCall({ contactId: ids[0]!, worker: "w", callId: callId(), now }),
                { _tag: "NotPlaced", reason: "campaign-stopped" }
              )
              assert.deepStrictEqual(yield* DialStates.read(ids), [ContactState.initial(now)], "released, as it was")
            }
          }))
      })

      describe("endCall", () => {
        it.effect("closes the conversation and moves the contact on", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const conversations = yield* ConversationRepository
            const org = yield* Fixtures.organization()
            const campaign = yield* Fixtures.campaign(org.id, { maxAttempts: 3, retryDelayS: 3600, maxConcurrency: 2 })
            yield* upload(campaign, [Fixtures.e164(1), Fixtures.e164(2)])
            const [answered, busy] = yield* dialer.claim({
              worker: "w",
              campaignIds: [campaign.id],
              now,
              leaseMs,
              limit: 2
            })
            const calls = [callId(), callId()]
            const [a, b] = [
              yield* dialer.startCall({ contactId: answered!.contactId, worker: "w", callId: calls[0]!, now }),
              yield* dialer.startCall({ contactId: busy!.contactId, worker: "w", callId: calls[1]!, now })
            ]
            assert(a?._tag === "Dial" && b?._tag === "Dial")
            yield* dialer.endCall({
              contactId: answered!.contactId,
              worker: "w",
              conversationId: a.conversationId,
              outcome: "completed",
              endedBy: "agent",
              answeredAt: seconds(5),
              endedAt: seconds(5) + 12_999
            })
            yield* dialer.endCall({
              contactId: busy!.contactId,
              worker: "w",
              conversationId: b.conversationId,
              outcome: "busy",
              endedBy: "remote",
              answeredAt: null,
              endedAt: seconds(3)
            })
            const record = (id: string) =>
              Effect.map(conversations.findByCallId(org.id, id), (r) => {
                const { answeredAt, durationSec, endedAt, terminationReason } = Option.getOrThrow(r)
                return { answeredAt, endedAt, durationSec, terminationReason }
              })
            assert.deepStrictEqual(yield* record(calls[0]!), {
              answeredAt: new Date(seconds(5)),
              endedAt: new Date(seconds(5) + 12_999),
              durationSec: 12,
              terminationReason: "bot-hangup"
            })
            assert.deepStrictEqual(yield* record(calls[1]!), {
              answeredAt: null,
              endedAt: new Date(seconds(3)),
              durationSec: 0,
              terminationReason: "busy"
            })
            assert.deepStrictEqual(yield* DialStates.read([answered!.contactId, busy!.contactId]), [
              { status: "COMPLETED", attempts: 1, nextAttemptAt: null, lastAttemptedAt: now, lease: null },
              {
                status: "TRYING",
                attempts: 1,
                nextAttemptAt: seconds(3) + 3_600_000,
                lastAttemptedAt: now,
                lease: null
              }
            ])
          }))

        it.effect("equals ContactState.applyOutcome on generated states and policies", () =>
          DialStates.property(
            fc.record({
              state: DialStates.state(now, {
                statuses: ["TRYING", "TRYING", "FAILED"],
                lease: DialStates.lease(now, { conversationId: fc.uuid({ version: 4 }) })
              }),
              policy: DialStates.policySettings,
              outcome: fc.constantFrom(...ContactState.CallOutcomes),
              endedBy: fc.constantFrom("remote" as const, "agent" as const),
              endedAt: fc.integer({ min: now, max: now + 600_000 }),
              holder: fc.constantFrom("worker-a", "worker-b")
            }),
            (g) =>
              Effect.gen(function*() {
                const dialer = yield* DialerRepository
                const { campaign, ids } = yield* seeded([g.state], { campaign: g.policy })
                yield* dialer.endCall({
                  contactId: ids[0]!,
                  worker: g.holder,
                  conversationId: g.state.lease!.conversationId!,
                  outcome: g.outcome,
                  endedBy: g.endedBy,
                  answeredAt: null,
                  endedAt: g.endedAt
                })
                const expected = g.state.lease!.worker === g.holder
                  ? ContactState.applyOutcome(g.state, g.outcome, DialStates.policyOf(campaign), g.endedAt)
                  : g.state
                assert.deepStrictEqual(yield* stateOf(ids[0]!), expected)
              })
          ))

        it.effect("after recovery, a late end changes neither the contact nor the closed conversation", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const conversations = yield* ConversationRepository
            const { campaign, ids, org } = yield* seeded([ContactState.initial(now)])
            yield* dialer.claim({ worker: "w", campaignIds: [campaign.id], now, leaseMs, limit: 1 })
            const id = callId()
            const start = yield* dialer.startCall({ contactId: ids[0]!, worker: "w", callId: id, now })
            assert(start._tag === "Dial")
            assert.isAtLeast(yield* dialer.recoverExpired({ now: now + leaseMs, limit: 100_000 }), 1)
            const recovered = yield* stateOf(ids[0]!)
            assert.deepStrictEqual(recovered?.lease, null)
            yield* dialer.endCall({
              contactId: ids[0]!,
              worker: "w",
              conversationId: start.conversationId,
              outcome: "completed",
              endedBy: "remote",
              answeredAt: seconds(1),
              endedAt: seconds(40)
            })
            assert.deepStrictEqual(yield* stateOf(ids[0]!), recovered)
            const record = Option.getOrThrow(yield* conversations.findByCallId(org.id, id))
            assert.deepStrictEqual([record.terminationReason, record.endedAt], [
              "bot-failure",
              new Date(now + leaseMs)
            ])
          }))
      })

      describe("release", () => {
        it.effect("equals ContactState.release on generated states, and removes a refused call's record", () =>
          DialStates.property(
            fc.record({
              state: DialStates.state(now, { statuses: ["TRYING", "TRYING", "FAILED"], lease: DialStates.lease(now) }),
              policy: DialStates.policySettings,
              reason: fc.constantFrom<NotPlacedReason>(
                "do-not-call",
                "campaign-stopped",
                "carrier-retryable",
                "agent-declined",
                "shutdown",
                "claim-lost"
              ),
              holder: fc.constantFrom("worker-a", "worker-b")
            }),
            (g) =>
              Effect.gen(function*() {
                const dialer = yield* DialerRepository
                const sql = yield* SqlClient.SqlClient
                const state = freshConversation(g.state)
                const { campaign, ids, org } = yield* seeded([state], { campaign: g.policy })
                const conversationId = state.lease!.conversationId
                if (conversationId !== null) {
                  yield* sql`
                    INSERT INTO conversations (id, call_id, organization_id, campaign_id, contact_id, direction,
                                               from_number, to_number, started_at)
                    VALUES (${conversationId}, ${callId()}, ${org.id}, ${campaign.id}, ${ids[0]!}::bigint, 'outbound',
                            ${Fixtures.e164(0)}, ${Fixtures.e164(0)}, ${new Date(now)})`
                }
                yield* dialer.release({
                  contactId: ids[0]!,
                  worker: g.holder,
                  reason: g.reason,
                  now,
                  conversationId: conversationId ?? undefined
                })
                const held = state.lease!.worker === g.holder
                const expected = held
                  ? ContactState.release(state, g.reason, DialStates.policyOf(campaign), now)
                  : state
                assert.deepStrictEqual(yield* stateOf(ids[0]!), expected)
                if (conversationId !== null) {
                  const rows = yield* sql`SELECT 1 FROM conversations WHERE id = ${conversationId}`
                  assert.strictEqual(rows.length, held ? 0 : 1)
                }
              })
          ))
      })

      describe("renewLeases", () => {
        it.effect("extends the worker's live leases only, answering how many", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const worker = `w-${randomBytes(4).toString("hex")}`
            const lease = (w: string, expiresAt: number) => ({ worker: w, expiresAt, conversationId: null })
            const states: Array<ContactDialState> = [
              { ...ContactState.initial(now), lease: lease(worker, seconds(1)) },
              { ...ContactState.initial(now), lease: lease(worker, seconds(20)) },
              { ...ContactState.initial(now), lease: lease(worker, now) },
              { ...ContactState.initial(now), lease: lease("other", seconds(1)) },
              ContactState.initial(now)
            ]
            const { ids } = yield* seeded(states)
            assert.strictEqual(yield* dialer.renewLeases({ worker, now, leaseMs }), 2)
            const renewed = { ...ContactState.initial(now), lease: lease(worker, now + leaseMs) }
            assert.deepStrictEqual(yield* DialStates.read(ids), [renewed, renewed, ...states.slice(2)])
          }))
      })

      describe("recoverExpired", () => {
        it.effect("takes back expired leases: a call ends as lost and its record closes, a claim is released", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const conversations = yield* ConversationRepository
            const { campaign, ids, org } = yield* seeded(
              [ContactState.initial(seconds(-10)), ContactState.initial(seconds(-5))],
              { campaign: { maxAttempts: 2, retryDelayS: 3600 } }
            )
            // Earlier tests' leases that expire before these: recovered first, so the counts are these.
            yield* dialer.recoverExpired({ now: now + leaseMs - 1, limit: 100_000 })
            yield* dialer.claim({ worker: "dead", campaignIds: [campaign.id], now, leaseMs, limit: 2 })
            const id = callId()
            const start = yield* dialer.startCall({ contactId: ids[0]!, worker: "dead", callId: id, now })
            assert(start._tag === "Dial")
            assert.strictEqual(yield* dialer.recoverExpired({ now: now + leaseMs - 1, limit: 100_000 }), 0)
            const later = now + leaseMs + 5000
            assert.isAtLeast(yield* dialer.recoverExpired({ now: later, limit: 100_000 }), 2)
            assert.deepStrictEqual(yield* DialStates.read(ids), [
              {
                status: "TRYING",
                attempts: 1,
                nextAttemptAt: later + 3_600_000,
                lastAttemptedAt: now,
                lease: null
              },
              ContactState.initial(seconds(-5))
            ])
            const record = Option.getOrThrow(yield* conversations.findByCallId(org.id, id))
            assert.deepStrictEqual(
              [record.endedAt, record.durationSec, record.terminationReason],
              [new Date(later), 0, "bot-failure"]
            )
          }))

        it.effect("equals ContactState.recover on generated states, up to the limit, oldest expiry first", () =>
          DialStates.property(
            fc.record({
              states: fc.array(
                DialStates.state(now, { statuses: ["TRYING", "TRYING", "FAILED"], lease: DialStates.lease(now) }),
                { minLength: 1, maxLength: 8 }
              ),
              policy: DialStates.policySettings
            }),
            (g) =>
              Effect.gen(function*() {
                const dialer = yield* DialerRepository
                // Recovery takes every expired lease of the database: first those earlier tests left.
                yield* dialer.recoverExpired({ now, limit: 100_000 })
                const { campaign, ids } = yield* seeded(g.states, { campaign: g.policy })
                const policy = DialStates.policyOf(campaign)
                const expired = g.states.filter((s) => ContactState.hasExpiredLease(s, now)).length
                assert.strictEqual(yield* dialer.recoverExpired({ now, limit: 100 }), expired)
                assert.deepStrictEqual(
                  yield* DialStates.read(ids),
                  g.states.map((s) => ContactState.hasExpiredLease(s, now) ? ContactState.recover(s, policy, now) : s)
                )
              }),
            15
          ))
      })

      describe("inspect", () => {
        it.effect("reads the contact's state, its DNC listing and the load on both caps", () =>
          Effect.gen(function*() {
            const dialer = yield* DialerRepository
            const lease = (expiresAt: number) => ({ worker: "w", expiresAt, conversationId: null })
            const states: Array<ContactDialState> = [
              { ...ContactState.initial(now), lease: lease(seconds(10)) },
              { ...ContactState.initial(now), lease: lease(now) },
              ContactState.initial(now)
            ]
            const { campaign, ids, org } = yield* seeded(states, { listed: [false, false, true] })
            const sibling = yield* Fixtures.campaign(org.id)
            yield* DialStates.insert(sibling, [{
              phoneNumber: Fixtures.e164(9),
              state: { ...ContactState.initial(now), lease: lease(seconds(1)) }
            }])
            const inspected = yield* dialer.inspect(campaign.id, ids[2]!, now)
            assert.deepStrictEqual(
              inspected,
              Option.some({
                state: states[2]!,
                isOnDnc: true,
                load: { campaignActive: 1, campaignMax: 1000, organizationActive: 2, organizationMax: 1000 }
              })
            )
            assert.deepStrictEqual(
              Option.map(yield* dialer.inspect(campaign.id, ids[1]!, now), (i) => [i.state, i.isOnDnc]),
              Option.some([states[1]!, false])
            )
            assert.isTrue(Option.isNone(yield* dialer.inspect(sibling.id, ids[0]!, now)))
            assert.isTrue(Option.isNone(yield* dialer.inspect(campaign.id, "junk", now)))
            assert.isTrue(Option.isNone(yield* dialer.inspect("junk", ids[0]!, now)))
          }))
      })
    })
  })
}

const postgres = backends.find((b) => b.name === "postgres")!

describe.skipIf(postgres.skip !== undefined)("SqlDialerRepository claims across daemons on PostgreSQL", () => {
  it.live(
    "four claimers on connections of their own never exceed either cap nor take a held contact",
    () =>
      Effect.gen(function*() {
        const url = Redacted.make(yield* TestDatabase.freshDatabaseUrl())
        const setup = yield* Layer.build(
          Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(url, { maxConnections: 2 }))))
        )
        const { campaigns, org } = yield* Effect.gen(function*() {
          const org = yield* Fixtures.organization({ maxConcurrency: 8 })
          const campaigns = [
            yield* Fixtures.campaign(org.id, { maxConcurrency: 5 }),
            yield* Fixtures.campaign(org.id, { maxConcurrency: 5 }),
            yield* Fixtures.campaign(org.id, { maxConcurrency: 5 })
          ]
          for (const [k, campaign] of campaigns.entries()) {
            yield* upload(campaign, Array.from({ length: 40 }, (_, i) => Fixtures.e164(k * 100 + i)), seconds(-k - 1))
          }
          return { campaigns, org }
        }).pipe(Effect.provide(setup))
        const campaignIds = campaigns.map((c) => c.id)
        const sql = Context.get(setup, SqlClient.SqlClient)
        const load = sql<{ campaignId: string; active: number }>`
        SELECT campaign_id::text AS "campaignId", count(*)::int AS "active" FROM contacts
        WHERE organization_id = ${org.id} AND dialing_lease_expires_at > ${new Date(now)}
        GROUP BY campaign_id`

        // Who holds what, as the claimers see it: a claim must never return a contact another holds.
        // A claimer forgets a contact before releasing it, so this never lags the database.
        const held = new Map<string, string>()
        const violations: Array<string> = []
        let maxOrganization = 0
        const claimer = (worker: string) =>
          Effect.gen(function*() {
            const context = yield* Layer.build(
              Layer.fresh(
                SqlDialerRepository.layer.pipe(Layer.provideMerge(PgClient.layer({ url, maxConnections: 1 })))
              )
            )
            const dialer = Context.get(context, DialerRepository)
            const mine: Array<string> = []
            for (let round = 0; round < 40; round++) {
              const claimed = yield* dialer.claim({ worker, campaignIds, now, leaseMs, limit: 1 + (round % 4) })
              for (const contact of claimed) {
                const holder = held.get(contact.contactId)
                if (holder !== undefined) violations.push(`${worker} took ${contact.contactId} from ${holder}`)
                held.set(contact.contactId, worker)
                mine.push(contact.contactId)
              }
              const loads = yield* load
              const total = loads.reduce((sum, l) => sum + l.active, 0)
              maxOrganization = Math.max(maxOrganization, total)
              if (total > 8) violations.push(`organization at ${total}`)
              for (const l of loads) if (l.active > 5) violations.push(`campaign ${l.campaignId} at ${l.active}`)
              for (const contactId of mine.splice(0, Math.ceil(mine.length / 2))) {
                held.delete(contactId)
                yield* dialer.release({ contactId, worker, reason: "shutdown", now })
              }
            }
          }).pipe(Effect.scoped)

        yield* Effect.all(["a", "b", "c", "d"].map((w) => claimer(`worker-${w}`)), { concurrency: "unbounded" })
        assert.deepStrictEqual(violations, [])
        assert.strictEqual(maxOrganization, 8, "the claimers filled the organization's cap")
      }),
    120_000
  )
})
