import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, layer } from "@effect/vitest"
import { RecordingNotFound } from "@voice-agent/core/Errors"
import { RecordingWriteError } from "@voice-agent/core/ports/RecordingStore"
import type { RecordingRead, RecordingStore, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Mixer from "@voice-agent/media/Mixer"
import * as Wav from "@voice-agent/media/Wav"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Result, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqlRecordingStore from "./SqlRecordingStore.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

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

const soxVersion = spawnSync("sox", ["--version"], { encoding: "utf8" })
const hasSox = soxVersion.status === 0
if (!hasSox && process.env["CI"] === "true") throw new Error("sox is not on PATH; .ci/run installs it")
if (!hasSox) console.warn("sox is not on PATH: skipping the sox checks of SqlRecordingStore")

const callId = () => `call-${randomBytes(8).toString("hex")}`

const frames = (samples: Int16Array) =>
  Array.from({ length: Math.ceil(samples.length / FRAME) }, (_, i) => samples.subarray(i * FRAME, (i + 1) * FRAME))

const writeAll = (writer: RecordingWriter, samples: Int16Array) =>
  Effect.forEach(frames(samples), writer.write, { discard: true })

const record = (store: RecordingStore["Service"], id: string, channel: "agent" | "remote", samples: Int16Array) =>
  Effect.scoped(Effect.flatMap(store.openWriter(id, channel), (writer) => writeAll(writer, samples)))

const collect = (read: RecordingRead) => Stream.mkUint8Array(read.bytes)
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

/** A file store in a fresh temporary directory, removed when the test's scope closes. */
const fileStore = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "sql-recordings-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  const store = yield* FileRecordingStore.make(path.join(dir, "root"), { chunkBytes: 777 }).pipe(
    Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
  )
  return { dir, store }
})

