/**
 * Event webhooks on real daemons (docs/WEBHOOKS.md), with a local receiver:
 *
 * - a small simulated campaign (a call that talks, a busy number) reaches a registered endpoint
 *   as `call.started`, `call.ended` and `contact.status_changed`, each signed per Standard
 *   Webhooks (checked with the engine's verifier), the conversation in the API's shape, and the
 *   deliveries are listed with their attempts;
 * - the delivering daemon is killed (SIGKILL) while it retries (the receiver answered 500 to every
 *   first attempt, and holds the retries without answering), and after a daemon is back on the
 *   same database every event is delivered exactly once (one 2xx answer per message id), on
 *   PostgreSQL and on the embedded database's data directory; each delivery lists every attempt,
 *   the one cut off by the kill as `lapsed`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Schedule } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as WebhookReceiver from "../support/WebhookReceiver.ts"

const admin = "webhooks-admin-secret"
const adminRequest = (url: string, method: string, body?: unknown) =>
  Daemon.request(url, {
    method,
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** An organization with a key and the simulated carrier's number, made through the admin API. */
const organization = (url: string) =>
  Effect.gen(function*() {
    const orgs = `${url}/admin/v1/organizations`
    const org = (yield* adminRequest(orgs, "POST", { name: "hooks" })).body as { id: string }
    const key = ((yield* adminRequest(`${orgs}/${org.id}/api-keys`, "POST")).body as { api_key: string }).api_key
    const number = yield* adminRequest(`${orgs}/${org.id}/phone-numbers`, "POST", { phone_number: "+12025550100" })
    assert.strictEqual(number.status, 201)
    return { orgId: org.id, key, hooks: `${orgs}/${org.id}/webhooks` }
  })

const numbers = { talks: "+12025550101", busy: "+12025550151" }

/** The events the two calls make: per call started and ended, per contact its final status. */
const expectedEvents = 6

interface Body {
  readonly type: string
  readonly timestamp: string
  // The event's data, read field by field in the assertions.
  readonly data: any
}

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")!

const distinctIds = (receptions: ReadonlyArray<WebhookReceiver.Reception>) => new Set(receptions.map((r) => r.id))

