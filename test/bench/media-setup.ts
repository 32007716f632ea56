/**
 * What a call costs to set up and tear down: M short calls, K at a time, each served by the
 * engine's MediaSession with the daemon's scripted agent (MediaServer.ts) over in-memory sockets
 * (MemoryMedia): `connected`, `start` with a valid token, 50 ms, `stop`; the session runs its
 * handshake, opens both recordings, starts the agent (whose greeting starts to play), then ends
 * as for a person hanging up: the agent's verdict, the transcript, the recordings finalized.
 * Prints the process's CPU per call (user and system), after a warm-up of 500 calls.
 *
 * `--held` measures instead what a live call keeps on the heap: K calls set up and left
 * speaking for two seconds (the greeting playing, the recorder, the agent waiting), the heap
 * after a full collection against the heap once they have ended. What a call keeps for its
 * whole life is what the young generation's collector copies, then promotes, for every call
 * (docs/PERFORMANCE.md, "What a live call keeps"). With `--kinds`, also which objects: heap
 * snapshots of the calls held and after they ended, counted by kind (`HeapKinds.ts`), per call.
 *
 * The CPU per second of call that `media.ts` measures includes each call's share of this: at 200
 * calls of about 14 s, some 14 calls start and end every second. With recordings, the system
 * time is mostly the filesystem's (a directory and two files a call) and varies with the
 * machine's disk; `--no-recordings` serves the calls with a store that writes nothing.
 *
 *     node test/bench/media-setup.ts [calls=3000] [at a time=50] [--no-recordings] [--held [--kinds]]
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
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as BenchMain from "./BenchMain.ts"
import * as HeapKinds from "./HeapKinds.ts"
import * as MediaServer from "./MediaServer.ts"

const [calls = 3000, atATime = 50] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number)
const recordings = !process.argv.includes("--no-recordings")
const held = process.argv.includes("--held")
const kinds = process.argv.includes("--kinds")

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

  const call = (n: number, hold = Effect.sleep(Duration.millis(50))) =>
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
      yield* hold
      yield* carrier.send(
        twilio({ event: "stop", sequenceNumber: "2", streamSid, stop: { accountSid: "AC1", callSid: `CA${n}` } })
      )
      yield* Fiber.await(session)
    }).pipe(Effect.scoped)
  const run = (first: number, count: number) =>
    Effect.forEach(Array.from({ length: count }, (_, i) => first + i), (n) => call(n), {
      concurrency: atATime,
      discard: true
    })

  yield* run(0, Math.min(calls, 500))
  if (held) return yield* heldHeap(atATime, call)
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

/** The heap after a full collection. */
const heapAfterGc = (): number => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** Heap per live call: `count` calls held for two seconds, measured, then ended. */
const heldHeap = (count: number, call: (n: number, hold: Effect.Effect<void>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    let live = 0
    let measured = 0
    const snapshotOf = (when: string) => path.join(os.tmpdir(), `va-bench-${when}-${process.pid}.heapsnapshot`)
    const hold = Effect.gen(function*() {
      yield* Effect.sleep(Duration.seconds(2))
      if (++live === count) {
        measured = heapAfterGc()
        if (kinds) HeapKinds.write(snapshotOf("held"))
      }
      while (measured === 0) yield* Effect.sleep(Duration.millis(10))
    })
    yield* Effect.forEach(Array.from({ length: count }, (_, i) => 2_000_000 + i), (n) => call(n, hold), {
      concurrency: "unbounded",
      discard: true
    })
    const after = heapAfterGc()
    console.log(
      `${count} calls held, recordings ${recordings ? "on" : "off"}: ` +
        `${((measured - after) / 1024 / count).toFixed(1)} KB of heap per live call`
    )
    if (kinds) {
      HeapKinds.write(snapshotOf("ended"))
      const [before, ended] = [HeapKinds.count(snapshotOf("held")), HeapKinds.count(snapshotOf("ended"))]
      console.log("per live call, the kinds that grew most (self size, count; type and name):")
      for (const line of HeapKinds.growth(before, ended, count, 25)) console.log(line)
    }
  })

BenchMain.runMain(program)
