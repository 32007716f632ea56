/**
 * Black-box tests of the agent endpoints (docs/AGENTS.md): create, list
 * (keyset pages), get, update and delete of definitions with their validation errors;
 * attaching one to a campaign and to one of the organization's numbers; deletion refused while
 * attached; the collected fields of a call; and isolation between organizations, on both
 * backends. Calls are inserted and their fields recorded through ConversationRepository, as the
 * call runtime does.
 */
import { assert } from "@effect/vitest"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import {
  addNumber,
  api,
  assertDetail,
  assertValidation,
  campaign,
  eachBackend,
  isIsoInstant,
  keysOf,
  organization,
  q,
  randomNumber,
  uniqueName,
  updateOrganization
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const agentFields = [
  "created_at",
  "id",
  "instructions",
  "language",
  "llm",
  "name",
  "persona",
  "stt",
  "task",
  "tts",
  "updated_at"
]

const task = {
  objective: "Book a dental cleaning",
  completion_criteria: "A slot is booked",
  action_items: [
    { item_type: "say", key: "hello", statement: "Hi, this is Riley from Acme Dental." },
    {
      item_type: "field",
      key: "name",
      description: "The patient's full name",
      question: "May I have your full name?",
      field_type: "text",
      required: true,
      choices: []
    },
    {
      item_type: "field",
      key: "time_of_day",
      description: "When the patient prefers to come",
      question: "Do you prefer mornings or afternoons?",
      field_type: "multiple_choice",
      required: true,
      choices: ["morning", "afternoon"]
    },
    { item_type: "todo", key: "confirm", description: "Confirm the booking back to the patient" }
  ]
}

const agentBody = (overrides: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = {
    name: uniqueName("Front desk"),
    persona: { agent_name: "Riley", organization_name: "Acme Dental", agent_purpose: "to book cleanings" },
    task,
    ...overrides
  }
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key]
  return body
}

const createAgent = (org: TestOrganization, overrides: Record<string, unknown> = {}) =>
  Effect.flatMap(
    api(org.key, "POST", "/v2/agents", { json: agentBody(overrides) }),
    (reply) =>
      reply.status === 201
        ? Effect.succeed(reply.body)
        : Effect.die(new Error(`create agent: ${reply.status} ${reply.text}`))
  )

/** A call of the organization, inserted as the dialer or the inbound path does. */
const insertCall = (org: TestOrganization, fields: { direction?: "inbound" | "outbound"; toNumber?: string } = {}) =>
  ConversationRepository.use((conversations) =>
    conversations.insert({
      callId: `CA${randomBytes(12).toString("hex")}`,
      organizationId: org.id,
      campaignId: null,
      contactId: null,
      direction: fields.direction ?? "outbound",
      fromNumber: fields.direction === "inbound" ? randomNumber() : org.number,
      toNumber: fields.toNumber ?? randomNumber(),
      startedAt: new Date("2026-11-20T17:00:00.000Z"),
      answeredAt: new Date("2026-11-20T17:00:02.000Z"),
      endedAt: null,
      durationSec: null,
      terminationReason: null
    })
  )

