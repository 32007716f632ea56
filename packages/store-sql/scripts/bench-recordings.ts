/**
 * Write and read rates of SqlRecordingStore, as its header quotes them. Maintenance, not a
 * test: run with `node packages/store-sql/scripts/bench-recordings.ts [minutes]` against the
 * test server (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres; a fresh
 * database is created and dropped) and an in-memory PGlite.
 *
 * What it measures, wall time, default chunks (2 s) and read spans (64 KiB):
 * - write: one call of `minutes` (10 by default) per channel, both channels at once, in 20 ms
 *   frames as fast as the store takes them (a live call makes 50 frames a second per
 *   channel); noise with pauses of silence, as `frame` says.
 * - read: the whole `remote` channel and the whole `mixed` channel; and 200 reads of a 1 KiB
 *   range at random offsets of `mixed` (what a player seeking does).
 * - the plan of the chunk query, to show it probes the primary key.
 * What it does not measure: the network (the server is local), a loaded server, concurrent
 * calls (each writer is independent: one insert every 2 s of audio).
 */
import { PGlite } from "@electric-sql/pglite"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlRecordingStore from "@voice-agent/store-sql/SqlRecordingStore"
import { freshDatabaseUrl } from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"

const minutes = Number(process.argv[2] ?? 10)
const FRAME = 160
const frameCount = minutes * 60 * 50

/**
 * Frame `n` of a channel: 1.5 s of pseudo-random noise (a stand-in for speech, which the
 * database's compression barely shrinks), then 1 s of silence (which it does), over and over.
 */
const frame = (seed: number, n: number) => {
  const samples = new Int16Array(FRAME)
  if (n % 125 < 75) {
    let state = (seed * 1_000_003 + n) >>> 0
    for (let i = 0; i < FRAME; i++) {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
      samples[i] = (state >>> 16) - 32768
    }
  }
  return samples
}

const timed = <A, E, R>(label: string, megabytes: number, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const result = yield* effect
    const seconds = (performance.now() - start) / 1000
    yield* Effect.sync(() =>
      console.log(`${label}: ${seconds.toFixed(2)} s (${(megabytes / seconds).toFixed(1)} MB/s)`)
    )
    return result
  })

const bench = (name: string) =>
  Effect.gen(function*() {
    const store: RecordingStore["Service"] = yield* SqlRecordingStore.make()
    const sql = yield* SqlClient.SqlClient
    const callId = `bench-${name}`
    const channelMb = (frameCount * FRAME * 2) / 1e6
    yield* timed(
      `${name} write 2 x ${minutes} min (${frameCount} frames each)`,
      2 * channelMb,
      Effect.forEach(
        [["agent", 1], ["remote", 2]] as const,
        ([channel, seed]) =>
          Effect.scoped(Effect.gen(function*() {
            const writer = yield* store.openWriter(callId, channel)
            for (let n = 0; n < frameCount; n++) yield* writer.write(frame(seed, n))
          })),
        { concurrency: 2, discard: true }
      )
    )
    const drain = (read: { readonly bytes: Stream.Stream<Uint8Array> }) =>
      Stream.runFold(read.bytes, () => 0, (total, chunk) => total + chunk.length)
    yield* timed(
      `${name} read remote (${channelMb.toFixed(1)} MB)`,
      channelMb,
      Effect.flatMap(store.read(callId, "remote"), drain)
    )
    yield* timed(
      `${name} read mixed (${channelMb.toFixed(1)} MB)`,
      channelMb,
      Effect.flatMap(store.read(callId, "mixed"), drain)
    )
    const size = (yield* store.read(callId, "mixed")).size
    yield* timed(
      `${name} 200 reads of 1 KiB of mixed at random offsets`,
      0.2,
      Effect.forEach(Array.from({ length: 200 }, () => Math.floor(Math.random() * (size - 1024))), (start) =>
        Effect.flatMap(store.read(callId, "mixed", { start, end: start + 1023 }), drain))
    )
    const stored = yield* sql<{ readonly bytes: string }>`
      SELECT pg_total_relation_size('recording_chunks')::text AS "bytes"`
    yield* Effect.sync(() =>
      console.log(
        `${name} recording_chunks on disk: ${(Number(stored[0]!.bytes) / 1e6).toFixed(1)} MB for ${
          (2 * channelMb).toFixed(1)
        } MB of audio`
      )
    )
    const plan = yield* sql.unsafe<{ readonly "QUERY PLAN": string }>(
      `EXPLAIN SELECT first_sample, samples FROM recording_chunks
       WHERE call_id = 'bench-${name}' AND channel = 'remote' AND first_sample < 96000
         AND first_sample >= coalesce((SELECT max(first_sample) FROM recording_chunks
           WHERE call_id = 'bench-${name}' AND channel = 'remote' AND first_sample <= 64000), 0)
       ORDER BY first_sample`
    )
    yield* Effect.sync(() =>
      console.log(plan.map((row) => `  ${row["QUERY PLAN"]}`).join("\n"))
    )
  })

const benchPostgres = Effect.gen(function*() {
  const url = Redacted.make(yield* freshDatabaseUrl("voice_agent_bench"))
  yield* bench("PostgreSQL").pipe(Effect.provide(Layer.fresh(Database.layerPostgres(url, { maxConnections: 4 }))))
})

const benchPglite = Effect.gen(function*() {
  const pglite = yield* Effect.acquireRelease(
    Effect.promise(() => PGlite.create()),
    (db) => Effect.promise(() => db.close())
  )
  yield* bench("PGlite").pipe(Effect.provide(Layer.fresh(Database.migrated(Database.layerPgliteClient(pglite)))))
})

await Effect.runPromise(Effect.scoped(Effect.andThen(benchPostgres, benchPglite)))
