/**
 * RecordingStore on the local filesystem: one WAV file per call and channel under a root
 * directory, `<root>/<callId>/agent.wav` and `<root>/<callId>/remote.wav`.
 *
 * Owns: file layout, the streaming writers, byte-range reads, and the `mixed` channel, which
 * is never stored: it is computed from the two channel files while it is read. Does not own
 * the WAV byte layout, μ-law or the mixing math (`@voice-agent/media`), nor which samples go
 * where on the call's timeline (the media session aligns them; silence is written as zeros).
 *
 * Files are what `Wav` writes: PCM 16-bit little-endian mono at 8000 Hz, a 44-byte header.
 *
 * - Writing: `openWriter` creates the file (it must not exist: a second writer for the same
 *   call and channel is a bug, a defect here, and truncating would destroy a recording), and
 *   the call's directory when the other channel has not made it yet, and
 *   writes `Wav.header(0)`, a valid empty WAV; then it appends what each write gives as it
 *   comes, so nothing of the call is buffered in memory. Every `patchEverySamples` samples of
 *   audio (40,000 by default: five seconds) the header is rewritten in place for the samples
 *   on disk so far (one 44-byte positional write, within one page), and once more when the
 *   writer's scope closes, by success, failure or interruption.
 * - Appends are not waited for (`internal/ChannelWriter.ts`): a write starts a positional
 *   `fs.write` on the file's descriptor and completes at once; one is in flight at a time (a
 *   write while one is waits for it). A write of no samples completes once every write before
 *   it landed. This spares the media session a fiber woken per write (a quarter of its fiber
 *   wakes at 100 calls, docs/PERFORMANCE.md); the price: a failure is answered by the next write.
 * - Crash safety: a process killed without running a finalizer (SIGKILL, OOM) leaves a valid
 *   WAV that declares the audio up to its last patch, at most five seconds behind what is in
 *   the file (the recovery of the lost call makes it whole, `finalizeLost`); the rest of the file is trailing bytes that readers skip (sox and Python's
 *   `wave` read exactly the declared samples, and sox warns about nothing: measured). Patches
 *   are not `fsync`ed: a killed process loses nothing the kernel accepted, a power cut may
 *   lose more.
 *   Patching costs one 44-byte write every five seconds per channel; the media session appends
 *   a second of audio at a time, so a patch a second would double the writes.
 * - Lost calls: when such a call is recovered by a process that holds its files (the same
 *   data directory, or a shared one), `finalizeLost` makes them whole: each channel extended
 *   with zeros from its last whole sample to the call's length (the longest channel's, and at
 *   least what the recovery asks: as far as the transcript goes), anything past it cut, and the
 *   header rewritten to declare exactly that. Running it again changes nothing; a call with no
 *   file here is left out; a file that cannot be finalized is logged and left as written.
 * - Write errors: a failed create, write or header patch (ENOSPC, EDQUOT, EFBIG: `NoSpace`;
 *   EACCES, EPERM, EROFS: `Denied`; anything else: `Io`) is the port's `RecordingWriteError`,
 *   from `openWriter`, or from the write after the one that failed (one not waited for); a
 *   failure no later write answered is logged when the scope closes. After it the writer writes
 *   nothing more (later writes succeed and do nothing); when its scope closes, the header is
 *   patched for the whole writes that landed before the failure (overwriting header bytes
 *   needs no new space), so the file stays valid up to there. A failing patch or close at that
 *   point is logged as a warning, never raised. When even the header of a new file cannot be
 *   written, the file is removed: the channel then reads as absent rather than as a truncated
 *   WAV.
 * - A write is started whole or not at all (interrupting one that waits for the write in
 *   flight drops it whole). A write after the scope closed is dropped: a frame racing the
 *   hang-up is not an error.
 * - Reading `agent` or `remote`: the file as it is on disk (a call in progress, or one whose
 *   process was killed, reads with the sizes of its last patch and the bytes after them),
 *   streamed from disk in chunks of `chunkBytes`.
 * - Reading `mixed`: both channels from sample 0, as many samples of each as its header
 *   declares (so while a call is in progress, up to its last patch), the shorter padded with
 *   silence, summed with saturation (`Mixer.mix`), behind a header for `2 × max(samples)`
 *   data bytes. The size is known before a byte is read. A range maps onto that virtual
 *   file: header bytes first, then the mixed samples; each chunk reads only the samples it
 *   covers from both files (positional reads), mixes them and trims to odd byte boundaries
 *   when the range asks for them. Memory per chunk is a few times `chunkBytes`, whatever the
 *   call's length.
 *
 * Measured (Node 24, this repo's 2-CPU dev box, default 64 KiB chunks): writing 2 × 60 min
 * in 20 ms frames, both channels at once, header patched every second, took 4.5 s (about
 * 13 µs per frame, so a live call's 100 frames a second cost about 0.13 % of a core);
 * reading the 57.6 MB mixed file took 1.3 s, a 57.6 MB channel file 0.12 s; the mixed read
 * also ran under `--max-old-space-size=24` (2.1 s), so it does not hold the files in memory.
 *
 * Call ids become directory names, so only `[A-Za-z0-9_-]{1,128}` is accepted: no path
 * separators, no dots, nothing to traverse with. An unsafe id is a defect (`InvalidCallId`)
 * for `openWriter`, since callers only pass ids the engine generated, and `RecordingNotFound`
 * for `read`, since no recording can exist under it. On case-insensitive filesystems ids
 * differing only in case share a directory; the engine's generated ids never do.
 *
 * I/O goes through Effect's `FileSystem` and `Path` services (`layer` provides the Node
 * implementations; `layerNoDeps` leaves them open): scoped file handles, positional reads and
 * typed `PlatformError`s without hand-written callbacks; but for the files of a live
 * recording, created, appended to, patched and closed with Node's `fs` (so they are on
 * Node's filesystem whatever `FileSystem` is given). Read errors are defects: the port keeps
 * infrastructure errors out of its read signature.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type { RecordingChannel } from "@voice-agent/core/Conversation"
import { RecordingNotFound } from "@voice-agent/core/Errors"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { LostRecording, RecordingRead } from "@voice-agent/core/ports/RecordingStore"
import * as Mixer from "@voice-agent/media/Mixer"
import * as Wav from "@voice-agent/media/Wav"
import { Cause, Data, Effect, FileSystem, Layer, Option, Path, Result, Stream } from "effect"
import type { PlatformError } from "effect/PlatformError"
import * as ChannelWriter from "./internal/ChannelWriter.ts"

/**
 * A call id that cannot name a directory safely.
 *
 * @category errors
 */
