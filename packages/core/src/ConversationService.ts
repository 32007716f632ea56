/**
 * Conversation use cases against the storage ports: list, details, transcript, turn latency,
 * recordings.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { ConversationRecord, RecordingChannel, TranscriptTurnRecord } from "./Conversation.ts"
import { ConversationNotFound, RecordingNotFound } from "./Errors.ts"
import type { ConversationPage, ConversationQuery } from "./ports/ConversationRepository.ts"
import { ConversationRepository } from "./ports/ConversationRepository.ts"
import type { RecordingRead } from "./ports/RecordingStore.ts"
import { RecordingStore } from "./ports/RecordingStore.ts"
import type { TurnLatencyRecord } from "./TurnLatency.ts"

/**
 * @category services
 */
export class ConversationService extends Context.Service<ConversationService, {
  readonly list: (query: ConversationQuery) => Effect.Effect<ConversationPage>
  readonly get: (organizationId: string, callId: string) => Effect.Effect<ConversationRecord, ConversationNotFound>
  readonly transcript: (
    organizationId: string,
    callId: string
  ) => Effect.Effect<ReadonlyArray<TranscriptTurnRecord>, ConversationNotFound>
  readonly latency: (
    organizationId: string,
    callId: string
  ) => Effect.Effect<ReadonlyArray<TurnLatencyRecord>, ConversationNotFound>
  /** A channel's WAV bytes; calls never answered have no recording (404). */
  readonly recording: (
    organizationId: string,
    callId: string,
    channel: RecordingChannel,
    range?: { readonly start: number; readonly end: number }
  ) => Effect.Effect<RecordingRead, ConversationNotFound | RecordingNotFound>
}>()("@voice-agent/core/ConversationService") {
  static readonly layer = Layer.effect(
    ConversationService,
    Effect.gen(function*() {
      const conversations = yield* ConversationRepository
      const recordings = yield* RecordingStore
      const get = Effect.fn("ConversationService.get")(function*(organizationId: string, callId: string) {
        const found = yield* conversations.findByCallId(organizationId, callId)
        if (Option.isNone(found)) return yield* new ConversationNotFound({ callId })
        return found.value
      })
      return ConversationService.of({
        list: Effect.fn("ConversationService.list")((query) => conversations.list(query)),
        get,
        transcript: Effect.fn("ConversationService.transcript")(function*(organizationId, callId) {
          const conversation = yield* get(organizationId, callId)
          return yield* conversations.transcript(conversation.id)
        }),
        latency: Effect.fn("ConversationService.latency")(function*(organizationId, callId) {
          const conversation = yield* get(organizationId, callId)
          return yield* conversations.latency(conversation.id)
        }),
        recording: Effect.fn("ConversationService.recording")(function*(organizationId, callId, channel, range) {
          const conversation = yield* get(organizationId, callId)
          if (conversation.answeredAt === null) return yield* new RecordingNotFound({ callId, channel })
          return yield* recordings.read(conversation.callId, channel, range)
        })
      })
    })
  )
}
