/**
 * Where `voice-agent serve` keeps recordings (`VOICE_AGENT_RECORDINGS`): a value it does not
 * know stops it at start with a sentence naming the variable, and with `database` on one
 * PostgreSQL every daemon serves a recording none of them wrote.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlRecordingStore from "@voice-agent/store-sql/SqlRecordingStore"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Daemon from "../support/Daemon.ts"

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")

/** `fetch` answering status, the headers that matter here, and the body's bytes. */
const fetchBytes = (url: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers })
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      contentLength: response.headers.get("content-length"),
      contentRange: response.headers.get("content-range"),
      body: new Uint8Array(await response.arrayBuffer())
    }
  })

describe("VOICE_AGENT_RECORDINGS", () => {
  it.live("an unknown value stops serve at start with a sentence naming the variable", () =>
    Effect.gen(function*() {
      const result = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:"], {
        VOICE_AGENT_RECORDINGS: "s3"
      })
      assert.strictEqual(result.code, 1, result.stdout)
      assert.include(result.stderr, "Invalid setting: VOICE_AGENT_RECORDINGS must be fs or database, not \"s3\"")
      assert.notInclude(result.stdout, "ready on")
    }), { timeout: 60_000 })

  it.live.skipIf(postgres?.skip !== undefined)(
    "database: two daemons on one PostgreSQL serve a recording neither wrote, with ranges and 404s",
    () =>
      Effect.gen(function*() {
        const url = yield* TestDatabase.freshDatabaseUrl()
        const env = { DATABASE_URL: url, VOICE_AGENT_RECORDINGS: "database" }
        const first = yield* Daemon.serve(["--port", "0"], env)
        const second = yield* Daemon.serve(["--port", "0"], env)
        const key = Option.getOrThrow(first.apiKey)

        // another process records an answered call of the demo organization
        const callId = `call-${randomBytes(6).toString("hex")}`
        const remote = Int16Array.from({ length: 12000 }, (_, i) => Math.round(9000 * Math.sin(i / 3)))
        const expected = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [organization] = yield* sql<{ readonly id: string }>`SELECT id::text AS "id" FROM organizations`
          yield* (yield* ConversationRepository).insert({
            callId,
            organizationId: organization!.id,
            campaignId: null,
            contactId: null,
            direction: "outbound",
            fromNumber: "+12025550100",
            toNumber: "+12025550199",
            startedAt: new Date("2026-03-02T17:00:00.000Z"),
            answeredAt: new Date("2026-03-02T17:00:02.000Z"),
            endedAt: new Date("2026-03-02T17:00:04.000Z"),
            durationSec: 2,
            terminationReason: "user-hangup"
          })
          const store = yield* RecordingStore
          yield* Effect.scoped(Effect.gen(function*() {
            const writer = yield* store.openWriter(callId, "remote")
            for (let i = 0; i < remote.length; i += 160) yield* writer.write(remote.subarray(i, i + 160))
          }))
          return yield* Stream.mkUint8Array((yield* store.read(callId, "remote")).bytes)
        }).pipe(
          Effect.provide(
            Layer.mergeAll(SqlStorage.layer, SqlRecordingStore.layer()).pipe(
              Layer.provideMerge(Database.layerPostgres(Redacted.make(url), { maxConnections: 2 }))
            )
          ),
          Effect.orDie
        )
        assert.strictEqual(expected.length, 44 + 24000)

        for (const daemon of [first, second]) {
          const base = `${daemon.url}/v1/conversations/${callId}`
          const auth = { authorization: `Bearer ${key}` }
          const whole = yield* fetchBytes(`${base}/channels/remote/recording`, auth)
          assert.deepStrictEqual(
            [whole.status, whole.contentType, whole.contentLength],
            [200, "audio/wav", String(expected.length)]
          )
          assert.deepStrictEqual(whole.body, expected)
          const mixed = yield* fetchBytes(`${base}/recording`, auth)
          assert.deepStrictEqual(mixed.body, expected, "mixed of one side is that side")
          const part = yield* fetchBytes(`${base}/channels/remote/recording`, { ...auth, range: "bytes=40-1000" })
          assert.deepStrictEqual(
            [part.status, part.contentRange, part.contentLength],
            [206, `bytes 40-1000/${expected.length}`, "961"]
          )
          assert.deepStrictEqual(part.body, expected.slice(40, 1001))
          assert.strictEqual((yield* fetchBytes(`${base}/channels/agent/recording`, auth)).status, 404)
          assert.strictEqual((yield* fetchBytes(`${base}/channels/both/recording`, auth)).status, 422)
        }
        for (const daemon of [first, second]) assert.strictEqual(yield* daemon.stop(), 0)
      }),
    { timeout: 90_000 }
  )
})
