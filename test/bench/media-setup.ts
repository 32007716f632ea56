/**
 * What a call costs to set up and tear down: M short calls, K at a time, each served by the
 * engine's MediaSession with the daemon's scripted agent (MediaServer.ts) over in-memory sockets
 * (MemoryMedia): `connected`, `start` with a valid token, 50 ms, `stop`; the session runs its
 * handshake, opens both recordings, starts the agent (whose greeting starts to play), then ends
 * as for a person hanging up: the agent's verdict, the transcript, the recordings finalized.
 * Prints the process's CPU per call (user and system), after a warm-up of 500 calls.
 *
 * The CPU per second of call that `media.ts` measures includes each call's share of this: at 200
 * calls of about 7.5 s, some 27 calls start and end every second. With recordings, the system
 * time is mostly the filesystem's (a directory and two files a call) and varies with the
 * machine's disk; `--no-recordings` serves the calls with a store that writes nothing.
 *
 *     node test/bench/media-setup.ts [calls=3000] [at a time=50] [--no-recordings]
 */
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as BenchMain from "./BenchMain.ts"
import * as MediaServer from "./MediaServer.ts"

const [calls = 3000, atATime = 50] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number)
const recordings = !process.argv.includes("--no-recordings")

/** A store that opens writers that write nothing. */
const nowhere = Layer.succeed(
  RecordingStore,
  RecordingStore.of({
    openWriter: () => Effect.succeed({ write: () => Effect.void }),
    read: (callId, channel) => Effect.die(`no recording ${callId} ${channel}`),
    finalizeLost: () => Effect.succeed(new Map())
  })
)

const twilio = (message: object) => JSON.stringify(message)

const program = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-bench-setup-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const server = MediaServer.services(dir, { onFrame: () => {}, onInput: () => {} }, false)
  const context = yield* Layer.build(recordings ? server.layer : Layer.merge(server.layer, nowhere))
  const events = Context.get(context, CallEvents)
  const key = MediaToken.keyFrom(yield* MemoryDialer.serverSecrets.cursorKey)

  const call = (n: number) =>
    Effect.gen(function*() {
      const callId = `call-${n}`
      const streamSid = `MZ${n}`
      const token = MediaToken.sign(key, callId, Date.now() + 60_000)
      yield* events.publish(callId, { _tag: "Answered", at: Date.now(), answeredBy: "human" })
      const [carrier, served] = yield* MemoryMedia.pair
      const session = yield* Effect.forkChild(MediaSession.serve(served).pipe(Effect.provideContext(context)))
      yield* Effect.forkChild(Effect.forever(carrier.read, { disableYield: true }))
      yield* carrier.send(twilio({ event: "connected", protocol: "Call", version: "1.0.0" }))
      yield* carrier.send(twilio({
        event: "start",
        sequenceNumber: "1",
        streamSid,
        start: {
          accountSid: "AC1",
          streamSid,
          callSid: `CA${n}`,
          tracks: ["inbound"],
          customParameters: { token },
          mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }
        }
      }))
      yield* Effect.sleep(Duration.millis(50))
      yield* carrier.send(
        twilio({ event: "stop", sequenceNumber: "2", streamSid, stop: { accountSid: "AC1", callSid: `CA${n}` } })
      )
      yield* Fiber.await(session)
    }).pipe(Effect.scoped)
  const run = (first: number, count: number) =>
    Effect.forEach(Array.from({ length: count }, (_, i) => first + i), call, {
      concurrency: atATime,
      discard: true
    })

  yield* run(0, Math.min(calls, 500))
  const before = process.cpuUsage()
  const startedAt = performance.now()
  yield* run(1_000_000, calls)
  const cpu = process.cpuUsage(before)
  const perCall = (us: number) => (us / 1000 / calls).toFixed(3)
  console.log(
    `${calls} calls, ${atATime} at a time, recordings ${recordings ? "on" : "off"}: ` +
      `${perCall(cpu.user + cpu.system)} ms CPU per call (user ${perCall(cpu.user)}, system ${perCall(cpu.system)}), ${
        ((performance.now() - startedAt) / 1000).toFixed(1)
      } s`
  )
})

BenchMain.runMain(program)
