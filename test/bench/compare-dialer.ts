/**
 * The dialer's throughput beside graphile-worker's on the same PostgreSQL (`compare.ts`).
 *
 * - Ours: `CONTACTS` due contacts of one campaign in one organization (the worst case: every
 *   claim of an organization takes its row lock), caps counted on every claim (campaign and
 *   organization `max_concurrency` set above what the loops can hold, so they are checked and
 *   never bind). 4 dial loops, each with a pool of its own as a daemon has, each claiming up to
 *   50 (the default `claimBatch`) and taking every claimed contact through `startCall` (DNC
 *   check, origin number, conversation record, `call.started`) and `endCall` (`busy`: the
 *   contact's next attempt, `call.ended`), 8 at a time. Timed from the first claim to the last
 *   end.
 * - graphile-worker: `CONTACTS` jobs of a task that does nothing, run by 4 runners in this
 *   process, 24 jobs at once each with a pool of 25 (its perfTest's settings), with its local
 *   queue batching (500 jobs per fetch, completions batched) and without (its defaults: one
 *   fetch and one completion per job). Timed from the first job's start to the last completion,
 *   so start-up is left out as its perfTest leaves it out.
 *
 * Not the same work: a job does nothing, a call writes its conversation record and two webhook
 * events; graphile-worker enforces no caps.
 */
import { PgClient } from "@effect/sql-pg"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlDialerRepository from "@voice-agent/store-sql/SqlDialerRepository"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import { Context, Effect, Layer, Redacted, References } from "effect"
import { SqlClient } from "effect/sql"
import { makeWorkerUtils, run } from "graphile-worker"
import type { Logger, Runner } from "graphile-worker"
import { Logger as GraphileLogger } from "graphile-worker"
import { performance } from "node:perf_hooks"

export const CONTACTS = 20_000
const LOOPS = 4
const CLAIM_BATCH = 50
const CALLS_AT_ONCE = 8
const leaseMs = 60_000

/** Contacts through claim, start and end per second, on the database at `url` (migrated here). */
export const dialerCallsPerSecond = (url: string): Promise<number> => {
  // As the daemon runs at its default log level (daemon/src/Logging.ts, Server.ts).
  const stackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  return Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const redacted = Redacted.make(url)
      const now = Date.now()
      const main = yield* Layer.build(
        Layer.fresh(SqlStorage.layer.pipe(Layer.provideMerge(Database.layerPostgres(redacted, { maxConnections: 4 }))))
      )
      const campaignId = yield* Effect.gen(function*() {
        const contacts = yield* ContactRepository
        const organization = yield* Fixtures.organization({ maxConcurrency: 10_000 })
        const campaign = yield* Fixtures.campaign(organization.id, { maxConcurrency: 10_000 })
        for (let from = 0; from < CONTACTS; from += 10_000) {
          const numbers = Array.from({ length: Math.min(10_000, CONTACTS - from) }, (_, i) => Fixtures.e164(from + i))
          yield* contacts.upload(campaign, numbers.map((n) => Fixtures.contact(n)), {
            allowDuplicates: true,
            now: new Date(now - 60_000)
          })
        }
        return campaign.id
      }).pipe(Effect.provide(main))
      const sql = Context.get(main, SqlClient.SqlClient)
      yield* sql`ANALYZE contacts`
      const dialers = yield* Effect.forEach(Array.from({ length: LOOPS }), () =>
        Effect.map(
          Layer.build(Layer.fresh(
            SqlDialerRepository.layer.pipe(Layer.provideMerge(PgClient.layer({ url: redacted, maxConnections: 10 })))
          )),
          (context) => Context.get(context, DialerRepository)
        ))

      const loop = (dialer: DialerRepository["Service"], worker: string) =>
        Effect.gen(function*() {
          let calls = 0
          for (;;) {
            const claimed = yield* dialer.claim({ worker, campaignIds: [campaignId], now, leaseMs, limit: CLAIM_BATCH })
            if (claimed.length === 0) return calls
            yield* Effect.forEach(claimed, (contact) =>
              Effect.gen(function*() {
                const callId = `${worker}-${calls++}`
                const start = yield* dialer.startCall({ contactId: contact.contactId, worker, callId, now })
                if (start._tag !== "Dial") return yield* Effect.die(`not placed: ${start.reason}`)
                yield* dialer.endCall({
                  contactId: contact.contactId,
                  worker,
                  conversationId: start.conversationId,
                  outcome: "busy",
                  endedBy: "remote",
                  answeredAt: null,
                  endedAt: now + 1_000
                })
              }), { concurrency: CALLS_AT_ONCE, discard: true })
          }
        })

      const started = performance.now()
      const calls = yield* Effect.forEach(dialers, (dialer, i) => loop(dialer, `loop-${i}`), {
        concurrency: "unbounded"
      })
      const seconds = (performance.now() - started) / 1000
      const total = calls.reduce((a, b) => a + b, 0)
      const [attempted] = yield* sql<{ n: number }>`SELECT count(*)::int AS "n" FROM contacts WHERE attempts = 1`
      if (total !== CONTACTS || attempted?.n !== CONTACTS) {
        return yield* Effect.die(`dialed ${total}, ${attempted?.n} attempted, of ${CONTACTS}`)
      }
      return total / seconds
    })).pipe(Effect.provideService(References.TracerEnabled, false))
  ).finally(() => {
    Error.stackTraceLimit = stackTraceLimit
  })
}

const quiet: Logger = new GraphileLogger(() => () => {})

/** graphile-worker's jobs per second for `CONTACTS` empty jobs, on the database at `url`. */
export const graphileJobsPerSecond = async (url: string, batched: boolean): Promise<number> => {
  const utils = await makeWorkerUtils({ connectionString: url, logger: quiet })
  try {
    await utils.migrate()
    for (let from = 0; from < CONTACTS; from += 10_000) {
      await utils.addJobs(
        Array.from({ length: Math.min(10_000, CONTACTS - from) }, (_, i) => ({
          identifier: "noop",
          payload: { n: from + i }
        }))
      )
    }
  } finally {
    await utils.release()
  }
  let firstStart: number | undefined
  let completed = 0
  let finished!: () => void
  const done = new Promise<void>((resolve) => (finished = resolve))
  const runners: Array<Runner> = []
  for (let i = 0; i < LOOPS; i++) {
    const runner = await run({
      connectionString: url,
      concurrency: 24,
      maxPoolSize: 25,
      noHandleSignals: true,
      logger: quiet,
      taskList: { noop: async () => {} },
      preset: {
        worker: batched
          ? {
            localQueue: { size: 500, refetchDelay: { durationMs: 10 } },
            completeJobBatchDelay: 0,
            failJobBatchDelay: 0
          }
          : { localQueue: { size: -1 }, completeJobBatchDelay: -1, failJobBatchDelay: -1 }
      }
    })
    runner.events.on("job:start", () => void (firstStart ??= performance.now()))
    runner.events.on("job:complete", () => {
      if (++completed === CONTACTS) finished()
    })
    runners.push(runner)
  }
  await done
  const seconds = (performance.now() - firstStart!) / 1000
  await Promise.all(runners.map((runner) => runner.stop()))
  return CONTACTS / seconds
}
