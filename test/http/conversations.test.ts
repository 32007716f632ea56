/**
 * Black-box tests of the conversation endpoints (the API reference, "Conversations", docs/DECISIONS.md): the
 * list with its cursor and filters, details, transcript, and WAV recordings with byte ranges,
 * on both backends. There is no dialer yet: calls are inserted through ConversationRepository
 * and recordings written through the RecordingStore, as the dialer will.
 */
import { assert } from "@effect/vitest"
import type { ConversationRecord, TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import {
  api,
  assertDetail,
  assertValidation,
  campaign,
  eachBackend,
  Fields,
  isIsoInstant,
  keysOf,
  organization,
  q,
  randomNumber
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const newCallId = () => `CA${randomBytes(12).toString("hex")}`

/** Inserts a finished call (answered unless `answered: false`), with its turns. */
const insertCall = (
  org: TestOrganization,
  fields: Partial<Omit<ConversationRecord, "id">> & { readonly answered?: boolean } = {},
  turns: ReadonlyArray<TranscriptTurnRecord> = []
) =>
  Effect.gen(function*() {
    const repository = yield* ConversationRepository
    const startedAt = fields.startedAt ?? new Date("2026-11-20T17:00:00.000Z")
    const answered = fields.answered ?? true
    const { answered: _, ...rest } = fields
    const record = yield* repository.insert({
      callId: newCallId(),
      organizationId: org.id,
      campaignId: null,
      contactId: null,
      direction: "outbound",
      fromNumber: org.number,
      toNumber: randomNumber(),
      startedAt,
      answeredAt: answered ? new Date(startedAt.getTime() + 2000) : null,
      endedAt: new Date(startedAt.getTime() + 30_000),
      durationSec: answered ? 28 : 0,
      terminationReason: answered ? "user-hangup" : "no-answer",
      ...rest
    })
    if (turns.length > 0) yield* repository.appendTurns(record.id, turns)
    return record
  })

/** A deterministic pseudo-random channel of `n` samples. */
const samples = (n: number, seed: number): Int16Array =>
  Int16Array.from({ length: n }, (_, i) => ((i * 7919 + seed * 104_729) % 65_536) - 32_768)

/** Writes both channels of a call, in frames as a media session would. */
const writeRecording = (callId: string, agent: Int16Array, remote: Int16Array) =>
  Effect.gen(function*() {
    const store = yield* RecordingStore
    for (const [channel, data] of [["agent", agent], ["remote", remote]] as const) {
      yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* store.openWriter(callId, channel)
        for (let i = 0; i < data.length; i += 160) yield* writer.write(data.subarray(i, i + 160))
      }))
    }
  })

