/**
 * Three dial loops, each with its own connection pool and carrier as separate daemons would
 * have, on one PostgreSQL database: 2,000 contacts in five campaigns of two organizations,
 * caps of 5 per campaign and 8 per organization. Every claim and release is recorded, and the
 * invariants are checked on that history and on the database afterwards.
 *
 * The history records, per loop, the interval in which the loop believed it held a contact:
 * from the moment its claim returned to the moment it asked to end the call or release the
 * claim. That interval lies inside the lease the database held, so an overlap found in the
 * history is a real one (the check can miss an overlap no longer than a commit, never invent one).
 */
import { assert, describe, it } from "@effect/vitest"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ContactRepository as ContactRepositoryService } from "@voice-agent/core/ports/ContactRepository"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import * as DialerSettings from "@voice-agent/engine/DialerSettings"
import * as DialLoop from "@voice-agent/engine/DialLoop"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Deferred, Effect, Layer, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql"

const CONTACTS = 2_000
const CAMPAIGN_CAP = 5
const ORGANIZATION_CAP = 8

interface Hold {
  readonly loop: string
  readonly contactId: string
  readonly campaignId: string
  readonly organizationId: string
  readonly from: bigint
  to: bigint | null
}

const allDay = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" }))

/**
 * A carrier whose calls take milliseconds: even-numbered lines answer and hang up after 30 ms
 * (cut short), odd ones are busy after 10 ms (retried an hour later).
 */
const quickCarrier = Layer.effect(
  Carrier,
  Effect.gen(function*() {
    const events = yield* CallEvents
    const scope = yield* Scope.Scope
    const script = (callId: string, to: string) =>
      Effect.gen(function*() {
        yield* events.publish(callId, { _tag: "Ringing", at: yield* Clock.currentTimeMillis })
        if (Number(to.slice(-1)) % 2 === 1) {
          yield* Effect.sleep(10)
          return yield* events.publish(callId, { _tag: "Ended", at: yield* Clock.currentTimeMillis, reason: "busy" })
        }
        yield* Effect.sleep(10)
        yield* events.publish(callId, { _tag: "Answered", at: yield* Clock.currentTimeMillis, answeredBy: "human" })
        yield* Effect.sleep(30)
        yield* events.publish(callId, {
          _tag: "Ended",
          at: yield* Clock.currentTimeMillis,
          reason: "remote-hangup"
        })
      })
    return Carrier.of({
      placeCall: (request) =>
        Effect.forkIn(script(request.callId, request.to), scope).pipe(Effect.as({ carrierCallId: request.callId })),
      hangUp: () => Effect.void,
      transfer: () => Effect.die("not used"),
      sendSms: () => Effect.die("not used")
    })
  })
)

/**
 * A fresh database (dropped with the scope) and a maker of storage stacks on it: each call is
 * a daemon's own, with its own pool of 4 connections (2 of them listen for notifications).
 */
const daemonsOnOneDatabase = Effect.map(
  TestDatabase.freshDatabaseUrl("voice_agent_dialers"),
  (url) => () =>
    SqlStorage.layer.pipe(
      Layer.provideMerge(Database.layerPostgres(Redacted.make(url), { maxConnections: 4 })),
      Layer.fresh
    )
)

