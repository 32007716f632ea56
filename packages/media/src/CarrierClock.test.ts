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

  it("frames read late together: the present is the local time since the start, their end places what follows", () => {
    const clock = CarrierClock.make(0)
    // a stalled reader gets 300 ms of frames at once at local 1000
    for (let ts = 400; ts < 700; ts += 20) CarrierClock.frame(clock, 1_000, ts + 20)
    assert.strictEqual(CarrierClock.nowMs(clock, 1_000), 1_000, "the carrier has been running a second")
    assert.strictEqual(CarrierClock.streamMs(clock, 1_000), 700, "a mark read after them was echoed at 700")
  })

  it("a backlog read a burst at a time does not pull the present back", () => {
    const clock = CarrierClock.make(0)
    // 3 s of stall, then the frames 200 ms a read, one read a ms
    const seen: Array<number> = []
    for (let read = 0; read < 15; read++) {
      for (let ts = read * 200; ts < (read + 1) * 200; ts += 20) CarrierClock.frame(clock, 3_000 + read, ts + 20)
      seen.push(CarrierClock.nowMs(clock, 3_000 + read))
    }
    assert.deepStrictEqual(seen, Array.from({ length: 15 }, (_, read) => 3_000 + read))
    assert.strictEqual(CarrierClock.streamMs(clock, 3_014), 3_000)
  })

  it("a late or repeated frame does not move the clock back", () => {
    const clock = CarrierClock.make(0)
    CarrierClock.frame(clock, 100, 100)
    CarrierClock.frame(clock, 130, 60)
    assert.strictEqual(CarrierClock.nowMs(clock, 130), 130)
    CarrierClock.frame(clock, 140, 100)
    assert.strictEqual(CarrierClock.nowMs(clock, 140), 140)
  })

  it("a frame ahead of the local clock's bound moves the present on; frames behind it do not move it back", () => {
    const clock = CarrierClock.make(50_000)
    CarrierClock.frame(clock, 50_002, 20) // the start came 18 ms late: the frame tells
    CarrierClock.frame(clock, 50_030, 40) // this one came 8 ms late itself: the present stays
    assert.strictEqual(CarrierClock.nowMs(clock, 50_030), 48)
    assert.strictEqual(CarrierClock.streamMs(clock, 50_030), 40)
  })
})