await eachBackend("agents", (it) => {
  it.effect("create answers 201 with the Agent resource; get, list, update and delete follow it", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const name = uniqueName("Front desk")
      const created = yield* api(org.key, "POST", "/v2/agents", {
        json: agentBody({ name, instructions: "Keep it short.", language: "en-US" })
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(keysOf(created.body), agentFields)
      const { created_at, id, updated_at, ...rest } = created.body
      assert.match(id, /^agt-[0-9a-f]{20}$/)
      assert.isTrue(isIsoInstant(created_at), created_at)
      assert.strictEqual(updated_at, created_at)
      assert.deepStrictEqual(rest, {
        name,
        persona: {
          agent_name: "Riley",
          organization_name: "Acme Dental",
          agent_purpose: "to book cleanings",
          voice: null
        },
        task,
        instructions: "Keep it short.",
        language: "en-US",
        llm: null,
        stt: null,
        tts: null
      })

      const got = yield* api(org.key, "GET", `/v2/agents/${id}`)
      assert.strictEqual(got.status, 200, got.text)
      assert.deepStrictEqual(got.body, created.body)

      const list = yield* api(org.key, "GET", "/v2/agents")
      assert.strictEqual(list.status, 200, list.text)
      assert.deepStrictEqual(keysOf(list.body), ["agents", "has_more", "next_cursor"])
      assert.deepStrictEqual(list.body, { agents: [created.body], next_cursor: null, has_more: false })

      const newTask = { objective: "Say hello", action_items: [{ item_type: "say", key: "hi", statement: "Hello!" }] }
      const updated = yield* api(org.key, "PATCH", `/v2/agents/${id}`, {
        json: { name: "Renamed", task: newTask, instructions: null, persona: { voice: "alloy" } }
      })
      assert.strictEqual(updated.status, 200, updated.text)
      assert.deepStrictEqual(updated.body, {
        ...created.body,
        name: "Renamed",
        task: newTask,
        instructions: null,
        persona: { agent_name: null, organization_name: null, agent_purpose: null, voice: "alloy" },
        updated_at: updated.body.updated_at
      })
      assert.isTrue(Date.parse(updated.body.updated_at) >= Date.parse(created_at))
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v2/agents/${id}`)).body, updated.body)

      const deleted = yield* api(org.key, "DELETE", `/v2/agents/${id}`)
      assert.strictEqual(deleted.status, 200, deleted.text)
      assert.deepStrictEqual(deleted.body, { ok: true })
      assertDetail(yield* api(org.key, "GET", `/v2/agents/${id}`), 404)
      assertDetail(yield* api(org.key, "PATCH", `/v2/agents/${id}`, { json: { name: "x" } }), 404)
      assertDetail(yield* api(org.key, "DELETE", `/v2/agents/${id}`), 404)
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/agents")).body.agents, [])
      // The name is free again.
      yield* createAgent(org, { name: "Renamed" })
    }))

  it.effect("invalid bodies answer 422 in FastAPI's shape at the offending field", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const post = (json: unknown) => api(org.key, "POST", "/v2/agents", { json })
      const item = (i: number, patch: Record<string, unknown>) => ({
        ...task,
        action_items: task.action_items.map((it, j) => (j === i ? { ...it, ...patch } : it))
      })
      const field = (patch: Record<string, unknown>) => ({
        objective: "x",
        action_items: [{ item_type: "field", key: "f", field_type: "text", question: "?", ...patch }]
      })
      assertValidation(yield* post({}), ["body", "name"], ["body", "persona"], ["body", "task"])
      assertValidation(yield* post(agentBody({ name: "x".repeat(201) })), ["body", "name"])
      assertValidation(yield* post(agentBody({ name: "   " })), ["body", "name"])
      assertValidation(yield* post(agentBody({ task: item(1, { key: "hello" }) })), [
        "body",
        "task",
        "action_items",
        1,
        "key"
      ])
      assertValidation(yield* post(agentBody({ task: field({ field_type: "multiple_choice", choices: ["only"] }) })), [
        "body",
        "task",
        "action_items",
        0,
        "choices"
      ])
      assertValidation(yield* post(agentBody({ task: field({ field_type: "multiple_choice" }) })), [
        "body",
        "task",
        "action_items",
        0,
        "choices"
      ])
      assertValidation(yield* post(agentBody({ task: field({ choices: ["a", "b"] }) })), [
        "body",
        "task",
        "action_items",
        0,
        "choices"
      ])
      assertValidation(yield* post(agentBody({ task: field({ field_type: "color" }) })), [
        "body",
        "task",
        "action_items",
        0,
        "field_type"
      ])
      assertValidation(yield* post(agentBody({ task: item(0, { statement: "x".repeat(2001) }) })), [
        "body",
        "task",
        "action_items",
        0,
        "statement"
      ])
      assertValidation(yield* post(agentBody({ task: field({ question: "x".repeat(2001) }) })), [
        "body",
        "task",
        "action_items",
        0,
        "question"
      ])
      const many = Array.from({ length: 101 }, (_, i) => ({ item_type: "todo", key: `t${i}`, description: "x" }))
      assertValidation(yield* post(agentBody({ task: { objective: "x", action_items: many } })), [
        "body",
        "task",
        "action_items"
      ])
      assertValidation(yield* post(agentBody({ language: "not a language" })), ["body", "language"])
      assertValidation(yield* post(agentBody({ instructions: 42 })), ["body", "instructions"])
      assertValidation(yield* post(agentBody({ persona: { agent_name: "x".repeat(2001) } })), [
        "body",
        "persona",
        "agent_name"
      ])
      assertValidation(yield* api(org.key, "POST", "/v2/agents", { body: "{not json" }))
      // Exactly 100 items, 2,000-character statements and 200-character names are fine.
      const hundred = many.slice(0, 100)
      yield* createAgent(org, { name: "y".repeat(200), task: { objective: "x".repeat(2000), action_items: hundred } })
      assert.deepStrictEqual((yield* api(org.key, "GET", "/v2/agents")).body.agents.length, 1)
    }))

  it.effect("checks in the documented check order (docs/HTTP_API.md): 401, then 422/400, then 404, then 409", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const agent = yield* createAgent(org)
      const other = yield* createAgent(org)
      const missing = "agt-00000000000000000000"
      assertDetail(yield* api(null, "POST", "/v2/agents", { json: {} }), 401)
      assertDetail(yield* api("wrong", "GET", "/v2/agents"), 401)
      assertDetail(yield* api(null, "PATCH", `/v2/agents/${missing}`, { json: { name: 5 } }), 401)
      assertValidation(yield* api(org.key, "PATCH", `/v2/agents/${missing}`, { json: { name: 5 } }), ["body", "name"])
      const empty = yield* api(org.key, "PATCH", `/v2/agents/${missing}`, { json: {} })
      assertDetail(empty, 400)
      assert.strictEqual(empty.body.detail, "No fields supplied to update")
      assertDetail(yield* api(org.key, "PATCH", `/v2/agents/${agent.id}`, { json: { unknown: 1 } }), 400)
      assertDetail(yield* api(org.key, "PATCH", `/v2/agents/${missing}`, { json: { name: other.name } }), 404)
      // No providers are configured in this server: any provider name is a 400 saying so.
      const llm = yield* api(org.key, "POST", "/v2/agents", { json: agentBody({ llm: "gpt-4o" }) })
      assertDetail(llm, 400)
      assert.include(llm.body.detail, "no llm providers are configured")
      assertDetail(yield* api(org.key, "PATCH", `/v2/agents/${missing}`, { json: { tts: "voice" } }), 400)
      const nulls = yield* api(org.key, "PATCH", `/v2/agents/${agent.id}`, { json: { llm: null, stt: null } })
      assert.strictEqual(nulls.status, 200, nulls.text)
      // Duplicate names: 409, on create and on rename.
      assertDetail(yield* api(org.key, "POST", "/v2/agents", { json: agentBody({ name: agent.name }) }), 409)
      assertDetail(yield* api(org.key, "PATCH", `/v2/agents/${agent.id}`, { json: { name: other.name } }), 409)
      const same = yield* api(org.key, "PATCH", `/v2/agents/${agent.id}`, { json: { name: agent.name } })
      assert.strictEqual(same.status, 200, same.text)
      assertDetail(yield* api(org.key, "GET", "/v2/agents/not-an-id"), 404)
    }))

  it.effect("lists newest first in keyset pages; bad limit or cursor is 400", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push((yield* createAgent(org)).id)
      yield* createAgent(other)
      const seen: Array<string> = []
      let after: string | null = null
      for (let page = 0; page < 10; page++) {
        const url: string = `/v2/agents?limit=2${after === null ? "" : `&after=${q(after)}`}`
        const reply = yield* api(org.key, "GET", url)
        assert.strictEqual(reply.status, 200, reply.text)
        seen.push(...reply.body.agents.map((a: any) => a.id))
        if (!reply.body.has_more) {
          assert.isNull(reply.body.next_cursor)
          break
        }
        assert.strictEqual(reply.body.agents.length, 2)
        after = reply.body.next_cursor
      }
      assert.deepStrictEqual(seen, [...ids].reverse())
      const first = yield* api(org.key, "GET", "/v2/agents?limit=1")
      for (const bad of ["0", "101", "x", "-1"]) {
        assertDetail(yield* api(org.key, "GET", `/v2/agents?limit=${bad}`), 400)
      }
      assertDetail(yield* api(org.key, "GET", "/v2/agents?after=garbage"), 400)
      assertDetail(yield* api(other.key, "GET", `/v2/agents?after=${q(first.body.next_cursor)}`), 400)
    }))

  it.effect("another organization's key finds nothing and changes nothing", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const intruder = yield* organization()
      const agent = yield* createAgent(org)
      const code = (yield* campaign(org)).campaign_code
      const intruderCampaign = (yield* campaign(intruder)).campaign_code
      const path = `/v2/agents/${agent.id}`
      assertDetail(yield* api(intruder.key, "GET", path), 404)
      assertDetail(yield* api(intruder.key, "PATCH", path, { json: { name: "mine" } }), 404)
      assertDetail(yield* api(intruder.key, "DELETE", path), 404)
      assert.deepStrictEqual((yield* api(intruder.key, "GET", "/v2/agents")).body.agents, [])
      // Neither its campaign nor its number nor its agent can be used by the intruder.
      const attach = (key: string, url: string, agentId: string | null) =>
        api(key, "PUT", url, { json: { agent_id: agentId } })
      assertDetail(yield* attach(intruder.key, `/v2/campaigns/${code}/agent`, null), 404)
      assertDetail(yield* attach(intruder.key, `/v2/campaigns/${intruderCampaign}/agent`, agent.id), 404)
      assertDetail(yield* attach(intruder.key, `/v2/phone-numbers/${q(org.number)}/agent`, null), 404)
      assertDetail(yield* attach(intruder.key, `/v2/phone-numbers/${q(intruder.number)}/agent`, agent.id), 404)
      assertDetail(yield* api(intruder.key, "GET", `/v2/campaigns/${code}/agent`), 404)
      assertDetail(yield* api(intruder.key, "GET", `/v2/phone-numbers/${q(org.number)}/agent`), 404)
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, agent)
      assert.deepStrictEqual((yield* api(intruder.key, "GET", `/v2/campaigns/${intruderCampaign}/agent`)).body, {
        campaign_code: intruderCampaign,
        agent_id: null
      })
    }))

  it.effect("attaches to and detaches from a campaign; the call runtime finds the campaign's agent", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const agent = yield* createAgent(org)
      const code = (yield* campaign(org)).campaign_code
      const path = `/v2/campaigns/${code}/agent`
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, { campaign_code: code, agent_id: null })
      const attached = yield* api(org.key, "PUT", path, { json: { agent_id: agent.id } })
      assert.strictEqual(attached.status, 200, attached.text)
      assert.deepStrictEqual(attached.body, { campaign_code: code, agent_id: agent.id })
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, attached.body)
      // The Campaign resource itself is unchanged (docs/DECISIONS.md: no extra fields).
      assert.notProperty((yield* api(org.key, "GET", `/v2/campaigns/${code}`)).body, "agent_id")

      const record = (yield* api(org.key, "GET", `/v2/campaigns/${code}`)).body
      const conversations = yield* ConversationRepository
      const outbound = yield* conversations.insert({
        callId: `CA${randomBytes(12).toString("hex")}`,
        organizationId: org.id,
        campaignId: record.id,
        contactId: null,
        direction: "outbound",
        fromNumber: org.number,
        toNumber: randomNumber(),
        startedAt: new Date("2026-11-20T17:00:00.000Z"),
        answeredAt: null,
        endedAt: null,
        durationSec: null,
        terminationReason: null
      })
      const found = yield* (yield* AgentRepository).forCall(outbound.callId)
      assert.strictEqual(Option.getOrThrow(found).id, agent.id)

      assertValidation(yield* api(org.key, "PUT", path, { json: {} }), ["body", "agent_id"])
      assertValidation(yield* api(org.key, "PUT", path, { json: { agent_id: 7 } }), ["body", "agent_id"])
      assertDetail(yield* api(org.key, "PUT", path, { json: { agent_id: "agt-00000000000000000000" } }), 404)
      assertDetail(yield* api(org.key, "PUT", "/v2/campaigns/gcmp-unknown/agent", { json: { agent_id: null } }), 404)
      assertDetail(yield* api(null, "PUT", path, { json: { agent_id: null } }), 401)
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body.agent_id, agent.id)

      const detached = yield* api(org.key, "PUT", path, { json: { agent_id: null } })
      assert.deepStrictEqual(detached.body, { campaign_code: code, agent_id: null })
      assert.isTrue(Option.isNone(yield* (yield* AgentRepository).forCall(outbound.callId)))

      // Campaign endpoints need outbound dialing: 403 before the body is read.
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "PUT", path, { json: {} }), 403)
      assertDetail(yield* api(org.key, "GET", path), 403)
      // Definitions themselves do not (an inbound-only organization uses them).
      assert.strictEqual((yield* api(org.key, "GET", `/v2/agents/${agent.id}`)).status, 200)
    }))

  it.effect("attaches to one of the organization's numbers for its inbound calls", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const agent = yield* createAgent(org)
      const digits = org.number.slice(2)
      for (const written of [q(org.number), org.number, digits, q(`(${digits.slice(0, 3)}) ${digits.slice(3)}`)]) {
        const reply = yield* api(org.key, "PUT", `/v2/phone-numbers/${written}/agent`, { json: { agent_id: agent.id } })
        assert.strictEqual(reply.status, 200, `${written}: ${reply.text}`)
        assert.deepStrictEqual(reply.body, { phone_number: org.number, agent_id: agent.id })
      }
      const path = `/v2/phone-numbers/${q(org.number)}/agent`
      assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, { phone_number: org.number, agent_id: agent.id })

      const inbound = yield* insertCall(org, { direction: "inbound", toNumber: org.number })
      const found = yield* (yield* AgentRepository).forCall(inbound.callId)
      assert.deepStrictEqual(
        Option.map(found, (a) => a.id),
        Option.some(agent.id)
      )

      for (const unknown of [q(randomNumber()), "not-a-number", q("+1")]) {
        assertDetail(
          yield* api(org.key, "PUT", `/v2/phone-numbers/${unknown}/agent`, { json: { agent_id: null } }),
          404
        )
        assertDetail(yield* api(org.key, "GET", `/v2/phone-numbers/${unknown}/agent`), 404)
      }
      assertDetail(yield* api(org.key, "PUT", path, { json: { agent_id: "agt-00000000000000000000" } }), 404)
      assertValidation(yield* api(org.key, "PUT", path, { json: { agent: agent.id } }), ["body", "agent_id"])

      const detached = yield* api(org.key, "PUT", path, { json: { agent_id: null } })
      assert.deepStrictEqual(detached.body, { phone_number: org.number, agent_id: null })
      assert.isTrue(Option.isNone(yield* (yield* AgentRepository).forCall(inbound.callId)))
    }))

  it.effect("an agent attached to a live campaign or a number cannot be deleted (409) until detached", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const agent = yield* createAgent(org)
      const live = (yield* campaign(org)).campaign_code
      const gone = (yield* campaign(org)).campaign_code
      const second = yield* addNumber(org.id)
      const put = (url: string, agentId: string | null) => api(org.key, "PUT", url, { json: { agent_id: agentId } })
      yield* put(`/v2/campaigns/${live}/agent`, agent.id)
      yield* put(`/v2/campaigns/${gone}/agent`, agent.id)
      yield* put(`/v2/phone-numbers/${q(second)}/agent`, agent.id)
      assert.strictEqual((yield* api(org.key, "DELETE", `/v2/campaigns/${gone}`)).status, 200)

      const refused = yield* api(org.key, "DELETE", `/v2/agents/${agent.id}`)
      assertDetail(refused, 409)
      assert.include(refused.body.detail, live)
      assert.include(refused.body.detail, second)
      assert.notInclude(refused.body.detail, gone)
      assert.strictEqual((yield* api(org.key, "GET", `/v2/agents/${agent.id}`)).status, 200)

      yield* put(`/v2/campaigns/${live}/agent`, null)
      assertDetail(yield* api(org.key, "DELETE", `/v2/agents/${agent.id}`), 409)
      yield* put(`/v2/phone-numbers/${q(second)}/agent`, null)
      const deleted = yield* api(org.key, "DELETE", `/v2/agents/${agent.id}`)
      assert.strictEqual(deleted.status, 200, deleted.text)
      assertDetail(yield* put(`/v2/campaigns/${live}/agent`, agent.id), 404)
    }))

  it.effect("GET /v1/conversations/{call_id}/fields answers the recorded values, typed", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const conversations = yield* ConversationRepository
      const call = yield* insertCall(org)
      const quiet = yield* insertCall(org)
      yield* conversations.recordField(call.id, "name", "Alex Morgan")
      yield* conversations.recordField(call.id, "age", 42)
      yield* conversations.recordField(call.id, "birthday", { year: 2027, month: 3, day: 3 })
      yield* conversations.recordField(call.id, "time_of_day", "morning")
      yield* conversations.recordField(call.id, "account", "1234")
      yield* conversations.recordField(call.id, "slot", "2027-03-09T10:00")
      yield* conversations.recordField(call.id, "age", 43)

      const reply = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/fields`)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, {
        fields: {
          account: "1234",
          age: 43,
          birthday: { year: 2027, month: 3, day: 3 },
          name: "Alex Morgan",
          slot: "2027-03-09T10:00",
          time_of_day: "morning"
        }
      })
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v1/conversations/${quiet.callId}/fields`)).body, {
        fields: {}
      })
      assertDetail(yield* api(null, "GET", `/v1/conversations/${call.callId}/fields`), 401)
      assertDetail(yield* api(other.key, "GET", `/v1/conversations/${call.callId}/fields`), 404)
      assertDetail(yield* api(org.key, "GET", "/v1/conversations/CAunknown/fields"), 404)
    }))
})
