/**
 * A `serve` daemon (API and dialer) on a PostgreSQL cluster of the test's own
 * (test/faults/PrivatePostgres.ts), stopped with `pg_ctl stop -m fast` while three calls are in
 * progress and started again ten seconds later:
 *
 * - while it is down, every API request answers at once (each is bounded at 3 s here; they take
 *   milliseconds) with 503 and a `{detail}` body, never hangs;
 * - `/readyz` answers 503 meanwhile, `/healthz` 200;
 * - once it is back, the daemon reconnects by itself: the API answers 200 again, `/readyz` too;
 * - the calls in progress during the outage are recorded as they went (their events, transcript
 *   and end wait for the database: daemon StorageOutages, engine CallAttempt), not lost to a
 *   stuck lease;
 * - dialing resumes: a contact uploaded afterwards is called.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as PrivatePostgres from "./PrivatePostgres.ts"

const adminToken = "restart-admin-token"

/** A request bounded at `ms`: status, parsed body, and how long it took. */
const timed = (url: string, init: RequestInit = {}, ms = 3_000) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const answer = yield* Effect.promise(async () => {
      try {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ms) })
        const text = await response.text()
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // not JSON: kept as text, and the assertion says so
        }
        return { status: response.status, body }
      } catch (error) {
        return { status: 0, body: `no answer within ${ms} ms: ${String(error)}` }
      }
    })
    return { ...answer, ms: (yield* Clock.currentTimeMillis) - started }
  })

/** Polls `check` every 250 ms until it answers a value, for at most `ms`; dies with `what` then. */
const eventually = <A>(what: string, ms: number, check: Effect.Effect<A | undefined>) =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + ms
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* Effect.die(new Error(`${what}: not within ${ms} ms`))
      }
      yield* Effect.sleep("250 millis")
    }
  })

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
}

