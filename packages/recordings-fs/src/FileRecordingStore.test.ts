import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, layer } from "@effect/vitest"
import { RecordingNotFound } from "@voice-agent/core/Errors"
import type { RecordingRead, RecordingStore, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Wav from "@voice-agent/media/Wav"
import { Cause, Deferred, Effect, Exit, Fiber, FileSystem, Layer, Path, Result, Stream } from "effect"
import { spawnSync } from "node:child_process"
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

    it.effect("leaves a valid file when the writer's scope is interrupted, and serves a call in progress", () =>
      Effect.gen(function*() {
        const { store } = yield* tempStore()
        const written = yield* Deferred.make<void>()
        const frames = remoteSamples.subarray(0, 4000)
        const fiber = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
          const writer = yield* store.openWriter("hung-up", "remote")
          yield* writeAll(writer, frames)
          yield* Deferred.succeed(written, undefined)
          return yield* Effect.never
        })))
        yield* Deferred.await(written)

        // in progress: placeholder sizes on disk, read to the end of the file
        const live = yield* collect(yield* store.read("hung-up", "remote"))
        assert.strictEqual(parse(live).dataSize, Wav.PLACEHOLDER_SIZE)
        assert.strictEqual(live.length, 44 + 8000)
        const liveMixed = yield* store.read("hung-up", "mixed")
        assert.deepStrictEqual(assertWav(yield* collect(liveMixed), 4000), frames)

        yield* Fiber.interrupt(fiber)
        const read = yield* store.read("hung-up", "remote")
        assert.deepStrictEqual(assertWav(yield* collect(read), 4000), frames)
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
