/**
 * Black-box tests of `GET /v1/conversations/{call_id}/latency` (docs/HTTP_API.md, "Turn
 * latency") on both backends: the exact shape, stages with absent keys for steps that did not
 * run, the nearest-rank summary, null figures with no reply, 404 as the transcript and 401.
 * Figures are recorded through ConversationRepository, as the media session does.
 */
import { assert } from "@effect/vitest"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { api, assertDetail, eachBackend, keysOf, organization, randomNumber } from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"

const insertCall = (org: TestOrganization) =>
  Effect.gen(function*() {
    const repository = yield* ConversationRepository
    const startedAt = new Date("2026-11-20T17:00:00.000Z")
    return yield* repository.insert({
      callId: `CA${randomBytes(12).toString("hex")}`,
      organizationId: org.id,
      campaignId: null,
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
})
