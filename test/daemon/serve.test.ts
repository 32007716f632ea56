/**
 * `voice-agent serve` as a user runs it: a real process on a free port, the demo key read
 * from its output, requests over HTTP, SIGTERM.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Daemon from "../support/Daemon.ts"

describe("voice-agent serve", () => {
  it.live("prints the demo key once, serves the API with it, and exits 0 on SIGTERM", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"])
      assert.isTrue(Option.isSome(daemon.apiKey), `no demo key in:\n${daemon.stdout.join("\n")}`)
      const key = Option.getOrThrow(daemon.apiKey)
      assert.strictEqual(daemon.stdout.filter((line) => line.includes(key)).length, 2) // the key line and the curl line

      const ok = yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(key))
      assert.deepStrictEqual(ok, { status: 200, body: [] })

      const missing = yield* Daemon.request(`${daemon.url}/v2/campaigns`)
      assert.strictEqual(missing.status, 401)
      assert.isString((missing.body as { detail: unknown }).detail)

      const wrong = yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer("va_not-a-key"))
      assert.strictEqual(wrong.status, 401)
      assert.isString((wrong.body as { detail: unknown }).detail)

      const openapi = yield* Daemon.request(`${daemon.url}/openapi.json`)
      assert.strictEqual(openapi.status, 200)

      // The admin API is off without VOICE_AGENT_ADMIN_TOKEN: as if it did not exist.
      const admin = yield* Daemon.request(`${daemon.url}/admin/v1/organizations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "x" })
      })
      assert.strictEqual(admin.status, 404)

      assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
    }), { timeout: 60_000 })

  it.live("keeps its data across restarts on a data directory, and seeds only once", () =>
    Effect.gen(function*() {
      const dir = yield* Daemon.tempDir
      const first = yield* Daemon.serve(["--port", "0", "--data-dir", dir])
      const key = Option.getOrThrow(first.apiKey)
      assert.strictEqual(yield* first.stop(), 0)

      const second = yield* Daemon.serve(["--port", "0", "--data-dir", dir])
      assert.isTrue(Option.isNone(second.apiKey))
      assert.strictEqual((yield* Daemon.request(`${second.url}/v2/campaigns`, Daemon.bearer(key))).status, 200)
      assert.strictEqual(yield* second.stop(), 0)
    }), { timeout: 60_000 })

  it.live("logs JSON lines with LOG_FORMAT=json, the demo key among them", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], { LOG_FORMAT: "json" })
      for (const line of daemon.stdout) assert.doesNotThrow(() => JSON.parse(line), line)
      const key = Option.getOrThrow(daemon.apiKey)
      const ok = yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(key))
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(yield* daemon.stop("SIGINT"), 0)
    }), { timeout: 60_000 })

  it.live("seeds no demo organization when the admin token is set", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
        VOICE_AGENT_ADMIN_TOKEN: "admin-secret"
      })
      assert.isTrue(Option.isNone(daemon.apiKey))
      const created = yield* Daemon.request(`${daemon.url}/admin/v1/organizations`, {
        method: "POST",
        headers: { authorization: "Bearer admin-secret", "content-type": "application/json" },
        body: JSON.stringify({ name: "acme" })
      })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(yield* daemon.stop(), 0)
    }), { timeout: 60_000 })
})
