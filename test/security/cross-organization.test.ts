/**
 * Tenant isolation, probed route by route (issue 12, "Security"): organization A holds data of
 * every kind (campaigns and their turn latency, contacts, conversations with transcript, latency,
 * recordings and fields, inbound and outbound messages, agents attached to a campaign and a number, Do-Not-Call
 * entries, numbers, a webhook, cursors of every list); organization B, with data of its own,
 * sends every route of the public API with its own key and A's ids in the path, the query, the
 * body and the cursors.
 *
 * The routes come from the app's own OpenAPI document, so a new route is probed as soon as it
 * exists: the test fails for a route without a recipe here (and for a recipe whose route is
 * gone). For each probe:
 * - the status is one the API documents for it (404 for what B does not own, 403 or 400 where
 *   the API reference names them, 401 for the admin API), never a 5xx;
 * - nothing of A's is in the answer (ids, codes, numbers, names, contents), beyond what B sent;
 * - no existence oracle: the same request naming an id of the same shape that names nothing
 *   gets the same answer, byte for byte (the echoed id aside);
 * and after all of them A's data is identical, read through A's key, and so is every row of
 * the database that is not B's.
 *
 * The WebSockets (not in the OpenAPI document) and `v2/create-outbound` from A's number (which
 * the in-process app, without DirectCalls, answers 501) are probed on a real daemon in
 * cross-organization-daemon.test.ts.
 */
import { assert } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes, randomInt, randomUUID } from "node:crypto"
import {
  addDnc,
  addNumber,
  admin,
  api,
  campaign,
  eachBackend,
  inboundMessage,
  listAllContacts,
  organization,
  q,
  randomNumber,
  request,
  uniqueName,
  upload
} from "../http/support/ApiServer.ts"
import type { Reply, TestOrganization } from "../http/support/ApiServer.ts"

const hex = (bytes: number) => randomBytes(bytes).toString("hex")

const agentBody = (name: string, secret: string) => ({
  name,
  persona: { agent_name: "Riley", organization_name: secret, agent_purpose: "to book cleanings" },
  task: {
    objective: secret,
    action_items: [{ item_type: "field", key: "name", field_type: "text", question: "May I have your name?" }]
  }
})

const createAgent = (org: TestOrganization, name: string, secret: string) =>
  Effect.flatMap(api(org.key, "POST", "/v2/agents", { json: agentBody(name, secret) }), (reply) =>
    reply.status === 201
      ? Effect.succeed(reply.body as { id: string; name: string })
      : Effect.die(new Error(`create agent: ${reply.status} ${reply.text}`)))

/** A call of `org`, inserted as the dialer or the inbound path does. */
const insertCall = (
  org: TestOrganization,
  fields: {
    readonly campaignId: string | null
    readonly contactId: string | null
    readonly direction: "inbound" | "outbound"
    readonly other: string
    readonly answered: boolean
    readonly startedAt: Date
  }
) =>
  ConversationRepository.use((conversations) =>
    conversations.insert({
      callId: `CA${hex(12)}`,
      organizationId: org.id,
      campaignId: fields.campaignId,
      contactId: fields.contactId,
      direction: fields.direction,
      fromNumber: fields.direction === "inbound" ? fields.other : org.number,
      toNumber: fields.direction === "inbound" ? org.number : fields.other,
      startedAt: fields.startedAt,
      answeredAt: fields.answered ? fields.startedAt : null,
      endedAt: new Date(fields.startedAt.getTime() + 10_000),
      durationSec: fields.answered ? 10 : 0,
      terminationReason: fields.answered ? "bot-hangup" : "no-answer"
    })
  )