describe("three dial loops on one PostgreSQL", () => {
  it.live("hold every cap, never share a contact, and bring every contact on", () =>
    Effect.gen(function*() {
      const storage = yield* daemonsOnOneDatabase
      const seeded = yield* Layer.build(storage())

      // Two organizations (cap 8): three campaigns and two campaigns (cap 5 each), open all week.
      const now = yield* Clock.currentTimeMillis
      const campaigns = yield* Effect.gen(function*() {
        const a = yield* Fixtures.organization({ maxConcurrency: ORGANIZATION_CAP })
        const b = yield* Fixtures.organization({ maxConcurrency: ORGANIZATION_CAP })
        const made = []
        for (const organization of [a, a, a, b, b]) {
          made.push(
            yield* Fixtures.campaign(organization.id, {
              callingWindows: allDay,
              timeZone: "UTC",
              maxConcurrency: CAMPAIGN_CAP,
              retryDelayS: 3600
            })
          )
        }
        const contacts: ContactRepositoryService["Service"] = yield* ContactRepository
        for (const [i, campaign] of made.entries()) {
          const batch = Array.from(
            { length: CONTACTS / made.length },
            (_, j) => Fixtures.contact(Fixtures.e164(i * 1_000 + j))
          )
          yield* contacts.upload(campaign, batch, { allowDuplicates: false, now: new Date(now) })
        }
        return made
      }).pipe(Effect.provide(seeded))
      const organizationOf = new Map(campaigns.map((c) => [c.id, c.organizationId]))

      // The history, and a signal when every contact has had its attempt.
      const holds: Array<Hold> = []
      const open = new Map<string, Hold>()
      let ended = 0
      const allEnded = yield* Deferred.make<void>()
      const recorded = (loop: string) =>
        Layer.effect(
          DialerRepository,
          Effect.gen(function*() {
            const inner = yield* DialerRepository
            // The hold ends before the store is asked to end it; the count after it has.
            const ending = <A>(contactId: string, end: Effect.Effect<A>) =>
              Effect.gen(function*() {
                const hold = open.get(`${loop} ${contactId}`)
                if (hold !== undefined) {
                  hold.to = yield* Clock.currentTimeNanos
                  open.delete(`${loop} ${contactId}`)
                }
                const result = yield* end
                if (++ended === CONTACTS) yield* Deferred.succeed(allEnded, undefined)
                return result
              })
            return DialerRepository.of({
              ...inner,
              claim: (input) =>
                Effect.gen(function*() {
                  const claimed = yield* inner.claim(input)
                  const from = yield* Clock.currentTimeNanos
                  for (const c of claimed) {
                    const hold: Hold = {
                      loop,
                      contactId: c.contactId,
                      campaignId: c.campaignId,
                      organizationId: organizationOf.get(c.campaignId)!,
                      from,
                      to: null
                    }
                    holds.push(hold)
                    open.set(`${loop} ${c.contactId}`, hold)
                  }
                  return claimed
                }),
              endCall: (end) => ending(end.contactId, inner.endCall(end)),
              release: (input) => ending(input.contactId, inner.release(input))
            })
          })
        )

      const loops = ["loop-1", "loop-2", "loop-3"]
      for (const loop of loops) {
        yield* Layer.build(
          DialLoop.layer(DialerSettings.make(loop, { safetyPollMs: 1_000, drainMs: 0 })).pipe(
            Layer.provide(recorded(loop)),
            Layer.provide(quickCarrier),
            Layer.provide(storage())
          )
        )
      }
      yield* Deferred.await(allEnded).pipe(Effect.timeout("90 seconds"))

      // No contact held by two loops at once.
      const byContact = new Map<string, Array<Hold>>()
      for (const hold of holds) byContact.set(hold.contactId, [...(byContact.get(hold.contactId) ?? []), hold])
      for (const [contactId, list] of byContact) {
        const sorted = list.sort((x, y) => (x.from < y.from ? -1 : 1))
        for (let i = 1; i < sorted.length; i++) {
          const previous = sorted[i - 1]!
          assert.isTrue(
            previous.to !== null && previous.to <= sorted[i]!.from,
            `contact ${contactId} held twice at once`
          )
        }
      }
      // No cap exceeded at any instant: sweep the intervals in time order (ends before starts).
      const points = holds.flatMap((h) => [
        { at: h.from, delta: 1, hold: h },
        { at: h.to ?? BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n, delta: -1, hold: h }
      ]).sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.delta - y.delta))
      const live = new Map<string, number>()
      let most = { campaign: 0, organization: 0 }
      for (const { delta, hold } of points) {
        for (const key of [`c ${hold.campaignId}`, `o ${hold.organizationId}`]) {
          live.set(key, (live.get(key) ?? 0) + delta)
        }
        const campaignLive = live.get(`c ${hold.campaignId}`)!
        const organizationLive = live.get(`o ${hold.organizationId}`)!
        assert.isAtMost(campaignLive, CAMPAIGN_CAP, "campaign cap")
        assert.isAtMost(organizationLive, ORGANIZATION_CAP, "organization cap")
        most = {
          campaign: Math.max(most.campaign, campaignLive),
          organization: Math.max(most.organization, organizationLive)
        }
      }
      // The caps were reached, so the test exercised them.
      assert.strictEqual(most.organization, ORGANIZATION_CAP)
      assert.strictEqual(most.campaign, CAMPAIGN_CAP)
      assert.strictEqual(
        new Set(holds.map((h) => h.loop)).size,
        3,
        "every loop dialed"
      )

      // Every contact final or rescheduled; none lost, none still leased.
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<
          { status: string; attempts: number; rescheduled: boolean | null; leased: boolean; n: number }
        >`
          SELECT status, attempts, next_attempt_at > ${new Date(now)} AS rescheduled,
                 dialing_worker IS NOT NULL OR dialing_lease_expires_at IS NOT NULL AS leased, count(*)::int AS n
          FROM contacts GROUP BY 1, 2, 3, 4 ORDER BY 1`
        assert.deepStrictEqual(rows.map((r) => ({ ...r })), [
          { status: "PARTIALLY_COMPLETED", attempts: 1, rescheduled: null, leased: false, n: CONTACTS / 2 },
          { status: "TRYING", attempts: 1, rescheduled: true, leased: false, n: CONTACTS / 2 }
        ])
        const [calls] = yield* sql<{ n: number; open: number }>`
          SELECT count(*)::int AS n, count(*) FILTER (WHERE ended_at IS NULL)::int AS open FROM conversations`
        assert.deepStrictEqual({ ...calls }, { n: CONTACTS, open: 0 })
      }).pipe(Effect.provide(seeded))
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("a loop that dies mid-call is recovered by another once its lease expires", () =>
    Effect.gen(function*() {
      const storage = yield* daemonsOnOneDatabase
      const seeded = yield* Layer.build(storage())
      const now = yield* Clock.currentTimeMillis
      const campaign = yield* Effect.gen(function*() {
        const organization = yield* Fixtures.organization({ maxConcurrency: 2 })
        const made = yield* Fixtures.campaign(organization.id, {
          callingWindows: allDay,
          timeZone: "UTC",
          maxConcurrency: 1,
          maxAttempts: 3,
          retryDelayS: 3600
        })
        const contacts = yield* ContactRepository
        // 0190: the simulated person answers and never hangs up.
        yield* contacts.upload(made, [Fixtures.contact("+12025550190" as never)], {
          allowDuplicates: false,
          now: new Date(now)
        })
        return made
      }).pipe(Effect.provide(seeded))

      // Loop A: its store stops answering when the power goes off (no renewal, no end of call,
      // no cleanup), and its scope is never closed, as if the process had been killed.
      let power = true
      const answered = yield* Deferred.make<void>()
      const dying = Layer.effect(
        DialerRepository,
        Effect.gen(function*() {
          const inner = yield* DialerRepository
          const gate = <A>(effect: Effect.Effect<A>): Effect.Effect<A> =>
            Effect.suspend(() => (power ? effect : Effect.never))
          return DialerRepository.of({
            dialableCampaigns: (at) => gate(inner.dialableCampaigns(at)),
            claim: (input) => gate(inner.claim(input)),
            startCall: (input) => gate(inner.startCall(input)),
            endCall: (end) => gate(inner.endCall(end)),
            release: (input) => gate(inner.release(input)),
            renewLeases: (input) => gate(inner.renewLeases(input)),
            recoverExpired: (input) => gate(inner.recoverExpired(input)),
            inspect: (campaignId, contactId, at) => gate(inner.inspect(campaignId, contactId, at))
          })
        })
      )
      const watchAnswer = Layer.effect(
        CallEvents,
        Effect.gen(function*() {
          const inner = yield* CallEvents
          return CallEvents.of({
            ...inner,
            publish: (callId, event) =>
              inner.publish(callId, event).pipe(
                Effect.tap(() => event._tag === "Answered" ? Deferred.succeed(answered, undefined) : Effect.void)
              )
          })
        })
      )
      const leaseMs = 1_500
      const scopeA = yield* Scope.make()
      yield* Layer.buildWithScope(
        DialLoop.layer(DialerSettings.make("loop-a", { leaseMs, safetyPollMs: 250, drainMs: 0 })).pipe(
          Layer.provide(dying),
          Layer.provide(SimCarrier.layer.pipe(Layer.provide(watchAnswer))),
          Layer.provide(storage())
        ),
        scopeA
      )
      yield* Deferred.await(answered).pipe(Effect.timeout("20 seconds"))
      power = false
      const killedAt = yield* Clock.currentTimeMillis

      // Loop B recovers the contact after A's lease expires, and says so.
      const recovered = yield* Deferred.make<number>()
      const watchRecovery = Layer.effect(
        DialerRepository,
        Effect.gen(function*() {
          const inner = yield* DialerRepository
          return DialerRepository.of({
            ...inner,
            recoverExpired: (input) =>
              inner.recoverExpired(input).pipe(
                Effect.tap((n) => n > 0 ? Deferred.succeed(recovered, input.now) : Effect.void)
              )
          })
        })
      )
      yield* Layer.build(
        DialLoop.layer(DialerSettings.make("loop-b", { leaseMs, safetyPollMs: 250, drainMs: 0 })).pipe(
          Layer.provide(watchRecovery),
          Layer.provide(SimCarrier.layer),
          Layer.provide(storage())
        )
      )
      const recoveredAt = yield* Deferred.await(recovered).pipe(Effect.timeout("20 seconds"))
      assert.isAtLeast(recoveredAt, killedAt, "recovered only after the kill")

      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [contact] = yield* sql<
          { status: string; attempts: number; leased: boolean; next_attempt_at: Date; worker: string | null }
        >`
          SELECT status, attempts, dialing_lease_expires_at IS NOT NULL AS leased, next_attempt_at,
                 dialing_worker AS worker
          FROM contacts WHERE campaign_id = ${campaign.id}`
        assert.strictEqual(contact?.status, "TRYING")
        assert.strictEqual(contact?.attempts, 1, "the call reached the carrier, so the attempt counts")
        assert.isFalse(contact?.leased)
        assert.isNull(contact?.worker)
        assert.strictEqual(contact?.next_attempt_at.getTime(), recoveredAt + 3600_000)
        const calls = yield* sql<{ ended: boolean; reason: string | null }>`
          SELECT ended_at IS NOT NULL AS ended, termination_reason AS reason FROM conversations`
        assert.deepStrictEqual(calls.map((c) => ({ ...c })), [{ ended: true, reason: "bot-failure" }])
      }).pipe(Effect.provide(seeded))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
