/**
 * `serve --workers 2` on PostgreSQL (docs/DAEMON.md, "Every core"; docs/PERFORMANCE.md), as an
 * operator runs it: one ready line once both workers are; a campaign runs to its end (every
 * contact completed, every call with its transcript and recordings, which either worker serves);
 * each call, listened to through each worker's own address as soon as it is listed, is heard
 * from its answer to `stop` on both, so through the worker that serves its media and through the
 * one that relays it. A worker killed is logged and started again, and the daemon answers
 * meanwhile; SIGTERM drains both workers and exits 0.
 *
 * On the embedded database, more than one worker is refused at start (exit 1).
 *
 * The rest of the daemon tests run one process (test/support/Daemon.ts sets VOICE_AGENT_WORKERS=1).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import { assertAudioFromAnswer, firstListed, listen, listenUrl } from "../support/Listener.ts"

const adminToken = "admin-workers-secret"
const numbers = ["+12025550101", "+12025550102", "+12025550103", "+12025550104"]

const storages = await Daemon.storages("voice_agent_workers")
const postgres = storages[1]

/** Whether a process is alive. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.skipIf(postgres.skip !== undefined)("serve --workers 2 on PostgreSQL", () => {
  it.live(
    "runs a campaign to its end; a listener reaches each call through either worker; a killed worker is replaced",
    () =>
      Effect.gen(function*() {
        const { env } = yield* postgres.storage
        const dataDir = yield* Daemon.tempDir
        const daemon = yield* Daemon.serve(
          ["--port", "0", "--workers", "2", "--data-dir", dataDir],
          { ...env, VOICE_AGENT_ADMIN_TOKEN: adminToken }
        )
        assert.match(daemon.stdout.find((line) => line.includes("ready on"))!, /\(2 worker processes; /)
        const reachable = (pattern: RegExp) =>
          daemon.stdout.flatMap((line) => {
            const match = pattern.exec(line)
            return match === null ? [] : [match.slice(1)]
          })
        const workers = reachable(/Worker (\d) \(pid (\d+)\) ready/)
        assert.deepStrictEqual(workers.map(([slot]) => slot!).sort((a, b) => a.localeCompare(b)), ["1", "2"])
        const urls = reachable(/Daemon \S+ reachable by the others at (http:\S+)/).map(([url]) => url!)
        assert.strictEqual(new Set(urls).size, 2, "each worker at an address of its own")
        assert.isFalse(urls.includes(daemon.url), "not the shared port")

        // An organization with the simulated number, through the admin API.
        const admin = (path: string, body: unknown) =>
          Daemon.request(`${daemon.url}/admin/v1/${path}`, Daemon.postJson(adminToken, body))
        const organization = ((yield* admin("organizations", { name: "workers" })).body as { id: string }).id
        const key = ((yield* admin(`organizations/${organization}/api-keys`, {})).body as { api_key: string }).api_key
        assert.strictEqual(
          (yield* admin(`organizations/${organization}/phone-numbers`, { phone_number: "+12025550100" })).status,
          201
        )

        const code = yield* Daemon.campaignWithContacts(
          daemon.url,
          key,
          "workers",
          numbers.map((phone_number) => ({ phone_number }))
        )
        // Each call, as soon as it is listed, listened to through each worker's own address.
        const heard = yield* Effect.forEach(numbers, (number) =>
          Effect.flatMap(firstListed(daemon.url, key, number), (call) =>
            Effect.map(
              Effect.forEach(urls, (url) =>
                listen(listenUrl(url, call.call_id, "channel=mixed"), key), {
                concurrency: "unbounded"
              }),
              (byWorker) => ({ call, byWorker })
            )), { concurrency: "unbounded" }).pipe(Effect.timeout("90 seconds"))
        for (const { byWorker, call } of heard) {
          byWorker.forEach((listened, i) =>
            assertAudioFromAnswer(listened, `call ${call.to_number} via worker ${i + 1}`)
          )
        }

        // The campaign ran to its end.
        const contacts = (yield* Daemon.request(`${daemon.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key)))
          .body as { contacts: Array<{ status: string }> }
        assert.deepStrictEqual(contacts.contacts.map((c) => c.status), numbers.map(() => "COMPLETED"))
        for (const { call } of heard) {
          const [first, second] = urls
          const traces = yield* Daemon.callTraces(first!, key, call.call_id)
          assert.isAbove((traces.transcript as Array<unknown>).length, 1, "a transcript")
          assert.deepStrictEqual(traces.recordings, [200, 200, 200], "recordings, from worker 1")
          assert.deepStrictEqual((yield* Daemon.callTraces(second!, key, call.call_id)).recordings, [200, 200, 200])
        }

        // A worker killed: logged, replaced, and the daemon answers meanwhile.
        const [slot, pid] = workers[0]!
        process.kill(Number(pid), "SIGKILL")
        yield* daemon.waitFor(
          new RegExp(`Worker ${slot} \\(pid ${pid}\\) exited with signal SIGKILL; starting another`)
        )
          .pipe(Effect.timeout("10 seconds"))
        assert.strictEqual((yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.bearer(key))).status, 200)
        const replaced = yield* daemon.waitFor(new RegExp(`Worker ${slot} \\(pid (?!${pid}\\))\\d+\\) ready`))
          .pipe(Effect.timeout("30 seconds"))
        const newPid = Number(/pid (\d+)/.exec(replaced)![1])

        // SIGTERM: both workers drain and stop, then the daemon exits 0.
        assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
        const otherPid = Number(workers[1]![1])
        assert.isFalse(alive(newPid) || alive(otherPid), "no worker left running")
        assert.strictEqual(daemon.stdout.filter((line) => /INFO\s+Stopped/.test(line)).length, 3)
      }),
    { timeout: 180_000 }
  )
})

describe("serve --workers on the embedded database", () => {
  it.live("refuses more than one worker (PGlite is one process), and fewer than one", () =>
    Effect.gen(function*() {
      const two = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:", "--workers", "2"])
      assert.strictEqual(two.code, 1)
      assert.include(two.stderr, "--workers 2 needs PostgreSQL (DATABASE_URL): the embedded database is one process")
      const none = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:"], { VOICE_AGENT_WORKERS: "0" })
      assert.strictEqual(none.code, 1)
      assert.include(none.stderr, "--workers must be at least 1, not 0")
    }))
})