/** Organization A, with data of every kind the API serves. */
const populateA = Effect.gen(function*() {
  const org = yield* organization()
  const silentNumber = yield* addNumber(org.id, { sms_enabled: false })
  const c = yield* campaign(org, { start_date: "2020-01-01", description: "secret of A" })
  const deleted = yield* campaign(org, { start_date: "2020-01-01" })
  assert.strictEqual((yield* api(org.key, "DELETE", `/v2/campaigns/${deleted.campaign_code}`)).status, 200)
  const contactNumber = randomNumber()
  const dncNumber = randomNumber()
  yield* upload(org, c.campaign_code, [
    { phone_number: contactNumber, data: { secret: "A" } },
    { phone_number: randomNumber(), data: { secret: "A", other: 1 } },
    { phone_number: dncNumber }
  ])
  // The number goes on A's Do-Not-Call list after the upload: its contact is FAILED at once.
  yield* addDnc(org.id, [dncNumber])
  const contacts = yield* listAllContacts(org, `campaign_code=${c.campaign_code}`)
  const contact = contacts.find((x: any) => x.phone_number === contactNumber)
  const startedAt = new Date("2026-11-20T17:00:00.000Z")
  const answered = yield* insertCall(org, {
    campaignId: c.id,
    contactId: contact.id,
    direction: "outbound",
    other: contactNumber,
    answered: true,
    startedAt
  })
  const unanswered = yield* insertCall(org, {
    campaignId: c.id,
    contactId: null,
    direction: "outbound",
    other: randomNumber(),
    answered: false,
    startedAt: new Date(startedAt.getTime() + 1000)
  })
  const inbound = yield* insertCall(org, {
    campaignId: null,
    contactId: null,
    direction: "inbound",
    other: contactNumber,
    answered: true,
    startedAt: new Date(startedAt.getTime() + 2000)
  })
  const conversations = yield* ConversationRepository
  // A call still ringing: the only kind that may have a listen ticket.
  const ringing = yield* conversations.insert({
    callId: `CA${hex(12)}`,
    organizationId: org.id,
    campaignId: c.id,
    contactId: null,
    direction: "outbound",
    fromNumber: org.number,
    toNumber: randomNumber(),
    startedAt: new Date(startedAt.getTime() + 3000),
    answeredAt: null,
    endedAt: null,
    durationSec: null,
    terminationReason: null
  })
  yield* conversations.appendTurns(answered.id, [
    { speaker: "AGENT", text: "secret of A", offsetMs: 0 },
    { speaker: "HUMAN", text: "secret of A, said", offsetMs: 900 }
  ])
  yield* conversations.recordField(answered.id, "name", "secret of A")
  yield* conversations.recordField(answered.id, "age", 42)
  yield* conversations.recordLatency(answered.id, { userStoppedMs: 1200, agentStartedMs: 1650, stages: { stt_ms: 90 } })
  const store = yield* RecordingStore
  for (const channel of ["agent", "remote"] as const) {
    yield* Effect.scoped(
      Effect.flatMap(
        store.openWriter(answered.callId, channel),
        (w) => w.write(new Int16Array(1600).fill(channel === "agent" ? 100 : -100))
      )
    )
  }
  const message = yield* inboundMessage(org.id, {
    from_number: contactNumber,
    to_number: org.number,
    content: "secret of A"
  })
  const sent = yield* api(org.key, "POST", "/v1/send-sms", {
    json: { from_number: org.number, to_number: contactNumber, message: "secret of A, sent" }
  })
  assert.strictEqual(sent.status, 201, sent.text)
  const agentName = uniqueName("secret-agent-of-A")
  const agent = yield* createAgent(org, agentName, "secret of A")
  const agent2 = yield* createAgent(org, uniqueName("second-agent-of-A"), "secret of A")
  for (
    const path of [`/v2/campaigns/${c.campaign_code}/agent`, `/v2/phone-numbers/${q(org.number)}/agent`]
  ) {
    assert.strictEqual((yield* api(org.key, "PUT", path, { json: { agent_id: agent.id } })).status, 200, path)
  }
  const webhook = (yield* admin("POST", `/admin/v1/organizations/${org.id}/webhooks`, {
    url: "http://127.0.0.1:9/secret-of-A"
  }, 201)).body
  const cursor = (path: string) =>
    Effect.map(api(org.key, "GET", path), (reply) => {
      assert.isString(reply.body.next_cursor, path)
      return reply.body.next_cursor as string
    })
  return {
    org,
    silentNumber,
    campaign: c,
    deletedCampaign: deleted,
    contacts,
    contact,
    contactNumber,
    dncNumber,
    callId: answered.callId,
    unansweredCallId: unanswered.callId,
    inboundCallId: inbound.callId,
    ringingCallId: ringing.callId,
    message,
    agent,
    agent2,
    agentName,
    webhookId: webhook.id as string,
    cursors: {
      contacts: yield* cursor("/v2/contacts?limit=1"),
      legacyContacts: yield* cursor(`/v1/contacts?limit=1&campaign_id=${c.id}`),
      conversations: yield* cursor("/v1/conversations?limit=1"),
      agents: yield* cursor("/v2/agents?limit=1")
    }
  }
})

type A = Effect.Success<typeof populateA>

/** Organization B, with its own campaign, contact, agent and call. */
const populateB = Effect.gen(function*() {
  const org = yield* organization()
  const c = yield* campaign(org, { start_date: "2020-01-01" })
  yield* upload(org, c.campaign_code, [{ phone_number: randomNumber(), data: { mine: "B" } }])
  const contacts = yield* listAllContacts(org, `campaign_code=${c.campaign_code}`)
  const agent = yield* createAgent(org, uniqueName("agent-of-B"), "B")
  const call = yield* insertCall(org, {
    campaignId: c.id,
    contactId: contacts[0].id,
    direction: "outbound",
    other: contacts[0].phone_number,
    answered: false,
    startedAt: new Date("2026-11-20T18:00:00.000Z")
  })
  return { org, campaign: c, contact: contacts[0], agent, callId: call.callId }
})

type B = Effect.Success<typeof populateB>

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex")

/**
 * An eligibility answer with a callable contact's `next_eligible_at` (the moment of the request,
 * during the campaign's window) replaced by a marker: two reads of unchanged data differ there.
 */
const withoutNow = (body: any) =>
  body?.callable === true && typeof body.next_eligible_at === "string" &&
    Math.abs(Date.parse(body.next_eligible_at) - Date.now()) < 60_000
    ? { ...body, next_eligible_at: "(the request's time)" }
    : body

/** Everything A can read through its own key. */
const viewOf = (a: A) =>
  Effect.gen(function*() {
    const key = a.org.key
    const code = a.campaign.campaign_code
    const paths = [
      "/v2/campaigns",
      "/v1/campaigns",
      `/v2/campaigns/${code}`,
      `/v1/campaigns/${a.campaign.id}`,
      `/v2/campaigns/${code}/status`,
      `/v2/campaigns/${code}/has-callable-contacts`,
      `/v2/campaigns/${code}/latency`,
      `/v2/campaigns/${code}/agent`,
      "/v2/contacts?limit=1000",
      `/v1/contacts?limit=1000&campaign_id=${a.campaign.id}`,
      ...a.contacts.map((c: any) => `/v2/campaigns/${code}/contacts/${c.id}/eligibility`),
      "/v1/conversations?limit=100",
      ...[a.callId, a.unansweredCallId, a.inboundCallId].flatMap((id) => [
        `/v1/conversations/${id}`,
        `/v1/conversations/${id}/transcript`,
        `/v1/conversations/${id}/latency`,
        `/v1/conversations/${id}/fields`
      ]),
      `/v1/messages?to_number=${q(a.org.number)}&limit=100`,
      "/v1/phone-numbers",
      "/v2/agents?limit=100",
      `/v2/agents/${a.agent.id}`,
      `/v2/agents/${a.agent2.id}`,
      `/v2/phone-numbers/${q(a.org.number)}/agent`,
      `/v2/phone-numbers/${q(a.silentNumber)}/agent`
    ]
    const view: Record<string, unknown> = {}
    for (const path of paths) {
      const reply = yield* api(key, "GET", path)
      assert.strictEqual(reply.status, 200, `A reads ${path}: ${reply.text}`)
      view[path] = path.endsWith("/eligibility") ? withoutNow(reply.body) : reply.body
    }
    for (const channel of ["recording", "channels/agent/recording", "channels/remote/recording"]) {
      const path = `/v1/conversations/${a.callId}/${channel}`
      const reply = yield* api(key, "GET", path)
      assert.strictEqual(reply.status, 200, path)
      view[path] = sha256(reply.bytes)
    }
    for (const path of [`/admin/v1/organizations/${a.org.id}/webhooks`]) {
      view[path] = (yield* admin("GET", path, undefined, 200)).body
    }
    return view
  })

