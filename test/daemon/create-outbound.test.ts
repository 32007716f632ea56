/**
 * The reference SDK's plain HTTP calls on a real daemon (docs/SDK_HTTP.md), on the embedded
 * database and on PostgreSQL:
 *
 * - `POST /v2/create-outbound` places one call outside any campaign with the simulated carrier:
 *   a number that talks is answered, an agent attaches to it over `v2/connect-call/{call_id}`
 *   with the returned id, and the call gets a conversation under that id (outbound, no
 *   campaign), a transcript, `call.started` and `call.ended` webhooks, and ends; a busy
 *   number and one that never answers end without answer; each refusal (401, 403, 422, 400 for
 *   a sender not owned, another organization's number included, and for a number on the DNC
 *   list) places nothing;
 * - `check-sdk-deprecation` and `upload-telemetry` answer without a key;
 * - `llm/generate` and the `openai/v1/*` proxy answer 501 without a language model, and run on
 *   the local OpenAI fake when one is configured.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { attachAgent } from "../support/CallAgent.ts"
import * as Daemon from "../support/Daemon.ts"
import * as Fake from "../support/openai-fake/ChatCompletionsFake.ts"
import * as WebhookReceiver from "../support/WebhookReceiver.ts"

const admin = "create-outbound-admin-secret"
const adminRequest = (url: string, method: string, body?: unknown) =>
  Daemon.request(url, {
    method,
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** An organization with a key (and `number`, when given), made through the admin API. */
const organization = (url: string, name: string, number?: string) =>
  Effect.gen(function*() {
    const orgs = `${url}/admin/v1/organizations`
    const org = (yield* adminRequest(orgs, "POST", { name })).body as { id: string }
    const key = ((yield* adminRequest(`${orgs}/${org.id}/api-keys`, "POST")).body as { api_key: string }).api_key
    if (number !== undefined) {
      const added = yield* adminRequest(`${orgs}/${org.id}/phone-numbers`, "POST", { phone_number: number })
      assert.strictEqual(added.status, 201, JSON.stringify(added.body))
    }
    return { id: org.id, key, admin: `${orgs}/${org.id}` }
  })

/** packages/carrier-sim/README.md: what the simulated carrier does by the last four digits. */
const numbers = { ours: "+12025550100", talks: "+12025550123", busy: "+12025550151", noAnswer: "+12025550161" }

const createOutbound = (url: string, key: string | null, query: Record<string, string>) =>
  Daemon.request(`${url}/v2/create-outbound?${new URLSearchParams(query).toString()}`, {
    method: "POST",
    ...(key === null ? {} : { headers: { authorization: `Bearer ${key}` } })
  })

interface Conversation {
  readonly call_id: string
  readonly direction: string
  readonly from_number: string
  readonly to_number: string
  readonly campaign_id: string | null
  readonly duration_sec: number | null
  readonly termination_reason: string | null
}

const storages = await Daemon.storages()

