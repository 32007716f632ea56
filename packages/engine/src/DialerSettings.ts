/**
 * The settings of one dialing process: its worker id, lease length, how much it takes on, and
 * how long it waits for carriers and for calls to finish on shutdown.
 *
 * @since 0.1.0
 */
import type { StandIn } from "./CallProgress.ts"
import { standIn, verdictGraceMs } from "./CallProgress.ts"

/**
 * @category models
 */
export interface DialerSettings {
  /** Names this process's leases; shown in its logs. Unique among the daemons on a database. */
  readonly worker: string
  /** How long a claim holds without renewal; renewed every third of it. */
  readonly leaseMs: number
  /** Most contacts claimed in one tick. */
  readonly claimBatch: number
  /** Most calls this process runs at once (on top of the campaign and organization caps). */
  readonly maxCalls: number
  /** Longest sleep between ticks with nothing due: the backstop for missed wake-ups and recovery. */
  readonly safetyPollMs: number
  /** A placed call with no answer nor end by then is hung up (`no-answer`). */
  readonly ringTimeoutMs: number
  /** An answered call is hung up after this long whatever happens (`agent-failure`). */
  readonly maxCallMs: number
  /** On shutdown, calls in progress get this long to end before they are hung up. */
  readonly drainMs: number
  /**
   * Who ends an answered call: `media`, the agent run by the media session that the carrier's
   * stream reaches (its verdict arrives as `AgentEnded`); `stand-in`, the engine's scripted
   * stand-in (CallProgress), for carriers that open no media stream.
   */
  readonly agent: "media" | "stand-in"
  /** With `agent: media`, how long after the end of an answered call its verdict may take. */
  readonly verdictGraceMs: number
  /** The media WebSocket URL handed to the carrier for a call. */
  readonly mediaUrl: (callId: string) => string
  readonly standIn: StandIn
}

/**
 * Settings for `worker`, with the defaults of docs/DIALER.md.
 *
 * @category constructors
 */
export const make = (worker: string, overrides: Partial<Omit<DialerSettings, "worker">> = {}): DialerSettings => ({
  worker,
  leaseMs: 30_000,
  claimBatch: 50,
  maxCalls: 500,
  safetyPollMs: 30_000,
  ringTimeoutMs: 60_000,
  maxCallMs: 3_600_000,
  drainMs: 30_000,
  agent: "stand-in",
  verdictGraceMs,
  mediaUrl: (callId) => `ws://127.0.0.1/media/${callId}`,
  standIn,
  ...overrides
})
