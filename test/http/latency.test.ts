/**
 * Black-box tests of `GET /v1/conversations/{call_id}/latency` and
 * `GET /v2/campaigns/{campaign_code}/latency` (docs/HTTP_API.md, "Turn latency") on both
 * backends: the exact shapes, stages with absent keys for steps that did not run, the
 * nearest-rank summary of a call and of all the replies of a campaign's calls (the same as the
 * calls' own figures give), null figures with no reply, 404 as the transcript for a call and as
 * the campaign endpoints for a campaign, 403 with outbound dialing off, and 401. Figures are
 * recorded through ConversationRepository, as the media session does.
 */
import { assert } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import {
  api,
  assertDetail,
  campaign,
  eachBackend,
  keysOf,
  organization,
  randomNumber,
  updateOrganization
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const insertCall = (org: TestOrganization, campaignId: string | null = null) =>
  Effect.gen(function*() {
    const repository = yield* ConversationRepository
    const startedAt = new Date("2026-11-20T17:00:00.000Z")
    return yield* repository.insert({
      callId: `CA${randomBytes(12).toString("hex")}`,
      organizationId: org.id,
      campaignId,
      contactId: null,
      direction: "outbound",
      fromNumber: org.number,
      toNumber: randomNumber(),
      startedAt,
      answeredAt: new Date(startedAt.getTime() + 2000),
      endedAt: new Date(startedAt.getTime() + 30_000),
      durationSec: 28,
      terminationReason: "user-hangup"
    })
  })

await eachBackend("turn latency", (it) => {
  it.effect("one entry per reply in order, stages as measured, nearest-rank summary", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const call = yield* insertCall(org)
      const repository = yield* ConversationRepository
      // Voice-to-voice: 450, 300, 900, 0 (a reply recorded as starting early is clamped), 610.
      const recorded = [
        {
          userStoppedMs: 2100,
          agentStartedMs: 2550,
          stages: { stt_ms: 120, llm_first_token_ms: 200, tts_first_byte_ms: 80, engine_ms: 50 }
        },
        { userStoppedMs: 5000, agentStartedMs: 5300, stages: { stt_ms: 100, tts_first_byte_ms: 90 } },
        { userStoppedMs: 9000, agentStartedMs: 9900, stages: {} },
        { userStoppedMs: 12_000, agentStartedMs: 11_990, stages: { engine_ms: 4 } },
        { userStoppedMs: 15_000.4, agentStartedMs: 15_610.2, stages: { llm_first_token_ms: 333.6 } }
      ]
      for (const turn of recorded) yield* repository.recordLatency(call.id, turn)
      const reply = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/latency`)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), ["summary", "turns"])
      assert.deepStrictEqual(reply.body.turns, [
        {
          user_stopped_ms: 2100,
          agent_started_ms: 2550,
          voice_to_voice_ms: 450,
          stages: { stt_ms: 120, llm_first_token_ms: 200, tts_first_byte_ms: 80, engine_ms: 50 }
        },
        {
          user_stopped_ms: 5000,
          agent_started_ms: 5300,
          voice_to_voice_ms: 300,
          stages: { stt_ms: 100, tts_first_byte_ms: 90 }
        },
        { user_stopped_ms: 9000, agent_started_ms: 9900, voice_to_voice_ms: 900, stages: {} },
        { user_stopped_ms: 12_000, agent_started_ms: 11_990, voice_to_voice_ms: 0, stages: { engine_ms: 4 } },
        {
          user_stopped_ms: 15_000,
          agent_started_ms: 15_610,
          voice_to_voice_ms: 610,
          stages: { llm_first_token_ms: 334 }
        }
      ])
      for (const turn of reply.body.turns) {
        assert.deepStrictEqual(keysOf(turn), ["agent_started_ms", "stages", "user_stopped_ms", "voice_to_voice_ms"])
      }
      // Sorted: 0, 300, 450, 610, 900. p50 at rank 3, p90 at rank 5.
      assert.deepStrictEqual(reply.body.summary, { count: 5, p50_ms: 450, p90_ms: 900, max_ms: 900 })
    }))

  it.effect("a call with no reply: no turn, count 0 and null figures", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const call = yield* insertCall(org)
      const reply = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/latency`)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, { turns: [], summary: { count: 0, p50_ms: null, p90_ms: null, max_ms: null } })
    }))

  it.effect("404 as the transcript for unknown and other organizations' calls; 401 without a key", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const call = yield* insertCall(org)
      yield* (yield* ConversationRepository).recordLatency(call.id, { userStoppedMs: 1, agentStartedMs: 2, stages: {} })
      for (const callId of ["CAunknown", call.id, "..", "%2E%2E%2Fetc"]) {
        const path = `/v1/conversations/${callId}/latency`
        const transcript = yield* api(org.key, "GET", `/v1/conversations/${callId}/transcript`)
        assertDetail(yield* api(org.key, "GET", path), 404, path)
        assert.deepStrictEqual((yield* api(org.key, "GET", path)).body, transcript.body, path)
      }
      const path = `/v1/conversations/${call.callId}/latency`
      const foreign = yield* api(other.key, "GET", path)
      assertDetail(foreign, 404, path)
      assert.deepStrictEqual(
        foreign.body,
        (yield* api(other.key, "GET", `/v1/conversations/${call.callId}/transcript`)).body
      )
      for (const token of [null, "", "wrong"]) assertDetail(yield* api(token, "GET", path), 401, path)
    }))

  it.effect("a campaign's summary is over every reply of its calls, and counts the calls that have one", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const repository = yield* ConversationRepository
      const c = yield* campaign(org)
      const other = yield* campaign(org)
      const record = (callId: string, voiceToVoice: ReadonlyArray<number>) =>
        Effect.forEach(voiceToVoice, (ms, i) =>
          repository.recordLatency(callId, {
            userStoppedMs: 3000 * (i + 1),
            agentStartedMs: 3000 * (i + 1) + ms,
            stages: { stt_ms: 90 }
          }))
      // Voice-to-voice 400, 700, 520 / 610, 0 (a reply placed 15 ms early) / no reply / 1900.
      const calls = yield* Effect.forEach(
        [[400, 700, 520], [610, -15], [], [1900]],
        (figures) =>
          Effect.gen(function*() {
            const call = yield* insertCall(org, c.id)
            yield* record(call.id, figures)
            return call
          })
      )
      // Replies outside the campaign: another campaign's call, a direct call.
      yield* record((yield* insertCall(org, other.id)).id, [5000])
      yield* record((yield* insertCall(org)).id, [6000])

      const path = `/v2/campaigns/${c.campaign_code}/latency`
      const reply = yield* api(org.key, "GET", path)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), ["calls", "summary"])
      assert.deepStrictEqual(keysOf(reply.body.summary), ["count", "max_ms", "p50_ms", "p90_ms"])
      // Sorted: 0, 400, 520, 610, 700, 1900. p50 at rank 3, p90 at rank 6.
      assert.deepStrictEqual(reply.body, {
        summary: { count: 6, p50_ms: 520, p90_ms: 1900, max_ms: 1900 },
        calls: 3
      })
      // The same figures as the calls' own answers give, summarized by the same rule.
      const perCall: Array<number> = []
      for (const call of calls) {
        const latency = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/latency`)
        perCall.push(...latency.body.turns.map((turn: { voice_to_voice_ms: number }) => turn.voice_to_voice_ms))
      }
      perCall.sort((a, b) => a - b)
      assert.deepStrictEqual(perCall, [0, 400, 520, 610, 700, 1900])
      assert.deepStrictEqual(
        (yield* api(org.key, "GET", `/v2/campaigns/${other.campaign_code}/latency`)).body,
        { summary: { count: 1, p50_ms: 5000, p90_ms: 5000, max_ms: 5000 }, calls: 1 }
      )
    }))

  it.effect("a campaign with no reply: count 0, null figures, no call", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const c = yield* campaign(org)
      yield* insertCall(org, c.id)
      const reply = yield* api(org.key, "GET", `/v2/campaigns/${c.campaign_code}/latency`)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.body, { summary: { count: 0, p50_ms: null, p90_ms: null, max_ms: null }, calls: 0 })
    }))

  it.effect("a campaign's: 404 as the campaign endpoints (unknown, another organization's, deleted), 403, 401", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const c = yield* campaign(org)
      const deleted = yield* campaign(org)
      yield* (yield* ConversationRepository).recordLatency((yield* insertCall(org, c.id)).id, {
        userStoppedMs: 1,
        agentStartedMs: 2,
        stages: {}
      })
      assert.strictEqual((yield* api(org.key, "DELETE", `/v2/campaigns/${deleted.campaign_code}`)).status, 200)
      const cases = [[org, "gcmp-00000000000000000000"], [org, deleted.campaign_code], [org, c.id], [
        other,
        c.campaign_code
      ]] as const
      for (const [who, code] of cases) {
        const path = `/v2/campaigns/${code}/latency`
        const reply = yield* api(who.key, "GET", path)
        assertDetail(reply, 404, path)
        assert.deepStrictEqual(reply.body, (yield* api(who.key, "GET", `/v2/campaigns/${code}/status`)).body, path)
      }
      const path = `/v2/campaigns/${c.campaign_code}/latency`
      for (const token of [null, "", "wrong"]) assertDetail(yield* api(token, "GET", path), 401, path)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: false })
      assertDetail(yield* api(org.key, "GET", path), 403, path)
      yield* updateOrganization(org.id, { outbound_dialing_enabled: true })
      assert.strictEqual((yield* api(org.key, "GET", path)).body.summary.count, 1)
    }))
})
