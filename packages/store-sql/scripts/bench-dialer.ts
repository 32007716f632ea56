/**
 * Rates of the dialer's hot statements (packages/store-sql/src/sql/), as their headers quote
 * them. Maintenance, not a test: run with `node packages/store-sql/scripts/bench-dialer.ts`
 * against the test server (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres;
 * a fresh database is created and dropped) and, for reference, an in-memory PGlite.
 *
 * What it measures, each for a fixed number of operations after a short warm-up, wall time:
 * - claim: 4 claimers on connections of their own, each claiming 1 contact per transaction
 *   (then releasing it, so contacts never run out), all in one organization (serialized by
 *   its row lock) and in 4 organizations (no shared lock); and 1 claimer taking 10 at a time.
 * - renewLeases: one worker renewing its 100 live leases.
 * - recoverExpired: 2,000 expired leases, half carrying a call, taken back 100 per transaction.
 * - one call: startCall then endCall (`busy`), one contact after another, one connection.
 * What it does not measure: the network (the server is local), a loaded server, tables far
 * larger than the 40,000 contacts seeded here.
 */
import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import type { CampaignRecord } from "@voice-agent/core/Campaign"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlDialerRepository from "@voice-agent/store-sql/SqlDialerRepository"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import { freshDatabaseUrl } from "@voice-agent/store-sql/testing/TestDatabase"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const now = Date.parse("2026-03-02T17:00:00.000Z")
const leaseMs = 30_000

const timed = <A, E, R>(label: string, operations: number, unit: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    yield* effect
    const seconds = (performance.now() - start) / 1000
    yield* Effect.sync(() =>
      console.log(`${label}: ${Math.round(operations / seconds)} ${unit}/s (${operations} in ${seconds.toFixed(2)} s)`)
    )
  })

/** Organizations with one campaign each and `perCampaign` due contacts; caps far above use. */
const seed = (organizations: number, perCampaign: number) =>
  Effect.gen(function*() {
    const contacts = yield* ContactRepository
    const campaigns: Array<CampaignRecord> = []
    for (let o = 0; o < organizations; o++) {
      const org = yield* Fixtures.organization({ maxConcurrency: 100_000 })
      const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 100_000 })
      for (let from = 0; from < perCampaign; from += 10_000) {
        const numbers = Array.from({ length: Math.min(10_000, perCampaign - from) }, (_, i) => Fixtures.e164(from + i))
        yield* contacts.upload(campaign, numbers.map((n) => Fixtures.contact(n)), {
          allowDuplicates: true,
          now: new Date(now - 60_000)
        })
      }
      campaigns.push(campaign)
    }
    return campaigns
  })

/** Claims 1 and releases it, `rounds` times. */
const claimAndRelease = (
  dialer: DialerRepository["Service"],
  worker: string,
  campaignIds: Array<string>,
  rounds: number
) =>
  Effect.gen(function*() {
    for (let i = 0; i < rounds; i++) {
      const [contact] = yield* dialer.claim({ worker, campaignIds, now, leaseMs, limit: 1 })
      if (contact !== undefined) {
        yield* dialer.release({ contactId: contact.contactId, worker, reason: "shutdown", now })
      }
    }
  })