describe("create-outbound and the SDK's housekeeping, on a daemon", () => {
  for (const { name, skip, storage } of storages) {
    describe.skipIf(skip !== undefined)(`on ${name}`, () => {
      it.live(
        `a call is placed, answered, recorded under its call_id and ended; busy and unanswered calls end without answer; refusals place nothing`,
        () =>
          Effect.gen(function*() {
            const { args, env } = yield* storage
            const receiver = yield* WebhookReceiver.make(() => 204)
            const daemon = yield* Daemon.serve(["--port", "0", ...args], { ...env, VOICE_AGENT_ADMIN_TOKEN: admin })
            const org = yield* organization(daemon.url, "outbound", numbers.ours)
            const other = yield* organization(daemon.url, "other")
            const hook = yield* adminRequest(`${org.admin}/webhooks`, "POST", { url: `${receiver.url}/hooks` })
            assert.strictEqual(hook.status, 201)

            // Answered, driven by an agent attached with the call id answered, ended with its verdict.
            const created = yield* createOutbound(daemon.url, org.key, {
              from_number: numbers.ours,
              to_number: numbers.talks
            })
            assert.strictEqual(created.status, 200, JSON.stringify(created.body))
            const callId = (created.body as { call_id: string }).call_id
            assert.deepStrictEqual(Object.keys(created.body as object), ["call_id"])
            const heard = yield* attachAgent(daemon.url, org.key, callId).pipe(Effect.timeout("60 seconds"))
            // After the goodbye either side may hang up first (the simulated person hangs up after
            // the agent's last turn): the agent, the log and the record agree on which.
            const last = heard.at(-1)!
            assert.strictEqual(last["event_type"], "bot-session-ended", JSON.stringify(heard))
            const reason = last["termination_reason"] as string
            assert.oneOf(reason, ["bot-hangup", "user-hangup"])
            const endedLine = yield* daemon.waitFor(new RegExp(`Direct call ${callId} to \\${numbers.talks} ended: `))
              .pipe(Effect.timeout("60 seconds"))
            const call = (yield* Daemon.request(`${daemon.url}/v1/conversations/${callId}`, Daemon.bearer(org.key)))
              .body as Conversation
            assert.strictEqual(call.call_id, callId)
            assert.deepStrictEqual(
              [call.direction, call.from_number, call.to_number, call.campaign_id],
              ["outbound", numbers.ours, numbers.talks, null]
            )
            assert.include(endedLine, `ended: ${reason}`)
            assert.strictEqual(call.termination_reason, reason)
            assert.isAbove(call.duration_sec ?? 0, 0)
            const transcript = (yield* Daemon.request(
              `${daemon.url}/v1/conversations/${callId}/transcript`,
              Daemon.bearer(org.key)
            )).body as ReadonlyArray<{ text: string }>
            assert.isTrue(
              transcript.some((turn) => turn.text === "Thanks for your time. Goodbye."),
              JSON.stringify(transcript)
            )
            const outbound = (yield* Daemon.request(
              `${daemon.url}/v1/conversations?direction=outbound`,
              Daemon.bearer(org.key)
            )).body as { conversations: ReadonlyArray<Conversation> }
            assert.deepStrictEqual(outbound.conversations.map((c) => c.call_id), [callId])
            // Another organization does not see it.
            const hidden = yield* Daemon.request(`${daemon.url}/v1/conversations/${callId}`, Daemon.bearer(other.key))
            assert.strictEqual(hidden.status, 404)

            // call.started and call.ended, the conversation as the API shows it, no contact.
            const receptions = yield* receiver.waitFor((all) => all.length >= 2).pipe(Effect.timeout("30 seconds"))
            const bodies = receptions.map((r) => JSON.parse(r.body) as { type: string; data: any })
            assert.deepStrictEqual(bodies.map((b) => b.type), ["call.started", "call.ended"])
            assert.isNull(bodies[0]!.data.contact_id)
            assert.strictEqual(bodies[0]!.data.conversation.call_id, callId)
            assert.deepStrictEqual(bodies[1]!.data.conversation, call)

            // Busy, and never answered: ended without answer, no duration.
            for (const [to, reason] of [[numbers.busy, "busy"], [numbers.noAnswer, "no-answer"]] as const) {
              const placed = yield* createOutbound(daemon.url, org.key, { from_number: numbers.ours, to_number: to })
              assert.strictEqual(placed.status, 200, JSON.stringify(placed.body))
              const id = (placed.body as { call_id: string }).call_id
              yield* daemon.waitFor(new RegExp(`Direct call ${id} to \\${to} ended: ${reason}`)).pipe(
                Effect.timeout("60 seconds")
              )
              const record = (yield* Daemon.request(`${daemon.url}/v1/conversations/${id}`, Daemon.bearer(org.key)))
                .body as Conversation
              assert.deepStrictEqual([record.termination_reason, record.duration_sec], [reason, 0])
            }

            // Refusals: nothing placed, nothing recorded.
            const refused = (reply: { status: number; body: unknown }, status: number) => {
              assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
              return reply.body as { detail: any }
            }
            const valid = { from_number: numbers.ours, to_number: numbers.talks }
            refused(yield* createOutbound(daemon.url, null, valid), 401)
            refused(yield* createOutbound(daemon.url, "va_not_a_key", valid), 401)
            const missing = refused(yield* createOutbound(daemon.url, org.key, { from_number: numbers.ours }), 422)
            assert.deepStrictEqual(missing.detail, [{
              loc: ["query", "to_number"],
              msg: "Field required",
              type: "missing"
            }])
            const malformed = refused(
              yield* createOutbound(daemon.url, org.key, { from_number: "2025550100", to_number: numbers.talks }),
              422
            )
            assert.deepStrictEqual(malformed.detail[0].loc, ["query", "from_number"])
            // The SDK's None from_number: refused before any call is placed.
            const empty = refused(
              yield* createOutbound(daemon.url, org.key, { from_number: "", to_number: numbers.talks }),
              422
            )
            assert.deepStrictEqual(empty.detail[0].loc, ["query", "from_number"])
            const notOwned = refused(
              yield* createOutbound(daemon.url, org.key, { from_number: "+12025550199", to_number: numbers.talks }),
              400
            )
            assert.strictEqual(notOwned.detail, "Phone number +12025550199 is not owned by this organization")
            // Another organization's key cannot call from this organization's number.
            refused(yield* createOutbound(daemon.url, other.key, valid), 400)
            const dnc = yield* adminRequest(`${org.admin}/dnc`, "POST", { phone_numbers: ["+12025550124"] })
            assert.strictEqual(dnc.status, 200)
            const listed = refused(
              yield* createOutbound(daemon.url, org.key, { from_number: numbers.ours, to_number: "+12025550124" }),
              400
            )
            assert.strictEqual(listed.detail, "Phone number +12025550124 is on this organization's Do-Not-Call list")
            const off = yield* adminRequest(org.admin, "PATCH", { outbound_dialing_enabled: false })
            assert.strictEqual(off.status, 200)
            const forbidden = refused(yield* createOutbound(daemon.url, org.key, valid), 403)
            assert.strictEqual(forbidden.detail, "Outbound dialing is not enabled for this organization")
            const all = (yield* Daemon.request(`${daemon.url}/v1/conversations`, Daemon.bearer(org.key))).body as {
              conversations: ReadonlyArray<Conversation>
            }
            assert.strictEqual(all.conversations.length, 3)

            // The SDK's housekeeping: no key needed; and no language model configured here.
            for (const method of ["POST", "GET"]) {
              const check = yield* Daemon.request(
                `${daemon.url}/v1/check-sdk-deprecation?sdk_name=python-sdk&sdk_version=0.35.0`,
                { method }
              )
              assert.deepStrictEqual(check, { status: 200, body: { deprecation_status: "supported" } })
            }
            const telemetry = yield* Daemon.request(`${daemon.url}/v1/upload-telemetry`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                events: [{
                  timestamp_ms: 1_764_000_000_000,
                  event_type: "method-call",
                  data: { function_name: "Client.__init__" }
                }]
              })
            })
            assert.deepStrictEqual(telemetry, { status: 202, body: { accepted: 1 } })
            const generate = yield* Daemon.request(
              `${daemon.url}/v1/llm/generate`,
              Daemon.postJson(org.key, { prompt: "hi" })
            )
            assert.strictEqual(generate.status, 501)
            assert.include((generate.body as { detail: string }).detail, "VOICE_AGENT_PROVIDERS")
            const proxied = yield* Daemon.request(
              `${daemon.url}/openai/v1/chat/completions`,
              Daemon.postJson(org.key, { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
            )
            assert.strictEqual(proxied.status, 501)
            assert.strictEqual(yield* daemon.stop(), 0)
          }),
        { timeout: 180_000 }
      )
    })
  }

  it.live(
    "llm/generate and the openai/v1 proxy run on the configured OpenAI-compatible chat provider",
    () =>
      Effect.gen(function*() {
        const fake = yield* Fake.make({
          script: (request) =>
            request.tools !== undefined
              ? Fake.answer([Fake.toolCall(request.tools[0]!.function.name, `{"possible_matches":["billing"]}`)])
              : Fake.answer([Fake.text("Hello from the fake model.")])
        })
        const providers = {
          llm: { fake: { type: "openai-chat", base_url: fake.url, model: "gpt-4o-mini", api_key_env: "FAKE_CHAT_KEY" } }
        }
        const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_ADMIN_TOKEN: admin,
          VOICE_AGENT_PROVIDERS: JSON.stringify(providers),
          FAKE_CHAT_KEY: fake.apiKey!
        })
        const org = yield* organization(daemon.url, "llm")

        const plain = yield* Daemon.request(
          `${daemon.url}/v1/llm/generate`,
          Daemon.postJson(org.key, { prompt: "Say hello" })
        )
        assert.deepStrictEqual(plain, { status: 200, body: { text: "Hello from the fake model." } })
        const schema = {
          type: "object",
          properties: { possible_matches: { type: "array", items: { enum: ["billing", "support"] } } },
          required: ["possible_matches"]
        }
        const structured = yield* Daemon.request(
          `${daemon.url}/v1/llm/generate`,
          Daemon.postJson(org.key, { prompt: "My bill is wrong", json_schema: schema })
        )
        assert.strictEqual(structured.status, 200, JSON.stringify(structured.body))
        assert.deepStrictEqual(JSON.parse((structured.body as { text: string }).text), {
          possible_matches: ["billing"]
        })
        assert.strictEqual(
          (yield* Daemon.request(`${daemon.url}/v1/llm/generate`, { method: "POST", body: "{}" })).status,
          401
        )

        // The proxy: the engine's key in, the provider's key out; a streamed answer streams back.
        const requestsBefore = fake.requests.length
        const response = yield* Effect.promise(() =>
          fetch(`${daemon.url}/openai/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              messages: [{ role: "user", content: "Stream please" }],
              stream: true
            })
          })
        )
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/)
        const events = yield* Effect.promise(() => response.text())
        assert.include(events, `"content":" fake"`)
        assert.isTrue(events.trimEnd().endsWith("data: [DONE]"))
        const received = fake.requests[requestsBefore]!
        assert.strictEqual(received.headers.authorization, `Bearer ${fake.apiKey}`)
        assert.strictEqual(received.path, "/v1/chat/completions")
        // Without the engine's key nothing reaches the provider.
        const anonymous = yield* Daemon.request(`${daemon.url}/openai/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${fake.apiKey}`, "content-type": "application/json" },
          body: "{}"
        })
        assert.strictEqual(anonymous.status, 401)
        assert.strictEqual(fake.requests.length, requestsBefore + 1)
        // The provider's own refusals come back as they are.
        const unknown = yield* Daemon.request(`${daemon.url}/openai/v1/embeddings`, Daemon.postJson(org.key, {}))
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(yield* daemon.stop(), 0)
      }),
    { timeout: 120_000 }
  )
})
