/**
 * Every daemon on one database signs and checks list cursors with the same key (ServerSecrets
 * on SQL, the key made once by migration 0002): a `next_cursor` one daemon issued is accepted by
 * another. Each daemon here is a whole app stack of its own (database pool or PGlite instance,
 * storage, ServerSecrets, cursor codec, HTTP server on its own port), built with `Layer.fresh`
 * so that no service is shared in memory between two of them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Database from "@voice-agent/store-sql/Database"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Redacted } from "effect"
import * as Daemon from "../support/Daemon.ts"
import { api, campaign, distinctNumbers, layer as appLayer, organization, q, upload } from "./support/ApiServer.ts"
import type { Reply, TestOrganization } from "./support/ApiServer.ts"

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")

/** One daemon over `database`, sharing nothing built with any other. */
const daemon = (database: TestDatabase.Backend["layer"]) => Layer.fresh(appLayer(database))

/** A campaign with `n` contacts; answers the organization, the campaign code and the numbers. */
const campaignWithContacts = (n: number) =>
  Effect.gen(function*() {
    const org = yield* organization()
    const code: string = (yield* campaign(org)).campaign_code
    const numbers = distinctNumbers(n)
    yield* upload(org, code, numbers.map((phone_number) => ({ phone_number })))
    return { org, code, numbers }
  })

/** One page of one contact of the campaign, after `cursor` when given; must answer 200. */
const page = (org: TestOrganization, code: string, cursor?: string) =>
  Effect.gen(function*() {
    const after = cursor === undefined ? "" : `&after=${q(cursor)}`
    const reply = yield* api(org.key, "GET", `/v2/contacts?campaign_code=${code}&limit=1${after}`)
    assert.strictEqual(reply.status, 200, `after=${cursor}: ${reply.status} ${reply.text}`)
    return reply
  })

const numbersOf = (pages: ReadonlyArray<Reply>): Array<string> =>
  pages.flatMap((reply) => reply.body.contacts as Array<{ phone_number: string }>).map((c) => c.phone_number).sort()

describe("cursors across daemons", () => {
  it.live(
    "on a PGlite data directory, the daemon started after another stopped accepts its cursor",
    () =>
      Effect.gen(function*() {
        const database = Database.layerPglite(yield* Daemon.tempDir)
        const first = yield* Effect.gen(function*() {
          const made = yield* campaignWithContacts(2)
          return { ...made, reply: yield* page(made.org, made.code) }
        }).pipe(Effect.provide(daemon(database)))
        assert.isTrue(first.reply.body.has_more)
        // The first daemon has stopped (its PGlite closed, the data directory unlocked).
        const second = yield* page(first.org, first.code, first.reply.body.next_cursor).pipe(
          Effect.provide(daemon(database))
        )
        assert.isFalse(second.body.has_more)
        assert.deepStrictEqual(numbersOf([first.reply, second]), [...first.numbers].sort())
      }),
    { timeout: 60_000 }
  )

  it.live.skipIf(postgres?.skip !== undefined)(
    "on PostgreSQL, two daemons running at once accept each other's cursors",
    () =>
      Effect.gen(function*() {
        const url = Redacted.make(yield* TestDatabase.freshDatabaseUrl())
        const a = yield* Layer.build(daemon(Database.layerPostgres(url, { maxConnections: 2 })))
        const b = yield* Layer.build(daemon(Database.layerPostgres(url, { maxConnections: 2 })))
        const { code, numbers, org } = yield* campaignWithContacts(3).pipe(Effect.provide(a))
        const first = yield* page(org, code).pipe(Effect.provide(a))
        const second = yield* page(org, code, first.body.next_cursor).pipe(Effect.provide(b))
        const third = yield* page(org, code, second.body.next_cursor).pipe(Effect.provide(a))
        assert.isFalse(third.body.has_more)
        assert.deepStrictEqual(numbersOf([first, second, third]), [...numbers].sort())
      }),
    { timeout: 60_000 }
  )
})
