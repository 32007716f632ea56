import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, layer } from "@effect/vitest"
import { RecordingNotFound } from "@voice-agent/core/Errors"
import { RecordingWriteError } from "@voice-agent/core/ports/RecordingStore"
import type { RecordingRead, RecordingStore, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Mixer from "@voice-agent/media/Mixer"
import * as Wav from "@voice-agent/media/Wav"
import { Cause, Deferred, Effect, Exit, Fiber, FileSystem, Layer, Path, Result, Stream } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as nodeFs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { channelHz, tone } from "../test/tones.ts"
import * as FileRecordingStore from "./FileRecordingStore.ts"

const RATE = 8000
const FRAME = 160 // 20 ms

// Amplitude 20000 on both sides: where the two sines agree in sign the sum saturates.
const sine = (hz: number, seconds: number, amplitude = 20000) =>
  Int16Array.from(
    { length: Math.round(RATE * seconds) },
    (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / RATE))
  )

const remoteSamples = sine(440, 1.5) // 12000 samples
const agentSamples = sine(880, 1) // 8000 samples

const expectedMix = (a: Int16Array, b: Int16Array) =>
  Int16Array.from(
    { length: Math.max(a.length, b.length) },
    (_, i) => Math.min(32767, Math.max(-32768, (a[i] ?? 0) + (b[i] ?? 0)))
  )

const soxVersion = spawnSync("sox", ["--version"], { encoding: "utf8" })
const hasSox = soxVersion.status === 0
// CI installs sox (.ci/run), so there a missing sox is a failure, never a silent skip.
if (!hasSox && process.env["CI"] === "true") throw new Error("sox is not on PATH; .ci/run installs it")
if (!hasSox) {
  console.warn(
    `sox is not on PATH (${soxVersion.error?.message ?? `exit ${soxVersion.status}`}): skipping the \`sox --i\` checks`
  )
}

// The file-size limit test runs its child under prlimit (util-linux), which Linux has.
const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0

/**
 * Makes `dir` refuse new entries: mode 0555, and when that is not enough (root ignores
 * modes) the immutable attribute. Answers how to undo it, or undefined when neither works.
 */
const makeUnwritable = (dir: string): (() => void) | undefined => {
  const writable = () => {
    try {
      nodeFs.mkdirSync(nodePath.join(dir, "probe"))
      nodeFs.rmdirSync(nodePath.join(dir, "probe"))
      return true
    } catch {
      return false
    }
  }
  nodeFs.chmodSync(dir, 0o555)
  if (!writable()) return () => nodeFs.chmodSync(dir, 0o755)
  if (spawnSync("chattr", ["+i", dir]).status === 0 && !writable()) {
    return () => {
      spawnSync("chattr", ["-i", dir])
      nodeFs.chmodSync(dir, 0o755)
    }
  }
  nodeFs.chmodSync(dir, 0o755)
  return undefined
}

const canMakeUnwritable = (() => {
  const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), "recordings-fs-probe-"))
  const undo = makeUnwritable(dir)
  undo?.()
  nodeFs.rmSync(dir, { recursive: true, force: true })
  if (undo === undefined) console.warn("Cannot make a directory unwritable here: skipping the read-only directory test")
  return undo !== undefined
})()

const childScript = fileURLToPath(new URL("../test/recordChild.ts", import.meta.url))

/**
 * Runs `recordChild.ts` (under `prefix`, a command such as prlimit, when given) and answers
 * its output once it exits; with `killOn`, SIGKILLs it as soon as it prints that line.
 */
const runChild = (
  args: ReadonlyArray<string>,
  options: { readonly prefix?: ReadonlyArray<string>; readonly killOn?: string }
) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve, reject) => {
      const command = [...(options.prefix ?? []), process.execPath, childScript, ...args]
      const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (data: string) => {
        stdout += data
        if (options.killOn !== undefined && stdout.split("\n").includes(options.killOn)) child.kill("SIGKILL")
      })
      child.stderr.setEncoding("utf8").on("data", (data: string) => {
        stderr += data
      })
      child.on("error", reject)
      child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }))
    })
  )

