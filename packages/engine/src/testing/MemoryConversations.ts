/**
 * The conversation store as a media session uses it, in memory: for tests and benchmarks that
 * run `MediaSession` with no database. Each call's context comes from `contextOf`; a call's
 * stream is claimed by the first stream id that asks (a second stream of the same call is
 * refused, as `SqlConversationRepository` does); turns and fields are kept for the caller to
 * read. What a media session never calls dies, naming itself.
 *
 * @since 0.1.0
 */
import type { FieldValue } from "@voice-agent/core/AgentTask"
import type { ContactData } from "@voice-agent/core/Contact"
import type { ConversationRecord, TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Option } from "effect"

/**
 * @category models
 */
export interface CallRecord {
  readonly conversation: ConversationRecord
  readonly data: ContactData
}

/**
 * @category models
 */
export interface MemoryConversations {
  readonly repository: ConversationRepository["Service"]
  /** Every turn written, in order, whatever the call. */
  readonly turns: Array<TranscriptTurnRecord>
  /** Fields recorded, by conversation id then key. */
  readonly fields: Map<string, Map<string, FieldValue>>
}

/**
 * An outbound conversation of call `callId` as the dialer writes one when it places the call
 * (not yet answered), with `fields` over the defaults.
 *
 * @category constructors
 */
export const outbound = (callId: string, fields: Partial<ConversationRecord> = {}): ConversationRecord => ({
  id: "00000000-0000-4000-8000-000000000001",
  callId,
  organizationId: "00000000-0000-4000-8000-000000000002",
  campaignId: null,
  contactId: "1",
  direction: "outbound",
  fromNumber: "+12025550100",
  toNumber: "+12025550101",
  startedAt: new Date(0),
  answeredAt: null,
  endedAt: null,
  durationSec: null,
  terminationReason: null,
  ...fields
})

const unused = (name: string) => () => Effect.die(`ConversationRepository.${name} is not used by a media session`)

/**
 * @category constructors
 */
export const make = (contextOf: (callId: string) => CallRecord | undefined): MemoryConversations => {
  const turns: Array<TranscriptTurnRecord> = []
  const fields = new Map<string, Map<string, FieldValue>>()
  const streams = new Map<string, string>()
  const fieldsOf = (conversationId: string) => {
    const values = fields.get(conversationId) ?? new Map<string, FieldValue>()
    fields.set(conversationId, values)
    return values
  }
  const repository = ConversationRepository.of({
    insert: unused("insert"),
    end: unused("end"),
    closeAbandoned: unused("closeAbandoned"),
    list: unused("list"),
    findByCallId: unused("findByCallId"),
    campaignLatency: unused("campaignLatency"),
    appendTurns: (_, added) => Effect.sync(() => void turns.push(...added)),
    transcript: () => Effect.succeed([]),
    callContext: (callId) => Effect.sync(() => Option.fromNullishOr(contextOf(callId))),
    claimStream: (callId, streamId) =>
      Effect.sync(() => {
        if (contextOf(callId) === undefined) return false
        const claimed = streams.get(callId)
        if (claimed !== undefined && claimed !== streamId) return false
        streams.set(callId, streamId)
        return true
      }),
    recordField: (conversationId, key, value) => Effect.sync(() => void fieldsOf(conversationId).set(key, value)),
    fields: (conversationId) =>
      Effect.sync(() =>
        Object.fromEntries([...fieldsOf(conversationId)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      ),
    recordLatency: () => Effect.void,
    latency: () => Effect.succeed([])
  })
  return { repository, turns, fields }
}
