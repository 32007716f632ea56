/**
 * Storage benchmarks on both backends (`npm run bench:parts`): what a user of the API waits for.
 *
 * Measures, per backend (embedded PGlite in memory; PostgreSQL at TEST_DATABASE_URL or
 * 127.0.0.1:5432, in a fresh database), through the same repositories the API uses:
 * - an upload of 10,000 contacts into an empty campaign (one transaction), 5 runs;
 * - the same 10,000 re-uploaded and rejected as duplicates (the set-based conflict check);
 * - paging through 50,000 contacts of one organization, 100 per page (keyset: the last page
 *   costs what the first does);
 * - a `data` containment filter over those 50,000 (GIN index).
 * Does not measure HTTP overhead, JSON encoding or network latency. Figures are wall-clock on
 * whatever else the machine is doing: compare runs on one machine, not across machines.
 */
import type { ContactRecord } from "@voice-agent/core/Contact"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Console, Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"

const now = new Date("2026-03-02T17:00:00.000Z")

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const value = yield* effect
    return { value, ms: performance.now() - start }
  })

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

const summary = (name: string, values: ReadonlyArray<number>) =>
  `${name.padEnd(48)} n=${String(values.length).padStart(4)}  p50 ${
    quantile(values, 0.5).toFixed(1).padStart(8)
  } ms  p95 ${quantile(values, 0.95).toFixed(1).padStart(8)} ms  max ${Math.max(...values).toFixed(1).padStart(8)} ms`

const contacts = (offset: number, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      Fixtures.contact(Fixtures.e164(offset + i), {
        customer_id: `c-${offset + i}`,
        tier: i % 10 === 0 ? "gold" : "basic"
      })
  )

const bench = Effect.gen(function*() {
  const repository = yield* ContactRepository
  const organization = yield* Fixtures.organization()
  const lines: Array<string> = []

  const uploads: Array<number> = []
  let last: { id: string; organizationId: string } | undefined
  for (let run = 0; run < 5; run++) {
    const campaign = yield* Fixtures.campaign(organization.id)
    const { ms } = yield* timed(
      repository.upload(campaign, contacts(run * 10_000, 10_000), { allowDuplicates: false, now })
    )
    uploads.push(ms)
    last = campaign
  }
  lines.push(summary("upload 10,000 contacts (one transaction)", uploads))

  const rejections: Array<number> = []
  for (let run = 0; run < 3; run++) {
    const { ms } = yield* timed(
      Effect.flip(repository.upload(last!, contacts(40_000, 10_000), { allowDuplicates: false, now }))
    )
    rejections.push(ms)
  }
  lines.push(summary("re-upload 10,000, all rejected as duplicates", rejections))

  const pages: Array<number> = []
  let afterId: string | undefined
  for (;;) {
    const { ms, value } = yield* timed(repository.list({ organizationId: organization.id, limit: 100, afterId }))
    pages.push(ms)
    const lastContact: ContactRecord | undefined = value.contacts.at(-1)
    if (!value.hasMore || lastContact === undefined) break
    afterId = lastContact.id
  }
  lines.push(summary(`page through ${pages.length * 100} contacts, 100 per page`, pages))

  const filtered: Array<number> = []
  for (let run = 0; run < 20; run++) {
    const { ms } = yield* timed(
      repository.list({ organizationId: organization.id, limit: 100, data: { tier: "gold" } })
    )
    filtered.push(ms)
  }
  lines.push(summary("data filter {tier: gold} over 50,000, first page", filtered))
  return lines
})

const program = Effect.gen(function*() {
  for (const backend of yield* Effect.promise(() => TestDatabase.backends())) {
    if (backend.skip !== undefined) {
      yield* Console.log(`${backend.name}: skipped (${backend.skip})`)
      continue
    }
    const lines = yield* bench.pipe(Effect.provide(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer))))
    yield* Console.log(`\n${backend.name}\n${lines.join("\n")}`)
  }
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
