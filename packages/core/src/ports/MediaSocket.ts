/**
 * A call's media stream as the two ends see it: text frames in the carrier's wire format
 * (Twilio Media Streams), either way. The daemon's WebSocket server hands the engine's media
 * session one `MediaSocket` per connection; a carrier that streams from inside the engine (the
 * simulated one) opens one with `MediaConnector`. In tests both ends can be joined in memory,
 * with no socket, and the same session code runs.
 *
 * @since 0.1.0
 */
import { Array as Arr, Cause, Context, Effect, Schema, Stream } from "effect"
import type { Scope } from "effect"

/**
 * One end of a media stream.
 *
 * @category models
 */
export interface MediaSocket {
  /**
   * The next text frames from the other end, in order: every frame that arrived since the last
   * read (at least one; waits for one), or `undefined` once either end closed. A hot path reads
   * a burst in one step.
   */
  readonly read: Effect.Effect<ReadonlyArray<string> | undefined>
  /** The same frames as a stream (one chunk per read). A socket is read one way or the other. */
  readonly incoming: Stream.Stream<string>
  /** Sends a text frame; waits while the transport's buffer is full (bounded). */
  readonly send: (text: string) => Effect.Effect<void>
  /**
   * Optional, for a socket whose sends never wait (its transport buffers them, as a WebSocket
   * does): sends a text frame synchronously, in order with `send`. A media session's playout
   * then sends on the callback that made room for the audio (docs/PERFORMANCE.md).
   */
  readonly sendUnsafe?: ((text: string) => void) | undefined
  /** Closes the stream (a carrier hangs up a call whose media stream its server closed). */
  readonly close: Effect.Effect<void>
  /**
   * Optional, for a socket whose frames come on callbacks: from now on, hands each batch of
   * frames to `onBatch` as it is received, synchronously and in order (what arrived before and
   * was not read first), and calls `onEnd` once either end closed, instead of `read`. A media
   * session then handles a frame with no fiber step of its own (docs/PERFORMANCE.md).
   */
  readonly listen?: ((handlers: MediaListener) => void) | undefined
}

/**
 * What a socket's `listen` calls.
 *
 * @category models
 */
export interface MediaListener {
  readonly onBatch: (frames: ReadonlyArray<string>) => void
  readonly onEnd: () => void
}

/**
 * The frames `read` returns, as a stream: one chunk per read, ending with the socket.
 *
 * @category constructors
 */
export const incomingOf = (read: MediaSocket["read"]): Stream.Stream<string> =>
  Stream.fromPull(
    Effect.succeed(Effect.flatMap(read, (frames) =>
      frames === undefined || !Arr.isReadonlyArrayNonEmpty(frames) ? Cause.done() : Effect.succeed(frames)))
  )

/**
 * The media endpoint could not be reached or refused the connection.
 *
 * @category errors
 */
export class MediaConnectError extends Schema.TaggedError<MediaConnectError>()("MediaConnectError", {
  url: Schema.String,
  message: Schema.String
}) {}

/**
 * Opens media streams to a URL (`ws:`/`wss:`), for carriers that stream from inside the engine.
 *
 * @category services
 */
export class MediaConnector extends Context.Service<MediaConnector, {
  /** A socket to `url`, closed when the scope closes. */
  readonly connect: (url: string) => Effect.Effect<MediaSocket, MediaConnectError, Scope.Scope>
}>()("@voice-agent/core/ports/MediaSocket/MediaConnector") {}
