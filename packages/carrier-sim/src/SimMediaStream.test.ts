/**
 * SimMediaStream run directly on one end of a MemoryMedia pair, under TestClock, for what the
 * carrier tests (SimCarrierMedia.test.ts, a test server that reads everything at once) cannot
 * show: a socket that makes the carrier's sends wait, and a burst of messages received together.
 */
import { assert, describe, it } from "@effect/vitest"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import { Duration, Effect, Fiber, Result } from "effect"
import { TestClock } from "effect/testing"
import * as SimMediaStream from "./SimMediaStream.ts"

const streamSid = "MZ00000000000000000000000000000001"

/** The stream on `socket` until the carrier hangs up at `hangUpAt` ms; the person says nothing. */
const runStream = (socket: MediaSocket, hangUpAt: number) =>
  SimMediaStream.run({
    socket,
    accountSid: "AC00000000000000000000000000000000",
    callSid: "CA00000000000000000000000000000001",
    streamSid,
    customParameters: { token: "t" },
    person: () => Effect.never,
    hangUp: Effect.sleep(Duration.millis(hangUpAt))
  })

/** Everything `socket` receives until the stream closes, decoded. */
const readAll = (socket: MediaSocket) =>
  Effect.gen(function*() {
    const received: Array<TwilioMediaStream.InboundMessage> = []
    while (true) {
      const texts = yield* socket.read
      if (texts === undefined) return received
      for (const text of texts) {
        const decoded = TwilioMediaStream.decode(text)
        assert.isTrue(Result.isSuccess(decoded), text)
        if (Result.isSuccess(decoded) && decoded.success._tag !== "Connected") {
          received.push(decoded.success)
        }
      }
    }
  })

const audio = (ms: number) =>
  TwilioMediaStream.encode(
    TwilioMediaStream.outboundMedia(
      streamSid,
      Buffer.from(MuLaw.encode(new Int16Array(ms * 8).fill(1000))).toString("base64")
    )
  )
const mark = (name: string) => TwilioMediaStream.encode(TwilioMediaStream.outboundMark(streamSid, name))

const sequenceNumbers = (received: ReadonlyArray<TwilioMediaStream.InboundMessage>) =>
  received.map((message) => "sequenceNumber" in message ? message.sequenceNumber : -1)

const marksOf = (received: ReadonlyArray<TwilioMediaStream.InboundMessage>) =>
  received.flatMap((message) => message._tag === "Mark" ? [message.mark.name] : [])

describe("SimMediaStream", () => {
  it.effect("a socket that makes sends wait: each message goes out once, in the order of its number", () =>
    Effect.gen(function*() {
      const [carrier, server] = yield* MemoryMedia.pair
      const stream = yield* Effect.forkChild(runStream(carrier, 20_000))
      // The server reads nothing for 10 s: the socket's buffer fills after about 5 s and the
      // carrier's frames wait, while marks come due and are echoed behind them.
      yield* server.send(audio(1_000))
      yield* server.send(mark("a"))
      yield* TestClock.adjust(6_000)
      yield* server.send(audio(100))
      yield* server.send(mark("b"))
      yield* server.send(audio(100))
      yield* server.send(mark("c"))
      yield* TestClock.adjust(4_000)
      const reader = yield* Effect.forkChild(readAll(server))
      // a step at a time, so that the fibers catching up run between steps
      for (let t = 10_000; t < 20_000; t += 20) yield* TestClock.adjust(20)
      assert.strictEqual(yield* Fiber.join(stream), "local-hangup")
      const received = yield* Fiber.join(reader)
      assert.deepStrictEqual(sequenceNumbers(received), Array.from({ length: received.length }, (_, i) => i + 1))
      assert.deepStrictEqual(marksOf(received), ["a", "b", "c"])
      const media = received.flatMap((message) => message._tag === "Media" ? [message.media] : [])
      // every frame captured in the 20 s, each sent at its end (the last one races the hang-up)
      assert.isAtLeast(media.length, 999)
      media.forEach((frame, i) => {
        assert.strictEqual(frame.chunk, i + 1)
        assert.strictEqual(frame.timestamp, 20 * i)
      })
      assert.strictEqual(received.at(-1)?._tag, "Stop")
    }))

  it.effect("messages received together are handled in order: marks echoed in theirs, a clear in between", () =>
    Effect.gen(function*() {
      const [carrier, server] = yield* MemoryMedia.pair
      const reader = yield* Effect.forkChild(readAll(server))
      const stream = yield* Effect.forkChild(runStream(carrier, 2_000))
      yield* TestClock.adjust(100)
      // One batch: a mark due at once, audio with marks after it, a clear, and a mark after it.
      yield* Effect.forEach(
        [mark("now"), audio(100), mark("after-audio"), TwilioMediaStream.encode(TwilioMediaStream.clear(streamSid))],
        server.send,
        { discard: true }
      )
      yield* server.send(mark("after-clear"))
      yield* TestClock.adjust(1_900)
      assert.strictEqual(yield* Fiber.join(stream), "local-hangup")
      const received = yield* Fiber.join(reader)
      assert.deepStrictEqual(marksOf(received), ["now", "after-audio", "after-clear"])
      assert.deepStrictEqual(sequenceNumbers(received), Array.from({ length: received.length }, (_, i) => i + 1))
    }))
})
