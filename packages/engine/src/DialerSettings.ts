/**
 * The settings of one dialing process: its worker id, lease length, how much it takes on, and
 * how long it waits for calls to finish on shutdown, and the timings every followed call shares
 * (CallLifecycle's `CallTimings`).
 *
 * @since 0.1.0
 */
import type { CallTimings } from "./CallLifecycle.ts"
import { timings } from "./CallLifecycle.ts"
import type { StandIn } from "./CallProgress.ts"
import { standIn } from "./CallProgress.ts"

/**
 * @category models
 */
export interface DialerSettings extends CallTimings {
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
  /** On shutdown, calls in progress get this long to end before they are hung up. */
  readonly drainMs: number
  /**
   * Who ends an answered call: `media`, the agent run by the media session that the carrier's
   * stream reaches (its verdict arrives as `AgentEnded`); `stand-in`, the engine's scripted
   * stand-in (CallProgress), for carriers that open no media stream.
   */
  readonly agent: "media" | "stand-in"
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
  ...timings,
  drainMs: 30_000,
  agent: "stand-in",
  mediaUrl: (callId) => `ws://127.0.0.1/media/${callId}`,
  standIn,
  ...overrides
})