/** What `sox --i` says of a file, the number of samples it declares, and a full decode. */
const soxRead = (file: string) => {
  const info = spawnSync("sox", ["--i", file], { encoding: "utf8" })
  assert.strictEqual(info.status, 0, info.stderr)
  assert.match(info.stdout, /Channels\s*: 1\n/)
  assert.match(info.stdout, /Sample Rate\s*: 8000\n/)
  assert.match(info.stdout, /Sample Encoding: 16-bit Signed Integer PCM/)
  const declared = Number(/= (\d+) samples/.exec(info.stdout)?.[1])
  const decode = spawnSync("sox", ["-V2", file, "-t", "raw", "-"], { maxBuffer: 1 << 30 })
  assert.strictEqual(decode.status, 0, decode.stderr.toString())
  assert.strictEqual(decode.stderr.toString(), "", "sox decodes without a warning")
  return { declared, samples: Wav.decodeSamples(new Uint8Array(decode.stdout)) }
}

/** A file-size limit with room for the header, 90 frames and part of the 91st. */
const ROOM_FOR_90_FRAMES = 44 + 90 * 2 * FRAME + 100

/** `recordChild.ts limit …` under that limit, asserting it exited cleanly. */
const runLimited = (args: ReadonlyArray<string>) =>
  runChild(["limit", ...args], { prefix: ["prlimit", `--fsize=${ROOM_FOR_90_FRAMES}`] }).pipe(
    Effect.tap((child) => Effect.sync(() => assert.strictEqual(child.code, 0, child.stderr)))
  )

const Platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** A store in a fresh temporary directory, removed when the test's scope closes. */
const tempStore = Effect.fnUntraced(function*(options?: FileRecordingStore.Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const tmp = yield* fs.makeTempDirectoryScoped({ prefix: "recordings-fs-" }).pipe(Effect.orDie)
  const root = path.join(tmp, "root")
  const store = yield* FileRecordingStore.make(root, options)
  return { store, tmp, root }
})

const writeAll = (writer: RecordingWriter, samples: Int16Array) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(samples.length / FRAME) }, (_, i) => samples.subarray(i * FRAME, (i + 1) * FRAME)),
    writer.write,
    { discard: true }
  )

const record = (
  store: RecordingStore["Service"],
  callId: string,
  channel: "agent" | "remote",
  samples: Int16Array
) => Effect.scoped(Effect.flatMap(store.openWriter(callId, channel), (writer) => writeAll(writer, samples)))

const collect = (read: RecordingRead) => Stream.mkUint8Array(read.bytes)
const chunksOf = (read: RecordingRead) => Stream.runCollect(read.bytes)
const parse = (bytes: Uint8Array) => Result.getOrThrow(Wav.parseHeader(bytes))

/** Asserts a canonical 8 kHz mono 16-bit file of `samples` and returns its samples. */
const assertWav = (bytes: Uint8Array, samples: number) => {
  const header = parse(bytes)
  assert.deepStrictEqual(
    [header.formatTag, header.channels, header.sampleRate, header.bitsPerSample, header.blockAlign, header.byteRate],
    [1, 1, 8000, 16, 2, 16000]
  )
  assert.strictEqual(header.dataOffset, 44)
  assert.strictEqual(header.dataSize, samples * 2)
  assert.strictEqual(header.riffSize, 36 + samples * 2)
  assert.strictEqual(bytes.length, 44 + samples * 2)
  return Wav.decodeSamples(bytes.subarray(44))
}

