/**
 * `/healthz` and `/readyz` of a real `voice-agent serve` (docs/OPERATIONS.md): ok and ready
 * while it runs, on both storages; and not ready (503) as soon as SIGTERM starts its shutdown,
 * while it drains a call in progress, though it still answers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import * as Daemon from "../support/Daemon.ts"

for (const { name, skip, storage } of await Daemon.storages()) {
  describe.skipIf(skip !== undefined)(`health of a daemon on ${name}`, () => {
    it.live("is ok and ready while it runs", () =>
      Effect.gen(function*() {
        const { args, env } = yield* storage
        const daemon = yield* Daemon.serve(["--port", "0", ...args], env)
        assert.deepStrictEqual(yield* Daemon.request(`${daemon.url}/healthz`), { status: 200, body: { status: "ok" } })
        assert.deepStrictEqual(yield* Daemon.request(`${daemon.url}/readyz`), {
          status: 200,
          body: { status: "ready" }
        })
        assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
      }).pipe(Effect.scoped), { timeout: 60_000 })
  })
}

describe("a draining daemon", () => {
  it.live("is not ready from SIGTERM on, while its call in progress ends", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"])
      const key = Option.getOrThrow(daemon.apiKey)
      // A person who never hangs up: the agent ends the call, seconds after the shutdown starts.
      yield* Daemon.campaignWithContacts(daemon.url, key, "drain", [{ phone_number: "+12025550191" }])
      yield* daemon.waitFor(/Media stream of call \S+ started/)
      const stopped = yield* Effect.forkChild(daemon.stop("SIGTERM"))
      yield* daemon.waitFor(/Stopping: waiting up to \d+ ms for 1 call/)
      const ready = yield* Daemon.request(`${daemon.url}/readyz`)
      const healthy = yield* Daemon.request(`${daemon.url}/healthz`)
      assert.deepStrictEqual(ready, { status: 503, body: { detail: "Shutting down: draining calls in progress" } })
      assert.deepStrictEqual(healthy, { status: 200, body: { status: "ok" } })
      assert.isFalse(
        daemon.stdout.some((line) => /Call \S+ to \+12025550191 ended/.test(line)),
        "the call was still in progress"
      )
      assert.strictEqual(yield* Fiber.join(stopped), 0)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