/** The WAV file the API reference and docs/DECISIONS.md describe: 16-bit PCM, 8 kHz, mono, 44-byte header. */
const wav = (pcm: Int16Array): Buffer => {
  const header = Buffer.alloc(44)
  header.write("RIFF", 0, "ascii")
  header.writeUInt32LE(36 + pcm.length * 2, 4)
  header.write("WAVE", 8, "ascii")
  header.write("fmt ", 12, "ascii")
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(8000, 24)
  header.writeUInt32LE(16_000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write("data", 36, "ascii")
  header.writeUInt32LE(pcm.length * 2, 40)
  const body = Buffer.alloc(pcm.length * 2)
  pcm.forEach((s, i) => body.writeInt16LE(s, i * 2))
  return Buffer.concat([header, body])
}

const mixed = (a: Int16Array, b: Int16Array): Int16Array =>
  Int16Array.from(
    { length: Math.max(a.length, b.length) },
    (_, i) => Math.max(-32_768, Math.min(32_767, (a[i] ?? 0) + (b[i] ?? 0)))
  )

const toResource = (r: ConversationRecord) => ({
  id: r.id,
  call_id: r.callId,
  ts: r.startedAt.toISOString(),
  direction: r.direction,
  from_number: r.fromNumber,
  to_number: r.toNumber,
  duration_sec: r.durationSec,
  campaign_id: r.campaignId,
  termination_reason: r.terminationReason
})

await eachBackend("conversations", (it) => {
  it.effect("list: exactly the documented envelope and Conversation fields, newest first", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const outbound = yield* insertCall(org, { campaignId: c.id, startedAt: new Date("2026-11-20T10:00:00.000Z") })
      const inbound = yield* insertCall(org, {
        direction: "inbound",
        fromNumber: randomNumber(),
        toNumber: org.number,
        startedAt: new Date("2026-11-20T11:00:00.000Z")
      })
      const ongoing = yield* insertCall(org, {
        startedAt: new Date("2026-11-20T12:00:00.000Z"),
        endedAt: null,
        durationSec: null,
        terminationReason: null
      })
      const reply = yield* api(org.key, "GET", "/v1/conversations")
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), [...Fields.conversationList])
      for (const conversation of reply.body.conversations) {
        assert.deepStrictEqual(keysOf(conversation), [...Fields.conversation])
        assert.isTrue(isIsoInstant(conversation.ts))
      }
      assert.deepStrictEqual(reply.body, {
        conversations: [toResource(ongoing), toResource(inbound), toResource(outbound)],
        next_cursor: null,
        has_more: false
      })
      assert.strictEqual(reply.body.conversations[2].campaign_id, c.id)
      assert.isNull(reply.body.conversations[0].duration_sec)
    }))

  it.effect("paging with limit 3 over 7 calls yields each once; tampered cursors are 400", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const calls = []
      for (let i = 0; i < 7; i++) {
        calls.push(yield* insertCall(org, { startedAt: new Date(Date.UTC(2026, 10, 1, 12, i, 0, i)) }))
      }
      // Two calls at the same instant are still both listed once (the id breaks the tie).
      const tieAt = new Date(Date.UTC(2026, 10, 1, 12, 3, 0, 3))
      calls.push(yield* insertCall(org, { startedAt: tieAt }))
      const expected = [...calls].sort((a, b) =>
        b.startedAt.getTime() - a.startedAt.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0)
      ).map((c) => c.callId)
      const seen: Array<string> = []
      const sizes: Array<number> = []
      let after: string | null = null
      let cursor: string | null = null
      while (true) {
        const url: string = `/v1/conversations?limit=3${after === null ? "" : `&after=${q(after)}`}`
        const page = yield* api(org.key, "GET", url)
        assert.strictEqual(page.status, 200, page.text)
        sizes.push(page.body.conversations.length)
        seen.push(...page.body.conversations.map((c: any) => c.call_id))
        if (!page.body.has_more) {
          assert.isNull(page.body.next_cursor)
          break
        }
        after = page.body.next_cursor
        cursor ??= after
      }
      assert.deepStrictEqual(seen, expected)
      assert.deepStrictEqual(sizes, [3, 3, 2])
      // The default limit is 50.
      for (let i = 0; i < 45; i++) yield* insertCall(org, { startedAt: new Date(Date.UTC(2026, 9, 1, 0, i)) })
      const defaultPage = yield* api(org.key, "GET", "/v1/conversations")
      assert.strictEqual(defaultPage.body.conversations.length, 50)
      assert.strictEqual(defaultPage.body.has_more, true)
      assert.deepStrictEqual(defaultPage.body.conversations.slice(0, 8).map((x: any) => x.call_id), expected)
      const c = cursor!
      for (const bad of [c.slice(0, -1) + (c.endsWith("A") ? "B" : "A"), "A" + c.slice(1), "nope", `${c}.x`]) {
        if (bad === c) continue
        assertDetail(yield* api(org.key, "GET", `/v1/conversations?limit=3&after=${q(bad)}`), 400, bad)
      }
      // A contact-list cursor is not a conversation cursor.
      const camp = yield* campaign(org)
      yield* api(org.key, "POST", `/v2/campaigns/${camp.campaign_code}/contacts?accepted_terms_of_service=true`, {
        json: { contacts: [{ phone_number: randomNumber() }, { phone_number: randomNumber() }] }
      })
      const contactCursor = (yield* api(org.key, "GET", "/v2/contacts?limit=1")).body.next_cursor
      assert.isString(contactCursor)
      assertDetail(yield* api(org.key, "GET", `/v1/conversations?after=${q(contactCursor)}`), 400)
      assertDetail(yield* api(org.key, "GET", `/v2/contacts?after=${q(c)}`), 400)
    }))

  it.effect("filters: from/to number (%2B), direction, inclusive date range, campaign_id", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      const remote = randomNumber()
      const a = yield* insertCall(org, {
        toNumber: remote,
        campaignId: c.id,
        startedAt: new Date("2026-11-01T10:00:00.000Z")
      })
      const b = yield* insertCall(org, { campaignId: other.id, startedAt: new Date("2026-11-02T10:00:00.000Z") })
      const i = yield* insertCall(org, {
        direction: "inbound",
        fromNumber: remote,
        toNumber: org.number,
        startedAt: new Date("2026-11-03T10:00:00.000Z")
      })
      const idsOf = (query: string) =>
        Effect.gen(function*() {
          const reply = yield* api(org.key, "GET", `/v1/conversations?${query}`)
          assert.strictEqual(reply.status, 200, `${query}: ${reply.text}`)
          return reply.body.conversations.map((x: any) => x.call_id)
        })
      assert.deepStrictEqual(yield* idsOf(`from_number=${q(org.number)}`), [b.callId, a.callId])
      assert.deepStrictEqual(yield* idsOf(`from_number=${q(remote)}`), [i.callId])
      assert.deepStrictEqual(yield* idsOf(`to_number=${q(remote)}`), [a.callId])
      assert.deepStrictEqual(yield* idsOf(`to_number=${q(org.number)}`), [i.callId])
      assert.deepStrictEqual(yield* idsOf(`to_number=${q(randomNumber())}`), [])
      assert.deepStrictEqual(yield* idsOf("direction=inbound"), [i.callId])
      assert.deepStrictEqual(yield* idsOf("direction=outbound"), [b.callId, a.callId])
      assert.deepStrictEqual(yield* idsOf("direction=all"), [i.callId, b.callId, a.callId])
      assert.deepStrictEqual(yield* idsOf(`date_from=${q("2026-11-02T10:00:00Z")}`), [i.callId, b.callId], "inclusive")
      assert.deepStrictEqual(
        yield* idsOf(`date_to=${q("2026-11-02T10:00:00.000Z")}`),
        [b.callId, a.callId],
        "inclusive"
      )
      assert.deepStrictEqual(
        yield* idsOf(`date_from=${q("2026-11-01T12:00:00.123456+02:00")}&date_to=${q("2026-11-02T10:00:00+00:00")}`),
        [b.callId],
        "Python-style timestamps"
      )
      assert.deepStrictEqual(yield* idsOf("date_from=2026-11-02"), [i.callId, b.callId], "a bare date is midnight UTC")
      assert.deepStrictEqual(yield* idsOf(`campaign_id=${c.id}`), [a.callId])
      assert.deepStrictEqual(yield* idsOf(`campaign_id=${c.id.toUpperCase()}`), [a.callId], "ids are case-insensitive")
      assert.deepStrictEqual(yield* idsOf(`campaign_id=${other.id}&direction=outbound&from_number=${q(org.number)}`), [
        b.callId
      ])
      assert.deepStrictEqual(yield* idsOf("campaign_id=00000000-0000-4000-8000-000000000000"), [])
    }))

  it.effect("list 400: limit, after, campaign_id and dates; 422: numbers not E.164, unknown direction", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (
        const query of [
          "limit=0",
          "limit=101",
          "limit=ten",
          "after=xyz",
          `campaign_id=${q("gcmp-123")}`,
          "campaign_id=not-a-uuid",
          "date_from=yesterday",
          "date_to=2026-11-31T00:00:00Z",
          "date_from=2026-11-01T10:00:00+25:00"
        ]
      ) {
        assertDetail(yield* api(org.key, "GET", `/v1/conversations?${query}`), 400, query)
      }
      assert.strictEqual((yield* api(org.key, "GET", "/v1/conversations?limit=100")).status, 200)
      assert.strictEqual((yield* api(org.key, "GET", "/v1/conversations?limit=1")).status, 200)
      for (
        const [query, field] of [
          ["from_number=2025550123", "from_number"],
          ["from_number=%2B0123", "from_number"],
          ["to_number=abc", "to_number"],
          [`to_number=${q("+1 202 555 0123")}`, "to_number"]
        ] as const
      ) {
        assertValidation(yield* api(org.key, "GET", `/v1/conversations?${query}`), ["query", field])
      }
      assertValidation(yield* api(org.key, "GET", "/v1/conversations?direction=sideways"), ["query", "direction"])
    }))

  it.effect("details and transcript: exact shapes; unknown call 404", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const turns: ReadonlyArray<TranscriptTurnRecord> = [
        { speaker: "AGENT", text: "Hello, this is Ava.", offsetMs: 0 },
        { speaker: "HUMAN", text: "Hi!", offsetMs: 1850 },
        { speaker: "AGENT", text: "Goodbye.", offsetMs: 4200 }
      ]
      const call = yield* insertCall(org, {}, turns)
      const details = yield* api(org.key, "GET", `/v1/conversations/${call.callId}`)
      assert.strictEqual(details.status, 200, details.text)
      assert.deepStrictEqual(details.body, toResource(call))
      assert.deepStrictEqual(keysOf(details.body), [...Fields.conversation])
      const transcript = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/transcript`)
      assert.strictEqual(transcript.status, 200)
      assert.deepStrictEqual(transcript.body, [
        { speaker: "AGENT", text: "Hello, this is Ava.", offset_ms: 0 },
        { speaker: "HUMAN", text: "Hi!", offset_ms: 1850 },
        { speaker: "AGENT", text: "Goodbye.", offset_ms: 4200 }
      ])
      for (const turn of transcript.body) assert.deepStrictEqual(keysOf(turn), [...Fields.transcriptTurn])
      const silent = yield* insertCall(org, { answered: false })
      assert.deepStrictEqual((yield* api(org.key, "GET", `/v1/conversations/${silent.callId}/transcript`)).body, [])
      for (
        const suffix of ["", "/transcript", "/recording", "/channels/agent/recording", "/channels/mixed/recording"]
      ) {
        for (const callId of ["CAunknown", call.id, "..", "%2E%2E%2Fetc"]) {
          assertDetail(yield* api(org.key, "GET", `/v1/conversations/${callId}${suffix}`), 404, `${callId}${suffix}`)
        }
      }
    }))

  it.effect("recordings: full WAV, byte ranges, suffix ranges, 416; mixed equals the plain recording", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const call = yield* insertCall(org)
      const agent = samples(4000, 1)
      const remote = samples(2500, 2)
      yield* writeRecording(call.callId, agent, remote)
      const base = `/v1/conversations/${call.callId}`
      const expected = { agent: wav(agent), remote: wav(remote), mixed: wav(mixed(agent, remote)) }
      for (
        const [path, bytes] of [
          [`${base}/recording`, expected.mixed],
          [`${base}/channels/mixed/recording`, expected.mixed],
          [`${base}/channels/agent/recording`, expected.agent],
          [`${base}/channels/remote/recording`, expected.remote]
        ] as const
      ) {
        const full = yield* api(org.key, "GET", path)
        assert.strictEqual(full.status, 200, `${path}: ${full.text.slice(0, 200)}`)
        assert.match(String(full.headers["content-type"]), /^audio\/wav/)
        assert.strictEqual(full.headers["content-length"], String(bytes.length))
        assert.isTrue(full.bytes.equals(bytes), `${path}: body differs (${full.bytes.length} vs ${bytes.length} bytes)`)

        const header = yield* api(org.key, "GET", path, { headers: { range: "bytes=0-43" } })
        assert.strictEqual(header.status, 206, path)
        assert.strictEqual(header.headers["content-range"], `bytes 0-43/${bytes.length}`)
        assert.strictEqual(header.headers["content-length"], "44")
        assert.match(String(header.headers["content-type"]), /^audio\/wav/)
        assert.isTrue(header.bytes.equals(bytes.subarray(0, 44)))

        const middle = yield* api(org.key, "GET", path, { headers: { range: "bytes=45-1000" } })
        assert.strictEqual(middle.status, 206)
        assert.strictEqual(middle.headers["content-range"], `bytes 45-1000/${bytes.length}`)
        assert.isTrue(middle.bytes.equals(bytes.subarray(45, 1001)), "odd start")

        const suffix = yield* api(org.key, "GET", path, { headers: { range: "bytes=-101" } })
        assert.strictEqual(suffix.status, 206)
        assert.strictEqual(
          suffix.headers["content-range"],
          `bytes ${bytes.length - 101}-${bytes.length - 1}/${bytes.length}`
        )
        assert.isTrue(suffix.bytes.equals(bytes.subarray(bytes.length - 101)))

        const open = yield* api(org.key, "GET", path, { headers: { range: "bytes=44-" } })
        assert.strictEqual(open.status, 206)
        assert.isTrue(open.bytes.equals(bytes.subarray(44)))

        const past = yield* api(org.key, "GET", path, {
          headers: { range: `bytes=${bytes.length - 10}-${bytes.length + 500}` }
        })
        assert.strictEqual(past.status, 206)
        assert.isTrue(past.bytes.equals(bytes.subarray(bytes.length - 10)), "end clamped to the size")

        const unsatisfiable = yield* api(org.key, "GET", path, { headers: { range: `bytes=${bytes.length}-` } })
        assert.strictEqual(unsatisfiable.status, 416)
        assert.strictEqual(unsatisfiable.headers["content-range"], `bytes */${bytes.length}`)
      }
    }))

  it.effect("recordings 404: call never answered, answered without a recording; 422 unknown channel", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const unanswered = yield* insertCall(org, { answered: false })
      const noFiles = yield* insertCall(org)
      for (const call of [unanswered, noFiles]) {
        for (
          const suffix of [
            "/recording",
            "/channels/agent/recording",
            "/channels/remote/recording",
            "/channels/mixed/recording"
          ]
        ) {
          assertDetail(yield* api(org.key, "GET", `/v1/conversations/${call.callId}${suffix}`), 404, suffix)
          assertDetail(
            yield* api(org.key, "GET", `/v1/conversations/${call.callId}${suffix}`, {
              headers: { range: "bytes=0-43" }
            }),
            404,
            suffix
          )
        }
      }
      const answered = yield* insertCall(org)
      yield* writeRecording(answered.callId, samples(160, 3), samples(160, 4))
      for (const channel of ["foo", "AGENT", "both", ""]) {
        const reply = yield* api(org.key, "GET", `/v1/conversations/${answered.callId}/channels/${channel}/recording`)
        if (channel === "") {
          assert.include([404, 422], reply.status)
          continue
        }
        assertValidation(reply, ["path", "channel_name"])
      }
      // The channel is validated before the call is looked up.
      assertValidation(yield* api(org.key, "GET", "/v1/conversations/CAunknown/channels/foo/recording"), [
        "path",
        "channel_name"
      ])
    }))

  it.effect("every conversation endpoint answers 401 without a valid key", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const call = yield* insertCall(org)
      yield* writeRecording(call.callId, samples(160, 5), samples(160, 6))
      for (
        const path of [
          "/v1/conversations",
          `/v1/conversations?from_number=bad`,
          `/v1/conversations/${call.callId}`,
          `/v1/conversations/${call.callId}/transcript`,
          `/v1/conversations/${call.callId}/recording`,
          `/v1/conversations/${call.callId}/channels/agent/recording`,
          `/v1/conversations/${call.callId}/channels/foo/recording`
        ]
      ) {
        for (const token of [null, "", "wrong"]) assertDetail(yield* api(token, "GET", path), 401, path)
      }
    }))

  it.effect("conversation endpoints do not need outbound dialing", () =>
    Effect.gen(function*() {
      const org = yield* organization({ outbound_dialing_enabled: false, sms_registered: false, billing_issue: true })
      const call = yield* insertCall(org)
      assert.strictEqual((yield* api(org.key, "GET", "/v1/conversations")).status, 200)
      assert.strictEqual((yield* api(org.key, "GET", `/v1/conversations/${call.callId}`)).status, 200)
      assert.strictEqual((yield* api(org.key, "GET", `/v1/conversations/${call.callId}/transcript`)).status, 200)
    }))
})
