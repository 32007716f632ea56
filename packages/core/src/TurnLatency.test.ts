import { assert, describe, it } from "@effect/vitest"
import { fromSteps, nearestRank, toConversationLatency } from "./TurnLatency.ts"

describe("TurnLatency", () => {
  it("nearest rank: the value at rank ceil(p/100 × n); null for no value", () => {
    assert.strictEqual(nearestRank([], 50), null)
    assert.strictEqual(nearestRank([7], 90), 7)
    assert.strictEqual(nearestRank([1, 2, 3, 4], 50), 2)
    assert.strictEqual(nearestRank([1, 2, 3, 4, 5], 50), 3)
    assert.strictEqual(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), 9)
    assert.strictEqual(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90), 10)
  })

  it("voice-to-voice is never negative; stages keep only the steps that ran", () => {
    const latency = toConversationLatency([
      { userStoppedMs: 1000, agentStartedMs: 982, stages: { engine_ms: 3 } },
      { userStoppedMs: 2000.4, agentStartedMs: 2500.6, stages: { stt_ms: 99.5, llm_first_token_ms: undefined } }
    ])
    assert.deepStrictEqual(latency.turns, [
      { user_stopped_ms: 1000, agent_started_ms: 982, voice_to_voice_ms: 0, stages: { engine_ms: 3 } },
      { user_stopped_ms: 2000, agent_started_ms: 2501, voice_to_voice_ms: 501, stages: { stt_ms: 100 } }
    ])
    assert.deepStrictEqual(latency.summary, { count: 2, p50_ms: 0, p90_ms: 501, max_ms: 501 })
    assert.deepStrictEqual(toConversationLatency([]).summary, { count: 0, p50_ms: null, p90_ms: null, max_ms: null })
  })

  it("from the steps measured: engine_ms is the rest of voice-to-voice, never negative; absent steps stay absent", () => {
    assert.deepStrictEqual(fromSteps(1000, 1800, { llm_first_token_ms: 610.4 }), {
      userStoppedMs: 1000,
      agentStartedMs: 1800,
      stages: { llm_first_token_ms: 610, engine_ms: 190 }
    })
    assert.deepStrictEqual(
      fromSteps(1000, 1450, { stt_ms: 100, llm_first_token_ms: 200, tts_first_byte_ms: 200 }).stages,
      { stt_ms: 100, llm_first_token_ms: 200, tts_first_byte_ms: 200, engine_ms: 0 }
    )
    assert.deepStrictEqual(fromSteps(1000, 990, {}).stages, { engine_ms: 0 })
  })
})