const benchPostgres = Effect.gen(function*() {
  const url = Redacted.make(yield* freshDatabaseUrl("voice_agent_bench"))
  const main = yield* Layer.build(
    Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(url, { maxConnections: 4 }))))
  )
  const campaigns = yield* seed(4, 10_000).pipe(Effect.provide(main))
  const dialers = yield* Effect.forEach([0, 1, 2, 3], () =>
    Effect.map(
      Layer.build(
        Layer.fresh(SqlDialerRepository.layer.pipe(Layer.provideMerge(PgClient.layer({ url, maxConnections: 1 }))))
      ),
      (context) => Context.get(context, DialerRepository)
    ))
  const rounds = 500
  const one = [campaigns[0]!.id]
  yield* Effect.forEach(dialers, (d, i) => claimAndRelease(d, `warm-${i}`, one, 50), { concurrency: "unbounded" })
  yield* timed(
    "PostgreSQL claim, 4 claimers, one organization (claim 1 + release 1 per round)",
    4 * rounds,
    "claims",
    Effect.forEach(dialers, (d, i) => claimAndRelease(d, `one-${i}`, one, rounds), { concurrency: "unbounded" })
  )
  yield* timed(
    "PostgreSQL claim, 4 claimers, 4 organizations (claim 1 + release 1 per round)",
    4 * rounds,
    "claims",
    Effect.forEach(dialers, (d, i) => claimAndRelease(d, `own-${i}`, [campaigns[i]!.id], rounds), {
      concurrency: "unbounded"
    })
  )
  const dialer = dialers[0]!
  yield* timed(
    "PostgreSQL claim, 1 claimer, 10 per claim (claim only)",
    200 * 10,
    "contacts",
    Effect.forEach(
      Array.from({ length: 200 }),
      () => dialer.claim({ worker: "batch", campaignIds: [campaigns[1]!.id], now, leaseMs, limit: 10 })
    )
  )
  yield* dialer.claim({ worker: "renewer", campaignIds: [campaigns[2]!.id], now, leaseMs, limit: 100 })
  yield* timed(
    "PostgreSQL renewLeases, 100 live leases",
    500,
    "renewals",
    Effect.forEach(Array.from({ length: 500 }), () => dialer.renewLeases({ worker: "renewer", now, leaseMs }))
  )
  // Calls: startCall + endCall (busy) on claimed contacts, one after another.
  const claimed = yield* dialer.claim({ worker: "caller", campaignIds: [campaigns[3]!.id], now, leaseMs, limit: 1000 })
  yield* timed(
    "PostgreSQL startCall + endCall, one connection",
    claimed.length,
    "calls",
    Effect.forEach(claimed, (c, i) =>
      Effect.gen(function*() {
        const start = yield* dialer.startCall({ contactId: c.contactId, worker: "caller", callId: `bench-${i}`, now })
        if (start._tag !== "Dial") return yield* Effect.die(`not placed: ${start.reason}`)
        yield* dialer.endCall({
          contactId: c.contactId,
          worker: "caller",
          conversationId: start.conversationId,
          outcome: "busy",
          endedBy: "remote",
          answeredAt: null,
          endedAt: now + 1000
        })
      }))
  )
  // Recovery: 2,000 expired leases, half of them carrying a call.
  const dead = yield* dialer.claim({ worker: "dead", campaignIds: [campaigns[0]!.id], now, leaseMs, limit: 2000 })
  yield* Effect.forEach(
    dead.slice(0, 1000),
    (c, i) => dialer.startCall({ contactId: c.contactId, worker: "dead", callId: `dead-${i}`, now })
  )
  const sql = Context.get(main, SqlClient.SqlClient)
  const expired = yield* sql<{ n: number }>`
    SELECT count(*)::int AS "n" FROM contacts WHERE dialing_lease_expires_at <= ${new Date(now + leaseMs)}`
  yield* timed(
    "PostgreSQL recoverExpired, 100 per transaction",
    expired[0]!.n,
    "contacts",
    Effect.gen(function*() {
      while ((yield* dialer.recoverExpired({ now: now + leaseMs, limit: 100 })) > 0) {
        // until none is left
      }
    })
  )
})

const benchPglite = Effect.gen(function*() {
  const pglite = yield* Effect.acquireRelease(
    Effect.promise(() => PGlite.create()),
    (p) => Effect.promise(() => p.close())
  )
  const main = yield* Layer.build(
    Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.migrated(Database.layerPgliteClient(pglite)))))
  )
  const campaigns = yield* seed(1, 10_000).pipe(Effect.provide(main))
  const dialer = Context.get(main, DialerRepository)
  yield* claimAndRelease(dialer, "warm", [campaigns[0]!.id], 100)
  yield* timed(
    "PGlite claim, 1 claimer (claim 1 + release 1 per round)",
    1000,
    "claims",
    claimAndRelease(dialer, "one", [campaigns[0]!.id], 1000)
  )
})

await Effect.runPromise(Effect.scoped(Effect.andThen(benchPostgres, benchPglite)))
