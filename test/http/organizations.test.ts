/**
 * Authentication and the cross-organization matrix (the API reference, "Authentication", issue 3): the
 * organization always comes from the key; for every endpoint that takes an id, a code, a
 * number, a filter or a cursor, organization B gets 404 (or the documented status) and never
 * A's data, B's lists never contain A's rows, and nothing B does changes A's data. On both
 * backends.
 */
import { assert } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import {
  addDnc,
  admin,
  api,
  assertDetail,
  campaign,
  campaignBody,
  eachBackend,
  inboundMessage,
  listAllContacts,
  organization,
  q,
  randomNumber,
  upload
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

/** Organization A with one of everything: a campaign with contacts, a recorded call, messages, cursors. */
const populated = Effect.gen(function*() {
  const org = yield* organization()
  const c = yield* campaign(org, { start_date: "2020-01-01" })
  const contactNumber = randomNumber()
  yield* upload(org, c.campaign_code, [{ phone_number: contactNumber, data: { secret: "A" } }, {
    phone_number: randomNumber()
  }])
  const contacts = yield* listAllContacts(org, `campaign_code=${c.campaign_code}`)
  const callId = `CA${randomBytes(12).toString("hex")}`
  const conversations = yield* ConversationRepository
  const startedAt = new Date("2026-11-20T17:00:00.000Z")
  const call = yield* conversations.insert({
    callId,
    organizationId: org.id,
    campaignId: c.id,
    contactId: contacts[0].id,
    direction: "outbound",
    fromNumber: org.number,
    toNumber: contactNumber,
    startedAt,
    answeredAt: startedAt,
    endedAt: new Date(startedAt.getTime() + 10_000),
    durationSec: 10,
    terminationReason: "bot-hangup"
  })
  yield* conversations.insert({
    callId: `CA${randomBytes(12).toString("hex")}`,
    organizationId: org.id,
    campaignId: c.id,
    contactId: null,
    direction: "outbound",
    fromNumber: org.number,
    toNumber: randomNumber(),
    startedAt: new Date(startedAt.getTime() + 1000),
    answeredAt: null,
    endedAt: null,
    durationSec: 0,
    terminationReason: "no-answer"
  })
  yield* conversations.appendTurns(call.id, [{ speaker: "AGENT", text: "secret of A", offsetMs: 0 }])
  const store = yield* RecordingStore
  for (const channel of ["agent", "remote"] as const) {
    yield* Effect.scoped(
      Effect.flatMap(store.openWriter(callId, channel), (w) => w.write(new Int16Array(160).fill(100)))
    )
  }
  const message = yield* inboundMessage(org.id, {
    from_number: contactNumber,
    to_number: org.number,
    content: "secret of A"
  })
  const contactCursor: string = (yield* api(org.key, "GET", "/v2/contacts?limit=1")).body.next_cursor
  const conversationCursor: string = (yield* api(org.key, "GET", "/v1/conversations?limit=1")).body.next_cursor
  assert.isString(contactCursor)
  assert.isString(conversationCursor)
  return { org, campaign: c, contacts, contactNumber, callId, message, contactCursor, conversationCursor }
})

type Populated = Effect.Success<typeof populated>

/** Everything A can see, to compare before and after B's requests. */
const snapshot = (a: Populated) =>
  Effect.gen(function*() {
    const read = (path: string) => Effect.map(api(a.org.key, "GET", path), (r) => [r.status, r.body])
    return {
      campaigns: yield* read("/v2/campaigns"),
      campaign: yield* read(`/v2/campaigns/${a.campaign.campaign_code}`),
      status: yield* read(`/v2/campaigns/${a.campaign.campaign_code}/status`),
      contacts: yield* read("/v2/contacts"),
      conversations: yield* read("/v1/conversations"),
      transcript: yield* read(`/v1/conversations/${a.callId}/transcript`),
      messages: yield* read(`/v1/messages?to_number=${q(a.org.number)}`),
      numbers: yield* read("/v1/phone-numbers")
    }
  })

/** Asserts `text` holds nothing of A's beyond what B itself sent (`sent`: B's path and body). */
const assertNoTraceOf = (a: Populated, text: string, label: string, sent = "") => {
  const secrets = [
    a.org.id,
    a.campaign.id,
    a.campaign.campaign_code,
    a.callId,
    a.message.id,
    a.contactNumber,
    a.org.number
  ]
  for (const secret of secrets) {
    // The detail sentence may name what B asked for (e.g. "Campaign gcmp-… not found").
    if (!sent.includes(secret) && !sent.includes(encodeURIComponent(secret))) {
      assert.notInclude(text, secret, `${label} leaks A's data`)
    }
  }
  for (const secret of ["secret of A", "\"secret\":\"A\"", a.campaign.name]) {
    assert.notInclude(text, secret, `${label} leaks A's data`)
  }
  for (const contact of a.contacts) assert.notInclude(text, `"id":"${contact.id}"`, `${label} leaks A's contact`)
}

await eachBackend("organizations", (it) => {
  it.effect("every endpoint that names A's campaign, contact, call or number answers B 404 and nothing of A", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const b: TestOrganization = yield* organization()
      const bCampaign = yield* campaign(b)
      const before = yield* snapshot(a)
      const code = a.campaign.campaign_code
      const id = a.campaign.id
      const contactId = a.contacts[0].id
      const requests: ReadonlyArray<readonly [string, string, unknown]> = [
        ["GET", `/v2/campaigns/${code}`, undefined],
        ["PATCH", `/v2/campaigns/${code}`, { enabled: false }],
        ["PATCH", `/v2/campaigns/${code}`, { name: "taken over" }],
        ["DELETE", `/v2/campaigns/${code}`, undefined],
        ["GET", `/v2/campaigns/${code}/status`, undefined],
        ["GET", `/v2/campaigns/${code}/has-callable-contacts`, undefined],
        ["GET", `/v2/campaigns/${code}/latency`, undefined],
        ["POST", `/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`, {
          contacts: [{ phone_number: randomNumber() }]
        }],
        ["GET", `/v2/contacts?campaign_code=${code}`, undefined],
        ["DELETE", `/v2/campaigns/${code}/contacts?phone_number=${q(a.contactNumber)}`, undefined],
        ["DELETE", `/v2/campaigns/${code}/contacts/${contactId}`, undefined],
        // A's contact through B's own campaign.
        ["DELETE", `/v2/campaigns/${bCampaign.campaign_code}/contacts/${contactId}`, undefined],
        ["DELETE", `/v2/campaigns/${bCampaign.campaign_code}/contacts?phone_number=${q(a.contactNumber)}`, undefined],
        // Deprecated twins, by id and by code.
        ...[id, code].flatMap((ref): ReadonlyArray<readonly [string, string, unknown]> => [
          ["GET", `/v1/campaigns/${ref}`, undefined],
          ["PATCH", `/v1/campaigns/${ref}`, { enabled: false }],
          ["DELETE", `/v1/campaigns/${ref}`, undefined],
          ["GET", `/v1/campaigns/${ref}/status`, undefined],
          ["GET", `/v1/campaigns/${ref}/has-callable-contacts`, undefined],
          ["POST", `/v1/campaigns/${ref}/contacts?accepted_terms_of_service=true`, {
            contacts: [{ phone_number: randomNumber() }]
          }],
          ["GET", `/v1/contacts?campaign_id=${ref}`, undefined]
        ]),
        ["GET", `/v1/conversations/${a.callId}`, undefined],
        ["GET", `/v1/conversations/${a.callId}/transcript`, undefined],
        ["GET", `/v1/conversations/${a.callId}/recording`, undefined],
        ...["agent", "remote", "mixed"].map((channel): readonly [string, string, unknown] => [
          "GET",
          `/v1/conversations/${a.callId}/channels/${channel}/recording`,
          undefined
        ]),
        ["GET", `/v1/messages?to_number=${q(a.org.number)}`, undefined]
      ]
      for (const [method, path, json] of requests) {
        const reply = yield* api(b.key, method, path, { json })
        assertDetail(reply, 404, `${method} ${path}`)
        assertNoTraceOf(a, reply.text, `${method} ${path}`, `${path} ${JSON.stringify(json)}`)
      }
      const range = yield* api(b.key, "GET", `/v1/conversations/${a.callId}/recording`, {
        headers: { range: "bytes=0-43" }
      })
      assertDetail(range, 404)
      assert.deepStrictEqual(yield* snapshot(a), before, "A's data is unchanged")
    }))

  it.effect("A's numbers: 403 as B's campaign origin, 400 as B's SMS sender, 404 as B's message list", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const b = yield* organization()
      const bCampaign = yield* campaign(b)
      const before = yield* snapshot(a)
      assertDetail(
        yield* api(b.key, "POST", "/v2/campaigns", { json: campaignBody(b, { origin_phone_numbers: [a.org.number] }) }),
        403
      )
      assertDetail(
        yield* api(b.key, "POST", "/v2/campaigns", {
          json: campaignBody(b, { origin_phone_numbers: [b.number, a.org.number] })
        }),
        403
      )
      assertDetail(
        yield* api(b.key, "PATCH", `/v2/campaigns/${bCampaign.campaign_code}`, {
          json: { origin_phone_numbers: [a.org.number] }
        }),
        403
      )
      assertDetail(
        yield* api(b.key, "PATCH", `/v1/campaigns/${bCampaign.id}`, { json: { origin_phone_numbers: [a.org.number] } }),
        403
      )
      const sms = yield* api(b.key, "POST", "/v1/send-sms", {
        json: { from_number: a.org.number, to_number: randomNumber(), message: "hi" }
      })
      assertDetail(sms, 400)
      assertDetail(
        yield* api(b.key, "GET", `/v1/messages?to_number=${q(a.org.number)}&from_number=${q(a.contactNumber)}`),
        404
      )
      // B's own campaign is untouched by the refusals.
      const { warning: _, ...fetched } = bCampaign
      assert.deepStrictEqual((yield* api(b.key, "GET", `/v2/campaigns/${bCampaign.campaign_code}`)).body, fetched)
      assert.deepStrictEqual(yield* snapshot(a), before)
    }))

  it.effect("B's filters that name A's campaign, numbers or dates find nothing of A", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const b = yield* organization()
      for (
        const query of [
          `campaign_id=${a.campaign.id}`,
          `from_number=${q(a.org.number)}`,
          `to_number=${q(a.contactNumber)}`,
          "direction=outbound",
          "direction=all",
          `date_from=${q("2026-11-20T00:00:00Z")}&date_to=${q("2026-11-21T00:00:00Z")}`,
          ""
        ]
      ) {
        const reply = yield* api(b.key, "GET", `/v1/conversations?${query}`)
        assert.strictEqual(reply.status, 200, query)
        assert.deepStrictEqual(reply.body, { conversations: [], next_cursor: null, has_more: false }, query)
      }
      for (
        const query of ["", "status=TRYING", `data=${q("{\"secret\":\"A\"}")}`, "attempted_before=2100-01-01T00:00:00Z"]
      ) {
        const reply = yield* api(b.key, "GET", `/v2/contacts?${query}`)
        assert.deepStrictEqual(reply.body, { contacts: [], next_cursor: null, has_more: false }, query)
        const v1 = yield* api(b.key, "GET", `/v1/contacts?${query}`)
        assert.deepStrictEqual(v1.body, { contacts: [], next_cursor: null, has_more: false }, query)
      }
      assert.deepStrictEqual((yield* api(b.key, "GET", "/v2/campaigns")).body, [])
      assert.deepStrictEqual((yield* api(b.key, "GET", "/v1/campaigns")).body, [])
      assert.deepStrictEqual((yield* api(b.key, "GET", "/v1/phone-numbers")).body, [{
        phone_number: b.number,
        sms_enabled: true
      }])
      assert.deepStrictEqual((yield* api(b.key, "GET", `/v1/messages?to_number=${q(b.number)}`)).body, {
        messages: [],
        has_more: false
      })
    }))

  it.effect("A's cursors are 400 for B; B's lists never contain A's rows while paging", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const b = yield* organization()
      const bCampaign = yield* campaign(b)
      yield* upload(b, bCampaign.campaign_code, [{ phone_number: randomNumber() }, { phone_number: randomNumber() }])
      assertDetail(yield* api(b.key, "GET", `/v2/contacts?after=${q(a.contactCursor)}`), 400)
      assertDetail(yield* api(b.key, "GET", `/v1/contacts?after=${q(a.contactCursor)}`), 400)
      assertDetail(yield* api(b.key, "GET", `/v1/conversations?after=${q(a.conversationCursor)}`), 400)
      // A's cursors still work for A.
      assert.strictEqual((yield* api(a.org.key, "GET", `/v2/contacts?after=${q(a.contactCursor)}`)).status, 200)
      assert.strictEqual(
        (yield* api(a.org.key, "GET", `/v1/conversations?after=${q(a.conversationCursor)}`)).status,
        200
      )
      const bContacts = yield* listAllContacts(b, "limit=1")
      assert.strictEqual(bContacts.length, 2)
      assertNoTraceOf(a, JSON.stringify(bContacts), "B's contacts")
    }))

  it.effect("the same number may be a contact of both; DNC and deletes stay within each organization", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const b = yield* organization()
      const bCampaign = yield* campaign(b)
      // A's DNC list does not reach B.
      yield* addDnc(a.org.id, [a.contactNumber])
      yield* upload(b, bCampaign.campaign_code, [{ phone_number: a.contactNumber }])
      // B deleting the number removes only B's contact.
      const deleted = yield* api(
        b.key,
        "DELETE",
        `/v2/campaigns/${bCampaign.campaign_code}/contacts?phone_number=${q(a.contactNumber)}`
      )
      assert.deepStrictEqual(deleted.body, { deleted: 1 })
      const aContacts = yield* listAllContacts(a.org, `campaign_code=${a.campaign.campaign_code}`)
      assert.include(aContacts.map((x: any) => x.phone_number), a.contactNumber)
      // A's DNC entry rejects the number in A's campaigns.
      const refused = yield* api(
        a.org.key,
        "POST",
        `/v2/campaigns/${a.campaign.campaign_code}/contacts?accepted_terms_of_service=true&allow_duplicates=true`,
        {
          json: { contacts: [{ phone_number: a.contactNumber }] }
        }
      )
      assert.strictEqual(refused.body.rejected_entries[0].reason, "do_not_call")
      // Campaign names are per organization.
      const sameName = yield* api(b.key, "POST", "/v2/campaigns", { json: campaignBody(b, { name: a.campaign.name }) })
      assert.strictEqual(sameName.status, 201)
    }))

  it.effect("a key answers for its own organization only; revoked keys are 401 everywhere", () =>
    Effect.gen(function*() {
      const a = yield* populated
      const second = (yield* admin("POST", `/admin/v1/organizations/${a.org.id}/api-keys`, undefined, 201)).body
      assert.deepStrictEqual(
        (yield* api(second.api_key, "GET", "/v2/campaigns")).body,
        (yield* api(a.org.key, "GET", "/v2/campaigns")).body
      )
      yield* admin("DELETE", `/admin/v1/organizations/${a.org.id}/api-keys/${second.id}`, undefined, 200)
      for (
        const [method, path] of [
          ["GET", "/v2/campaigns"],
          ["GET", `/v2/campaigns/${a.campaign.campaign_code}`],
          ["GET", "/v2/contacts"],
          ["GET", "/v1/conversations"],
          ["GET", `/v1/conversations/${a.callId}/recording`],
          ["GET", `/v1/messages?to_number=${q(a.org.number)}`],
          ["GET", "/v1/phone-numbers"],
          ["POST", "/v1/send-sms"]
        ] as const
      ) {
        const reply = yield* api(second.api_key, method, path, { json: method === "POST" ? {} : undefined })
        assertDetail(reply, 401, `${method} ${path}`)
        assertNoTraceOf(a, reply.text, path, path)
      }
      // The admin token is not an API key.
      assertDetail(yield* api("test-admin-token", "GET", "/v2/campaigns"), 401)
      // The other key still works.
      assert.strictEqual((yield* api(a.org.key, "GET", "/v2/campaigns")).status, 200)
    }))
})
