/**
 * Which speech a Realtime reply answers and the figures of its turn latency, from the events'
 * times alone (the adapter against the fake: OpenAiRealtime.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Latency from "./OpenAiRealtimeLatency.ts"

/** Input sent in 20 ms batches from `fromMs` to `toMs` (call timeline), each at its own time plus `lagMs`. */
const sendAudio = (clock: Latency.TurnClock, fromMs: number, toMs: number, lagMs = 0) => {
  for (let endMs = fromMs + 20; endMs <= toMs; endMs += 20) clock.sent(endMs, endMs + lagMs)
}

describe("OpenAiRealtimeLatency", () => {
  it("a reply answers the speech before it: its end, when that end was sent, when the reply's audio came", () => {
    const clock = Latency.make()
    sendAudio(clock, 0, 3000, 7)
    clock.speechStarted()
    clock.speechStopped(2210)
    assert.deepStrictEqual(clock.replyStarted(2900), { userStoppedMs: 2210, heardAtMs: 2227, firstAudioAtMs: 2900 })
    // taken: the next item (a second item of the reply, or the opening) answers nothing
    assert.isUndefined(clock.replyStarted(3100))
  })

  it("nothing answers before the person has spoken (the opening), and a new speech supersedes one unanswered", () => {
    const clock = Latency.make()
    assert.isUndefined(clock.replyStarted(100))
    sendAudio(clock, 0, 5000)
    clock.speechStopped(1500)
    clock.speechStarted()
    assert.isUndefined(clock.replyStarted(2000))
    clock.speechStopped(4000)
    assert.strictEqual(clock.replyStarted(4700)?.userStoppedMs, 4000)
  })

  it("an end never sent (the buffer's clock moved) has no arrival: the model's stage is not measured", () => {
    const clock = Latency.make()
    sendAudio(clock, 0, 1000)
    clock.speechStopped(1200)
    const answered = clock.replyStarted(1900)!
    assert.isUndefined(answered.heardAtMs)
    assert.deepStrictEqual(Latency.record(answered, { _tag: "Played", startMs: 2000, endMs: 3000 })?.stages, {
      engine_ms: 800
    })
  })

  it("the end of speech: audio_end_ms less the VAD's silence, never before the speech's start", () => {
    assert.strictEqual(Latency.speechEndMs(2710, 500, 900), 2210)
    assert.strictEqual(Latency.speechEndMs(1100, 500, 900), 900)
    assert.strictEqual(Latency.speechEndMs(300, 500, undefined), 0)
  })

  it("a record once the reply was heard: llm_first_token_ms and engine_ms, the rest; none when nothing was heard", () => {
    const answered = { userStoppedMs: 2210, heardAtMs: 2227, firstAudioAtMs: 2900 }
    assert.deepStrictEqual(Latency.record(answered, { _tag: "Played", startMs: 2960, endMs: 4000 }), {
      userStoppedMs: 2210,
      agentStartedMs: 2960,
      stages: { llm_first_token_ms: 673, engine_ms: 77 }
    })
    assert.deepStrictEqual(
      Latency.record(answered, { _tag: "Interrupted", startMs: 2960, playedMs: 400 })?.agentStartedMs,
      2960
    )
    assert.isUndefined(Latency.record(answered, { _tag: "Interrupted", startMs: 2960, playedMs: 0 }))
  })
})
