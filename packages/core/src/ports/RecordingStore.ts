/**
 * Port for call recordings: one writer per call and channel while the call runs, byte-range
 * reads afterwards. Channels are mono 16-bit PCM WAV at 8 kHz; `mixed` is derived from
 * `agent` and `remote`.
 *
 * Writing can fail (a full disk, an I/O error, a database that stops answering): that is a
 * `RecordingWriteError`, never a defect, so the media session ends that one recording, logs
 * it, and the call goes on. What was written before the failure stays readable. A writer that
 * failed once is finished: its later writes succeed and do nothing, so the session sees the
 * error once however many frames are still in flight. Closing the writer's scope finalizes
 * the recording; a failure there is logged by the store and never raised (the scope's owner
 * is hanging up a call and can do nothing about it).
 *
 * Reading stays free of infrastructure errors: a store that cannot read is a defect.
 *
 * A call whose writers died with their process (its daemon killed mid-call) is finalized when
 * its call is recovered as lost (`finalizeLost`): what was written becomes a complete
 * recording, every channel as long as the call's recorded part (docs/MEDIA.md, "Lost calls").
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Effect, Scope, Stream } from "effect"
import type { RecordedChannel, RecordingChannel } from "../Conversation.ts"
import { RecordedChannels } from "../Conversation.ts"
import type { RecordingNotFound } from "../Errors.ts"

/**
 * Why a recording could not be written:
 *
 * - `NoSpace`: no room left for it (a full disk or quota, a file-size limit).
 * - `Denied`: the store may not write where it is told to (permissions, a read-only mount).
 * - `Io`: any other failure of the storage device or file (EIO, a closed descriptor).
 * - `Database`: the database refused or failed the write, or could not be reached.
 *
 * @category schemas
 */
export const RecordingWriteFailure = Schema.Literals(["NoSpace", "Denied", "Io", "Database"])

/**
 * @category models
 */
export type RecordingWriteFailure = typeof RecordingWriteFailure.Type

/**
 * Starting or continuing a recording failed. `message` says what failed in words (the
 * operation and the system's error code or the database's error kind), never the audio, a
 * path's contents or an SQL statement.
 *
 * @category errors
 */
export class RecordingWriteError extends Schema.TaggedError<RecordingWriteError>()("RecordingWriteError", {
  callId: Schema.String,
  channel: Schema.Literals(RecordedChannels),
  reason: RecordingWriteFailure,
  message: Schema.String
}) {}

/**
 * @category models
 */
export interface RecordingWriter {
  /**
   * Appends samples (written as they come, or buffered in bounded chunks: the store's
   * choice; never the whole call). Fails at most once, with the error that ended the
   * recording; every later write is ignored. A store may let a write complete before its
   * samples are stored (bounded: one write in flight, say, as the file store does); the
   * failure of such a write is answered by a later write, or logged by the store when the
   * writer's scope closes.
   */
  readonly write: (samples: Int16Array) => Effect.Effect<void, RecordingWriteError>
}

/**
 * @category models
 */
export interface RecordingRead {
  /** Total size of the WAV file in bytes. */
  readonly size: number
  /** The requested bytes (all of them without a range). */
  readonly bytes: Stream.Stream<Uint8Array>
}

/**
 * A call recovered as lost, as its recordings' finalization sees it.
 *
 * @category models
 */
export interface LostRecording {
  readonly callId: string
  /** Samples the recording must cover at least: its transcript reaches this far. */
  readonly atLeastSamples: number
}

/**
 * Finalizes the recordings of calls recovered as lost: each channel a store holds of such a
 * call is made as long as the longest of them and at least `atLeastSamples`, silence filling
 * what is missing, behind a header declaring exactly that. Answers that length in samples for
 * every call the store holds something of (none for the others). Idempotent, and safe to run
 * from several processes at once. Never fails: a recording it cannot finalize is logged and
 * left as it was written (still readable up to its last header).
 *
 * @category models
 */
export type FinalizeLost = (calls: ReadonlyArray<LostRecording>) => Effect.Effect<ReadonlyMap<string, number>>

/**
 * @category services
 */
export class RecordingStore extends Context.Service<RecordingStore, {
  /**
   * Starts the recording of one channel of a call; it is finalized when the scope closes.
   * Fails when the recording cannot be started at all (the session goes on without it).
   */
  readonly openWriter: (
    callId: string,
    channel: RecordedChannel
  ) => Effect.Effect<RecordingWriter, RecordingWriteError, Scope.Scope>
  readonly read: (
    callId: string,
    channel: RecordingChannel,
    range?: { readonly start: number; readonly end: number }
  ) => Effect.Effect<RecordingRead, RecordingNotFound>
  readonly finalizeLost: FinalizeLost
}>()("@voice-agent/core/ports/RecordingStore") {}
