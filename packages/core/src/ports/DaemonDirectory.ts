/**
 * Port for how the daemons sharing one database find each other (docs/LISTEN.md, "Several
 * daemons"): each running daemon announces itself with the URL the others reach it at, and
 * records the calls whose media it serves, so that a live listener on any daemon can find the
 * one that has the call's audio and ask it for a relay.
 *
 * Instants are the caller's (its `Clock`). A daemon is named by its id, unique on the database
 * (the dialer's worker id: a restarted process gets a new one).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"

/**
 * A daemon, as the others reach it.
 *
 * @category models
 */
export interface DaemonAddress {
  readonly id: string
  /** The base URL (`http://host:port`) of its HTTP server, as the other daemons reach it. */
  readonly internalUrl: string
}

/**
 * Which daemon serves a call's media: its id, and its address while it is announced (null once
 * it withdrew, or when it was forgotten after dying).
 *
 * @category models
 */
export interface MediaServer {
  readonly daemonId: string
  readonly internalUrl: string | null
}

/**
 * @category services
 */
export class DaemonDirectory extends Context.Service<DaemonDirectory, {
  /**
   * Announces the daemon at `now`, or renews its announcement (a heartbeat); daemons not heard
   * from since `forgetBefore` are forgotten.
   */
  readonly announce: (input: {
    readonly daemon: DaemonAddress
    readonly now: Date
    readonly forgetBefore: Date
  }) => Effect.Effect<void>
  /** Removes the daemon's announcement (it is stopping). */
  readonly withdraw: (daemonId: string) => Effect.Effect<void>
  /** The daemons announced and heard from since `since`, in id order. */
  readonly live: (since: Date) => Effect.Effect<ReadonlyArray<DaemonAddress>>
  /** Records that the daemon `daemonId` serves the media of the call `callId` (any organization). */
  readonly servesMedia: (callId: string, daemonId: string) => Effect.Effect<void>
  /** The daemon serving the media of the call `callId`; none while no daemon has recorded it. */
  readonly mediaServer: (callId: string) => Effect.Effect<Option.Option<MediaServer>>
}>()("@voice-agent/core/ports/DaemonDirectory") {}
