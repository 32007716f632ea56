/**
 * Malformed requests to every operation of the HTTP API, public and admin, as the OpenAPI
 * document the app serves describes them (plus `/openapi.json`, `/docs` and the OpenAI-compatible
 * proxy), on both storage backends (issue 12, "Bad input"). See ./README.md for the long run.
 *
 * Each run is one request (support/OpenApiFuzz.ts: path ids real, foreign or garbage; hostile
 * query strings and encodings; credentials; content types; bodies almost valid, of the wrong
 * type, not JSON, deeply nested, large, chunked). Every answer must come (no hang), be below
 * 500 (501 only where the test server lacks the optional service: create-outbound, llm/generate,
 * the proxy), and an error must have the documented shape: `{"detail": "<sentence>"}`, or the
 * 422 list. A refused request (4xx) must leave every table of the database as it was.
 *
 * Requests Node's HTTP parser refuses never reach the app; the server (NodeServer) answers them
 * in the same shape (400, 413, 417 or 431 with `{detail}`), and they are held to the same checks.
 *
 * Oversized bodies: a declared length over the 64 MB limit is 413 at once, without the body
 * being sent; a chunked body is cut off with 413 as soon as it passes the limit.
 */
import { assert } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { maxBodySize } from "@voice-agent/http/handlers/ErrorBodies"
import { Effect } from "effect"
import type { Context } from "effect"
import { HttpServer } from "effect/http"
import * as fc from "fast-check"
import { randomBytes } from "node:crypto"
import {
  addNumber,
  admin,
  adminToken,
  api,
  campaign,
  eachBackend,
  inboundMessage,
  listAllContacts,
  organization,
  randomNumber,
  upload
} from "../http/support/ApiServer.ts"
import type { Services } from "../http/support/ApiServer.ts"
import * as Fuzz from "./support/Fuzz.ts"
import * as OpenApiFuzz from "./support/OpenApiFuzz.ts"

/** Operations answered 501 on a server without the optional service they need (the test server). */
const optional = new Set([
  "/v2/create-outbound",
  "/v1/llm/generate",
  "/openai/v1/chat/completions",
  "/openai/v1/models"
])

const port = Effect.map(HttpServer.HttpServer, (server) => "port" in server.address ? server.address.port : 0)

/** One organization with a bit of everything, so path ids can be real. */
const seed = Effect.gen(function*() {
  const org = yield* organization({ sms_registered: true })
  const spareKey = (yield* admin("POST", `/admin/v1/organizations/${org.id}/api-keys`, undefined, 201)).body.id
  yield* addNumber(org.id)
  const c = yield* campaign(org)
  yield* upload(org, c.campaign_code, [{ phone_number: randomNumber(), data: { name: "Ada", n: 1 } }, {
    phone_number: randomNumber()
  }])
  const contacts = yield* listAllContacts(org, "")
  const callId = `CA${randomBytes(12).toString("hex")}`
  const conversations = yield* ConversationRepository
  const started = new Date("2026-05-01T10:00:00.000Z")
  const record = yield* conversations.insert({
    callId,
    organizationId: org.id,
    campaignId: c.id,
    contactId: contacts[0].id,
    direction: "outbound",
    fromNumber: org.number,
    toNumber: contacts[0].phone_number,
    startedAt: started,
    answeredAt: new Date(started.getTime() + 1000),
    endedAt: new Date(started.getTime() + 9000),
    durationSec: 8,
    terminationReason: "user-hangup"
  })
  yield* conversations.appendTurns(record.id, [{ speaker: "AGENT", text: "Hello", offsetMs: 100 }])
  yield* conversations.recordField(record.id, "name", "Ada")
  const store = yield* RecordingStore
  for (const channel of ["agent", "remote"] as const) {
    yield* Effect.scoped(
      Effect.flatMap(store.openWriter(callId, channel), (writer) => writer.write(new Int16Array(800).fill(100)))
    )
  }
  yield* inboundMessage(org.id, { from_number: randomNumber(), to_number: org.number, content: "hi" })
  const hook = yield* admin("POST", `/admin/v1/organizations/${org.id}/webhooks`, { url: "https://example.com/h" }, 201)
  const agent = yield* api(org.key, "POST", "/v2/agents", {
    json: {
      name: "Front desk",
      persona: { agent_name: "Riley" },
      task: { objective: "Say hello", action_items: [{ item_type: "say", key: "hi", statement: "Hi" }] }
    }
  })
  if (agent.status !== 201) return yield* Effect.die(new Error(`agent: ${agent.text}`))
  return {
    org,
    spareKey,
    campaign: c,
    contactId: contacts[0].id,
    callId,
    webhookId: hook.body.id,
    agentId: agent.body.id
  }
})

