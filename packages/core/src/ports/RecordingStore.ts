/**
 * Port for call recordings: one writer per call and channel while the call runs, byte-range
 * reads afterwards. Channels are mono 16-bit PCM WAV at 8 kHz; `mixed` is derived from
 * `agent` and `remote`.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Scope, Stream } from "effect"
import type { RecordingChannel } from "../Conversation.ts"
import type { RecordingNotFound } from "../Errors.ts"

/**
 * @category models
 */
export interface RecordingWriter {
  /** Appends samples; the WAV header is finalized when the writer's scope closes. */
  readonly write: (samples: Int16Array) => Effect.Effect<void>
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
 * @category services
 */
export class RecordingStore extends Context.Service<RecordingStore, {
  readonly openWriter: (
    callId: string,
    channel: "agent" | "remote"
  ) => Effect.Effect<RecordingWriter, never, Scope.Scope>
  readonly read: (
    callId: string,
    channel: RecordingChannel,
    range?: { readonly start: number; readonly end: number }
  ) => Effect.Effect<RecordingRead, RecordingNotFound>
}>()("@voice-agent/core/ports/RecordingStore") {}
