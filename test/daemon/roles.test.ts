/**
 * Scale-out roles on one PostgreSQL, as a self-hoster runs them: `serve --no-dialer` answers
 * the API and dials nothing; `voice-agent dial` dials what the API stored, woken by the upload
 * (PostgreSQL NOTIFY from another process); the call's media goes to the API process (its
 * public URL), whose agent's verdict reaches the dialing process; both exit 0 on SIGTERM.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Option } from "effect"
import * as Daemon from "../support/Daemon.ts"

describe("serve --no-dialer and dial on one PostgreSQL", () => {
  it.live("the API process dials nothing; the dial process dials what it stored", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabase.freshDatabaseUrl("voice_agent_roles")
      const env = { DATABASE_URL: url }
      const api = yield* Daemon.serve(["--port", "0", "--no-dialer"], env)
      yield* api.waitFor(/Dialer off \(--no-dialer\)/)
      const key = Option.getOrThrow(api.apiKey)

      const code = yield* Daemon.campaignWithContacts(api.url, key, "roles", [{ phone_number: "+12025550101" }])
      const contacts = (yield* Daemon.request(`${api.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key)))
        .body as { contacts: Array<{ id: string; status: string }> }
      const id = contacts.contacts[0]!.id
      // Callable, and nobody dials it: this process runs no dialer.
      const eligibility = yield* Daemon.request(
        `${api.url}/v2/campaigns/${code}/contacts/${id}/eligibility`,
        Daemon.bearer(key)
      )
      assert.strictEqual((eligibility.body as { callable: boolean }).callable, true)
      assert.isFalse(api.stdout.some((line) => line.includes("ended:")))

      // Carriers reach the media endpoint of the API process: the call placed by the dial
      // process streams there, and the agent's verdict comes back through PostgreSQL.
      const dialer = yield* Daemon.dial([], { ...env, VOICE_AGENT_PUBLIC_URL: api.url })
      assert.match(dialer.worker, /^.+-\d+-[0-9a-f]{6}$/)
      const ended = yield* dialer.waitFor(/Call \S+ to \+12025550101 ended: (\S+)/).pipe(Effect.timeout("30 seconds"))
      assert.match(ended, /ended: completed/)
      assert.include(ended, dialer.worker)

      const after = (yield* Daemon.request(`${api.url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key)))
        .body as { contacts: Array<{ status: string }> }
      assert.strictEqual(after.contacts[0]!.status, "COMPLETED")
      const calls = (yield* Daemon.request(`${api.url}/v1/conversations`, Daemon.bearer(key))).body as {
        conversations: Array<{ to_number: string; termination_reason: string; direction: string }>
      }
      assert.deepStrictEqual(
        calls.conversations.map((c) => [c.to_number, c.termination_reason, c.direction]),
        [["+12025550101", "user-hangup", "outbound"]]
      )
      const callId = (calls.conversations[0] as unknown as { call_id: string }).call_id
      const turns = (yield* Daemon.request(`${api.url}/v1/conversations/${callId}/transcript`, Daemon.bearer(key)))
        .body as Array<{ speaker: string }>
      assert.deepStrictEqual(turns.map((t) => t.speaker), ["AGENT", "HUMAN", "AGENT"])

      assert.strictEqual(yield* dialer.stop("SIGTERM"), 0)
      assert.strictEqual(yield* api.stop("SIGTERM"), 0)
    }), { timeout: 90_000 })
})
