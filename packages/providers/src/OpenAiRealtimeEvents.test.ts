/**
 * The Realtime events read for the turn latency: `speech_stopped`'s position and the server
 * VAD's silence from the effective session.
 */
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as Events from "./OpenAiRealtimeEvents.ts"

describe("OpenAiRealtimeEvents", () => {
  it("speech_stopped is read with its audio_end_ms and item_id", () => {
    const event = Events.decode(JSON.stringify({
      event_id: "event_1",
      type: "input_audio_buffer.speech_stopped",
      audio_end_ms: 2710,
      item_id: "item_1"
    }))
    assert.deepStrictEqual(Option.getOrThrow(event), {
      type: "input_audio_buffer.speech_stopped",
      audio_end_ms: 2710,
      item_id: "item_1"
    })
  })

  it("session.updated is read whatever its session holds; the VAD's silence from it, else 500 ms", () => {
    const session = { audio: { input: { turn_detection: { type: "server_vad", silence_duration_ms: 650 } } } }
    const updated = Option.getOrThrow(Events.decode(JSON.stringify({ type: "session.updated", session })))
    assert.strictEqual(Events.silenceMs("session" in updated ? updated.session : undefined), 650)
    const odd = Events.decode(JSON.stringify({ type: "session.updated", session: "odd" }))
    assert.isTrue(Option.isSome(odd))
    assert.strictEqual(Events.silenceMs("odd"), 500)
    assert.strictEqual(Events.silenceMs({ audio: { input: { turn_detection: null } } }), 500)
    assert.strictEqual(Events.silenceMs(undefined), 500)
  })
})
