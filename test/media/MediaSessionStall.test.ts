/**
 * A media session whose start stalls (the call's agent looked up in a database that does not
 * answer for seconds) while the carrier goes on sending the person's frames, which the socket
 * hands over a little at a time afterwards, as a WebSocket paused at its high-water mark does.
 * The agent starts at the carrier's present, not at what the session has read so far, and its
 * audio lands in the recordings where the carrier played it.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CallContext } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import { Effect, Fiber, Layer, Stream } from "effect"
import {
  answeringPerson,
  askedAndAnswered,
  callId,
  countedPair,
  harness,
  tone
} from "../support/MediaSessionHarness.ts"

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
      const session = yield* Effect.forkChild(
        MediaSession.serve(capped(counted, 10)).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const ended = yield* answeringPerson({ carrier, readBySession, waiting: () => looking, ms: 6_000 })
      assert.strictEqual(ended, "remote-hangup")
      yield* Fiber.join(session)
      assert.isAtLeast(startedMs, 3_000, "the agent's clock starts where the carrier is, past the stall")
      assert.isAtMost(startedMs, 3_060)
      const { asked } = askedAndAnswered(dir)
      assert.approximately(asked.startMs, startedMs, 40, JSON.stringify({ asked, startedMs }))
    }))
})