const backends = await TestDatabase.backends()

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`SqlRecordingStore on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "60 seconds" })((it) => {
      it.effect("writes each channel in chunks as the call runs and reads it back as 16-bit PCM mono 8 kHz", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const store = yield* SqlRecordingStore.make({ chunkSamples: 960 })
          const id = callId()
          const inserted = yield* Deferred.make<void>()
          const fiber = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
            const writer = yield* store.openWriter(id, "remote")
            yield* writeAll(writer, remoteSamples.subarray(0, 2560)) // 16 frames: 2 chunks and 4 frames
            yield* Deferred.succeed(inserted, undefined)
            yield* writeAll(writer, remoteSamples.subarray(2560))
          })))
          yield* Deferred.await(inserted)
          // while the call runs: the inserted chunks, nothing buffered
          const live = yield* store.read(id, "remote")
          assert.deepStrictEqual(assertWav(yield* collect(live), 1920), remoteSamples.subarray(0, 1920))
          yield* Fiber.join(fiber)

          const rows = yield* sql<{ readonly firstSample: string; readonly bytes: number }>`
            SELECT first_sample::text AS "firstSample", octet_length(samples) AS "bytes"
            FROM recording_chunks WHERE call_id = ${id} ORDER BY first_sample`
          assert.deepStrictEqual(
            rows.map((row) => [Number(row.firstSample), row.bytes]),
            [...Array.from({ length: 12 }, (_, i) => [i * 960, 1920]), [11520, 960]]
          )
          const remote = yield* store.read(id, "remote")
          assert.strictEqual(remote.size, 44 + 24000)
          assert.deepStrictEqual(assertWav(yield* collect(remote), 12000), remoteSamples)
        }))

      it.effect("mixes the channels: saturated sum from sample 0, the shorter padded with silence", () =>
        Effect.gen(function*() {
          const store = yield* SqlRecordingStore.make({ chunkSamples: 3000 })
          const id = callId()
          yield* record(store, id, "remote", remoteSamples)
          yield* record(store, id, "agent", agentSamples)
          const mixed = yield* store.read(id, "mixed")
          assert.strictEqual(mixed.size, 44 + 24000)
          const expected = Mixer.mix(agentSamples, remoteSamples)
          assert.deepStrictEqual(assertWav(yield* collect(mixed), 12000), expected)
          assert.isTrue(expected.includes(32767) && expected.includes(-32768), "the fixture saturates")
        }))

      it.effect("serves the same bytes as the file store for the same writes, whole and in ranges", () =>
        Effect.gen(function*() {
          const files = yield* fileStore
          // chunk edges inside frames and read spans inside samples
          const store = yield* SqlRecordingStore.make({ chunkSamples: 700, readChunkBytes: 1001 })
          const id = callId()
          for (const target of [store, files.store]) {
            yield* record(target, id, "remote", remoteSamples)
            yield* record(target, id, "agent", agentSamples)
          }
          for (const channel of ["agent", "remote", "mixed"] as const) {
            const full = yield* store.read(id, channel)
            const chunks = yield* Stream.runCollect(full.bytes)
            assert.isAbove(chunks.length, 10, channel)
            assert.isTrue(chunks.every((chunk) => chunk.length <= 1001), channel)
            const bytes = yield* collect(full)
            const fromFiles = yield* files.store.read(id, channel)
            assert.strictEqual(full.size, fromFiles.size, channel)
            assert.deepStrictEqual(bytes, yield* collect(fromFiles), channel)

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
              [1443, 1444],
              [size - 2, size - 1],
              [size - 1, size - 1],
              [100, 10 ** 9]
            ]
            for (const [start, end] of ranges) {
              const part = yield* store.read(id, channel, { start, end })
              const filePart = yield* files.store.read(id, channel, { start, end })
              assert.strictEqual(part.size, size, `${channel} ${start}-${end}`)
              const served = yield* collect(part)
              assert.deepStrictEqual(served, bytes.slice(start, end + 1), `${channel} ${start}-${end}`)
              assert.deepStrictEqual(served, yield* collect(filePart), `${channel} ${start}-${end}`)
            }
          }
        }))

      it.effect("reads a missing channel as RecordingNotFound, an opened silent one as an empty WAV", () =>
        Effect.gen(function*() {
          const store = yield* SqlRecordingStore.make()
          const never = callId()
          for (const channel of ["agent", "remote", "mixed"] as const) {
            const error = yield* Effect.flip(store.read(never, channel))
            assert.instanceOf(error, RecordingNotFound)
            assert.deepStrictEqual([error.callId, error.channel], [never, channel])
          }
          const oneSided = callId()
          yield* record(store, oneSided, "remote", remoteSamples)
          assert.instanceOf(yield* Effect.flip(store.read(oneSided, "agent")), RecordingNotFound)
          assert.deepStrictEqual(assertWav(yield* collect(yield* store.read(oneSided, "mixed")), 12000), remoteSamples)

          const silent = callId()
          yield* record(store, silent, "agent", new Int16Array(0))
          assertWav(yield* collect(yield* store.read(silent, "agent")), 0)
          assertWav(yield* collect(yield* store.read(silent, "mixed")), 0)
        }))

      it.effect("refuses a second writer for the same channel and drops writes after close", () =>
        Effect.gen(function*() {
          const store = yield* SqlRecordingStore.make({ chunkSamples: 500 })
          const id = callId()
          const writer = yield* Effect.scoped(Effect.gen(function*() {
            const writer = yield* store.openWriter(id, "agent")
            yield* writeAll(writer, agentSamples.subarray(0, 800))
            return writer
          }))
          yield* writer.write(agentSamples.subarray(800, 960))
          assert.deepStrictEqual(
            assertWav(yield* collect(yield* store.read(id, "agent")), 800),
            agentSamples.subarray(0, 800)
          )
          const again = yield* Effect.exit(Effect.scoped(store.openWriter(id, "agent")))
          assert.isTrue(Exit.isFailure(again) && Cause.hasDies(again.cause))
        }))

      it.effect("a database that refuses a chunk is a RecordingWriteError; the writer then ignores writes", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const store = yield* SqlRecordingStore.make({ chunkSamples: 1600 })
          const id = callId()
          yield* Effect.scoped(Effect.gen(function*() {
            const writer = yield* store.openWriter(id, "remote")
            yield* writeAll(writer, remoteSamples.subarray(0, 3200)) // two chunks stored
            // the channel's row disappears under the writer: the next chunk breaks the foreign key
            yield* sql`DELETE FROM recordings WHERE call_id = ${id}`
            const results = yield* Effect.forEach(
              frames(remoteSamples.subarray(3200, 6400)),
              (frame) => Effect.result(writer.write(frame))
            )
            const failures = results.filter(Result.isFailure).map((result) => result.failure)
            assert.strictEqual(failures.length, 1, "reported once")
            const error = failures[0]!
            assert.instanceOf(error, RecordingWriteError)
            assert.deepStrictEqual([error.callId, error.channel, error.reason], [id, "remote", "Database"])
            assert.match(error.message, new RegExp(`^Could not store a chunk of the remote recording of call ${id}: `))
            assert.notInclude(error.message, "INSERT")
            // the failing write is the one that filled the third chunk; every later one is ignored
            assert.strictEqual(results.findIndex(Result.isFailure), 9)
          }))
        }).pipe(Effect.orDie))

      it.effect.skipIf(!hasSox)(
        "serves WAVs that sox reads in full, with the expected duration",
        () =>
          Effect.gen(function*() {
            const files = yield* fileStore
            const store = yield* SqlRecordingStore.make()
            const id = callId()
            yield* record(store, id, "remote", remoteSamples)
            yield* record(store, id, "agent", agentSamples)
            for (const [channel, samples] of [["agent", 8000], ["remote", 12000], ["mixed", 12000]] as const) {
              const file = path.join(files.dir, `${channel}.wav`)
              fs.writeFileSync(file, yield* collect(yield* store.read(id, channel)))
              const info = spawnSync("sox", ["--i", file], { encoding: "utf8" })
              assert.strictEqual(info.status, 0, info.stderr)
              assert.match(info.stdout, /Channels\s*: 1\n/)
              assert.match(info.stdout, /Sample Rate\s*: 8000\n/)
              assert.match(info.stdout, /Sample Encoding: 16-bit Signed Integer PCM/)
              assert.match(info.stdout, new RegExp(`= ${samples} samples`))
              const decode = spawnSync("sox", ["-V2", file, "-t", "raw", "-"])
              assert.strictEqual(decode.status, 0)
              assert.strictEqual(decode.stderr.toString(), "")
              assert.strictEqual(decode.stdout.length, samples * 2)
            }
          })
      )
    })
  })
}
