import { assert, describe, layer } from "@effect/vitest"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Effect, Layer } from "effect"
import * as SqlServerSecrets from "./SqlServerSecrets.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlServerSecrets on ${backend.name}`, () => {
    layer(SqlServerSecrets.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("answers the installation's 32-byte cursor key, the same every time", () =>
        Effect.gen(function*() {
          const secrets = yield* ServerSecrets
          const first = yield* secrets.cursorKey
          const second = yield* secrets.cursorKey
          assert.strictEqual(first.length, 32)
          assert.deepStrictEqual(first, second)
          assert.isTrue(first.some((b) => b !== 0))
        }))
    })
  })
}
