/**
 * Port for the progress of placed calls, as carriers report it, delivered to the daemon that
 * holds the call. A carrier's report may reach any daemon (a Twilio status callback lands
 * where the load balancer sends it) and may arrive before `placeCall` has returned, so reports
 * are recorded through the database and read back by the call's owner: the dialer subscribes
 * to its call id before it asks the carrier, and gets every event of that call, whenever and
 * wherever it was published.
 *
 * Calls are keyed by our call id (the conversation's `call_id`), which the dialer hands the
 * carrier with the call and carriers echo in their reports; the carrier's own id is not used
 * as a key. Each kind of event is recorded once per call: a repeated report (a webhook
 * delivered twice) changes nothing.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Scope, Stream } from "effect"
import type { AgentOutcome } from "./Agent.ts"

/**
 * How a placed call ended, as the carrier saw it: the person (or machine) hung up, we hung
 * up, or it was never answered (`busy`, `no-answer`, `failed`).
 *
 * @category models
 */
export type CallEndReason = "remote-hangup" | "local-hangup" | "busy" | "no-answer" | "failed"

/**
 * Who answered a call, as its carrier tells: a person, an answering machine, or `unknown` when
 * the carrier cannot detect machines (a SIP trunk; the simulated carrier with `machineDetection:
 * "engine"`), so that the engine decides from the call's first seconds of audio
 * (docs/MEDIA.md, "Answering machines detected by the engine"). A carrier that detects but could
 * not tell (Twilio's own `unknown`) says `human`: its detection has already taken its time.
 *
 * @category models
 */
export type AnsweredBy = "human" | "machine" | "unknown"

/**
 * Progress of one placed call. Instants are epoch milliseconds. `answeredBy` is the carrier's
 * answering-machine detection (`AnsweredBy`). `AgentEnded` is not the carrier's:
 * the media session that ran the call's agent reports the agent's verdict (outcome and who hung
 * up), from whichever daemon the carrier's media stream reached.
 *
 * @category models
 */
export type CallEvent =
  | { readonly _tag: "Ringing"; readonly at: number }
  | { readonly _tag: "Answered"; readonly at: number; readonly answeredBy: AnsweredBy }
  | { readonly _tag: "Ended"; readonly at: number; readonly reason: CallEndReason }
  | {
    readonly _tag: "AgentEnded"
    readonly at: number
    readonly outcome: AgentOutcome
    readonly endedBy: "remote" | "agent"
  }

/**
 * @category models
 */
export type CallEventKind = CallEvent["_tag"]

/**
 * @category services
 */
export class CallEvents extends Context.Service<CallEvents, {
  /** Records an event of the call `callId`; a second event of the same kind is ignored. */
  readonly publish: (callId: string, event: CallEvent) => Effect.Effect<void>
  /**
   * The events of `callId`, each kind at most once: those already recorded, then the rest as
   * they are published. Ringing, Answered and Ended come in that order (a late one is dropped);
   * AgentEnded whenever it comes. The stream ends after `Ended` for a call never answered, and
   * after both `Ended` and `AgentEnded` for an answered one ({@link isLast}).
   */
  readonly subscribe: (callId: string) => Effect.Effect<Stream.Stream<CallEvent>, never, Scope.Scope>
}>()("@voice-agent/core/ports/CallEvents") {}

/**
 * The kinds of event a subscriber has seen so far, and whether the stream ends with them: a
 * call never answered ends with `Ended`, an answered one once the agent's verdict is in too.
 *
 * @category guards
 */
export const isLast = (seen: ReadonlySet<CallEventKind>): boolean =>
  seen.has("Ended") && (!seen.has("Answered") || seen.has("AgentEnded"))

const replayRank: Record<CallEventKind, number> = { Ringing: 0, Answered: 1, AgentEnded: 1.5, Ended: 2 }

/**
 * Every kind of call event.
 *
 * @category models
 */
export const CallEventKinds = Object.keys(replayRank) as ReadonlyArray<CallEventKind>

/**
 * The order in which recorded events are given to a subscriber: the carrier's in their order,
 * and the agent's verdict before the carrier's end, so that a stream that ends with `Ended`
 * (`isLast`) still carries a verdict already recorded.
 *
 * @category sorting
 */
export const replayOrder = (a: CallEvent, b: CallEvent): number => replayRank[a._tag] - replayRank[b._tag]

/**
 * Recorded events in {@link replayOrder}.
 *
 * @category sorting
 */
export const inReplayOrder = (events: ReadonlyArray<CallEvent>): Array<CallEvent> => [...events].sort(replayOrder)