export class InvalidCallId extends Data.TaggedError("InvalidCallId")<{ readonly callId: string }> {
  override get message(): string {
    return `Call id ${JSON.stringify(this.callId)} is not [A-Za-z0-9_-]{1,128}`
  }
}

/**
 * Whether a call id may name a recording directory: 1 to 128 of `A-Z a-z 0-9 _ -`.
 *
 * @category guards
 */
export const isSafeCallId = (callId: string): boolean => /^[A-Za-z0-9_-]{1,128}$/.test(callId)

/**
 * @category models
 */
export interface Options {
  /** Bytes per chunk of a read stream (64 KiB by default). */
  readonly chunkBytes?: number
  /** Samples written between two header patches (`defaultPatchEverySamples` by default). */
  readonly patchEverySamples?: number
}

const DEFAULT_CHUNK_BYTES = 64 * 1024

/**
 * Samples written between two header patches by default: five seconds of audio. A patch is a
 * file write of its own: at one a second, as many as the audio's (the media session appends a
 * second at a time), patches cost about 5 % of the media path's CPU under load (100 calls).
 *
 * @category constructors
 */
export const defaultPatchEverySamples = 40_000

// The header of one of our files is 44 bytes; a foreign WAV with a LIST chunk still fits.
const HEADER_PROBE_BYTES = 4096

interface Side {
  readonly path: string
  readonly dataOffset: number
  /** Samples the header declares (what reads serve). */
  readonly samples: number
  /** Whole samples in the file after the header (more than declared after a crash). */
  readonly storedSamples: number
}

const isNotFound = (error: PlatformError): boolean => error.reason._tag === "NotFound"

/** Reads up to `length` bytes at `position`, fewer only at the end of the file. */
const readAt = Effect.fnUntraced(function*(file: FileSystem.File, position: number, length: number) {
  const buffer = new Uint8Array(length)
  let filled = 0
  while (filled < length) {
    const read = yield* file.read(buffer.subarray(filled), { position: BigInt(position + filled) })
    if (read === 0) break
    filled += read
  }
  return buffer.subarray(0, filled)
})

/** The inclusive range as `[start, end)`, `end` clamped to the size. */
const byteSpan = (size: number, range: { readonly start: number; readonly end: number } | undefined) => {
  const start = range?.start ?? 0
  const end = range === undefined ? size : Math.min(range.end, size - 1) + 1
  return { start, end: Math.max(start, end) }
}

