/**
 * A process that records with FileRecordingStore, for the tests that need a real process:
 *
 * - `kill <root> <callId>`: writes both channels in 20 ms frames, as fast as it can, prints
 *   `ready` once three header patches' worth of each is written and goes on writing (up to 10 minutes of audio),
 *   waiting to be killed with SIGKILL, so that no finalizer runs.
 * - `limit <root> <callId>`: writes the remote channel until a write fails (the test runs it
 *   under a file-size limit), prints the error as JSON, writes ten more frames (each must
 *   succeed and do nothing), closes the writer's scope and exits.
 * - `limit <root> <callId> <frames>`: writes that many frames of the remote channel, prints
 *   `wrote <frames>` (no write having failed), closes the writer's scope and exits.
 *
 * Not a test: `FileRecordingStore.test.ts` spawns it with Node, which runs TypeScript as is.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Effect, Result } from "effect"
import { channelHz, tone } from "./tones.ts"

const FRAME = 160
const [mode, root, callId, count] = process.argv.slice(2)
if ((mode !== "kill" && mode !== "limit") || root === undefined || callId === undefined) {
  throw new Error("usage: recordChild.ts kill|limit <root> <callId> [frames]")
}
const say = (line: string) => Effect.sync(() => process.stdout.write(`${line}\n`))

const kill = Effect.gen(function*() {
  const store = yield* RecordingStore
  const agent = yield* store.openWriter(callId, "agent")
  const remote = yield* store.openWriter(callId, "remote")
  for (let frame = 0; frame < 30_000; frame++) {
    yield* agent.write(tone(channelHz.agent, frame * FRAME, FRAME))
    yield* remote.write(tone(channelHz.remote, frame * FRAME, FRAME))
    if ((frame + 1) * FRAME === 3 * FileRecordingStore.defaultPatchEverySamples) {
      // writes are not waited for: until the third patch landed
      yield* agent.write(new Int16Array(0))
      yield* remote.write(new Int16Array(0))
      yield* say("ready")
    }
  }
  return yield* Effect.never
})

const limitAfter = (frames: number) =>
  Effect.gen(function*() {
    const store = yield* RecordingStore
    const remote = yield* store.openWriter(callId, "remote")
    for (let frame = 0; frame < frames; frame++) yield* remote.write(tone(channelHz.remote, frame * FRAME, FRAME))
    yield* say(`wrote ${frames}`)
  })

const limit = Effect.gen(function*() {
  const store = yield* RecordingStore
  const remote = yield* store.openWriter(callId, "remote")
  let frames = 0
  for (;;) {
    const written = yield* Effect.result(remote.write(tone(channelHz.remote, frames * FRAME, FRAME)))
    if (Result.isFailure(written)) {
      const error = written.failure
      yield* say(JSON.stringify({ tag: error._tag, reason: error.reason, message: error.message, frames }))
      break
    }
    frames++
  }
  for (let extra = 0; extra < 10; extra++) yield* remote.write(tone(channelHz.remote, 0, FRAME))
  yield* say("ignored 10")
})

const program = Effect.scoped(mode === "kill" ? kill : count === undefined ? limit : limitAfter(Number(count))).pipe(
  Effect.andThen(say("closed")),
  Effect.provide(FileRecordingStore.layer(root))
)

NodeRuntime.runMain(program)