/**
 * Every row of every table, as JSON, but B's own (rows whose `organization_id` is B's): what
 * B may change is its own data, nothing else.
 */
const databaseOutside = (b: B) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ readonly name: string }>`
      SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
    const snapshot: Record<string, ReadonlyArray<string>> = {}
    for (const { name } of tables) {
      const rows = yield* sql<{ readonly row: unknown }>`SELECT row_to_json(t) AS row FROM ${sql(name)} t`
      snapshot[name] = rows
        .map((r) => (typeof r.row === "string" ? JSON.parse(r.row) : r.row) as Record<string, unknown>)
        .filter((row) => row["organization_id"] !== b.org.id)
        .map((row) => JSON.stringify(row))
        .sort()
    }
    return snapshot
  }).pipe(Effect.orDie)

/** What A must never see in an answer to B (unless B itself sent it). */
const secretsOf = (a: A): ReadonlyArray<string> => [
  a.org.id,
  a.org.key,
  a.org.number,
  a.silentNumber,
  a.campaign.id,
  a.campaign.campaign_code,
  a.campaign.name,
  a.deletedCampaign.id,
  a.deletedCampaign.campaign_code,
  a.contactNumber,
  a.dncNumber,
  a.callId,
  a.unansweredCallId,
  a.inboundCallId,
  a.message.id,
  a.agent.id,
  a.agent2.id,
  a.agentName,
  a.webhookId,
  "secret of A",
  "secret-of-A",
  "\"secret\":\"A\"",
  ...Object.values(a.cursors),
  ...a.contacts.map((c: any) => `"id":"${c.id}"`)
]

/** One request of B's, with what the API documents as its answer. */
interface Probe {
  readonly method: string
  readonly path: string
  readonly json?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** The statuses the API documents for this request. */
  readonly expect: ReadonlyArray<number>
  /**
   * A's values and, for each, a value of the same shape that names nothing: the same request
   * with them must be answered the same (no oracle of what A has).
   */
  readonly twin?: ReadonlyArray<readonly [string, string]>
  /** The key sent (B's unless said). */
  readonly token?: string | null
  /** More checks of the answer. */
  readonly check?: (reply: Reply) => void
}

/** The organization's fresh lookalikes of A's ids. */
const fakes = () => ({
  code: `gcmp-${hex(10)}`,
  uuid: randomUUID(),
  callId: `CA${hex(12)}`,
  contactId: String(900_000_000 + randomInt(1_000_000)),
  agentId: `agt-${hex(10)}`,
  number: randomNumber(),
  cursor: (cursor: string) => `${cursor.split(".")[0]}.${randomBytes(16).toString("base64url")}`
})

type Recipe = (a: A, b: B) => ReadonlyArray<Probe>

/** Asserts that a list answer holds none of A's rows (by id, and by A's contents). */
const onlyB = (a: A, field?: string) => (reply: Reply) => {
  const rows = field === undefined ? reply.body : reply.body[field]
  assert.isArray(rows, reply.text)
  const ids = new Set<string>([
    a.campaign.id,
    a.deletedCampaign.id,
    a.callId,
    a.unansweredCallId,
    a.inboundCallId,
    a.agent.id,
    a.agent2.id,
    ...a.contacts.map((c: any) => c.id as string)
  ])
  for (const row of rows) {
    const text = JSON.stringify(row)
    assert.isFalse(ids.has(row.id) || ids.has(row.call_id), `A's row in B's list: ${text}`)
    assert.notInclude(text, "secret of A", `A's row in B's list: ${text}`)
    assert.notInclude(text, "\"secret\":\"A\"", `A's row in B's list: ${text}`)
  }
}

const adminRecipe = (method: string, path: (a: A) => string, json?: (a: A) => unknown): Recipe => (a, b) => {
  const f = fakes()
  // An organization's key is never the admin token: 401 whatever the organization in the path.
  return [{
    method,
    path: path(a),
    json: json?.(a),
    expect: [401],
    twin: [[a.org.id, f.uuid]],
    token: b.org.key
  }]
}

/**
 * How each route of the OpenAPI document is probed. A route without an entry fails the test:
 * add one when you add a route.
 */
const recipes: Record<string, Recipe> = {
  "POST /v1/send-sms": (a, b) => {
    const f = fakes()
    return [
      // A's number as B's sender: 400 as for any number B does not own.
      {
        method: "POST",
        path: "/v1/send-sms",
        json: { from_number: a.org.number, to_number: b.contact.phone_number, message: "from A's number" },
        expect: [400],
        twin: [[a.org.number, f.number]]
      },
      {
        method: "POST",
        path: "/v1/send-sms",
        json: { from_number: a.silentNumber, to_number: b.contact.phone_number, message: "from A's number" },
        expect: [400],
        twin: [[a.silentNumber, f.number]]
      }
    ]
  },
  "GET /v1/messages": (a, b) => {
    const f = fakes()
    return [
      {
        method: "GET",
        path: `/v1/messages?to_number=${q(a.org.number)}`,
        expect: [404],
        twin: [[a.org.number, f.number]]
      },
      {
        method: "GET",
        path: `/v1/messages?to_number=${q(a.org.number)}&from_number=${q(a.contactNumber)}&start=2000-01-01T00:00:00Z`,
        expect: [404],
        twin: [[a.org.number, f.number]]
      },
      {
        method: "GET",
        path: `/v1/messages?to_number=${q(b.org.number)}&from_number=${q(a.contactNumber)}`,
        expect: [200],
        check: (reply) => assert.deepStrictEqual(reply.body, { messages: [], has_more: false })
      }
    ]
  },
  "GET /v1/phone-numbers": (_a, b) => [{
    method: "GET",
    path: "/v1/phone-numbers",
    expect: [200],
    check: (reply) => assert.deepStrictEqual(reply.body, [{ phone_number: b.org.number, sms_enabled: true }])
  }, {
    // The organization comes from the key only: ids in the query or headers are ignored.
    method: "GET",
    path: "/v1/phone-numbers?organization_id=A",
    headers: { "x-organization-id": "A" },
    expect: [200],
    check: (reply) => assert.deepStrictEqual(reply.body, [{ phone_number: b.org.number, sms_enabled: true }])
  }],
  "POST /v2/campaigns": (a, b) => {
    const f = fakes()
    const body = {
      name: uniqueName("b-campaign"),
      start_date: "2030-01-01",
      calling_windows: [{ day: "monday", start_time: "09:00", end_time: "17:00" }]
    }
    return [
      // A's number as an origin: 403 (the API reference: "an origin number is not owned by the account").
      {
        method: "POST",
        path: "/v2/campaigns",
        json: { ...body, origin_phone_numbers: [a.org.number] },
        expect: [403],
        twin: [[a.org.number, f.number]]
      },
      {
        method: "POST",
        path: "/v2/campaigns",
        json: { ...body, origin_phone_numbers: [b.org.number, a.silentNumber] },
        expect: [403],
        twin: [[a.silentNumber, f.number]]
      },
      // A's campaign name is free for B (no 409: names are per organization, and a conflict
      // would tell B what A calls its campaigns); an organization id in the body is ignored.
      {
        method: "POST",
        path: "/v2/campaigns",
        json: { ...body, name: a.campaign.name, origin_phone_numbers: [b.org.number], organization_id: a.org.id },
        expect: [201, 422],
        check: (reply) => {
          if (reply.status === 201) assert.strictEqual(reply.body.name, a.campaign.name)
        }
      }
    ]
  },
  "GET /v2/campaigns": (a) => [{
    method: "GET",
    path: `/v2/campaigns?organization_id=${a.org.id}`,
    headers: { "x-organization-id": a.org.id },
    expect: [200],
    check: onlyB(a)
  }],
  "GET /v2/campaigns/{campaign_code}": (a) => campaignByCode(a, "GET", ""),
  "PATCH /v2/campaigns/{campaign_code}": (a, b) => [
    ...campaignByCode(a, "PATCH", "", { enabled: false }),
    ...campaignByCode(a, "PATCH", "", { name: "taken over", description: "B was here" }),
    ...campaignByCode(a, "PATCH", "", { origin_phone_numbers: [b.org.number] }),
    // A's numbers as origins of B's own campaign: 403.
    {
      method: "PATCH",
      path: `/v2/campaigns/${b.campaign.campaign_code}`,
      json: { origin_phone_numbers: [a.org.number] },
      expect: [403],
      twin: [[a.org.number, fakes().number]]
    }
  ],
  "DELETE /v2/campaigns/{campaign_code}": (a) => [
    ...campaignByCode(a, "DELETE", ""),
    ...campaignByCode(a, "DELETE", "", undefined, a.deletedCampaign.campaign_code)
  ],
  "GET /v2/campaigns/{campaign_code}/status": (a) => campaignByCode(a, "GET", "/status"),
  "GET /v2/campaigns/{campaign_code}/has-callable-contacts": (a) => campaignByCode(a, "GET", "/has-callable-contacts"),
  "GET /v2/campaigns/{campaign_code}/latency": (a, b) => [
    ...campaignByCode(a, "GET", "/latency"),
    // B's own campaign: B's calls only (none has a reply), nothing of A's replies.
    {
      method: "GET",
      path: `/v2/campaigns/${b.campaign.campaign_code}/latency`,
      expect: [200],
      check: (reply) =>
        assert.deepStrictEqual(reply.body, {
          summary: { count: 0, p50_ms: null, p90_ms: null, max_ms: null },
          calls: 0
        })
    }
  ],
  "POST /v2/campaigns/{campaign_code}/contacts": (a, b) => [
    ...campaignByCode(a, "POST", "/contacts?accepted_terms_of_service=true", {
      contacts: [{ phone_number: randomNumber(), data: { by: "B" } }]
    }),
    ...campaignByCode(a, "POST", "/contacts?accepted_terms_of_service=true&allow_duplicates=true", {
      contacts: [{ phone_number: a.contactNumber }]
    }),
    // A's Do-Not-Call list and A's contacts do not reach B's campaign: the upload succeeds
    // (a `do_not_call` or `duplicate` rejection would tell B what A holds).
    {
      method: "POST",
      path: `/v2/campaigns/${b.campaign.campaign_code}/contacts?accepted_terms_of_service=true`,
      json: { contacts: [{ phone_number: a.dncNumber }, { phone_number: a.contactNumber }] },
      expect: [200],
      check: (reply) => assert.deepStrictEqual(reply.body, { created: 2 })
    }
  ],
  "DELETE /v2/campaigns/{campaign_code}/contacts": (a, b) => {
    const f = fakes()
    return [
      ...campaignByCode(a, "DELETE", `/contacts?phone_number=${q(a.contactNumber)}`),
      {
        method: "DELETE",
        path: `/v2/campaigns/${b.campaign.campaign_code}/contacts?phone_number=${q(a.org.number)}`,
        expect: [404],
        twin: [[a.org.number, f.number]]
      }
    ]
  },
  "GET /v2/contacts": (a) => {
    const f = fakes()
    return [
      {
        method: "GET",
        path: `/v2/contacts?campaign_code=${a.campaign.campaign_code}`,
        expect: [404],
        twin: [[a.campaign.campaign_code, f.code]]
      },
      {
        method: "GET",
        path: `/v2/contacts?after=${q(a.cursors.contacts)}`,
        expect: [400],
        twin: [[a.cursors.contacts, f.cursor(a.cursors.contacts)]]
      },
      ...["", `data=${q("{\"secret\":\"A\"}")}`, "status=FAILED", "attempted_before=2100-01-01T00:00:00Z"].map((
        query
      ): Probe => ({
        method: "GET",
        path: `/v2/contacts?limit=1000&${query}`,
        expect: [200],
        check: onlyB(a, "contacts")
      }))
    ]
  },
  "DELETE /v2/campaigns/{campaign_code}/contacts/{contact_id}": (a, b) => {
    const f = fakes()
    return [
      ...campaignByCode(a, "DELETE", `/contacts/${a.contact.id}`),
      {
        method: "DELETE",
        path: `/v2/campaigns/${b.campaign.campaign_code}/contacts/${a.contact.id}`,
        expect: [404],
        twin: [[a.contact.id, f.contactId]]
      }
    ]
  },
  "GET /v2/campaigns/{campaign_code}/contacts/{contact_id}/eligibility": (a, b) => {
    const f = fakes()
    return [
      ...campaignByCode(a, "GET", `/contacts/${a.contact.id}/eligibility`),
      {
        method: "GET",
        path: `/v2/campaigns/${b.campaign.campaign_code}/contacts/${a.contact.id}/eligibility`,
        expect: [404],
        twin: [[a.contact.id, f.contactId]]
      },
      {
        // B's contact with a number on A's DNC list is not blocked by it.
        method: "GET",
        path: `/v2/campaigns/${b.campaign.campaign_code}/contacts/${b.contact.id}/eligibility`,
        expect: [200],
        check: (reply) => assert.notInclude(reply.body.blocked_by, "do_not_call")
      }
    ]
  },
  "GET /v1/conversations": (a, b) => {
    const f = fakes()
    return [
      {
        method: "GET",
        path: `/v1/conversations?after=${q(a.cursors.conversations)}`,
        expect: [400],
        twin: [[a.cursors.conversations, f.cursor(a.cursors.conversations)]]
      },
      ...[
        `campaign_id=${a.campaign.id}`,
        `from_number=${q(a.org.number)}`,
        `to_number=${q(a.contactNumber)}`,
        `to_number=${q(a.org.number)}&direction=inbound`,
        "direction=all&date_from=2000-01-01T00:00:00Z",
        `organization_id=${a.org.id}`
      ].map((query): Probe => ({
        method: "GET",
        path: `/v1/conversations?limit=100&${query}`,
        expect: [200],
        check: (reply) => {
          onlyB(a, "conversations")(reply)
          for (const c of reply.body.conversations) assert.strictEqual(c.call_id, b.callId)
        }
      }))
    ]
  },
  "GET /v1/conversations/{call_id}": (a) => byCall(a, ""),
  "GET /v1/conversations/{call_id}/transcript": (a) => byCall(a, "/transcript"),
  "GET /v1/conversations/{call_id}/latency": (a) => byCall(a, "/latency"),
  "GET /v1/conversations/{call_id}/recording": (a) => [
    ...byCall(a, "/recording"),
    ...byCall(a, "/recording", { range: "bytes=0-43" })
  ],
  "GET /v1/conversations/{call_id}/channels/{channel_name}/recording": (a) =>
    ["agent", "remote", "mixed"].flatMap((channel) => byCall(a, `/channels/${channel}/recording`)),
  "GET /v1/conversations/{call_id}/fields": (a) => byCall(a, "/fields"),
  // A's ringing call would get A a ticket: B gets 404, as for an unknown call, and no ticket row.
  "POST /v1/conversations/{call_id}/listen-tickets": (a) =>
    [a.ringingCallId, a.callId].map((id): Probe => ({
      method: "POST",
      path: `/v1/conversations/${id}/listen-tickets`,
      expect: [404],
      twin: [[id, fakes().callId]]
    })),
  "GET /v1/campaigns": (a) => [{
    method: "GET",
    path: `/v1/campaigns?organization_id=${a.org.id}`,
    expect: [200],
    check: onlyB(a)
  }],
  "GET /v1/campaigns/{campaign_id}": (a) => legacyCampaign(a, "GET", ""),
  "PATCH /v1/campaigns/{campaign_id}": (a, b) => [
    ...legacyCampaign(a, "PATCH", "", { enabled: false }),
    ...legacyCampaign(a, "PATCH", "", { name: "taken over" }),
    {
      method: "PATCH",
      path: `/v1/campaigns/${b.campaign.id}`,
      json: { origin_phone_numbers: [a.org.number] },
      expect: [403],
      twin: [[a.org.number, fakes().number]]
    }
  ],
  "DELETE /v1/campaigns/{campaign_id}": (a) => legacyCampaign(a, "DELETE", ""),
  "GET /v1/campaigns/{campaign_id}/status": (a) => legacyCampaign(a, "GET", "/status"),
  "GET /v1/campaigns/{campaign_id}/has-callable-contacts": (a) => legacyCampaign(a, "GET", "/has-callable-contacts"),
  "POST /v1/campaigns/{campaign_id}/contacts": (a) =>
    legacyCampaign(a, "POST", "/contacts?accepted_terms_of_service=true", {
      contacts: [{ phone_number: randomNumber() }]
    }),
  "GET /v1/contacts": (a) => {
    const f = fakes()
    return [
      ...[a.campaign.id, a.campaign.campaign_code].map((ref): Probe => ({
        method: "GET",
        path: `/v1/contacts?campaign_id=${ref}`,
        expect: [404],
        twin: [[ref, ref === a.campaign.id ? f.uuid : f.code]]
      })),
      {
        method: "GET",
        path: `/v1/contacts?after=${q(a.cursors.legacyContacts)}`,
        expect: [400],
        twin: [[a.cursors.legacyContacts, f.cursor(a.cursors.legacyContacts)]]
      },
      { method: "GET", path: "/v1/contacts?limit=1000", expect: [200], check: onlyB(a, "contacts") }
    ]
  },
  "POST /admin/v1/organizations": (_a, b) => [{
    method: "POST",
    path: "/admin/v1/organizations",
    json: { name: "made by B" },
    expect: [401],
    token: b.org.key
  }],
  "PATCH /admin/v1/organizations/{org_id}": adminRecipe(
    "PATCH",
    (a) => `/admin/v1/organizations/${a.org.id}`,
    () => ({ outbound_dialing_enabled: false })
  ),
  "POST /admin/v1/organizations/{org_id}/api-keys": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/api-keys`
  ),
  "DELETE /admin/v1/organizations/{org_id}/api-keys/{key_id}": adminRecipe(
    "DELETE",
    (a) => `/admin/v1/organizations/${a.org.id}/api-keys/${randomUUID()}`
  ),
  "POST /admin/v1/organizations/{org_id}/phone-numbers": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/phone-numbers`,
    () => ({ phone_number: randomNumber() })
  ),
  "POST /admin/v1/organizations/{org_id}/dnc": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/dnc`,
    (a) => ({ phone_numbers: [a.contactNumber] })
  ),
  "DELETE /admin/v1/organizations/{org_id}/dnc": adminRecipe(
    "DELETE",
    (a) => `/admin/v1/organizations/${a.org.id}/dnc?phone_number=${q(a.dncNumber)}`
  ),
  "POST /admin/v1/organizations/{org_id}/inbound-messages": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/inbound-messages`,
    (a) => ({ from_number: randomNumber(), to_number: a.org.number, content: "forged" })
  ),
  "POST /admin/v1/organizations/{org_id}/inbound-calls": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/inbound-calls`,
    (a) => ({ from_number: randomNumber(), to_number: a.org.number })
  ),
  "POST /admin/v1/organizations/{org_id}/webhooks": adminRecipe(
    "POST",
    (a) => `/admin/v1/organizations/${a.org.id}/webhooks`,
    () => ({ url: "http://127.0.0.1:9/b" })
  ),
  "GET /admin/v1/organizations/{org_id}/webhooks": adminRecipe(
    "GET",
    (a) => `/admin/v1/organizations/${a.org.id}/webhooks`
  ),
  "DELETE /admin/v1/organizations/{org_id}/webhooks/{webhook_id}": adminRecipe(
    "DELETE",
    (a) => `/admin/v1/organizations/${a.org.id}/webhooks/${a.webhookId}`
  ),
  "GET /admin/v1/organizations/{org_id}/webhooks/{webhook_id}/deliveries": adminRecipe(
    "GET",
    (a) => `/admin/v1/organizations/${a.org.id}/webhooks/${a.webhookId}/deliveries`
  ),
  // The console's admin lists: the admin token only, whatever the organization in the path.
  "GET /admin/v1/organizations": adminRecipe("GET", () => "/admin/v1/organizations"),
  "GET /admin/v1/organizations/{org_id}": adminRecipe("GET", (a) => `/admin/v1/organizations/${a.org.id}`),
  "GET /admin/v1/organizations/{org_id}/api-keys": adminRecipe(
    "GET",
    (a) => `/admin/v1/organizations/${a.org.id}/api-keys`
  ),
  "GET /admin/v1/organizations/{org_id}/phone-numbers": adminRecipe(
    "GET",
    (a) => `/admin/v1/organizations/${a.org.id}/phone-numbers`
  ),
  "GET /admin/v1/organizations/{org_id}/dnc": adminRecipe("GET", (a) => `/admin/v1/organizations/${a.org.id}/dnc`),
  "GET /admin/v1/webhook-deliveries": adminRecipe(
    "GET",
    (a) => `/admin/v1/webhook-deliveries?call_id=${encodeURIComponent(a.callId)}`
  ),
  "POST /v2/agents": (a, b) => [{
    // A's agent name is free for B (no 409 oracle).
    method: "POST",
    path: "/v2/agents",
    json: { ...agentBody(a.agentName, "B"), organization_id: a.org.id },
    expect: [201, 422],
    check: (reply) => {
      if (reply.status === 201) assert.strictEqual(reply.body.name, a.agentName)
    }
  }, {
    method: "POST",
    path: "/v2/agents",
    json: agentBody(uniqueName("b-agent"), b.org.id),
    expect: [201]
  }],
  "GET /v2/agents": (a) => {
    const f = fakes()
    return [
      {
        method: "GET",
        path: `/v2/agents?after=${q(a.cursors.agents)}`,
        expect: [400],
        twin: [[a.cursors.agents, f.cursor(a.cursors.agents)]]
      },
      { method: "GET", path: "/v2/agents?limit=100", expect: [200], check: onlyB(a, "agents") }
    ]
  },
  "GET /v2/agents/{agent_id}": (a) => byAgent(a, "GET"),
  "PATCH /v2/agents/{agent_id}": (a) => byAgent(a, "PATCH", { name: "taken over" }),
  "DELETE /v2/agents/{agent_id}": (a) => [...byAgent(a, "DELETE"), ...byAgent(a, "DELETE", undefined, a.agent2.id)],
  "GET /v2/campaigns/{campaign_code}/agent": (a) => campaignByCode(a, "GET", "/agent"),
  "PUT /v2/campaigns/{campaign_code}/agent": (a, b) => [
    ...campaignByCode(a, "PUT", "/agent", { agent_id: null }),
    ...campaignByCode(a, "PUT", "/agent", { agent_id: b.agent.id }),
    // A's agent on B's campaign.
    {
      method: "PUT",
      path: `/v2/campaigns/${b.campaign.campaign_code}/agent`,
      json: { agent_id: a.agent.id },
      expect: [404],
      twin: [[a.agent.id, fakes().agentId]]
    }
  ],
  "GET /v2/phone-numbers/{phone_number}/agent": (a) => byNumber(a, "GET"),
  "PUT /v2/phone-numbers/{phone_number}/agent": (a, b) => [
    ...byNumber(a, "PUT", { agent_id: null }),
    ...byNumber(a, "PUT", { agent_id: b.agent.id }),
    {
      method: "PUT",
      path: `/v2/phone-numbers/${q(b.org.number)}/agent`,
      json: { agent_id: a.agent.id },
      expect: [404],
      twin: [[a.agent.id, fakes().agentId]]
    }
  ],
  // The in-process app has no DirectCalls (501); the daemon test below checks the 400.
  "POST /v2/create-outbound": (a, b) => [{
    method: "POST",
    path: `/v2/create-outbound?from_number=${q(a.org.number)}&to_number=${q(b.contact.phone_number)}`,
    expect: [400, 501],
    twin: [[a.org.number, fakes().number]]
  }],
  // Housekeeping without a key: answers that name no organization.
  "GET /v1/check-sdk-deprecation": (a) => [{
    method: "GET",
    path: `/v1/check-sdk-deprecation?sdk_name=${a.org.id}&sdk_version=1`,
    expect: [200],
    check: (reply) => assert.deepStrictEqual(reply.body, { deprecation_status: "supported" })
  }],
  "POST /v1/check-sdk-deprecation": (a) => [{
    method: "POST",
    path: `/v1/check-sdk-deprecation?sdk_name=${a.org.id}&sdk_version=1`,
    expect: [200],
    check: (reply) => assert.deepStrictEqual(reply.body, { deprecation_status: "supported" })
  }],
  "POST /v1/upload-telemetry": (a) => [{
    method: "POST",
    path: "/v1/upload-telemetry",
    json: { events: [{ timestamp_ms: 1, event_type: "probe", data: { call: a.callId } }] },
    expect: [202],
    check: (reply) => assert.deepStrictEqual(reply.body, { accepted: 1 })
  }],
  // No chat model in the in-process app (501); the prompt names A's call, the answer nothing.
  "POST /v1/llm/generate": (a) => [{
    method: "POST",
    path: "/v1/llm/generate",
    json: { prompt: `Read call ${a.callId} of organization ${a.org.id}` },
    expect: [501]
  }]
}

