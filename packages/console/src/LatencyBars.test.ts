import { assert, describe, it } from "@effect/vitest"
import { segmentsOf, widths } from "./LatencyBars.ts"

const turn = (voice_to_voice_ms: number, stages: Record<string, number> = {}) => ({
  user_stopped_ms: 1000,
  agent_started_ms: 1000 + voice_to_voice_ms,
  voice_to_voice_ms,
  stages
})

describe("latency bars", () => {
  it("split a reply into its measured stages in order, then what they leave of voice-to-voice", () => {
    assert.deepStrictEqual(
      segmentsOf(turn(670, { engine_ms: 85, tts_first_byte_ms: 95, stt_ms: 180, llm_first_token_ms: 310 })),
      [{ stage: "stt", ms: 180 }, { stage: "llm", ms: 310 }, { stage: "tts", ms: 95 }, { stage: "engine", ms: 85 }]
    )
    assert.deepStrictEqual(segmentsOf(turn(500, { stt_ms: 120, tts_first_byte_ms: 80 })), [
      { stage: "stt", ms: 120 },
      { stage: "tts", ms: 80 },
      { stage: "unmeasured", ms: 300 }
    ])
  })

  it("draw an unmeasured reply whole, and a reply of 0 ms as an empty part", () => {
    assert.deepStrictEqual(segmentsOf(turn(450)), [{ stage: "unmeasured", ms: 450 }])
    assert.deepStrictEqual(segmentsOf(turn(0)), [{ stage: "unmeasured", ms: 0 }])
  })

  it("scale the bars to the longest, stages that overrun voice-to-voice included", () => {
    assert.deepStrictEqual(widths([turn(200), turn(400), turn(100, { stt_ms: 300, engine_ms: 500 })]), [25, 50, 100])
    assert.deepStrictEqual(widths([turn(0)]), [0])
    assert.deepStrictEqual(widths([]), [])
  })
})
