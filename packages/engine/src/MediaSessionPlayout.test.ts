import { assert, describe, it } from "@effect/vitest"
import type { Playback } from "@voice-agent/core/ports/Agent"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import type { OutboundEvent } from "@voice-agent/media/MediaCodec"
import { Effect, Fiber, Stream } from "effect"
import * as MediaSessionPlayout from "./MediaSessionPlayout.ts"

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS

/** A playout whose carrier clock reads `clock.ms`, and what it sent. */
const setup = () => {
  const clock = { ms: 1_000 }
  const sent: Array<OutboundEvent> = []
  const timeline = CallTimeline.make()
  const playout = MediaSessionPlayout.make({
    send: (event) => void sent.push(event),
    timeline,
    present: () => clock.ms * SAMPLES_PER_MS,
    chunkMs: 100,
    aheadMs: 1_000
  })
  const marks = () => sent.flatMap((event) => event._tag === "Mark" ? [event.name] : [])
  /** The `agent` channel as handed out, with where its sound starts and ends (ms). */
  const agentChannel = () => {
    const samples = Array.from(CallTimeline.finish(timeline)).flatMap((segment) => Array.from(segment.agent))
    const first = samples.findIndex((sample) => sample !== 0)
    const last = samples.findLastIndex((sample) => sample !== 0)
    return { soundFromMs: first / SAMPLES_PER_MS, soundToMs: (last + 1) / SAMPLES_PER_MS }
  }
  return { clock, sent, playout, marks, agentChannel }
}

/** `ms` of a steady non-zero signal, as one frame. */
const speech = (ms: number) =>
  Stream.make({ encoding: "pcm16" as const, samples: new Int16Array(ms * SAMPLES_PER_MS).fill(1000), timestampMs: 0 })