describe("FileRecordingStore", () => {
  layer(Platform)((it) => {
    it.effect("writes each channel as 16-bit PCM mono 8 kHz, frame by frame, sizes patched on close", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        yield* record(store, "call-1", "remote", remoteSamples)
        yield* record(store, "call-1", "agent", agentSamples)

        const remote = yield* store.read("call-1", "remote")
        assert.strictEqual(remote.size, 44 + 24000)
        assert.deepStrictEqual(assertWav(yield* collect(remote), 12000), remoteSamples)

        const agent = yield* store.read("call-1", "agent")
        assert.strictEqual(agent.size, 44 + 16000)
        assert.deepStrictEqual(assertWav(yield* collect(agent), 8000), agentSamples)
      }))

    it.effect("mixes the channels: saturated sum from sample 0, the shorter padded with silence", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        yield* record(store, "call-1", "remote", remoteSamples)
        yield* record(store, "call-1", "agent", agentSamples)

        const mixed = yield* store.read("call-1", "mixed")
        assert.strictEqual(mixed.size, 44 + 24000)
        const samples = assertWav(yield* collect(mixed), 12000)
        const expected = expectedMix(agentSamples, remoteSamples)
        assert.deepStrictEqual(samples, expected)
        assert.isTrue(expected.includes(32767) && expected.includes(-32768), "the fixture saturates")
        assert.deepStrictEqual(samples.subarray(8000), remoteSamples.subarray(8000))
      }))

    it.effect("serves inclusive byte ranges of channel and mixed files, streamed in chunks", () =>
      Effect.gen(function*() {
        // chunks of an odd size, so chunk edges fall inside samples
        const { store } = yield* tempStore({ chunkBytes: 1001 })
        yield* record(store, "call-1", "remote", remoteSamples)
        yield* record(store, "call-1", "agent", agentSamples)

        for (const channel of ["agent", "remote", "mixed"] as const) {
          const full = yield* store.read("call-1", channel)
          const chunks = yield* chunksOf(full)
          assert.isAbove(chunks.length, 10, channel)
          assert.isTrue(chunks.every((chunk) => chunk.length <= 1001), channel)
          const bytes = yield* collect(full)
          assert.strictEqual(bytes.length, full.size)

          const size = full.size
          const ranges: ReadonlyArray<readonly [number, number]> = [
            [0, 43],
            [0, 0],
            [40, 50],
            [43, 44],
            [44, 44],
            [45, 45],
            [1001, 9000],
            [1000, 3003],
            [size - 2, size - 1],
            [size - 1, size - 1]
          ]
          for (const [start, end] of ranges) {
            const part = yield* store.read("call-1", channel, { start, end })
            assert.strictEqual(part.size, size, `${channel} ${start}-${end}`)
            assert.deepStrictEqual(yield* collect(part), bytes.slice(start, end + 1), `${channel} ${start}-${end}`)
          }
          const header = yield* collect(yield* store.read("call-1", channel, { start: 0, end: 43 }))
          assert.strictEqual(parse(header).dataSize, size - 44)
          const clamped = yield* store.read("call-1", channel, { start: 100, end: 10 ** 9 })
          assert.deepStrictEqual(yield* collect(clamped), bytes.slice(100))
        }

        // the same bytes as a store reading in the default 64 KiB chunks
        const { store: wide } = yield* tempStore()
        yield* record(wide, "call-1", "remote", remoteSamples)
        yield* record(wide, "call-1", "agent", agentSamples)
        assert.deepStrictEqual(
          yield* collect(yield* wide.read("call-1", "mixed")),
          yield* collect(yield* store.read("call-1", "mixed"))
        )
      }))

    it.effect("reads a missing channel as RecordingNotFound, and mixed of one side as that side", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        for (const channel of ["agent", "remote", "mixed"] as const) {
          const error = yield* Effect.flip(store.read("never-answered", channel))
          assert.instanceOf(error, RecordingNotFound)
          assert.deepStrictEqual([error.callId, error.channel], ["never-answered", channel])
        }

        yield* record(store, "one-sided", "remote", remoteSamples)
        assert.instanceOf(yield* Effect.flip(store.read("one-sided", "agent")), RecordingNotFound)
        const mixed = yield* store.read("one-sided", "mixed")
        assert.deepStrictEqual(assertWav(yield* collect(mixed), 12000), remoteSamples)

        yield* record(store, "silent", "agent", new Int16Array(0))
        const empty = yield* store.read("silent", "mixed")
        assert.strictEqual(empty.size, 44)
        assertWav(yield* collect(empty), 0)
      }))

    it.effect("patches the header every five seconds of audio, and leaves a valid file when interrupted", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        const written = yield* Deferred.make<void>()
        const frames = sine(440, 12.5) // 100000 samples: patched at 40000 and 80000
        const fiber = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
          const writer = yield* store.openWriter("hung-up", "remote")
          yield* writeAll(writer, frames)
          yield* writer.write(new Int16Array(0)) // until the last write landed
          yield* Deferred.succeed(written, undefined)
          return yield* Effect.never
        })))
        yield* Deferred.await(written)

        // in progress: the header declares the last patch, every written byte follows it
        const live = yield* collect(yield* store.read("hung-up", "remote"))
        assert.strictEqual(parse(live).dataSize, 160000)
        assert.strictEqual(parse(live).riffSize, 36 + 160000)
        assert.strictEqual(live.length, 44 + 200000)
        assert.deepStrictEqual(Wav.decodeSamples(live.subarray(44)), frames)
        const liveMixed = yield* store.read("hung-up", "mixed")
        assert.deepStrictEqual(assertWav(yield* collect(liveMixed), 80000), frames.subarray(0, 80000))

        yield* Fiber.interrupt(fiber)
        const read = yield* store.read("hung-up", "remote")
        assert.deepStrictEqual(assertWav(yield* collect(read), 100000), frames)
      }))

    it.effect("starts each file as a valid empty WAV, patched at the interval it is given", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore({ patchEverySamples: 480 })
        yield* Effect.scoped(Effect.gen(function*() {
          const writer = yield* store.openWriter("short", "agent")
          assertWav(yield* collect(yield* store.read("short", "agent")), 0)
          const declared: Array<number> = []
          for (let frame = 0; frame < 7; frame++) {
            yield* writer.write(agentSamples.subarray(frame * FRAME, (frame + 1) * FRAME))
            yield* writer.write(new Int16Array(0)) // until it landed (and the patch it brought)
            declared.push(parse(yield* collect(yield* store.read("short", "agent", { start: 0, end: 43 }))).dataSize)
          }
          // 480 samples are three frames: a patch after the 3rd and the 6th
          assert.deepStrictEqual(declared.map((bytes) => bytes / 2), [0, 0, 480, 480, 480, 960, 960])
        }))
        assertWav(yield* collect(yield* store.read("short", "agent")), 7 * FRAME)
      }))

    it.effect("rejects call ids that could leave the root, and creates nothing for them", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const { store, tmp } = yield* tempStore()
        const unsafe = ["../escape", "..", ".", "a/b", "a\\b", "/etc", "", "x".repeat(129), "call.1", "café", "a\0b"]
        for (const callId of unsafe) {
          const exit = yield* Effect.exit(Effect.scoped(store.openWriter(callId, "agent")))
          assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), JSON.stringify(callId))
          if (Exit.isFailure(exit)) assert.instanceOf(Cause.squash(exit.cause), FileRecordingStore.InvalidCallId)
          for (const channel of ["agent", "remote", "mixed"] as const) {
            assert.instanceOf(yield* Effect.flip(store.read(callId, channel)), RecordingNotFound)
          }
        }
        assert.deepStrictEqual(yield* fs.readDirectory(tmp).pipe(Effect.orDie), [])
        assert.isTrue(FileRecordingStore.isSafeCallId("CA_0123456789abcdef-x"))
        assert.isTrue(FileRecordingStore.isSafeCallId("x".repeat(128)))
      }))

    it.effect("refuses a second writer for the same channel and drops writes after close", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        const writer = yield* Effect.scoped(Effect.gen(function*() {
          const writer = yield* store.openWriter("call-1", "agent")
          yield* writeAll(writer, agentSamples.subarray(0, 800))
          return writer
        }))
        yield* writer.write(agentSamples.subarray(800, 960))
        const read = yield* store.read("call-1", "agent")
        assert.deepStrictEqual(assertWav(yield* collect(read), 800), agentSamples.subarray(0, 800))

        const again = yield* Effect.exit(Effect.scoped(store.openWriter("call-1", "agent")))
        assert.isTrue(Exit.isFailure(again) && Cause.hasDies(again.cause))
        assert.deepStrictEqual(
          assertWav(yield* collect(yield* store.read("call-1", "agent")), 800),
          agentSamples.subarray(0, 800)
        )
      }))

    it.effect("serializes concurrent writes to one writer", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        const frame = (n: number) => new Int16Array(FRAME).fill(n)
        yield* Effect.scoped(Effect.gen(function*() {
          const writer = yield* store.openWriter("busy", "agent")
          yield* Effect.forEach(Array.from({ length: 100 }, (_, n) => n), (n) => writer.write(frame(n)), {
            concurrency: 10,
            discard: true
          })
        }))
        const samples = assertWav(yield* collect(yield* store.read("busy", "agent")), 100 * FRAME)
        // every frame landed whole: 100 runs of 160 equal samples, each value once
        const firsts = Array.from({ length: 100 }, (_, i) => samples[i * FRAME]!)
        assert.deepStrictEqual([...firsts].sort((a, b) => a - b), Array.from({ length: 100 }, (_, n) => n))
        for (let i = 0; i < 100; i++) {
          assert.isTrue(samples.subarray(i * FRAME, (i + 1) * FRAME).every((s) => s === firsts[i]))
        }
      }))

    it.effect.skipIf(!hasSox)(
      "a process killed mid-call (SIGKILL, no finalizer) leaves files sox reads up to the last patch",
      () =>
        Effect.gen(function*() {
          const { store, root } = yield* tempStore()
          const child = yield* runChild(["kill", root, "killed"], { killOn: "ready" })
          assert.strictEqual(child.signal, "SIGKILL", child.stderr)
          assert.notInclude(child.stdout, "closed")

          const declared: Record<string, number> = {}
          for (const channel of ["agent", "remote"] as const) {
            const file = nodePath.join(root, "killed", `${channel}.wav`)
            const onDisk = (nodeFs.statSync(file).size - 44) >> 1
            const { declared: samples, samples: decoded } = soxRead(file)
            // three patches' worth was written before `ready`; the header is at most a patch behind
            const patch = FileRecordingStore.defaultPatchEverySamples
            assert.isAtLeast(samples, 3 * patch, channel)
            assert.strictEqual(samples % patch, 0, channel)
            assert.isAtMost(onDisk - samples, patch, channel)
            assert.isAtLeast(onDisk - samples, 0, channel)
            assert.deepStrictEqual(decoded, tone(channelHz[channel], 0, samples), channel)
            // the store serves the file as it is, and mixes what the headers declare
            const read = yield* store.read("killed", channel)
            assert.deepStrictEqual(yield* collect(read), new Uint8Array(nodeFs.readFileSync(file)))
            declared[channel] = samples
          }
          const agent = tone(channelHz.agent, 0, declared["agent"]!)
          const remote = tone(channelHz.remote, 0, declared["remote"]!)
          const mixed = yield* collect(yield* store.read("killed", "mixed"))
          assert.deepStrictEqual(assertWav(mixed, Math.max(agent.length, remote.length)), Mixer.mix(agent, remote))
        }),
      60_000
    )

    it.effect.skipIf(!hasSox)(
      "finalizeLost makes a killed process's files whole: every channel as long as the longest and the transcript, sox reads it all",
      () =>
        Effect.gen(function*() {
          const { root, store } = yield* tempStore()
          const child = yield* runChild(["kill", root, "lost"], { killOn: "ready" })
          assert.strictEqual(child.signal, "SIGKILL", child.stderr)
          const file = (channel: "agent" | "remote") => nodePath.join(root, "lost", `${channel}.wav`)
          const stored = {
            agent: (nodeFs.statSync(file("agent")).size - 44) >> 1,
            remote: (nodeFs.statSync(file("remote")).size - 44) >> 1
          }
          const longest = Math.max(stored.agent, stored.remote)

          // every channel at the longest one's length (the transcript reaches less far)
          const lengths = yield* store.finalizeLost([
            { callId: "lost", atLeastSamples: RATE },
            { callId: "never-recorded", atLeastSamples: RATE },
            { callId: "../escape", atLeastSamples: RATE }
          ])
          assert.deepStrictEqual([...lengths], [["lost", longest]])
          const whole = (channel: "agent" | "remote", samples: number) => {
            const expected = new Int16Array(samples)
            expected.set(tone(channelHz[channel], 0, Math.min(stored[channel], samples)))
            return expected
          }
          for (const channel of ["agent", "remote"] as const) {
            const { declared, samples } = soxRead(file(channel))
            assert.strictEqual(declared, longest, channel)
            assert.deepStrictEqual(samples, whole(channel, longest), channel)
            assert.strictEqual(nodeFs.statSync(file(channel)).size, 44 + 2 * longest, channel)
            assert.deepStrictEqual(assertWav(yield* collect(yield* store.read("lost", channel)), longest), samples)
          }
          const mixed = yield* collect(yield* store.read("lost", "mixed"))
          assert.deepStrictEqual(
            assertWav(mixed, longest),
            Mixer.mix(whole("agent", longest), whole("remote", longest))
          )

          // a transcript that goes further: silence up to it; and again, nothing changes
          const further = longest + RATE / 2
          for (let round = 0; round < 2; round++) {
            assert.deepStrictEqual([...yield* store.finalizeLost([{ callId: "lost", atLeastSamples: further }])], [[
              "lost",
              further
            ]])
            for (const channel of ["agent", "remote"] as const) {
              const { declared, samples } = soxRead(file(channel))
              assert.strictEqual(declared, further, channel)
              assert.deepStrictEqual(samples, whole(channel, further), channel)
            }
          }
        }),
      60_000
    )

    it.effect.skipIf(!hasSox || !hasPrlimit)(
      "a write refused for lack of room (a file-size limit) is a RecordingWriteError that ends the recording cleanly",
      () =>
        Effect.gen(function*() {
          const { root } = yield* tempStore()
          const child = yield* runLimited([root, "full"])
          const [report, ignored, closed] = child.stdout.trim().split("\n")
          const error = JSON.parse(report!)
          // writes are not waited for: the 91st frame's failure is answered by the 92nd write
          assert.deepStrictEqual(
            { ...error, message: undefined },
            { tag: "RecordingWriteError", reason: "NoSpace", message: undefined, frames: 91 }
          )
          assert.match(error.message, /^Could not write the remote recording of call full: EFBIG/)
          assert.deepStrictEqual([ignored, closed], ["ignored 10", "closed"])

          // the torn 91st frame stays on disk, but the header declares the 90 whole ones
          const file = nodePath.join(root, "full", "remote.wav")
          assert.strictEqual(nodeFs.statSync(file).size, ROOM_FOR_90_FRAMES)
          const { declared, samples } = soxRead(file)
          assert.strictEqual(declared, 90 * FRAME)
          assert.deepStrictEqual(samples, tone(channelHz.remote, 0, 90 * FRAME))
        }),
      60_000
    )

    it.effect.skipIf(!hasSox || !hasPrlimit)(
      "a last write refused for lack of room, answered by no later write, is logged when the recording closes",
      () =>
        Effect.gen(function*() {
          const { root } = yield* tempStore()
          const child = yield* runLimited([root, "last", "91"])
          const [wrote, logged, closed] = child.stdout.trim().split("\n")
          assert.deepStrictEqual([wrote, closed], ["wrote 91", "closed"])
          assert.match(logged!, /\bERROR\b.*: Could not write the remote recording of call last: EFBIG \(write\)$/)
          const { declared, samples } = soxRead(nodePath.join(root, "last", "remote.wav"))
          assert.strictEqual(declared, 90 * FRAME)
          assert.deepStrictEqual(samples, tone(channelHz.remote, 0, 90 * FRAME))
        }),
      60_000
    )

    it.effect.skipIf(!canMakeUnwritable)(
      "a recording directory the store may not write is a RecordingWriteError, not a defect",
      () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const { store, root } = yield* tempStore()
          yield* fs.makeDirectory(root).pipe(Effect.orDie)
          const undo = makeUnwritable(root)!
          yield* Effect.addFinalizer(() => Effect.sync(undo))

          const error = yield* Effect.flip(Effect.scoped(store.openWriter("denied", "remote")))
          assert.instanceOf(error, RecordingWriteError)
          assert.deepStrictEqual([error.callId, error.channel, error.reason], ["denied", "remote", "Denied"])
          assert.match(
            error.message,
            /^Could not create the directory of the remote recording of call denied: E(ACCES|PERM)/
          )
          assert.instanceOf(yield* Effect.flip(store.read("denied", "remote")), RecordingNotFound)
        })
    )

    it.effect.skipIf(!hasSox)(
      "writes files that `sox --i` accepts (skipped without sox)",
      () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const path = yield* Path.Path
          const { store, root, tmp } = yield* tempStore()
          yield* record(store, "call-1", "remote", remoteSamples)
          yield* record(store, "call-1", "agent", agentSamples)
          const mixedFile = path.join(tmp, "mixed.wav")
          yield* fs.writeFile(mixedFile, yield* collect(yield* store.read("call-1", "mixed"))).pipe(Effect.orDie)

          const files = [[path.join(root, "call-1", "remote.wav"), 12000], [
            path.join(root, "call-1", "agent.wav"),
            8000
          ], [mixedFile, 12000]] as const
          for (const [file, samples] of files) {
            const info = spawnSync("sox", ["--i", file], { encoding: "utf8" })
            assert.strictEqual(info.status, 0, info.stderr)
            assert.match(info.stdout, /Channels\s*: 1\n/)
            assert.match(info.stdout, /Sample Rate\s*: 8000\n/)
            assert.match(info.stdout, /Precision\s*: 16-bit\n/)
            assert.match(info.stdout, /Sample Encoding: 16-bit Signed Integer PCM/)
            assert.match(info.stdout, new RegExp(`= ${samples} samples`))
            // and decoding the whole file raises no warning (a size mismatch would)
            const decode = spawnSync("sox", ["-V2", file, "-n"], { encoding: "utf8" })
            assert.strictEqual(decode.status, 0)
            assert.strictEqual(decode.stderr, "")
          }
        })
    )
  })
})
