/**
 * A media session whose start stalls (the call's agent looked up in a database that does not
 * answer for seconds) while the carrier goes on sending the person's frames, which the socket
 * hands over a little at a time afterwards, as a WebSocket paused at its high-water mark does.
 * The agent starts at the carrier's present, not at what the session has read so far, and its
 * audio lands in the recordings where the carrier played it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as SimMediaStream from "@voice-agent/carrier-sim/SimMediaStream"
import type { CallContext } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Effect, Fiber, Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { callId, countedPair, harness, key, readWav, tone } from "../support/MediaSessionHarness.ts"
import * as SpeechBoundaries from "../support/SpeechBoundaries.ts"

/** The server end of `socket`, handing over at most `most` frames a read (the rest stay queued). */
const capped = (socket: MediaSocket, most: number): MediaSocket => {
  let held: Array<string> = []
  const read = Effect.suspend(() => {
    if (held.length > 0) return Effect.succeed(take())
    return Effect.map(socket.read, (batch) => {
      if (batch === undefined) return undefined
      held = [...batch]
      return take()
    })
  })
  const take = () => {
    const batch = held.slice(0, most)
    held = held.slice(most)
    return batch
  }
  return { ...socket, read }
}

describe("MediaSession whose start stalls", () => {
  it.effect("the agent starts at the carrier's present; its audio is where the carrier played it", () =>
    Effect.gen(function*() {
      const { dir, services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      let looking = false
      let startedMs = -1
      const question = SimSpeech.encode("Ready?", tone(300, 2400))
      const agent = Layer.succeed(
        Agent,
        Agent.of({
          encoding: "pcm16",
          // The agent's plan, from a database that answers after 3 s.
          encodingFor: (_: CallContext) =>
            Effect.sync(() => void (looking = true)).pipe(
              Effect.andThen(Effect.sleep("3 seconds")),
              Effect.ensuring(Effect.sync(() => void (looking = false))),
              Effect.as("pcm16" as const)
            ),
          run: (call) =>
            Effect.gen(function*() {
              startedMs = yield* call.elapsedMs
              yield* call.say(Stream.make({ encoding: "pcm16" as const, samples: question, timestampMs: 0 }))
              yield* Stream.runDrain(call.input)
              return { outcome: "completed", endedBy: "remote" } as const
            })
        })
      )
      const [carrier, counted, readBySession] = yield* countedPair
      let sent = 0
      let hungUp = false
      const counting: MediaSocket = {
        ...carrier,
        send: (text) => Effect.tap(carrier.send(text), Effect.sync(() => void sent++))
      }
      const session = yield* Effect.forkChild(
        MediaSession.serve(capped(counted, 10)).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const stream = yield* Effect.forkChild(SimMediaStream.run({
        socket: counting,
        accountSid: "AC00000000000000000000000000000000",
        callSid: "CA00000000000000000000000000000001",
        streamSid: "MZ00000000000000000000000000000001",
        customParameters: { token: MediaToken.sign(key, callId, 9e15) },
        person: (line) =>
          Effect.gen(function*() {
            yield* Queue.take(line.heard)
            yield* Effect.sleep("300 millis")
            yield* line.say(tone(700, 1600))
            yield* Effect.sleep("1 second")
            hungUp = true
          }),
        hangUp: Effect.never
      }))
      for (let t = 0; t < 6_000; t += 20) {
        for (let i = 0; i < 10_000 && !(looking || hungUp || readBySession() >= sent); i++) {
          yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 1)))
        }
        yield* TestClock.adjust(20)
      }
      assert.strictEqual(yield* Fiber.join(stream), "remote-hangup")
      yield* Fiber.join(session)
      assert.isAtLeast(startedMs, 3_000, "the agent's clock starts where the carrier is, past the stall")
      assert.isAtMost(startedMs, 3_060)
      const asked = SpeechBoundaries.stretches(readWav(dir, "agent").samples)
      const answered = SpeechBoundaries.stretches(readWav(dir, "remote").samples)
      assert.lengthOf(asked, 1, JSON.stringify(asked))
      assert.lengthOf(answered, 1, JSON.stringify(answered))
      assert.approximately(asked[0]!.startMs, startedMs, 40, JSON.stringify({ asked, startedMs }))
      const gap = answered[0]!.startMs - asked[0]!.endMs
      assert.isAtLeast(gap, 300, JSON.stringify({ asked, answered }))
      assert.isAtMost(gap, 320, JSON.stringify({ asked, answered }))
    }))
})