describe("MediaSessionPlayout", () => {
  it.effect("places each chunk where the carrier played it: ending where its mark came back", () =>
    Effect.gen(function*() {
      const { agentChannel, clock, marks, playout } = setup()
      const say = yield* Effect.forkChild(playout.say(speech(250)))
      yield* Effect.yieldNow
      // 250 ms goes out as chunks of at most 100 ms, each followed by its mark
      assert.deepStrictEqual(marks(), ["m1", "m2", "m3"])
      // sent at 1000 ms, the carrier started playing 30 ms later (its own buffering)
      clock.ms = 1_130
      playout.markedUnsafe("m1", clock.ms * SAMPLES_PER_MS)
      clock.ms = 1_230
      playout.markedUnsafe("m2", clock.ms * SAMPLES_PER_MS)
      clock.ms = 1_280
      playout.markedUnsafe("m3", clock.ms * SAMPLES_PER_MS)
      const played: Playback = yield* Fiber.join(say)
      assert.deepStrictEqual(played, { _tag: "Played", startMs: 1_030, endMs: 1_280 })
      assert.deepStrictEqual(agentChannel(), { soundFromMs: 1_030, soundToMs: 1_280 })
    }))

  it.effect("a chunk queued behind another starts where that one ended; a missing echo is implied by the next", () =>
    Effect.gen(function*() {
      const { agentChannel, clock, playout } = setup()
      const say = yield* Effect.forkChild(playout.say(speech(300)))
      yield* Effect.yieldNow
      // m1 and m2's echoes were lost; m3's came back 20 ms late: the three played back to back
      clock.ms = 1_320
      playout.markedUnsafe("m3", clock.ms * SAMPLES_PER_MS)
      assert.deepStrictEqual(yield* Fiber.join(say), { _tag: "Played", startMs: 1_020, endMs: 1_320 })
      assert.deepStrictEqual(agentChannel(), { soundFromMs: 1_020, soundToMs: 1_320 })
    }))

  it.effect("interrupted: keeps what the person can have heard, and ignores the echoes that follow the clear", () =>
    Effect.gen(function*() {
      const { agentChannel, clock, playout, sent } = setup()
      const say = yield* Effect.forkChild(playout.say(speech(300)))
      yield* Effect.yieldNow
      clock.ms = 1_100
      playout.markedUnsafe("m1", clock.ms * SAMPLES_PER_MS)
      clock.ms = 1_150
      yield* playout.interrupt
      assert.strictEqual(sent.at(-1)?._tag, "Clear")
      // the carrier echoes the cleared marks: nothing more is placed
      playout.markedUnsafe("m2", clock.ms * SAMPLES_PER_MS)
      playout.markedUnsafe("m3", clock.ms * SAMPLES_PER_MS)
      assert.deepStrictEqual(yield* Fiber.join(say), { _tag: "Interrupted", startMs: 1_000, playedMs: 150 })
      assert.deepStrictEqual(agentChannel(), { soundFromMs: 1_000, soundToMs: 1_150 })
    }))

  it.effect("a reply never starts before its mark allows, nor before what played earlier ended", () =>
    Effect.gen(function*() {
      const { agentChannel, clock, playout } = setup()
      const first = yield* Effect.forkChild(playout.say(speech(100)))
      yield* Effect.yieldNow
      clock.ms = 1_100
      playout.markedUnsafe("m1", clock.ms * SAMPLES_PER_MS)
      assert.deepStrictEqual(yield* Fiber.join(first), { _tag: "Played", startMs: 1_000, endMs: 1_100 })
      // the next say is sent at 2000 ms and its echo read early (a clock that lags): it still
      // starts after the first one's end and lasts its length
      clock.ms = 2_000
      const second = yield* Effect.forkChild(playout.say(speech(100)))
      yield* Effect.yieldNow
      playout.markedUnsafe("m2", 1_150 * SAMPLES_PER_MS)
      assert.deepStrictEqual(yield* Fiber.join(second), { _tag: "Played", startMs: 1_100, endMs: 1_200 })
      assert.deepStrictEqual(agentChannel(), { soundFromMs: 1_000, soundToMs: 1_200 })
    }))

  it.effect("the call ending mid-say places what played until then; a say after it plays nothing", () =>
    Effect.gen(function*() {
      const { agentChannel, clock, playout } = setup()
      const say = yield* Effect.forkChild(playout.say(speech(300)))
      yield* Effect.yieldNow
      clock.ms = 1_040
      yield* playout.finish
      assert.deepStrictEqual(yield* Fiber.join(say), { _tag: "Interrupted", startMs: 1_000, playedMs: 40 })
      assert.deepStrictEqual(yield* playout.say(speech(100)), { _tag: "Interrupted", startMs: 1_040, playedMs: 0 })
      assert.deepStrictEqual(agentChannel(), { soundFromMs: 1_000, soundToMs: 1_040 })
    }))

  it.effect("paces by where the carrier plays: one playing late is sent no more than a second ahead of it", () =>
    Effect.gen(function*() {
      const { clock, marks, playout } = setup()
      yield* Effect.forkChild(playout.say(speech(3_000)))
      yield* Effect.yieldNow
      // a second ahead of the present (1000 ms) in chunks of 100 ms, then a wait
      assert.strictEqual(marks().length, 11)
      // the carrier started 400 ms late: m1's chunk ended at 1500 ms, the other ten queue to 2500
      clock.ms = 1_500
      playout.markedUnsafe("m1", clock.ms * SAMPLES_PER_MS)
      // the echo made room for one chunk more (to 2600), not the five a pacing by the clock
      // alone would send
      assert.strictEqual(marks().length, 12)
      // as the carrier's clock moves, one more chunk per 100 ms of it
      clock.ms = 1_600
      playout.pumpUnsafe()
      assert.strictEqual(marks().length, 13)
      clock.ms = 1_650
      playout.pumpUnsafe()
      assert.strictEqual(marks().length, 13)
    }))

  it.effect("a long say is queued a second at a time, the rest once half of that has gone", () =>
    Effect.gen(function*() {
      const { clock, marks, playout } = setup()
      const pulled: Array<number> = []
      // 5 s of audio in frames of 100 ms, each noted as the say pulls it from the agent
      const frames = Stream.range(0, 49).pipe(
        Stream.rechunk(1),
        Stream.map((i) => {
          pulled.push(i)
          return { encoding: "pcm16" as const, samples: new Int16Array(800).fill(1000), timestampMs: 0 }
        })
      )
      const say = yield* Effect.forkChild(playout.say(frames))
      for (let turn = 0; turn < 10; turn++) yield* Effect.yieldNow
      // sent: a second ahead; queued: a second more; the agent's stream is not read further
      assert.strictEqual(marks().length, 11)
      assert.strictEqual(pulled.length, 21)
      // the carrier plays: each echo sends one chunk more, and past half a second gone the say
      // queues again
      for (let m = 1; m <= 6; m++) {
        clock.ms += 100
        playout.markedUnsafe(`m${m}`, clock.ms * SAMPLES_PER_MS)
      }
      for (let turn = 0; turn < 10; turn++) yield* Effect.yieldNow
      assert.strictEqual(marks().length, 17)
      // queued again, never more than a second (10 chunks) ahead of what was sent
      assert.isAbove(pulled.length, 21)
      assert.isAtMost(pulled.length - marks().length, 10)
      assert.isAtLeast(pulled.length - marks().length, 5)
      yield* playout.interrupt
      assert.deepStrictEqual((yield* Fiber.join(say))._tag, "Interrupted")
    }))

  it.effect("a say with no audio is played at once", () =>
    Effect.gen(function*() {
      const { playout, sent } = setup()
      assert.deepStrictEqual(yield* playout.say(Stream.empty), { _tag: "Played", startMs: 1_000, endMs: 1_000 })
      assert.deepStrictEqual(sent, [])
    }))
})