/** A's campaign by code through `method` on `suffix` (404 for B), and its twin. */
function campaignByCode(a: A, method: string, suffix: string, json?: unknown, code = a.campaign.campaign_code) {
  return [{
    method,
    path: `/v2/campaigns/${code}${suffix}`,
    json,
    expect: [404],
    twin: [[code, fakes().code]] as const
  }] satisfies ReadonlyArray<Probe>
}

/** The deprecated twin: by internal id and by code. */
function legacyCampaign(a: A, method: string, suffix: string, json?: unknown): ReadonlyArray<Probe> {
  return [a.campaign.id, a.campaign.campaign_code].map((ref) => ({
    method,
    path: `/v1/campaigns/${ref}${suffix}`,
    json,
    expect: [404],
    twin: [[ref, ref === a.campaign.id ? randomUUID() : fakes().code]] as const
  }))
}

function byCall(a: A, suffix: string, headers?: Record<string, string>): ReadonlyArray<Probe> {
  return [a.callId, a.unansweredCallId, a.inboundCallId].map((id) => ({
    method: "GET",
    path: `/v1/conversations/${id}${suffix}`,
    ...(headers === undefined ? {} : { headers }),
    expect: [404],
    twin: [[id, fakes().callId]] as const
  }))
}

function byAgent(a: A, method: string, json?: unknown, id = a.agent.id): ReadonlyArray<Probe> {
  return [{ method, path: `/v2/agents/${id}`, json, expect: [404], twin: [[id, fakes().agentId]] }]
}