describe.skipIf(PrivatePostgres.unavailable !== undefined)("a daemon whose PostgreSQL restarts", () => {
  it.live("answers at once while it is down, then reconnects and carries on", () =>
    Effect.gen(function*() {
      const cluster = yield* PrivatePostgres.make
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", yield* Daemon.tempDir], {
        DATABASE_URL: cluster.url,
        VOICE_AGENT_ADMIN_TOKEN: adminToken
      })
      const admin = (p: string, body: unknown) =>
        Daemon.request(`${daemon.url}/admin/v1/${p}`, Daemon.postJson(adminToken, body))
      const organization = (yield* admin("organizations", { name: "restart" })).body as { id: string }
      const key = ((yield* admin(`organizations/${organization.id}/api-keys`, {})).body as { api_key: string }).api_key
      yield* admin(`organizations/${organization.id}/phone-numbers`, { phone_number: "+12025550100" })
      const auth = Daemon.bearer(key)

      // Three calls that will be in progress when the database goes: a conversation with the
      // scripted person, an answering machine, a person who never hangs up (the agent ends it).
      const during = ["+12025550101", "+12025550141", "+12025550191"]
      const code = yield* Daemon.campaignWithContacts(
        daemon.url,
        key,
        "restart",
        during.map((n) => ({ phone_number: n }))
      )
      yield* eventually(
        "the three calls answered, their media streams started",
        20_000,
        Effect.sync(() =>
          daemon.stdout.filter((line) => /Media stream of call \S+ started/.test(line)).length === during.length
            ? true
            : undefined
        )
      )

      yield* cluster.stop
      const downAt = yield* Clock.currentTimeMillis
      // Every kind of request, over and over, while the database is down (ten seconds).
      const probes: Array<readonly [string, RequestInit]> = [
        [`${daemon.url}/v2/campaigns`, auth],
        [`${daemon.url}/v2/campaigns/${code}`, auth],
        [`${daemon.url}/v2/campaigns/${code}/status`, auth],
        [`${daemon.url}/v2/contacts?campaign_code=${code}`, auth],
        [`${daemon.url}/v1/conversations`, auth],
        [
          `${daemon.url}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
          Daemon.postJson(key, { contacts: [{ phone_number: "+12025550109" }] })
        ],
        // Not ready for a load balancer either (docs/OPERATIONS.md).
        [`${daemon.url}/readyz`, {}]
      ]
      const answers: Array<{ url: string; status: number; body: unknown; ms: number }> = []
      while ((yield* Clock.currentTimeMillis) - downAt < 10_000) {
        for (const [url, init] of probes) answers.push({ url, ...(yield* timed(url, init)) })
        yield* Effect.sleep(Duration.millis(500))
      }
      for (const answer of answers) {
        const label = `${answer.url}: ${answer.status} ${JSON.stringify(answer.body)} in ${answer.ms} ms`
        assert.strictEqual(answer.status, 503, label)
        assert.isString((answer.body as { detail?: unknown } | undefined)?.detail, label)
        assert.isBelow(answer.ms, 2_000, label)
      }
      // The process itself is alive.
      assert.deepStrictEqual((yield* timed(`${daemon.url}/healthz`)).body, { status: "ok" })

      yield* cluster.start
      const upAt = yield* Clock.currentTimeMillis
      yield* eventually(
        "the API answers 200 again",
        15_000,
        Effect.map(timed(`${daemon.url}/v2/campaigns`, auth), (r) => r.status === 200 ? true : undefined)
      )
      const reconnectedMs = (yield* Clock.currentTimeMillis) - upAt
      assert.deepStrictEqual(yield* timed(`${daemon.url}/readyz`).pipe(Effect.map((r) => [r.status, r.body])), [
        200,
        { status: "ready" }
      ])

      // The calls of the outage, recorded as they went: none lost, none left "being dialed".
      const conversations = yield* eventually(
        "the calls in progress during the outage are recorded",
        40_000,
        Effect.map(timed(`${daemon.url}/v1/conversations`, auth), (r) => {
          const list = (r.body as { conversations?: Array<Conversation> }).conversations ?? []
          return list.length === during.length && list.every((c) => c.termination_reason !== null) ? list : undefined
        })
      )
      const reasons = Object.fromEntries(conversations.map((c) => [c.to_number, c.termination_reason]))
      assert.deepStrictEqual(reasons, {
        "+12025550101": "user-hangup",
        "+12025550141": "voicemail",
        "+12025550191": "bot-hangup"
      }, JSON.stringify({ reconnectedMs }))
      const contacts = (yield* Daemon.request(`${daemon.url}/v2/contacts?campaign_code=${code}`, auth)).body as {
        contacts: Array<{ phone_number: string; status: string }>
      }
      assert.deepStrictEqual(
        Object.fromEntries(contacts.contacts.map((c) => [c.phone_number, c.status])),
        { "+12025550101": "COMPLETED", "+12025550141": "PARTIALLY_COMPLETED", "+12025550191": "COMPLETED" }
      )
      for (const c of conversations.filter((c) => c.to_number !== "+12025550141")) {
        const turns = (yield* Daemon.request(`${daemon.url}/v1/conversations/${c.call_id}/transcript`, auth))
          .body as Array<{ speaker: string }>
        assert.include(turns.map((t) => t.speaker), "AGENT", `transcript of ${c.to_number}`)
        assert.include(turns.map((t) => t.speaker), "HUMAN", `transcript of ${c.to_number}`)
      }

      // Dialing resumes: a contact uploaded now is called.
      const uploaded = yield* Daemon.request(
        `${daemon.url}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
        Daemon.postJson(key, { contacts: [{ phone_number: "+12025550102" }] })
      )
      assert.strictEqual(uploaded.status, 200, JSON.stringify(uploaded.body))
      yield* daemon.waitFor(/Call \S+ to \+12025550102 ended: completed/).pipe(Effect.timeout("30 seconds"))

      assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
