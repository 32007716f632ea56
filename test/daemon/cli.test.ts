/**
 * The admin commands of `voice-agent` against an embedded data directory, as a user runs them,
 * and their refusal to open a directory that a running daemon holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Daemon from "../support/Daemon.ts"

const parseJson = (text: string): Record<string, unknown> => JSON.parse(text.trim()) as Record<string, unknown>

describe("voice-agent org create", () => {
  it.live(
    "prints {id, api_key} with --json, and a daemon started on that directory accepts the key",
    () =>
      Effect.gen(function*() {
        const dir = yield* Daemon.tempDir
        const created = yield* Daemon.cli(["org", "create", "--name", "acme", "--json", "--data-dir", dir])
        assert.strictEqual(created.code, 0, created.stderr)
        const { id, api_key } = parseJson(created.stdout)
        assert.isString(id)
        assert.match(String(api_key), /^va_/)

        const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", dir])
        assert.isTrue(Option.isNone(daemon.apiKey), "no demo organization on a database that has one")
        const ok = yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(String(api_key)))
        assert.deepStrictEqual(ok, { status: 200, body: [] })
        assert.strictEqual(yield* daemon.stop(), 0)
      }),
    { timeout: 120_000 }
  )

  it.live("refuses a data directory held by a running daemon, touching nothing", () =>
    Effect.gen(function*() {
      const dir = yield* Daemon.tempDir
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", dir])
      const before = fs.readdirSync(path.join(dir, "postgres")).length

      const refused = yield* Daemon.cli(["org", "create", "--name", "acme", "--json", "--data-dir", dir])
      assert.strictEqual(refused.code, 1)
      assert.strictEqual(refused.stdout, "")
      assert.include(refused.stderr, `pid ${daemon.pid}`)
      assert.include(refused.stderr, "admin API")
      assert.strictEqual(fs.readdirSync(path.join(dir, "postgres")).length, before)

      // The daemon is unaffected, and once it stops the directory is free again.
      const key = Option.getOrThrow(daemon.apiKey)
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(key))).status, 200)
      assert.strictEqual(yield* daemon.stop(), 0)
      const created = yield* Daemon.cli(["org", "create", "--name", "acme", "--json", "--data-dir", dir])
      assert.strictEqual(created.code, 0, created.stderr)
    }), { timeout: 120_000 })
})

describe("voice-agent key, number and dnc", () => {
  it.live(
    "issue and revoke keys, add a number (twice: refused), add and remove DNC entries",
    () =>
      Effect.gen(function*() {
        const dir = yield* Daemon.tempDir
        const run = (...args: Array<string>) => Daemon.cli([...args, "--json", "--data-dir", dir])
        const org = parseJson((yield* run("org", "create", "--name", "acme", "--no-sms-registered")).stdout)
        const orgId = String(org["id"])

        const key = yield* run("key", "create", "--org", orgId)
        assert.strictEqual(key.code, 0, key.stderr)
        const keyId = String(parseJson(key.stdout)["id"])
        const revoked = yield* run("key", "revoke", "--org", orgId, "--key", keyId)
        assert.deepStrictEqual(parseJson(revoked.stdout), { ok: true })
        const again = yield* run("key", "revoke", "--org", orgId, "--key", keyId)
        assert.strictEqual(again.code, 1)
        assert.include(again.stderr, keyId)

        const number = yield* run("number", "add", "--org", orgId, "--phone-number", "(202) 555-0142", "--no-sms")
        assert.deepStrictEqual(parseJson(number.stdout), { phone_number: "+12025550142", sms_enabled: false })
        const taken = yield* run("number", "add", "--org", orgId, "--phone-number", "+12025550142")
        assert.strictEqual(taken.code, 1)
        assert.include(taken.stderr, "already registered")
        const invalid = yield* run("number", "add", "--org", orgId, "--phone-number", "call me")
        assert.strictEqual(invalid.code, 1)

        const added = yield* run("dnc", "add", "--org", orgId, "202-555-0111", "+12025550112")
        assert.deepStrictEqual(parseJson(added.stdout), { added: 2 })
        const removed = yield* run("dnc", "remove", "--org", orgId, "2025550111")
        assert.deepStrictEqual(parseJson(removed.stdout), { deleted: 1 })

        const unknown = yield* run("key", "create", "--org", "00000000-0000-0000-0000-000000000000")
        assert.strictEqual(unknown.code, 1)
        assert.include(unknown.stderr, "No organization")
      }),
    // Eleven commands, each opening the embedded database (about 4 s each): 46 s alone, over 90 s on a
    // loaded machine (CI runs files side by side).
    { timeout: 180_000 }
  )
})