function byNumber(a: A, method: string, json?: unknown): ReadonlyArray<Probe> {
  return [a.org.number, a.silentNumber].map((number) => ({
    method,
    path: `/v2/phone-numbers/${q(number)}/agent`,
    json,
    expect: [404],
    twin: [[number, fakes().number]] as const
  }))
}

/** `text` with every whole occurrence of `from` (not inside a longer word) replaced by `to`. */
const replaceWhole = (text: string, from: string, to: string): string =>
  text.replace(
    new RegExp(`(?<![A-Za-z0-9])${from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9])`, "g"),
    () => to
  )

/** The probe with each of A's values replaced by its lookalike. */
const twinOf = (probe: Probe): Probe => {
  let path = probe.path
  let json = probe.json === undefined ? undefined : JSON.stringify(probe.json)
  for (const [real, fake] of probe.twin ?? []) {
    path = replaceWhole(replaceWhole(path, real, fake), encodeURIComponent(real), encodeURIComponent(fake))
    json = json === undefined ? undefined : replaceWhole(json, real, fake)
  }
  return { ...probe, path, json: json === undefined ? undefined : JSON.parse(json) }
}

/** The answer's text with each lookalike written back as A's value. */
const untwin = (probe: Probe, text: string): string => {
  let result = text
  for (const [real, fake] of probe.twin ?? []) result = replaceWhole(result, fake, real)
  return result
}

