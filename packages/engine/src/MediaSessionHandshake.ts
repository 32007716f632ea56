/**
 * The media session's gate: until a `Start` carries a valid, unexpired per-call token
 * (MediaToken) naming a live call whose stream it can claim, nothing is read but the handshake.
 * A stream that sends anything else first, or nothing within the start timeout, is refused
 * with no byte of audio accepted; so is a second stream presenting the token of a call whose
 * stream is claimed (ConversationRepository.claimStream, across processes). Each refusal is
 * logged once; the session closes the stream.
 *
 * Wire-blind: frames are read through the session's `MediaCodec`.
 *
 * @since 0.1.0
 */
import type { ContactData } from "@voice-agent/core/Contact"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaCodec } from "@voice-agent/media/MediaCodec"
import { Clock, Duration, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as MediaToken from "./MediaToken.ts"

/**
 * The next batch of text frames (what arrived together), or `undefined` once the stream ended.
 *
 * @category models
 */
export type NextBatch = Effect.Effect<ReadonlyArray<string> | undefined>

/**
 * A stream let in: the call it serves, the stream's id on the wire, when its `Start` arrived
 * (local ms: the carrier's media timestamps count from about then), and the frames that came
 * after `Start` in the same batch, which the session reads first.
 *
 * @category models
 */
export interface Accepted {
  readonly callId: string
  readonly streamId: string
  readonly startedAt: number
  readonly rest: ReadonlyArray<string>
  readonly call: { readonly conversation: ConversationRecord; readonly data: ContactData }
}

/**
 * Reads the handshake: `Connected` (optional, any number), then the `Start` event with a valid
 * token; answers the call it names. Anything else first, or a stream that ends, is `none`.
 *
 * @category constructors
 */
export const handshake = (next: NextBatch, codec: MediaCodec, key: Uint8Array) =>
  Effect.gen(function*() {
    for (;;) {
      const batch = yield* next
      if (batch === undefined) return Option.none()
      for (let i = 0; i < batch.length; i++) {
        const event = codec.decode(batch[i]!)
        if (event._tag === "Connected") continue
        if (event._tag !== "Start" || event.token === undefined) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const rest = batch.slice(i + 1)
        return Option.map(
          MediaToken.verify(key, event.token, now),
          (callId) => ({ callId, streamId: event.streamId, startedAt: now, rest })
        )
      }
    }
  })

/**
 * The whole gate: the handshake within `startTimeoutMs`, the call live, its stream claimed.
 * Answers the accepted stream, or `none` (logged) for a stream to close.
 *
 * @category constructors
 */
export const accept = (
  next: NextBatch,
  codec: MediaCodec,
  options: { readonly key: Uint8Array; readonly startTimeoutMs: number },
  conversations: ConversationRepository["Service"]
): Effect.Effect<Option.Option<Accepted>> =>
  Effect.gen(function*() {
    const started = yield* handshake(next, codec, options.key).pipe(
      Effect.timeoutOption(Duration.millis(options.startTimeoutMs)),
      Effect.map(Option.flatten)
    )
    if (Option.isNone(started)) {
      yield* Effect.logWarning("Media stream refused: no valid start with a call token")
      return Option.none()
    }
    const { callId, rest, startedAt, streamId } = started.value
    const found = yield* conversations.callContext(callId)
    if (Option.isNone(found) || found.value.conversation.endedAt !== null) {
      yield* Effect.logWarning(`Media stream refused: call ${callId} is unknown or has ended`)
      return Option.none()
    }
    if (!(yield* conversations.claimStream(callId, randomUUID()))) {
      yield* Effect.logWarning(`Media stream refused: call ${callId} already has a stream`)
      return Option.none()
    }
    return Option.some({ callId, streamId, startedAt, rest, call: found.value })
  })
