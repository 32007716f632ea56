/**
 * RecordingStore on SQL (tables `recordings` and `recording_chunks`, migration 0005): call
 * audio kept in the database, so every daemon sharing it serves every recording. Reads
 * produce the same bytes as `@voice-agent/recordings-fs` for the same writes: the canonical
 * 44-byte header (`Wav.header`), 16-bit PCM mono at 8000 Hz, `mixed` as the saturated sum of
 * `agent` and `remote` from sample 0, the shorter padded with silence (`Mixer.mix`).
 *
 * Owns: the chunking of a channel into rows, the reads that turn rows back into WAV bytes and
 * byte ranges of them. Does not own the WAV layout or the mixing math (`@voice-agent/media`),
 * nor the timeline (the media session writes silence as zeros).
 *
 * - Writing: `openWriter` inserts the channel's `recordings` row (a second writer for the same
 *   call and channel is a bug: a defect, as in the file store), so a channel opened without
 *   audio reads as an empty WAV. Frames collect in one buffer; the write whose frame brings it
 *   to `chunkSamples` (2 s, 32 KB by default) inserts it as a chunk and waits for the insert,
 *   so a writer holds at most a chunk and a frame in memory, and a slow database slows its
 *   writer rather than growing a queue. Closing the scope inserts what is left. Chunk inserts
 *   are idempotent (`ON CONFLICT DO NOTHING` on the chunk's first sample): an insert
 *   interrupted before its answer keeps its buffer, which is inserted again before the next
 *   frame goes in (or at close), so an interrupted write never shifts or loses audio.
 * - Crash safety: a daemon killed mid-call loses the chunk it was filling (under 2 s by
 *   default); everything inserted before reads as a valid, complete WAV.
 * - Lost calls: when such a call is recovered, its channels are finalized at one length
 *   (`finalizeLost`, sql/finalizeLostRecordings, which the recovery itself also runs in its
 *   transaction): `recordings.final_samples`, the longest channel and at least as far as the
 *   call's transcript goes. A channel's length is then that, not its chunks': the shorter one
 *   (its last chunk died with the daemon) reads padded with silence, and audio stored later
 *   (a writer that outlived the recovery) is not served.
 * - Write errors: any database failure (`SqlError`) is the port's `RecordingWriteError` with
 *   reason `Database` and the driver's error kind as its message (never the statement or the
 *   audio). After it the writer drops its buffer and ignores further writes; what was inserted
 *   stays readable. A failing final insert when the scope closes is logged as a warning.
 * - Reading: the size comes first from one statement (each channel's length is its last
 *   chunk's first sample plus its length: one backward probe of the primary key per channel).
 *   The bytes stream in spans of `readChunkBytes` (64 KiB by default); each span fetches just
 *   the chunks that overlap it (a backward probe for the first, a forward range scan for the
 *   rest), so memory per span is the span plus at most two chunks per channel, whatever the
 *   call's length. A read promises the size it computed first: audio appended later (a call
 *   still in progress) is not served, and a channel found shorter is padded with silence.
 *   Read failures of the database are defects, as the port's read signature wants.
 *
 * Measured (`scripts/bench-recordings.ts`, Node 24, this repo's 2-CPU dev box, local
 * PostgreSQL 15; audio of noise and silence, 2 s chunks, 64 KiB spans): writing 2 × 60 min in
 * 20 ms frames took 2.9 s (8 µs a frame; a live call inserts one chunk per channel every 2 s);
 * reading a 57.6 MB channel took 0.8 s, the 57.6 MB mixed channel 2.4 s (the mixed read also
 * ran in a process limited to a 40 MB heap), a 1 KiB range at a random offset 1.5 ms; the
 * table took 114 MB for 115 MB of audio. On an in-memory PGlite: 6.3 s, 2.1 s, 8.0 s, 5.7 ms.
 *
 * Not part of `SqlStorage.layer`: which store keeps recordings is the daemon's choice
 * (`VOICE_AGENT_RECORDINGS`). Call ids are stored as text and may be any string (no file
 * names are made of them).
 *
 * @since 0.1.0
 */
import type { RecordingChannel } from "@voice-agent/core/Conversation"
import { RecordingNotFound } from "@voice-agent/core/Errors"
import { RecordingStore, RecordingWriteError } from "@voice-agent/core/ports/RecordingStore"
import type { LostRecording, RecordingRead, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Mixer from "@voice-agent/media/Mixer"
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Layer, Option, Semaphore, Stream } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"
import { isUniqueViolation, orDieInfrastructure } from "./internal/sqlErrors.ts"
import { finalizeLostRecordings } from "./sql/finalizeLostRecordings.ts"

/**
 * @category models
 */
export interface Options {
  /**
   * Samples per stored chunk (16000 by default: 2 s, 32 KB). A chunk is inserted once the
   * frame that reaches this size is in (frames are never split), so with 20 ms frames the
   * default chunks are exactly 2 s.
   */
  readonly chunkSamples?: number
  /** Bytes per chunk of a read stream (64 KiB by default). */
  readonly readChunkBytes?: number
}

