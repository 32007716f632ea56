/**
 * What the media session's tests share: one call's conversation and token, everything a session
 * needs but the agent (over memory and a temporary recordings directory), a stream end that counts
 * what the session has read, and the recordings as the session wrote them.
 */
import { assert } from "@effect/vitest"
import * as SimMediaStream from "@voice-agent/carrier-sim/SimMediaStream"
import type { AgentCall, AgentEnd } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryConversations from "@voice-agent/engine/testing/MemoryConversations"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import * as Wav from "@voice-agent/media/Wav"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Effect, Fiber, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SpeechBoundaries from "./SpeechBoundaries.ts"

export const callId = "call-media-1"
export const key = MediaToken.keyFrom(new Uint8Array(32).fill(42))
export const streamSid = "MZ00000000000000000000000000000001"

export const conversation = MemoryConversations.outbound(callId)

export const tone = (hz: number, samples: number, amplitude = 8000) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 8000)))

/** Everything a session needs but the agent, over memory and a temporary recordings directory. */
export const harness = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-media-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const world = MemoryDialer.makeWorld()
  const memory = MemoryConversations.make((id) => id === callId ? { conversation, data: {} } : undefined)
  const { turns } = memory
  const conversations = memory.repository
  const services = Layer.mergeAll(
    FileRecordingStore.layer(dir),
    Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
    Layer.succeed(ConversationRepository, conversations),
    Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets)
  )
  return { dir, world, turns, services, conversations }
})

/**
 * Waits, letting real I/O complete too, until `done()`: at most 15 s of real time (a file write
 * on a loaded machine can take long; a count of turns ran out there).
 */
export const until = (done: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 15_000
    while (!done() && Date.now() < deadline) {
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    assert.isTrue(done(), "waited for the session")
  })

/** Lets every fiber run. */
export const settle = Effect.gen(function*() {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

/**
 * A stream whose server end counts the frames the session has handled: a batch counts once the
 * session comes back for the next one. The test clock only moves once the session has handled
 * what was sent (`carrierEnd`'s `frame` waits for it): otherwise a session slowed by real I/O (a
 * recording write on a loaded machine) would see the clock run ahead of the frames it has not
 * placed yet, and take them for late.
 */
export const countedPair = Effect.map(MemoryMedia.pair, ([carrier, server]) => {
  let handled = 0
  let reading = 0
  const counted: MediaSocket = {
    ...server,
    read: Effect.suspend(() => {
      handled += reading
      reading = 0
      return Effect.tap(server.read, (batch) => Effect.sync(() => void (reading = batch?.length ?? 0)))
    })
  }
  return [carrier, counted, () => handled] as const
})

export const readWav = (dir: string, channel: string) => {
  const file = fs.readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith(`${channel}.wav`))
  assert.isDefined(file, `${channel}.wav in ${fs.readdirSync(dir, { recursive: true }).join(", ")}`)
  const bytes = new Uint8Array(fs.readFileSync(path.join(dir, file)))
  return { path: path.join(dir, file), samples: Wav.decodeSamples(bytes.subarray(44)) }
}

/** The first sample index whose 20 ms window holds energy, or -1. */
export const firstSound = (samples: Int16Array) => {
  for (let i = 0; i + 160 <= samples.length; i += 8) {
    let energy = 0
    for (let j = i; j < i + 160; j++) energy += samples[j]! * samples[j]!
    if (energy / 160 > 1_000_000) return i
  }
  return -1
}

export const agentLayer = (run: (call: AgentCall) => Effect.Effect<AgentEnd>) =>
  Layer.succeed(Agent, Agent.of({ encoding: "pcm16", run }))

/**
 * The simulated carrier (SimMediaStream) on `carrier`, with a person who answers (a 200 ms tone)
 * 300 ms after hearing the agent's first utterance end, as SimPerson does, and hangs up a second
 * later. The test clock moves 20 ms at a time for `ms`, each step once the session has handled
 * what the carrier sent (`readBySession`, see `countedPair`) or while `waiting()` (the session
 * waits on the clock itself). Answers how the stream ended.
 */
export const answeringPerson = (options: {
  readonly carrier: MediaSocket
  readonly readBySession: () => number
  readonly waiting: () => boolean
  readonly ms: number
}) =>
  Effect.gen(function*() {
    let sent = 0
    let hungUp = false
    const counting: MediaSocket = {
      ...options.carrier,
      send: (text) => Effect.tap(options.carrier.send(text), Effect.sync(() => void sent++))
    }
    const stream = yield* Effect.forkChild(SimMediaStream.run({
      socket: counting,
      accountSid: "AC00000000000000000000000000000000",
      callSid: "CA00000000000000000000000000000001",
      streamSid,
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
    for (let t = 0; t < options.ms; t += 20) {
      // (in real time: the session's first read waits for its recordings to open, on disk)
      for (let i = 0; i < 10_000 && !(options.waiting() || hungUp || options.readBySession() >= sent); i++) {
        yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 1)))
      }
      yield* TestClock.adjust(20)
    }
    return yield* Fiber.join(stream)
  })

/**
 * The agent's one utterance and the person's one answer in the recordings in `dir`; the answer
 * starts 300 to 320 ms after the utterance ends (on the first 20 ms frame after `answeringPerson`'s
 * 300 ms).
 */
export const askedAndAnswered = (dir: string) => {
  const asked = SpeechBoundaries.stretches(readWav(dir, "agent").samples)
  const answered = SpeechBoundaries.stretches(readWav(dir, "remote").samples)
  assert.lengthOf(asked, 1, JSON.stringify(asked))
  assert.lengthOf(answered, 1, JSON.stringify(answered))
  const gap = answered[0]!.startMs - asked[0]!.endMs
  assert.isAtLeast(gap, 300, JSON.stringify({ asked, answered }))
  assert.isAtMost(gap, 320, JSON.stringify({ asked, answered }))
  return { asked: asked[0]!, answered: answered[0]! }
}
