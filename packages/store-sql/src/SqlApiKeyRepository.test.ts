import { assert, describe, layer } from "@effect/vitest"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { hashApiKey } from "./SqlApiKeyRepository.ts"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlApiKeyRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("issues a key that authenticates as its organization", () =>
        Effect.gen(function*() {
          const keys = yield* ApiKeyRepository
          const org = yield* Fixtures.organization()
          const issued = yield* keys.issue(org.id)
          assert.match(issued.apiKey, /^va_[A-Za-z0-9_-]{43}$/)
          assert.deepStrictEqual(yield* keys.authenticate(issued.apiKey), Option.some(org))
          assert.isTrue(Option.isNone(yield* keys.authenticate(`${issued.apiKey}x`)))
          assert.isTrue(Option.isNone(yield* keys.authenticate("")))
        }))

      it.effect("stores only the SHA-256 hash of the key", () =>
        Effect.gen(function*() {
          const keys = yield* ApiKeyRepository
          const sql = yield* SqlClient.SqlClient
          const org = yield* Fixtures.organization()
          const issued = yield* keys.issue(org.id)
          const rows = yield* sql<
            { keyHash: string }
          >`SELECT key_hash AS "keyHash" FROM api_keys WHERE id = ${issued.id}`
          assert.deepStrictEqual(rows, [{ keyHash: hashApiKey(issued.apiKey) }])
          const leaks = yield* sql<{ n: number }>`
            SELECT count(*)::int AS "n" FROM api_keys
            WHERE organization_id = ${org.id} AND position(${issued.apiKey} IN key_hash) > 0`
          assert.strictEqual(leaks[0]?.n, 0)
        }))

      it.effect("a revoked key no longer authenticates; other keys still do", () =>
        Effect.gen(function*() {
          const keys = yield* ApiKeyRepository
          const org = yield* Fixtures.organization()
          const first = yield* keys.issue(org.id)
          const second = yield* keys.issue(org.id)
          yield* keys.revoke(org.id, first.id)
          assert.isTrue(Option.isNone(yield* keys.authenticate(first.apiKey)))
          assert.isTrue(Option.isSome(yield* keys.authenticate(second.apiKey)))
          const again = yield* Effect.flip(keys.revoke(org.id, first.id))
          assert.strictEqual(again._tag, "ApiKeyNotFound")
        }))

      it.effect("revoke is scoped to the organization and rejects unknown ids", () =>
        Effect.gen(function*() {
          const keys = yield* ApiKeyRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const issued = yield* keys.issue(org.id)
          assert.strictEqual((yield* Effect.flip(keys.revoke(other.id, issued.id)))._tag, "ApiKeyNotFound")
          assert.strictEqual((yield* Effect.flip(keys.revoke(org.id, "nope")))._tag, "ApiKeyNotFound")
          assert.isTrue(Option.isSome(yield* keys.authenticate(issued.apiKey)))
        }))

      it.effect("issuing for an unknown organization fails with OrganizationNotFound", () =>
        Effect.gen(function*() {
          const keys = yield* ApiKeyRepository
          const missing = "00000000-0000-4000-8000-000000000001"
          assert.strictEqual((yield* Effect.flip(keys.issue(missing)))._tag, "OrganizationNotFound")
          assert.strictEqual((yield* Effect.flip(keys.issue("malformed")))._tag, "OrganizationNotFound")
        }))
    })
  })
}