const DEFAULT_CHUNK_SAMPLES = 16000
const DEFAULT_READ_CHUNK_BYTES = 64 * 1024

type Channel = "agent" | "remote"

interface ChunkRow {
  readonly firstSample: bigint
  readonly samples: Uint8Array
}

/** The inclusive range as `[start, end)`, `end` clamped to the size. */
const byteSpan = (size: number, range: { readonly start: number; readonly end: number } | undefined) => {
  const start = range?.start ?? 0
  const end = range === undefined ? size : Math.min(range.end, size - 1) + 1
  return { start, end: Math.max(start, end) }
}

/**
 * The store on the SQL client in context.
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const sql = yield* SqlClient.SqlClient
  const chunkSamples = options.chunkSamples ?? DEFAULT_CHUNK_SAMPLES
  const readChunkBytes = options.readChunkBytes ?? DEFAULT_READ_CHUNK_BYTES
  for (const [name, value] of [["chunkSamples", chunkSamples], ["readChunkBytes", readChunkBytes]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      return yield* Effect.die(new RangeError(`${name} must be a positive integer, got ${value}`))
    }
  }

  /**
   * How many samples each opened channel of a call holds (a lost call's: its finalized
   * length); absent channels are missing.
   */
  const lengths = (callId: string) =>
    sql<{ readonly channel: Channel; readonly samples: bigint }>`
      SELECT r.channel AS "channel",
             coalesce(r.final_samples, (
               SELECT c.first_sample + octet_length(c.samples) / 2
               FROM recording_chunks c
               WHERE c.call_id = r.call_id AND c.channel = r.channel
               ORDER BY c.first_sample DESC
               LIMIT 1
             ), 0)::int8 AS "samples"
      FROM recordings r
      WHERE r.call_id = ${callId}`.pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.channel, Number(row.samples)] as const))),
      orDieInfrastructure
    )

  /**
   * The bytes of samples `[first, first + count)` of a channel: fewer past the end of what is
   * stored. Fetches only the chunks that overlap the span.
   */
  const sampleBytes = (callId: string, channel: Channel, first: number, count: number) =>
    sql<ChunkRow>`
      SELECT first_sample AS "firstSample", samples AS "samples"
      FROM recording_chunks
      WHERE call_id = ${callId} AND channel = ${channel}
        AND first_sample < ${first + count}::int8
        AND first_sample >= coalesce((
          SELECT max(first_sample) FROM recording_chunks
          WHERE call_id = ${callId} AND channel = ${channel} AND first_sample <= ${first}::int8
        ), 0)
      ORDER BY first_sample`.pipe(
      Effect.map((rows) => {
        const out = new Uint8Array(count * 2)
        let filled = 0
        for (const row of rows) {
          const start = Number(row.firstSample)
          const from = Math.max(first, start) - start
          const to = Math.min(first + count, start + row.samples.length / 2) - start
          if (to <= from || start + from !== first + filled / 2) break // a gap: nothing stored there
          out.set(row.samples.subarray(from * 2, to * 2), filled)
          filled += (to - from) * 2
        }
        return out.subarray(0, filled)
      }),
      orDieInfrastructure
    )

  /** Bytes `[from, to)` after the header of a WAV whose data is `render(first, count)`. */
  const dataStream = (
    from: number,
    to: number,
    render: (first: number, count: number) => Effect.Effect<Uint8Array>
  ): Stream.Stream<Uint8Array> =>
    Stream.paginate(from, (position: number) =>
      Effect.gen(function*() {
        const spanEnd = Math.min(to, position + readChunkBytes)
        const first = position >> 1
        const count = ((spanEnd + 1) >> 1) - first
        let bytes = yield* render(first, count)
        if (bytes.length < count * 2) {
          // less stored than when the read began: the promised size still holds
          const padded = new Uint8Array(count * 2)
          padded.set(bytes)
          bytes = padded
        }
        return [
          [bytes.slice(position - first * 2, spanEnd - first * 2)],
          spanEnd < to ? Option.some(spanEnd) : Option.none<number>()
        ] as const
      }))

  /** A WAV of `samples` samples, or a range of it, whose data is `render(first, count)`. */
  const wav = (
    samples: number,
    range: { readonly start: number; readonly end: number } | undefined,
    render: (first: number, count: number) => Effect.Effect<Uint8Array>
  ): RecordingRead => {
    const dataBytes = 2 * samples
    const size = Wav.HEADER_BYTES + dataBytes
    const { start, end } = byteSpan(size, range)
    const headerPart = start < Wav.HEADER_BYTES
      ? Stream.succeed(Wav.header(dataBytes).slice(start, Math.min(end, Wav.HEADER_BYTES)))
      : Stream.empty
    const from = Math.max(start, Wav.HEADER_BYTES) - Wav.HEADER_BYTES
    const to = end - Wav.HEADER_BYTES
    return { size, bytes: to > from ? Stream.concat(headerPart, dataStream(from, to, render)) : headerPart }
  }

  const mixed = (callId: string, channels: ReadonlyArray<Channel>) => (first: number, count: number) =>
    Effect.map(
      Effect.forEach(channels, (channel) => sampleBytes(callId, channel, first, count), { concurrency: "unbounded" }),
      (parts) => Wav.encodeSamples(parts.map(Wav.decodeSamples).reduce(Mixer.mix, new Int16Array(0)))
    )

  const openWriter = Effect.fn("RecordingStore.openWriter")(function*(callId: string, channel: Channel) {
    const what = `the ${channel} recording of call ${callId}`
    const failed = (operation: string) => (error: SqlError.SqlError) =>
      new RecordingWriteError({
        callId,
        channel,
        reason: "Database",
        message: `Could not ${operation} ${what}: ${error.reason._tag}`
      })

    yield* sql`INSERT INTO recordings (call_id, channel) VALUES (${callId}, ${channel})`.pipe(
      Effect.catchIf(isUniqueViolation("recordings_pkey"), (error) => Effect.die(error)),
      Effect.mapError(failed("start"))
    )

    const lock = yield* Semaphore.make(1)
    let state: "open" | "failed" | "closed" = "open"
    // a chunk and the frame that completes it; grown only for a frame larger than that
    let buffer = new Uint8Array(chunkSamples * 2 + 2 * 160)
    let buffered = 0 // samples in the buffer
    let stored = 0 // samples inserted before it

    /** Inserts the buffer as the chunk starting at `stored`, then empties it. */
    const flush = Effect.suspend(() =>
      buffered === 0 ? Effect.void : sql`
        INSERT INTO recording_chunks (call_id, channel, first_sample, samples)
        VALUES (${callId}, ${channel}, ${stored}::int8, ${buffer.subarray(0, buffered * 2)})
        ON CONFLICT (call_id, channel, first_sample) DO NOTHING`.pipe(
        Effect.andThen(Effect.sync(() => {
          stored += buffered
          buffered = 0
        })),
        Effect.mapError(failed("store a chunk of")),
        Effect.tapError(() =>
          Effect.sync(() => {
            state = "failed"
            buffered = 0
          })
        )
      )
    )

    /** Appends a whole frame to the buffer (little-endian, as in the WAV data chunk). */
    const append = (samples: Int16Array) => {
      if ((buffered + samples.length) * 2 > buffer.length) {
        const grown = new Uint8Array((buffered + samples.length) * 2)
        grown.set(buffer.subarray(0, buffered * 2))
        buffer = grown
      }
      const view = new DataView(buffer.buffer)
      for (let i = 0; i < samples.length; i++) view.setInt16((buffered + i) * 2, samples[i]!, true)
      buffered += samples.length
    }

    yield* Effect.addFinalizer(() =>
      lock.withPermit(Effect.suspend(() => {
        const last = state === "open" ? flush : Effect.void
        state = "closed"
        return last
      })).pipe(Effect.catch((error) => Effect.logWarning(error.message)))
    )

    // A frame is appended whole or not at all: a chunk left full by an interrupted insert is
    // inserted again before the next frame goes in, so an interruption never shifts the audio.
    const write = (samples: Int16Array): Effect.Effect<void, RecordingWriteError> =>
      lock.withPermit(Effect.suspend(() => {
        if (state !== "open" || samples.length === 0) return Effect.void
        const pending = buffered >= chunkSamples ? flush : Effect.void
        return pending.pipe(
          Effect.andThen(Effect.suspend(() => {
            if (state !== "open") return Effect.void
            append(samples)
            return buffered >= chunkSamples ? flush : Effect.void
          }))
        )
      }))
    return { write } satisfies RecordingWriter
  })

  const read = Effect.fn("RecordingStore.read")(function*(
    callId: string,
    channel: RecordingChannel,
    range?: { readonly start: number; readonly end: number }
  ) {
    const stored = yield* lengths(callId)
    if (channel === "mixed") {
      const channels = [...stored.keys()]
      if (channels.length === 0) return yield* new RecordingNotFound({ callId, channel })
      return wav(Math.max(...stored.values()), range, mixed(callId, channels))
    }
    const samples = stored.get(channel)
    if (samples === undefined) return yield* new RecordingNotFound({ callId, channel })
    return wav(samples, range, (first, count) => sampleBytes(callId, channel, first, count))
  })

  const finalizeHere = finalizeLostRecordings(sql)
  const finalizeLost = Effect.fn("RecordingStore.finalizeLost")((calls: ReadonlyArray<LostRecording>) =>
    finalizeHere(calls).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logWarning(`Could not finalize the recordings of ${calls.length} lost call(s): ${error.reason._tag}`),
          new Map<string, number>()
        )
      )
    )
  )

  return RecordingStore.of({ openWriter, read, finalizeLost })
})

/**
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<RecordingStore, never, SqlClient.SqlClient> =>
  Layer.effect(RecordingStore, make(options))
