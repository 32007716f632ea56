import { assert, describe, it } from "@effect/vitest"
import * as CarrierClock from "./CarrierClock.ts"

describe("CarrierClock", () => {
  it("before any frame, the stream started when its start arrived", () => {
    const clock = CarrierClock.make(50_000)
    assert.strictEqual(CarrierClock.nowMs(clock, 50_000), 0)
    assert.strictEqual(CarrierClock.nowMs(clock, 50_120), 120)
  })

  it("after a frame, the present is its end plus the time since it arrived", () => {
    const clock = CarrierClock.make(50_000)
    // the session's start came 18 ms after the carrier's: the frames tell the carrier's time
    CarrierClock.frame(clock, 50_002, 20)
    assert.strictEqual(CarrierClock.nowMs(clock, 50_002), 20)
    assert.strictEqual(CarrierClock.nowMs(clock, 50_012), 30)
  })

  it("frames read late together: what follows the last one is at its end, not at the reading's time", () => {
    const clock = CarrierClock.make(0)
    // a stalled reader gets 300 ms of frames at once at local 1000
    for (let ts = 400; ts < 700; ts += 20) CarrierClock.frame(clock, 1_000, ts + 20)
    assert.strictEqual(CarrierClock.nowMs(clock, 1_000), 700)
  })

  it("a late or repeated frame does not move the clock back", () => {
    const clock = CarrierClock.make(0)
    CarrierClock.frame(clock, 100, 100)
    CarrierClock.frame(clock, 130, 60)
    assert.strictEqual(CarrierClock.nowMs(clock, 130), 130)
    CarrierClock.frame(clock, 140, 100)
    assert.strictEqual(CarrierClock.nowMs(clock, 140), 140)
  })
})
