/**
 * Live listen across daemons (docs/LISTEN.md, "Several daemons"): with several daemons (or
 * worker processes) on one database, a listener accepted by one of them reaches the call
 * whichever of them serves its media. This module is how the daemons find each other and how
 * one asks another for a call's audio.
 *
 * - **Presence.** Each daemon announces itself in the database it shares with the others
 *   (DaemonDirectory): its id and the URL the others reach it at (`self`). It renews the
 *   announcement every `heartbeatMs` and withdraws it when it stops.
 * - **Where a call's media is.** The daemon whose media session serves a call records it
 *   (`liveCalls`: the in-process registry, LiveCalls, whose registrations are also written to
 *   the directory). The listen route (ListenRoute) looks it up (`locate`).
 * - **The relay.** When the media is elsewhere, the route asks that daemon over a WebSocket to
 *   its internal endpoint (ListenRelayRoute), presenting a grant (RelayGrant: signed with a key
 *   every daemon of the installation derives from the shared cursor key, for that daemon, call
 *   and channel, 10 s, one use), and passes on the Media Streams frames it gets, `stop` last.
 *
 * Bounds: the relay reads the other daemon's frames as it passes them on, one batch (what
 * arrived together) at a time; while it has not read them the socket stops reading at 64 KiB,
 * so the serving daemon's sending waits and its listener buffer (LiveCalls' sliding PubSub of
 * 256 segments) drops the oldest audio, as for a slow listener there. Grants taken are kept
 * until they expire (10 s), one entry each.
 *
 * @since 0.1.0
 */