describe("event webhooks, on a daemon", () => {
  it.live(
    "a simulated campaign's events arrive signed, in the API's shapes, and are listed as delivered",
    () =>
      Effect.gen(function*() {
        const receiver = yield* WebhookReceiver.make(() => 204)
        const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_ADMIN_TOKEN: admin
        })
        yield* daemon.waitFor(/Webhook worker started/)
        const { hooks, key } = yield* organization(daemon.url)
        const created = yield* adminRequest(hooks, "POST", { url: `${receiver.url}/hooks?source=voice-agent` })
        assert.strictEqual(created.status, 201)
        const { id: endpointId, secret } = created.body as { id: string; secret: string }
        // A second endpoint that wants only call.ended.
        const endedOnly = yield* adminRequest(hooks, "POST", { url: `${receiver.url}/ended`, events: ["call.ended"] })
        const endedSecret = (endedOnly.body as { secret: string }).secret

        yield* Daemon.campaignWithContacts(daemon.url, key, "hooks", [
          { phone_number: numbers.talks, data: { name: "Ada" } },
          { phone_number: numbers.busy }
        ])
        const receptions = yield* receiver.waitFor((all) =>
          all.filter((r) => r.path.startsWith("/hooks")).length >= expectedEvents &&
          all.filter((r) => r.path === "/ended").length >= 2
        ).pipe(Effect.timeout("60 seconds"))

        const main = receptions.filter((r) => r.path === "/hooks?source=voice-agent")
        assert.strictEqual(main.length, expectedEvents)
        assert.strictEqual(distinctIds(main).size, expectedEvents, "one message per event")
        for (const reception of main) {
          assert.isTrue(WebhookReceiver.verifies(secret, reception), reception.body)
          assert.isFalse(WebhookReceiver.verifies(endedSecret, reception))
          assert.match(reception.contentType ?? "", /^application\/json/)
        }
        const bodies = main.map((r) => JSON.parse(r.body) as Body)
        for (const body of bodies) {
          assert.deepStrictEqual(Object.keys(body), ["type", "timestamp", "data"])
          assert.isFalse(Number.isNaN(Date.parse(body.timestamp)))
        }
        const ofType = (type: string) => bodies.filter((b) => b.type === type)
        assert.strictEqual(ofType("call.started").length, 2)
        assert.strictEqual(ofType("call.ended").length, 2)
        assert.strictEqual(ofType("contact.status_changed").length, 2)

        // call.ended carries the conversation exactly as the API answers it.
        for (const ended of ofType("call.ended")) {
          const conversation = ended.data.conversation
          const fromApi = yield* Daemon.request(
            `${daemon.url}/v1/conversations/${conversation.call_id}`,
            Daemon.bearer(key)
          )
          assert.deepStrictEqual(conversation, fromApi.body)
          const started = ofType("call.started").find((b) => b.data.conversation.call_id === conversation.call_id)
          assert.isDefined(started, "each ended call was started")
          assert.strictEqual(started.data.contact_id, ended.data.contact_id)
          assert.isNull(started.data.conversation.termination_reason)
        }
        const sorted = (rows: ReadonlyArray<ReadonlyArray<string>>) =>
          rows.map((row) => row.join(" ")).sort((a, b) => a.localeCompare(b))
        const reasons = ofType("call.ended").map((b) => [
          b.data.conversation.to_number,
          b.data.conversation.termination_reason
        ])
        assert.deepStrictEqual(sorted(reasons), sorted([[numbers.talks, "user-hangup"], [numbers.busy, "busy"]]))
        const statuses = ofType("contact.status_changed").map((b) => [
          b.data.contact.phone_number,
          b.data.previous_status,
          b.data.contact.status
        ])
        assert.deepStrictEqual(
          sorted(statuses),
          sorted([[numbers.talks, "TRYING", "COMPLETED"], [numbers.busy, "TRYING", "FAILED"]])
        )
        const talked = ofType("contact.status_changed").find((b) => b.data.contact.phone_number === numbers.talks)!
        assert.deepStrictEqual(talked.data.contact.data, { name: "Ada" })

        // The endpoint that wants only call.ended got the two, signed with its own secret.
        const ended = receptions.filter((r) => r.path === "/ended")
        assert.deepStrictEqual(ended.map((r) => (JSON.parse(r.body) as Body).type), ["call.ended", "call.ended"])
        assert.isTrue(ended.every((r) => WebhookReceiver.verifies(endedSecret, r)))

        // Listed as delivered (the result is recorded just after the receiver answers).
        const listed = yield* adminRequest(`${hooks}/${endpointId}/deliveries`, "GET").pipe(
          Effect.map((reply) => (reply.body as { deliveries: ReadonlyArray<Record<string, unknown>> }).deliveries),
          Effect.repeat({
            schedule: Schedule.spaced("50 millis"),
            until: (deliveries) => deliveries.every((d) => d["status"] === "delivered")
          }),
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(listed.length, expectedEvents)
        for (const delivery of listed) {
          assert.include(delivery, { status: "delivered", attempts: 1, last_response_status: 204, last_error: null })
          const [only] = delivery["attempt_history"] as ReadonlyArray<Record<string, unknown>>
          assert.include(only, { attempt: 1, response_status: 204, error_type: null, error: null })
          assert.strictEqual(only!["attempted_datetime"], delivery["last_attempt_datetime"])
        }
        assert.sameMembers(listed.map((d) => d["event_id"]), [...distinctIds(main)])
        assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
      }),
    { timeout: 120_000 }
  )

  const killMidRetry = <R>(
    storage: Effect.Effect<{ readonly args: ReadonlyArray<string>; readonly env: Record<string, string> }, unknown, R>
  ) =>
    Effect.gen(function*() {
      const { args, env: storageEnv } = yield* storage
      const env = {
        ...storageEnv,
        VOICE_AGENT_ADMIN_TOKEN: admin,
        VOICE_AGENT_WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s,1s",
        // A claim holds 3 s: the killed daemon's attempts in flight are retried that soon.
        VOICE_AGENT_WEBHOOK_TIMEOUT: "1s"
      }
      // Every first attempt: 500. Retries while the first daemon lives: held, never answered.
      // Once it is killed: 200.
      let killed = false
      const receiver = yield* WebhookReceiver.make((_, previous) => previous === 0 ? 500 : killed ? 200 : "hang")
      const first = yield* Daemon.serve(["--port", "0", ...args], env)
      const { hooks, key } = yield* organization(first.url)
      const created = yield* adminRequest(hooks, "POST", { url: `${receiver.url}/hooks` })
      assert.strictEqual(created.status, 201)
      const { id: endpointId, secret } = created.body as { id: string; secret: string }
      yield* Daemon.campaignWithContacts(first.url, key, "crash", [
        { phone_number: numbers.talks },
        { phone_number: numbers.busy }
      ])
      // Both calls ended (all six events tried once), and a retry is in flight: kill it there.
      yield* receiver.waitFor((all) => distinctIds(all).size >= expectedEvents && all.some((r) => r.status === null))
        .pipe(Effect.timeout("120 seconds"))
      yield* first.stop("SIGKILL")
      killed = true

      const second = yield* Daemon.serve(["--port", "0", ...args], env)
      yield* receiver.waitFor((all) => {
        const ids = distinctIds(all)
        return ids.size >= expectedEvents && [...ids].every((id) => all.some((r) => r.id === id && r.status === 200))
      }).pipe(Effect.timeout("120 seconds"))
      // Every delivery recorded as delivered: nothing will be sent again.
      const deliveries = `${hooks.replace(first.url, second.url)}/${endpointId}/deliveries`
      const listed = yield* adminRequest(deliveries, "GET").pipe(
        Effect.map((reply) => (reply.body as { deliveries: ReadonlyArray<Record<string, any>> }).deliveries),
        Effect.repeat({
          schedule: Schedule.spaced("50 millis"),
          until: (deliveries) =>
            deliveries.length === expectedEvents && deliveries.every((d) => d["status"] === "delivered")
        }),
        Effect.timeout("20 seconds")
      )
      const receptions = receiver.receptions
      for (const id of distinctIds(receptions)) {
        const mine = receptions.filter((r) => r.id === id)
        assert.strictEqual(mine.filter((r) => r.status === 200).length, 1, `${id}: delivered exactly once`)
        assert.strictEqual(mine[0]!.status, 500, `${id}: the first attempt failed`)
        assert.isTrue(mine.every((r) => WebhookReceiver.verifies(secret, r)), id)
        assert.isTrue(mine.every((r) => r.body === mine[0]!.body), `${id}: the same body on every attempt`)
        const delivery = listed.find((d) => d["event_id"] === id)!
        assert.strictEqual(delivery["last_response_status"], 200)
        assert.isAtLeast(delivery["attempts"], 2)
        // Every attempt is listed, newest first: the 200 last, before it the 500 and retries
        // that timed out, or attempts cut off by the kill before their result was recorded
        // (lapsed), whatever the receiver had answered.
        const history = delivery["attempt_history"] as ReadonlyArray<Record<string, any>>
        const shown = JSON.stringify(history)
        assert.deepStrictEqual(
          history.map((a) => a["attempt"]),
          Array.from({ length: delivery["attempts"] }, (_, i) => delivery["attempts"] - i),
          shown
        )
        assert.include(history[0], { response_status: 200, error_type: null }, shown)
        for (const failed of history.slice(1)) {
          const expected = failed["error_type"] === "http_status"
            ? { response_status: 500, error: "HTTP 500" }
            : failed["error_type"] === "timeout"
            ? { response_status: null, error: "no answer within 1 s" }
            : { error_type: "lapsed", response_status: null, duration_ms: null }
          assert.include(failed, expected, shown)
        }
        // The receiver answered 500 once per message (the answer may have come after the kill).
        assert.isAtMost(history.filter((a) => a["error_type"] === "http_status").length, 1, shown)
      }
      const lapsed = listed.flatMap((d) => d["attempt_history"]).filter((a: any) => a["error_type"] === "lapsed")
      assert.isAbove(lapsed.length, 0, "the attempt in flight at the kill is listed as lapsed")
      assert.isTrue(lapsed.every((a: any) => a["duration_ms"] === null && a["response_status"] === null))
      assert.strictEqual(distinctIds(receptions).size, expectedEvents)
      assert.isTrue(receptions.some((r) => r.status === null), "a retry was cut off by the kill")
      assert.strictEqual(yield* second.stop("SIGTERM"), 0)
    })

  it.live.skipIf(postgres.skip !== undefined)(
    "on PostgreSQL, killing the delivering daemon mid-retry loses nothing and repeats nothing",
    () =>
      killMidRetry(
        Effect.map(TestDatabase.freshDatabaseUrl("voice_agent_hooks"), (url) => ({
          args: [],
          env: { DATABASE_URL: url }
        }))
      ),
    { timeout: 240_000 }
  )

  it.live(
    "on the embedded database's data directory, the same",
    () => killMidRetry(Effect.map(Daemon.tempDir, (dir) => ({ args: ["--data-dir", dir], env: {} }))),
    { timeout: 240_000 }
  )
})