/**
 * The store, on the `FileSystem` and `Path` in context, rooted at `rootDir` (resolved
 * against the working directory now; created on the first write).
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(rootDir: string, options: Options = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.resolve(rootDir)
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) {
    return yield* Effect.die(new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`))
  }
  const patchEverySamples = options.patchEverySamples ?? defaultPatchEverySamples
  if (!Number.isSafeInteger(patchEverySamples) || patchEverySamples < 1) {
    return yield* Effect.die(
      new RangeError(`patchEverySamples must be a positive integer, got ${patchEverySamples}`)
    )
  }

  const channelPath = (callId: string, channel: "agent" | "remote") => path.join(root, callId, `${channel}.wav`)

  /** Where a channel's samples are in its file, or none when there is no file. */
  const inspect = (file: string): Effect.Effect<Option.Option<Side>> =>
    Effect.gen(function*() {
      const handle = yield* fs.open(file, { flag: "r" })
      const size = Number((yield* handle.stat).size)
      const head = yield* readAt(handle, 0, Math.min(size, HEADER_PROBE_BYTES))
      // a writer opens the file, then writes the header: in between, the channel is empty
      if (head.length < Wav.HEADER_BYTES) {
        return Option.some({ path: file, dataOffset: Wav.HEADER_BYTES, samples: 0, storedSamples: 0 })
      }
      const parsed = Wav.parseHeader(head)
      if (Result.isFailure(parsed)) return yield* Effect.die(parsed.failure)
      const h = parsed.success
      if (
        h.formatTag !== 1 || h.channels !== 1 || h.bitsPerSample !== 16 || h.sampleRate !== Wav.defaultFormat.sampleRate
      ) {
        return yield* Effect.die(new Error(`${file} is not 16-bit PCM mono at 8000 Hz`))
      }
      return Option.some({
        path: file,
        dataOffset: h.dataOffset,
        samples: Wav.readableDataBytes(h, size) >> 1,
        storedSamples: Math.max(0, size - h.dataOffset) >> 1
      })
    }).pipe(
      Effect.scoped,
      Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
      Effect.orDie
    )

  /** `count` samples of `side` from sample `first`, fewer past its end. */
  const readSamples = (file: FileSystem.File, side: Side, first: number, count: number) => {
    const available = Math.max(0, Math.min(count, side.samples - first))
    return available === 0
      ? Effect.succeed(new Int16Array(0))
      : Effect.map(readAt(file, side.dataOffset + first * 2, available * 2), Wav.decodeSamples)
  }

  /** Bytes `[from, to)` of the mixed samples (offsets after the header). */
  const mixedSamples = (sides: ReadonlyArray<Side>, from: number, to: number): Stream.Stream<Uint8Array> =>
    Stream.unwrap(Effect.gen(function*() {
      const files = yield* Effect.forEach(
        sides,
        (side) => Effect.map(fs.open(side.path, { flag: "r" }), (file) => ({ file, side }))
      )
      return Stream.paginate(from, (position: number) =>
        Effect.gen(function*() {
          const chunkEnd = Math.min(to, position + chunkBytes)
          const first = position >> 1
          const count = ((chunkEnd + 1) >> 1) - first
          const channels = yield* Effect.forEach(files, ({ file, side }) => readSamples(file, side, first, count))
          let mixed = channels.reduce(Mixer.mix, new Int16Array(0))
          if (mixed.length < count) {
            // a file shorter than it was when the read began: the promised size still holds
            const padded = new Int16Array(count)
            padded.set(mixed)
            mixed = padded
          }
          const bytes = Wav.encodeSamples(mixed).subarray(position - first * 2, chunkEnd - first * 2)
          return [[bytes], chunkEnd < to ? Option.some(chunkEnd) : Option.none<number>()] as const
        }))
    })).pipe(Stream.orDie)

  const readMixed = Effect.fnUntraced(
    function*(callId: string, range?: { readonly start: number; readonly end: number }) {
      const found = yield* Effect.forEach(["agent", "remote"] as const, (c) => inspect(channelPath(callId, c)))
      const sides = found.flatMap(Option.toArray)
      if (sides.length === 0) return yield* new RecordingNotFound({ callId, channel: "mixed" })
      const dataBytes = 2 * Math.max(...sides.map((side) => side.samples))
      const header = Wav.header(dataBytes)
      const size = Wav.HEADER_BYTES + dataBytes
      const { start, end } = byteSpan(size, range)
      const headerPart = start < Wav.HEADER_BYTES
        ? Stream.succeed(header.slice(start, Math.min(end, Wav.HEADER_BYTES)))
        : Stream.empty
      const from = Math.max(start, Wav.HEADER_BYTES) - Wav.HEADER_BYTES
      const to = end - Wav.HEADER_BYTES
      const bytes = to > from ? Stream.concat(headerPart, mixedSamples(sides, from, to)) : headerPart
      return { size, bytes } satisfies RecordingRead
    }
  )

  const readChannel = Effect.fnUntraced(function*(
    callId: string,
    channel: "agent" | "remote",
    range?: { readonly start: number; readonly end: number }
  ) {
    const file = channelPath(callId, channel)
    const info = yield* fs.stat(file).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
      Effect.orDie
    )
    if (Option.isNone(info)) return yield* new RecordingNotFound({ callId, channel })
    const size = Number(info.value.size)
    const { start, end } = byteSpan(size, range)
    const bytes = end > start
      ? fs.stream(file, { offset: start, bytesToRead: end - start, chunkSize: chunkBytes }).pipe(Stream.orDie)
      : Stream.empty
    return { size, bytes } satisfies RecordingRead
  })

  /**
   * Makes a channel file exactly `samples` long: zeros after its last whole sample, anything
   * past the end cut, and the header declaring it.
   */
  const finalizeSide = (side: Side, samples: number) =>
    Effect.gen(function*() {
      if (side.dataOffset !== Wav.HEADER_BYTES) {
        return yield* Effect.die(new Error(`${side.path} does not have the store's 44-byte header`))
      }
      const file = yield* fs.open(side.path, { flag: "r+" })
      const end = Wav.HEADER_BYTES + 2 * samples
      let position = Wav.HEADER_BYTES + 2 * Math.min(side.storedSamples, samples)
      yield* file.seek(BigInt(position), "start")
      while (position < end) {
        const length = Math.min(chunkBytes, end - position)
        yield* file.writeAll(new Uint8Array(length))
        position += length
      }
      yield* file.truncate(end)
      yield* file.seek(0n, "start")
      yield* file.writeAll(Wav.header(2 * samples))
    }).pipe(Effect.scoped)

  /** A lost call's channel files, finalized at one length; none when it has no file here. */
  const finalizeCall = (call: LostRecording): Effect.Effect<Option.Option<number>> =>
    Effect.gen(function*() {
      if (!isSafeCallId(call.callId)) return Option.none()
      const found = yield* Effect.forEach(["agent", "remote"] as const, (c) => inspect(channelPath(call.callId, c)))
      const sides = found.flatMap(Option.toArray)
      if (sides.length === 0) return Option.none()
      const samples = Math.max(Math.floor(call.atLeastSamples), ...sides.map((side) => side.storedSamples))
      yield* Effect.forEach(sides, (side) => finalizeSide(side, samples), { discard: true })
      return Option.some(samples)
    }).pipe(
      // one damaged file must not hold up the recovery of every other lost call
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.as(
            Effect.logWarning(`The recordings of lost call ${call.callId} were left as written`, cause),
            Option.none()
          )
      )
    )

  return RecordingStore.of({
    finalizeLost: Effect.fn("RecordingStore.finalizeLost")(function*(calls: ReadonlyArray<LostRecording>) {
      const lengths = new Map<string, number>()
      for (const call of calls) {
        const samples = yield* finalizeCall(call)
        if (Option.isSome(samples)) lengths.set(call.callId, samples.value)
      }
      return lengths
    }),
    openWriter: Effect.fn("RecordingStore.openWriter")(function*(callId: string, channel: "agent" | "remote") {
      if (!isSafeCallId(callId)) return yield* Effect.die(new InvalidCallId({ callId }))
      const file = channelPath(callId, channel)
      return yield* ChannelWriter.open({ file, callId, channel, patchEveryBytes: 2 * patchEverySamples })
    }),

    read: Effect.fn("RecordingStore.read")(function*(
      callId: string,
      channel: RecordingChannel,
      range?: { readonly start: number; readonly end: number }
    ) {
      if (!isSafeCallId(callId)) return yield* new RecordingNotFound({ callId, channel })
      return channel === "mixed" ? yield* readMixed(callId, range) : yield* readChannel(callId, channel, range)
    })
  })
})

/**
 * The store with `FileSystem` and `Path` left to the caller (a test filesystem, say).
 *
 * @category layers
 */
export const layerNoDeps = (
  rootDir: string,
  options?: Options
): Layer.Layer<RecordingStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(RecordingStore, make(rootDir, options))

/**
 * The store on Node's filesystem, rooted at `rootDir`.
 *
 * @category layers
 */
export const layer = (rootDir: string, options?: Options): Layer.Layer<RecordingStore> =>
  layerNoDeps(rootDir, options).pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))
