/**
 * How a call ended, from its carrier events: what has been seen of it (`Progress`, folded by
 * `observe`), when it is settled, and the outcome the contact's state machine takes and who
 * hung up (`ending`). Pure: CallLifecycle runs these decisions for every kind of call.
 *
 * An answered call's agent, run by the media session its stream reaches, ends it with a verdict.
 * For calls that open no media stream (a `voice-agent dial` process with no public URL, an
 * embedder with no media endpoint) the engine stands in for the agent with a scripted
 * conversation of {@link StandIn} `scriptMs` from the answer (docs/DIALER.md, "Answered calls
 * without media"): the person hanging up after it is `completed`, before it `cut-short`;
 * the stand-in hangs up on a person who never does at `hangUpAfterMs`, and on an answering
 * machine at once (`voicemail`); a call whose carrier cannot tell (`unknown`) is a person to it,
 * since no audio reaches it to decide from. A hang-up of ours for any other reason (the daemon
 * stopping) is `agent-failure`.
 *
 * @since 0.1.0
 */
import type { CallOutcome } from "@voice-agent/core/ContactState"
import type { AgentEnd } from "@voice-agent/core/ports/Agent"
import type { AnsweredBy, CallEndReason, CallEvent } from "@voice-agent/core/ports/CallEvents"

/**
 * After the end of an answered call, how long its media session may wait for the transcript's
 * last turns to be stored before it publishes the agent's verdict (MediaSession).
 *
 * @category constants
 */
export const transcriptFlushMs = 30_000

/**
 * After the carrier's end of an answered call, how long whoever follows it (dialer, direct and
 * inbound calls) waits for the agent's verdict before recording `agent-failure`: longer than
 * the media session may take to publish it, so that a database out of reach for a few seconds
 * at the end of a call never turns a good call into a failed one.
 *
 * @category constants
 */
export const verdictGraceMs = transcriptFlushMs + 5_000

/**
 * What has been seen of a placed call: its answer, its end, the agent's verdict.
 *
 * @category models
 */
export interface Progress {
  readonly answered: { readonly at: number; readonly by: AnsweredBy } | null
  readonly ended: { readonly at: number; readonly reason: CallEndReason } | null
  readonly verdict: (AgentEnd & { readonly at: number }) | null
}

/**
 * @category constructors
 */
export const noProgress: Progress = { answered: null, ended: null, verdict: null }

/**
 * The progress after `event`.
 *
 * @category combinators
 */
export const observe = (progress: Progress, event: CallEvent): Progress => {
  switch (event._tag) {
    case "Ringing":
      return progress
    case "Answered":
      return { ...progress, answered: { at: event.at, by: event.answeredBy } }
    case "Ended":
      return { ...progress, ended: { at: event.at, reason: event.reason } }
    case "AgentEnded":
      return { ...progress, verdict: { outcome: event.outcome, endedBy: event.endedBy, at: event.at } }
  }
}

/**
 * Whether nothing more is to come: the carrier's end of a call never answered; for an answered
 * one, also the agent's verdict (when `awaitsVerdict`: an agent runs the call's media). When the
 * carrier need not report the end (`endReported` false: an inbound call), the verdict alone;
 * likewise for a call the agent transferred ({@link isTransferred}).
 *
 * @category predicates
 */
export const isSettled = (progress: Progress, awaitsVerdict: boolean, endReported = true): boolean =>
  (progress.ended !== null && (progress.answered === null || !awaitsVerdict || progress.verdict !== null)) ||
  (!endReported && progress.verdict !== null) ||
  (awaitsVerdict && isTransferred(progress))

/**
 * Whether the agent transferred the call: the carrier moved it to the target (the agent's
 * verdict is `transfer` only once the carrier took it over), so it is no longer ours. Its
 * carrier end comes when the transferred conversation ends, maybe hours later: nothing waits for
 * it, and nothing of ours hangs it up (that would cut the person off from the target).
 *
 * @category predicates
 */
export const isTransferred = (progress: Progress): boolean => progress.verdict?.outcome === "transfer"

/**
 * The stand-in agent's timings, in milliseconds from the answer.
 *
 * @category models
 */
export interface StandIn {
  readonly scriptMs: number
  readonly hangUpAfterMs: number
}

/**
 * @category constructors
 */
export const standIn: StandIn = { scriptMs: 2_000, hangUpAfterMs: 8_000 }

/**
 * Why our side hung up, when it did: the stand-in's script ended, an answering machine picked
 * up, the call rang or lasted too long (`timeout`), or the daemon is stopping.
 *
 * @category models
 */
export type HangUpCause = "script-done" | "machine" | "timeout" | "stopping"

/**
 * @category models
 */
export interface CallEnding {
  readonly outcome: CallOutcome
  readonly endedBy: "remote" | "agent"
}

/**
 * The outcome of a call that ended with `reason` at `endedAt`, answered at `answered` (or
 * never), after our own hang-up for `hangUpCause` (if any). With an agent (`verdict` given, or
 * `null` when its verdict never came), an answered call ends as the agent said (no verdict:
 * `agent-failure`); without one (`verdict` undefined) the stand-in's rules apply.
 *
 * @category constructors
 */
export const ending = (
  answered: { readonly at: number; readonly by: AnsweredBy } | null,
  reason: CallEndReason,
  endedAt: number,
  hangUpCause: HangUpCause | null,
  timings: StandIn = standIn,
  verdict?: AgentEnd | null
): CallEnding => {
  if (answered === null) {
    switch (reason) {
      case "busy":
      case "failed":
      case "no-answer":
        return { outcome: reason, endedBy: "remote" }
      case "remote-hangup":
        return { outcome: "no-answer", endedBy: "remote" }
      case "local-hangup":
        return { outcome: hangUpCause === "stopping" ? "agent-failure" : "no-answer", endedBy: "agent" }
    }
  }
  if (hangUpCause === "stopping") return { outcome: "agent-failure", endedBy: "agent" }
  if (verdict !== undefined) {
    return verdict === null
      ? { outcome: "agent-failure", endedBy: reason === "local-hangup" ? "agent" : "remote" }
      : { outcome: verdict.outcome, endedBy: verdict.endedBy }
  }
  if (answered.by === "machine") {
    return { outcome: "voicemail", endedBy: reason === "local-hangup" ? "agent" : "remote" }
  }
  if (reason === "local-hangup") {
    return { outcome: hangUpCause === "script-done" ? "completed" : "agent-failure", endedBy: "agent" }
  }
  return { outcome: endedAt - answered.at >= timings.scriptMs ? "completed" : "cut-short", endedBy: "remote" }
}
