/**
 * Inbound calls on a real daemon, through the admin API's simulated inbound call (docs/ADMIN.md):
 * the simulated carrier calls one of the organization's numbers, the call streams over a real
 * WebSocket to the media endpoint, the scripted agent answers the caller, and the call is listed
 * as `inbound` with its transcript and recordings; the request's mistakes are refused first.
 * With an agent definition attached to the number, the next call runs it and collects its fields.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"

const admin = "inbound-admin-secret"
const adminPost = (url: string, body: unknown) =>
  Daemon.request(url, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

describe("inbound calls, on a daemon", () => {
  it.live(
    "a simulated call to an organization's number is answered by its agent and listed as inbound",
    () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_ADMIN_TOKEN: admin
        })
        const orgs = `${daemon.url}/admin/v1/organizations`
        const org = (yield* adminPost(orgs, { name: "inbound" })).body as { id: string }
        const key = ((yield* adminPost(`${orgs}/${org.id}/api-keys`, {})).body as { api_key: string }).api_key
        const number = "+12025550100"
        assert.strictEqual((yield* adminPost(`${orgs}/${org.id}/phone-numbers`, { phone_number: number })).status, 201)
        const other = (yield* adminPost(orgs, { name: "other" })).body as { id: string }

        // Refused before anything is called: a number of another organization, an unknown one, bad input.
        const calls = (orgId: string) => `${orgs}/${orgId}/inbound-calls`
        const caller = "+13035550123"
        const notOurs = yield* adminPost(calls(other.id), { from_number: caller, to_number: number })
        assert.strictEqual(notOurs.status, 400, JSON.stringify(notOurs.body))
        const unknownOrg = yield* adminPost(calls("00000000-0000-4000-8000-000000000000"), {
          from_number: caller,
          to_number: number
        })
        assert.strictEqual(unknownOrg.status, 404)
        assert.strictEqual((yield* adminPost(calls(org.id), { from_number: "nope", to_number: number })).status, 422)
        assert.strictEqual((yield* adminPost(calls(org.id), { to_number: number })).status, 422)

        const created = yield* adminPost(calls(org.id), { from_number: caller, to_number: number })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const callId = (created.body as { call_id: string }).call_id
        yield* daemon.waitFor(new RegExp(`Inbound call ${callId} ended: user-hangup`)).pipe(
          Effect.timeout("60 seconds")
        )

        const list = (yield* Daemon.request(`${daemon.url}/v1/conversations`, Daemon.bearer(key))).body as {
          conversations: ReadonlyArray<Record<string, unknown>>
        }
        assert.strictEqual(list.conversations.length, 1)
        const conversation = list.conversations[0]!
        assert.strictEqual(conversation["call_id"], callId)
        assert.strictEqual(conversation["direction"], "inbound")
        assert.strictEqual(conversation["from_number"], caller)
        assert.strictEqual(conversation["to_number"], number)
        assert.strictEqual(conversation["campaign_id"], null)
        assert.strictEqual(conversation["termination_reason"], "user-hangup")
        assert.isAbove(conversation["duration_sec"] as number, 0)
        const inbound = (yield* Daemon.request(`${daemon.url}/v1/conversations?direction=inbound`, Daemon.bearer(key)))
          .body as { conversations: ReadonlyArray<unknown> }
        assert.strictEqual(inbound.conversations.length, 1)

        const transcript = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${callId}/transcript`,
          Daemon.bearer(key)
        )).body as ReadonlyArray<{ speaker: string; text: string; offset_ms: number }>
        assert.include(transcript[0]!.text, "thank you for calling", JSON.stringify(transcript))
        assert.isTrue(transcript.some((t) => t.speaker === "HUMAN"), JSON.stringify(transcript))
        for (let i = 1; i < transcript.length; i++) {
          assert.isAtLeast(transcript[i]!.offset_ms, transcript[i - 1]!.offset_ms)
        }
        for (const channel of ["agent", "remote", "mixed"]) {
          const recording = yield* Effect.promise(() =>
            fetch(`${daemon.url}/v1/conversations/${callId}/channels/${channel}/recording`, Daemon.bearer(key))
          )
          assert.strictEqual(recording.status, 200, channel)
          assert.strictEqual(recording.headers.get("content-type"), "audio/wav")
          assert.isAbove(Number(recording.headers.get("content-length")), 44 + 8000, channel)
          yield* Effect.promise(() => recording.arrayBuffer())
        }
        // another organization's key does not see it
        const otherKey = ((yield* adminPost(`${orgs}/${other.id}/api-keys`, {})).body as { api_key: string }).api_key
        const hidden = (yield* Daemon.request(`${daemon.url}/v1/conversations`, Daemon.bearer(otherKey))).body as {
          conversations: ReadonlyArray<unknown>
        }
        assert.deepStrictEqual(hidden.conversations, [])

        // With an agent attached to the number, its calls run the agent's checklist.
        const agent = yield* Daemon.request(
          `${daemon.url}/v2/agents`,
          Daemon.postJson(key, {
            name: "front-desk",
            persona: { organization_name: "Bistro Nine" },
            task: {
              objective: "Take a reservation",
              action_items: [
                { item_type: "field", key: "guests", field_type: "integer", question: "How many guests?" },
                { item_type: "field", key: "name", field_type: "text", question: "Under which name?" }
              ]
            }
          })
        )
        assert.strictEqual(agent.status, 201, JSON.stringify(agent.body))
        const attached = yield* Daemon.request(`${daemon.url}/v2/phone-numbers/${encodeURIComponent(number)}/agent`, {
          ...Daemon.postJson(key, { agent_id: (agent.body as { id: string }).id }),
          method: "PUT"
        })
        assert.strictEqual(attached.status, 200, JSON.stringify(attached.body))
        const second = yield* adminPost(calls(org.id), { from_number: caller, to_number: number })
        const secondId = (second.body as { call_id: string }).call_id
        yield* daemon.waitFor(new RegExp(`Inbound call ${secondId} ended:`)).pipe(Effect.timeout("60 seconds"))
        const fields = yield* Daemon.request(`${daemon.url}/v1/conversations/${secondId}/fields`, Daemon.bearer(key))
        assert.deepStrictEqual(fields.body, { fields: { guests: 42, name: "Alex Morgan" } })
        const greeted = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${secondId}/transcript`,
          Daemon.bearer(key)
        )).body as ReadonlyArray<{ speaker: string; text: string }>
        assert.strictEqual(greeted[0]?.text, "Hello, this is Bistro Nine. Thank you for calling.")
        assert.strictEqual(yield* daemon.stop(), 0)
      }),
    { timeout: 120_000 }
  )
})
