import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option } from "effect"
import { TestClock } from "effect/testing"
import * as MediaSessionMachineDetection from "./MediaSessionMachineDetection.ts"

const frame = (hz: number) =>
  Int16Array.from({ length: 160 }, (_, n) => Math.round(8000 * Math.sin((2 * Math.PI * hz * n) / 8000)))
const quiet = new Int16Array(160)

describe("make", () => {
  it.effect("takes the carrier at its word: nothing held", () =>
    Effect.gen(function*() {
      for (const by of ["human", "machine"] as const) {
        const detection = MediaSessionMachineDetection.make("call-1", by)
        assert.strictEqual(detection.provisional, by)
        assert.isFalse(detection.holds(frame(1000), 0))
        assert.strictEqual(yield* detection.answeredBy, by)
      }
    }))

  it.effect("unknown: holds frames until the audio decides, then lets the deciding frame through", () =>
    Effect.gen(function*() {
      const detection = MediaSessionMachineDetection.make("call-1", "unknown")
      assert.strictEqual(detection.provisional, "human")
      const answeredBy = yield* Effect.forkChild(detection.answeredBy)
      // a beep: a machine once it has lasted 160 ms
      let at = 0
      while (detection.holds(frame(1000), at)) at += 20
      assert.strictEqual(at, 140, "the eighth frame of the tone decides")
      assert.isFalse(detection.holds(quiet, at + 20), "nothing held once decided")
      assert.strictEqual(yield* Fiber.join(answeredBy), "machine")
    }))

  it.effect("unknown: a line that carries no frames is a person after maxWaitMs", () =>
    Effect.gen(function*() {
      const detection = MediaSessionMachineDetection.make("call-1", "unknown")
      const answeredBy = yield* Effect.forkChild(detection.answeredBy)
      yield* TestClock.adjust(MediaSessionMachineDetection.maxWaitMs - 1)
      assert.isTrue(Option.isNone(yield* Fiber.await(answeredBy).pipe(Effect.timeoutOption(0))))
      yield* TestClock.adjust(1)
      assert.strictEqual(yield* Fiber.join(answeredBy), "human")
      assert.isFalse(detection.holds(frame(1000), 10_000), "frames after it go to the agent")
    }))
})
