/**
 * Storage port for conversation records (calls) and their transcript turns.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { FieldValue } from "../AgentTask.ts"
import type { ContactData } from "../Contact.ts"
import type { ConversationRecord, Direction, TerminationReason, TranscriptTurnRecord } from "../Conversation.ts"
import type { CampaignLatencyRecord, TurnLatencyRecord } from "../TurnLatency.ts"
import type { FinalizeLost } from "./RecordingStore.ts"

/**
 * Filters and page of `GET /v1/conversations`, newest first.
 *
 * @category models
 */
export interface ConversationQuery {
  readonly organizationId: string
  readonly fromNumber?: string | undefined
  readonly toNumber?: string | undefined
  readonly direction?: Direction | undefined
  readonly dateFrom?: Date | undefined
  readonly dateTo?: Date | undefined
  readonly campaignId?: string | undefined
  readonly limit: number
  /** Keyset position: only conversations after this one in newest-first order. */
  readonly after?: { readonly startedAt: Date; readonly id: string } | undefined
}

/**
 * @category models
 */
export interface ConversationPage {
  readonly conversations: ReadonlyArray<ConversationRecord>
  readonly hasMore: boolean
}

/**
 * Which calls a sweep closes (`closeAbandoned`): the open calls of one kind followed by no
 * lease, `inbound` or `direct` (outbound with no campaign), started before `startedBefore`.
 *
 * @category models
 */
export interface AbandonedCalls {
  readonly kind: "inbound" | "direct"
  readonly startedBefore: Date
  readonly now: Date
  readonly finalizeRecordings?: FinalizeLost | undefined
}

/**
 * @category services
 */
export class ConversationRepository extends Context.Service<ConversationRepository, {
  /** Stores a call with a fresh conversation id. */
  readonly insert: (conversation: Omit<ConversationRecord, "id">) => Effect.Effect<ConversationRecord>
  /**
   * Ends a call that is still in progress (a call not placed by the dialer: a direct or an
   * inbound one): its end instant, its `duration_sec` (0 when never answered; otherwise the
   * carrier's figure when `CarrierCalls` has one, else from `answeredAt`) and its termination
   * reason, with its `call.ended` webhook event in the same transaction. Answers whether it was
   * in progress; an ended call is left as it is (and no event is written).
   */
  readonly end: (conversationId: string, end: {
    readonly answeredAt: Date | null
    readonly endedAt: Date
    readonly terminationReason: TerminationReason
  }) => Effect.Effect<boolean>
  /**
   * Ends, as `bot-failure` at `now`, every call of `kind` started before `startedBefore` that
   * has no end (its follower died with its daemon), keeping what was recorded of it as the
   * dialer's recovery does (`DialerRepository.recoverExpired`, `finalizeRecordings` alike),
   * with their `call.ended` webhook events in the same transaction; answers the calls it ended.
   */
  readonly closeAbandoned: (input: AbandonedCalls) => Effect.Effect<ReadonlyArray<ConversationRecord>>
  /** Appends turns after the conversation's existing ones. */
  readonly appendTurns: (
    conversationId: string,
    turns: ReadonlyArray<TranscriptTurnRecord>
  ) => Effect.Effect<void>
  readonly list: (query: ConversationQuery) => Effect.Effect<ConversationPage>
  readonly findByCallId: (
    organizationId: string,
    callId: string
  ) => Effect.Effect<Option.Option<ConversationRecord>>
  /** Turns in call order: by offset from the answer, then in the order they were appended. */
  readonly transcript: (conversationId: string) => Effect.Effect<ReadonlyArray<TranscriptTurnRecord>>
  /**
   * The call `callId` (any organization: the caller has authenticated the call itself, by its
   * media token) with its contact's `data` (empty without a contact, or when it was deleted).
   */
  readonly callContext: (
    callId: string
  ) => Effect.Effect<Option.Option<{ readonly conversation: ConversationRecord; readonly data: ContactData }>>
  /**
   * Claims the call `callId` for the media stream `streamId` (a UUID the stream made up): true
   * when the call's stream is `streamId`, claimed now or by this same claim before (so trying
   * again after a lost answer is safe); false when another stream holds it (on any process), and
   * for an unknown or ended call. One call has one stream, so a replayed token opens nothing.
   */
  readonly claimStream: (callId: string, streamId: string) => Effect.Effect<boolean>
  /**
   * Records a value the agent collected for a task field of the conversation; recording a key
   * again replaces its value.
   */
  readonly recordField: (conversationId: string, key: string, value: FieldValue) => Effect.Effect<void>
  /** The values collected in the conversation, by field key (keys in code-point order). */
  readonly fields: (conversationId: string) => Effect.Effect<Readonly<Record<string, FieldValue>>>
  /** Appends one agent reply's turn latency after the conversation's existing ones. */
  readonly recordLatency: (conversationId: string, turn: TurnLatencyRecord) => Effect.Effect<void>
  /** The replies' turn latencies in the order they were recorded. */
  readonly latency: (conversationId: string) => Effect.Effect<ReadonlyArray<TurnLatencyRecord>>
  /**
   * The summary over every reply of the calls of campaign `campaignId` in `organizationId`
   * (TurnLatency's `summarize` rule: nearest-rank over voice-to-voice), and how many of those
   * calls have a reply; count 0 and null figures when none has.
   */
  readonly campaignLatency: (organizationId: string, campaignId: string) => Effect.Effect<CampaignLatencyRecord>
}>()("@voice-agent/core/ports/ConversationRepository") {}
