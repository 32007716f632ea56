/**
 * The handlers an agent registers (with `agent.onCallStart(…)` and the like), their arguments
 * and what they answer. Every handler may be async; a call's events are handled one at a time,
 * in order, each handler awaited before the next event.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@voice-agent/agent-protocol/Json"
import type { Call } from "./Call.ts"
import type { CallInfo } from "./CallInfo.ts"
import type { AgentSpeech, CallerSpeech, DtmfPressed, OutboundCallFailed, SessionEnded } from "./Events.ts"

export type Awaitable<A> = A | PromiseLike<A>

/** What `onCallReceived` answers for an inbound call. */
export type CallDecision = "accept" | "decline"

/** An action the agent could take for a caller's request (`onActionRequest`). */
export interface SuggestedAction {
  readonly key: string
  readonly description?: string
}

/** `onSearchQuery`'s answer: the choices matching the query, and others to offer instead. */
export interface SearchResult {
  readonly matched: ReadonlyArray<string>
  readonly other?: ReadonlyArray<string>
}

export type CallReceivedHandler = (info: CallInfo) => Awaitable<CallDecision>
export type CallHandler = (call: Call) => Awaitable<void>
export type TaskCompleteHandler = (call: Call, taskId: string) => Awaitable<void>
/** Answer a sentence to reject the value (the task is retried with it as the reason). */
export type ValidateHandler = (call: Call, value: JsonValue | undefined) => Awaitable<string | undefined | void>
export type QuestionHandler = (call: Call, question: string) => Awaitable<string>
export type ActionRequestHandler = (
  call: Call,
  request: string
) => Awaitable<SuggestedAction | ReadonlyArray<SuggestedAction> | null | undefined | void>
/** A non-empty string answered is passed on to the agent as an instruction. */
export type ActionHandler = (call: Call, actionKey: string) => Awaitable<string | undefined | void>
export type KeyedActionHandler = (call: Call) => Awaitable<string | undefined | void>
export type SearchQueryHandler = (call: Call, query: string) => Awaitable<SearchResult>
export type EscalateHandler = (call: Call, requestedBy: "human" | "agent") => Awaitable<void>
export type DtmfHandler = (call: Call, event: DtmfPressed) => Awaitable<void>
export type CallerSpeechHandler = (call: Call, event: CallerSpeech) => Awaitable<void>
export type AgentSpeechHandler = (call: Call, event: AgentSpeech) => Awaitable<void>
export type SessionEndHandler = (call: Call, event: SessionEnded) => Awaitable<void>
export type OutboundFailedHandler = (call: Call, event: OutboundCallFailed) => Awaitable<void>
export type ReachPersonHandler = (call: Call, availability: string | undefined) => Awaitable<void>

/** The registered handlers (what `Agent` keeps). */
export interface Hooks {
  callReceived?: CallReceivedHandler
  callStart?: CallHandler
  taskComplete?: TaskCompleteHandler
  readonly taskCompleteById: Map<string, CallHandler>
  readonly validate: Map<string, ValidateHandler>
  question?: QuestionHandler
  actionRequest?: ActionRequestHandler
  action?: ActionHandler
  readonly actionByKey: Map<string, KeyedActionHandler>
  readonly searchQuery: Map<string, SearchQueryHandler>
  escalate?: EscalateHandler
  dtmf?: DtmfHandler
  callerSpeech?: CallerSpeechHandler
  agentSpeech?: AgentSpeechHandler
  sessionEnd?: SessionEndHandler
  outboundFailed?: OutboundFailedHandler
}

export const emptyHooks = (): Hooks => ({
  taskCompleteById: new Map(),
  validate: new Map(),
  actionByKey: new Map(),
  searchQuery: new Map()
})