const send = (probe: Probe, b: B) =>
  request(probe.method, probe.path, {
    token: probe.token === undefined ? b.org.key : probe.token,
    ...(probe.json === undefined ? {} : { json: probe.json }),
    ...(probe.headers === undefined ? {} : { headers: probe.headers })
  })

/** The operations of the OpenAPI document, as `METHOD /path`. */
const operationsOf = (spec: any): ReadonlyArray<string> =>
  Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`)
  )

await eachBackend("cross-organization", (it) => {
  it.effect(
    "every route of the OpenAPI document, with B's key and A's ids: no leak, no oracle, no change",
    () =>
      Effect.gen(function*() {
        const spec = (yield* api(null, "GET", "/openapi.json")).body
        const operations = operationsOf(spec)
        assert.isAbove(operations.length, 50)
        assert.deepStrictEqual(
          operations.filter((operation) => !(operation in recipes)),
          [],
          "routes without a probe recipe: add one to `recipes`"
        )
        assert.deepStrictEqual(
          Object.keys(recipes).filter((operation) => !operations.includes(operation)),
          [],
          "recipes of routes the document no longer has"
        )

        const a = yield* populateA
        const b = yield* populateB
        const secrets = secretsOf(a)
        const viewBefore = yield* viewOf(a)
        const databaseBefore = yield* databaseOutside(b)

        let probes = 0
        let sent = ""
        for (const operation of operations) {
          const recipe = recipes[operation]!
          for (const probe of recipe(a, b)) {
            const label = `${operation}: ${probe.method} ${probe.path} ${JSON.stringify(probe.json) ?? ""}`
            const reply = yield* send(probe, b)
            probes++
            assert.include(probe.expect, reply.status, `${label} answered ${reply.status} ${reply.text}`)
            if (reply.status >= 400) {
              assert.property(reply.body ?? {}, "detail", `${label}: a {detail} body`)
            }
            // What B sent (in this request or an earlier one: B may name its own campaign as A
            // named one) may come back to it.
            sent += ` ${probe.path} ${decodeURIComponent(probe.path)} ${JSON.stringify(probe.json ?? "")}`
            for (const secret of secrets) {
              if (sent.includes(secret)) continue
              assert.notInclude(reply.text, secret, `${label} leaks A's data`)
            }
            for (const [name, value] of Object.entries(reply.headers)) {
              for (const secret of secrets) {
                if (!sent.includes(secret)) assert.notInclude(String(value), secret, `${label}: header ${name}`)
              }
            }
            probe.check?.(reply)
            if (probe.twin !== undefined) {
              const twin = twinOf(probe)
              const twinReply = yield* send(twin, b)
              assert.strictEqual(twinReply.status, reply.status, `${label}: A's id and an unknown one differ`)
              assert.strictEqual(
                untwin(probe, twinReply.text),
                reply.text,
                `${label}: A's id and an unknown one differ`
              )
            }
          }
        }
        assert.isAbove(probes, 100)

        assert.deepStrictEqual(yield* viewOf(a), viewBefore, "A's data, read through A's key, is unchanged")
        assert.deepStrictEqual(yield* databaseOutside(b), databaseBefore, "no row outside B's own changed")
      }),
    60_000
  )

  it.effect(
    "the admin API's paths scope it too: A's key, webhook, DNC entries and numbers are not B's",
    () =>
      Effect.gen(function*() {
        const a = yield* populateA
        const b = yield* populateB
        const aKey = (yield* admin("POST", `/admin/v1/organizations/${a.org.id}/api-keys`, undefined, 201)).body
        const viewBefore = yield* viewOf(a)
        const databaseBefore = yield* databaseOutside(b)
        const under = (path: string) => `/admin/v1/organizations/${b.org.id}${path}`
        const refused: ReadonlyArray<readonly [string, string, unknown, ReadonlyArray<number>]> = [
          ["DELETE", under(`/api-keys/${aKey.id}`), undefined, [404]],
          ["DELETE", under(`/webhooks/${a.webhookId}`), undefined, [404]],
          ["GET", under(`/webhooks/${a.webhookId}/deliveries`), undefined, [404]],
          // A's number is A's: not B's to add, to receive messages on, or to be called on.
          ["POST", under("/phone-numbers"), { phone_number: a.org.number }, [409]],
          ["POST", under("/inbound-messages"), { from_number: randomNumber(), to_number: a.org.number, content: "x" }, [
            400,
            404
          ]],
          ["POST", under("/inbound-calls"), { from_number: randomNumber(), to_number: a.org.number }, [400, 404]]
        ]
        for (const [method, path, json, statuses] of refused) {
          const reply = yield* request(method, path, {
            token: "test-admin-token",
            ...(json === undefined ? {} : { json })
          })
          assert.include(statuses, reply.status, `${method} ${path}: ${reply.status} ${reply.text}`)
          assert.notInclude(reply.text, "secret", `${method} ${path}`)
        }
        // Removing A's DNC number from B's list removes nothing of A's.
        const removed = yield* request("DELETE", under(`/dnc?phone_number=${q(a.dncNumber)}`), {
          token: "test-admin-token"
        })
        assert.deepStrictEqual([removed.status, removed.body], [200, { deleted: 0 }])
        assert.strictEqual((yield* api(aKey.api_key, "GET", "/v1/phone-numbers")).status, 200, "A's key still works")
        assert.deepStrictEqual(yield* viewOf(a), viewBefore)
        assert.deepStrictEqual(yield* databaseOutside(b), databaseBefore)
      }),
    60_000
  )
})