import type { DaemonAddress, MediaServer } from "@voice-agent/core/ports/DaemonDirectory"
import { DaemonDirectory } from "@voice-agent/core/ports/DaemonDirectory"
import { MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { nowDate } from "@voice-agent/core/Time"
import { Clock, Context, Effect, Exit, Layer, Option, Schedule } from "effect"
import type { Scope } from "effect"
import { LiveCalls } from "./LiveCalls.ts"
import * as LiveCallsRegistry from "./LiveCalls.ts"
import * as RelayGrant from "./RelayGrant.ts"

/**
 * The path of the internal endpoint that serves relays (ListenRelayRoute).
 *
 * @category constructors
 */
export const path = "/internal/v1/listen-relay/:call_id"

/**
 * How often a daemon renews its announcement.
 *
 * @category constructors
 */
export const heartbeatMs = 15_000

/**
 * How long the announcement of a daemon no longer heard from is kept (a daemon that died):
 * the next daemon to start forgets it then.
 *
 * @category constructors
 */
export const forgetAfterMs = 24 * 60 * 60 * 1000

/**
 * How a relay ended: `stop` passed on (the call ended), or the serving daemon could not be
 * reached or went away before `stop`.
 *
 * @category models
 */
export type RelayEnd = "stopped" | "lost"

/**
 * @category services
 */
export class ListenRelay extends Context.Service<ListenRelay, {
  /** This daemon, as the others reach it. */
  readonly self: DaemonAddress
  /** Where the call's media is served, as the database says now; none while nowhere (or unreadable). */
  readonly locate: (callId: string) => Effect.Effect<Option.Option<MediaServer>>
  /**
   * Asks the daemon at `internalUrl` for the call's audio as `grant` says, and hands each frame
   * it sends to `send` until its `stop` (handed on too).
   */
  readonly relay: (
    internalUrl: string,
    grant: RelayGrant.Grant,
    send: (frame: string) => Effect.Effect<void>
  ) => Effect.Effect<RelayEnd>
  /** The grant of a token presented to this daemon for `callId`: valid now, for this daemon, never used. */
  readonly accept: (token: string, callId: string) => Effect.Effect<Option.Option<RelayGrant.Grant>>
}>()("@voice-agent/engine/ListenRelay") {}

/** The WebSocket URL of a daemon's relay endpoint for a call, with the grant. */
const relayUrl = (internalUrl: string, callId: string, token: string): string =>
  `${internalUrl.replace(/^http/, "ws").replace(/\/+$/, "")}${
    path.replace(":call_id", encodeURIComponent(callId))
  }?grant=${encodeURIComponent(token)}`

const isStop = (frame: string): boolean => frame.length < 64 && frame.includes("\"stop\"")

/**
 * The relay of this daemon, `self`: announced for the scope of the layer (renewed every
 * `heartbeatMs`, withdrawn on release). A failed announcement is logged and tried again at the
 * next heartbeat: the daemon runs on, unreachable for relays meanwhile.
 *
 * @category layers
 */
export const layer = (
  self: DaemonAddress
): Layer.Layer<ListenRelay, never, DaemonDirectory | ServerSecrets | MediaConnector> =>
  Layer.effect(
    ListenRelay,
    Effect.gen(function*() {
      const directory = yield* DaemonDirectory
      const connector = yield* MediaConnector
      const key = RelayGrant.keyFrom(yield* (yield* ServerSecrets).cursorKey)

      const announce = Effect.gen(function*() {
        const now = yield* nowDate
        yield* directory.announce({ daemon: self, now, forgetBefore: new Date(now.getTime() - forgetAfterMs) })
      }).pipe(
        Effect.catchCause((cause) => Effect.logWarning("Announcing this daemon to the others failed", cause))
      )
      yield* Effect.acquireRelease(
        Effect.andThen(announce, Effect.logInfo(`Daemon ${self.id} reachable by the others at ${self.internalUrl}`)),
        () => directory.withdraw(self.id).pipe(Effect.catchCause(() => Effect.void))
      )
      yield* Effect.forkScoped(Effect.repeat(Effect.delay(announce, heartbeatMs), Schedule.forever))

      // Grants taken, by token, until they expire.
      const taken = new Map<string, number>()

      return ListenRelay.of({
        self,
        locate: (callId) => directory.mediaServer(callId).pipe(Effect.catchCause(() => Effect.succeedNone)),
        relay: (internalUrl, grant, send) =>
          Effect.gen(function*() {
            const expiresAt = (yield* Clock.currentTimeMillis) + RelayGrant.ttlMs
            const url = relayUrl(internalUrl, grant.callId, RelayGrant.sign(key, grant, expiresAt))
            const socket = yield* Effect.option(connector.connect(url))
            if (Option.isNone(socket)) return "lost" as const
            while (true) {
              const frames = yield* socket.value.read
              if (frames === undefined) return "lost" as const
              for (const frame of frames) {
                yield* send(frame)
                if (isStop(frame)) return "stopped" as const
              }
            }
          }).pipe(Effect.scoped),
        accept: (token, callId) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            for (const [used, expiry] of taken) if (expiry <= now) taken.delete(used)
            const verified = RelayGrant.verify(key, token, now)
            if (Option.isNone(verified)) return Option.none()
            const { expiresAt, grant } = verified.value
            if (grant.daemonId !== self.id || grant.callId !== callId || taken.has(token)) return Option.none()
            taken.set(token, expiresAt)
            return Option.some(grant)
          })
      })
    })
  )

/**
 * The in-process registry of live calls (LiveCalls), whose registrations are also recorded in
 * the directory under this daemon, so that listeners on the other daemons find the media here.
 * The record is written beside the session's start, not before it: a listener elsewhere that
 * looks before it is written looks again (ListenRoute), and gets the opening it missed.
 *
 * @category layers
 */
export const liveCalls: Layer.Layer<LiveCalls, never, ListenRelay | DaemonDirectory> = Layer.effect(
  LiveCalls,
  Effect.gen(function*() {
    const calls = yield* LiveCallsRegistry.make
    const directory = yield* DaemonDirectory
    const { self } = yield* ListenRelay
    const record = (callId: string) =>
      directory.servesMedia(callId, self.id).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Exit.isSuccess(exit)
            ? Effect.void
            : Effect.logWarning(`Call ${callId}: where its media is served was not recorded`, exit.cause)
        )
      )
    const register = (callId: string): Effect.Effect<LiveCallsRegistry.LiveCall, never, Scope.Scope> =>
      Effect.tap(calls.register(callId), () => Effect.forkScoped(record(callId)))
    return LiveCalls.of({ ...calls, register })
  })
)