await eachBackend("fuzz: malformed requests to every endpoint", (it, backend) => {
  it.effect(
    "answer below 500 with the documented error shape and write nothing when refused",
    () =>
      Effect.gen(function*() {
        const ours = yield* seed
        const theirs = yield* seed
        const document = (yield* api(null, "GET", "/openapi.json")).body
        const operations = OpenApiFuzz.operations(document)
        assert.isAtLeast(operations.length, 50, "the OpenAPI document lists the API")
        const world: OpenApiFuzz.World = {
          ids: {
            campaign_code: [ours.campaign.campaign_code, theirs.campaign.campaign_code],
            campaign_id: [ours.campaign.id, theirs.campaign.id],
            contact_id: [ours.contactId, theirs.contactId],
            call_id: [ours.callId, theirs.callId],
            channel_name: ["agent", "remote", "mixed"],
            org_id: [ours.org.id, theirs.org.id],
            key_id: [ours.spareKey, theirs.spareKey],
            webhook_id: [ours.webhookId, theirs.webhookId],
            agent_id: [ours.agentId, theirs.agentId],
            phone_number: [ours.org.number, theirs.org.number]
          },
          key: ours.org.key,
          otherKey: theirs.org.key,
          adminToken,
          numbers: [ours.org.number, theirs.org.number, "+12025550123"]
        }
        const context: Context.Context<Services> = yield* Effect.context<Services>()
        const run = <A>(effect: Effect.Effect<A, never, Services>) => Effect.runPromiseWith(context)(effect)
        const serverPort = yield* port
        let before = yield* Fuzz.snapshot
        // Answers by status, to see what the run reached.
        const seen: Record<string, number> = {}
        const cases = fc.oneof(...operations.map((operation) => OpenApiFuzz.request(operation, document, world)))
        yield* Fuzz.check(backend === "pglite" ? 150 : 100, cases, async (fuzzCase) => {
          const { operation, request } = fuzzCase
          const label = `${operation.method} ${operation.path} [${fuzzCase.bodyKind}]\n${Fuzz.describeRequest(request)}`
          const reply = await run(Fuzz.send(serverPort, request))
          assert.strictEqual(reply._tag, "Reply", `no answer (${reply._tag} after ${reply.ms} ms): ${label}`)
          if (reply._tag !== "Reply") return
          const key = String(reply.status)
          seen[key] = (seen[key] ?? 0) + 1
          if (reply.status === 501 && optional.has(operation.path)) return
          assert.isBelow(reply.status, 500, `5xx: ${label}\n=> ${reply.status} ${reply.text.slice(0, 500)}`)
          const after = await run(Fuzz.snapshot)
          if (reply.status >= 400) {
            if (request.method !== "HEAD") Fuzz.assertErrorShape(reply, label)
            assert.deepStrictEqual(
              Fuzz.changedTables(before, after),
              [],
              `refused (${reply.status}) yet written: ${label}\n=> ${reply.text.slice(0, 300)}`
            )
          }
          before = after
          // A request that succeeded may have switched an organization off: its flags are put
          // back so that later requests still reach the handlers.
          if (reply.status < 300 && request.method !== "GET" && request.method !== "HEAD") {
            for (const id of [ours.org.id, theirs.org.id]) {
              await run(admin("PATCH", `/admin/v1/organizations/${id}`, {
                outbound_dialing_enabled: true,
                sms_registered: true,
                billing_issue: false,
                max_concurrency: 5
              }))
            }
            before = await run(Fuzz.snapshot)
          }
        })
        yield* Effect.logInfo(`answers on ${backend}: ${JSON.stringify(seen)}`)
        // The server is still up and the organization's data is served.
        assert.strictEqual((yield* api(ours.org.key, "GET", "/v2/campaigns")).status, 200)
      }),
    { timeout: Fuzz.long ? 3_600_000 : 120_000 }
  )

  it.effect("an oversized body is refused with 413 before it is read whole", () =>
    Effect.gen(function*() {
      const { org, campaign: c } = yield* seed
      const serverPort = yield* port
      const target = `/v2/campaigns/${c.campaign_code}/contacts?accepted_terms_of_service=true`
      const before = yield* Fuzz.snapshot
      // Declared over the limit, and only a kilobyte sent: the answer cannot wait for the rest.
      const declared = yield* Fuzz.send(serverPort, {
        method: "POST",
        target,
        headers: [
          ["Authorization", `Bearer ${org.key}`],
          ["Content-Type", "application/json"],
          ["Content-Length", String(Number(maxBodySize) + 1)]
        ],
        body: Buffer.from(`{"contacts":[{"phone_number":"${randomNumber()}","data":{"x":"${"x".repeat(1000)}`)
      }, 5_000)
      assert.strictEqual(declared._tag, "Reply", `no answer to a declared oversized body: ${declared._tag}`)
      if (declared._tag === "Reply") {
        assert.strictEqual(declared.status, 413, declared.text)
        Fuzz.assertErrorShape(declared, "declared oversized body")
        assert.isBelow(declared.ms, 2_000, "413 at once")
      }
      // Chunked, no length: refused once past the limit, without waiting for the end.
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      const chunked = yield* Fuzz.send(serverPort, {
        method: "POST",
        target,
        headers: [["Authorization", `Bearer ${org.key}`], ["Content-Type", "application/json"]],
        body: Buffer.concat([Buffer.from("{\"contacts\":["), ...Array.from({ length: 80 }, () => chunk)]),
        chunked: 1024 * 1024
      }, 30_000)
      assert.strictEqual(chunked._tag, "Reply", `no answer to an oversized chunked body: ${chunked._tag}`)
      if (chunked._tag === "Reply") {
        assert.strictEqual(chunked.status, 413, chunked.text)
        Fuzz.assertErrorShape(chunked, "chunked oversized body")
      }
      assert.deepStrictEqual(Fuzz.changedTables(before, yield* Fuzz.snapshot), [])
      assert.strictEqual((yield* api(org.key, "GET", "/v2/campaigns")).status, 200)
    }), { timeout: 60_000 })
})
