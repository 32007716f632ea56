/**
 * The dialing role of a daemon (docs/DIALER.md): the engine's dial loop with this process's
 * worker id, over the storage and carrier layers. `serve` runs it beside the HTTP API unless
 * `--no-dialer`; `voice-agent dial` runs it alone, so a self-hoster can scale the API and the
 * dialers apart on one PostgreSQL.
 *
 * @since 0.1.0
 */
import * as DialerSettings from "@voice-agent/engine/DialerSettings"
import * as DialLoop from "@voice-agent/engine/DialLoop"
import { Config, ConfigProvider, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import * as Media from "./Media.ts"

/**
 * A worker id unique among the daemons on one database: host, process id and a random suffix
 * (a restarted process on the same host gets a new one).
 *
 * @category constructors
 */
export const workerId = (): string => `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`

/**
 * How long `serve` and `dial` let calls in progress end on SIGTERM before hanging them up.
 *
 * @category constructors
 */
export const drainSeconds = 30

/**
 * How long a claim holds without renewal (`VOICE_AGENT_DIALER_LEASE_MS`, default 30000): a
 * daemon that dies mid-call has its contacts recovered by the others within this plus the
 * safety poll, which is the lease too, up to 30 s. Shorter leases recover sooner and cost a
 * renewal every third of the lease; the fault tests run with a few seconds. Every daemon on
 * one database should use the same value (each judges the others' leases by the expiry they
 * wrote, so a mix is safe, only uneven).
 *
 * @category constructors
 */
export const leaseMs = Config.Int("VOICE_AGENT_DIALER_LEASE_MS").pipe(
  Config.withDefault(30_000),
  Config.mapEffect((ms) =>
    ms >= 1_000
      ? Effect.succeed(ms)
      : Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({ message: `VOICE_AGENT_DIALER_LEASE_MS must be at least 1000, not ${ms}` })
        )
      )
  )
)

/**
 * The dial loop of this process, named `worker`. With `mediaUrl` (the media endpoint a carrier
 * can reach: this daemon's, or the one `VOICE_AGENT_PUBLIC_URL` names) answered calls stream to
 * it and its agent ends them; without one (a `dial` process with no public URL) the engine's
 * stand-in ends them.
 *
 * @category layers
 */
export const layer = (worker: string, mediaUrl: string | undefined) =>
  Layer.unwrap(Effect.map(leaseMs, (lease) =>
    DialLoop.layer(
      DialerSettings.make(worker, {
        leaseMs: lease,
        safetyPollMs: Math.min(30_000, lease),
        drainMs: drainSeconds * 1000,
        agent: mediaUrl === undefined ? "stand-in" : "media",
        mediaUrl: () => mediaUrl ?? ""
      })
    )))

/**
 * The media endpoint's URL under `VOICE_AGENT_PUBLIC_URL` (its ws/wss twin), if that is set.
 *
 * @category constructors
 */
export const publicMediaUrl = Config.option(Config.String("VOICE_AGENT_PUBLIC_URL")).pipe(
  Config.map(Option.map((url) => `${url.replace(/^http/, "ws").replace(/\/+$/, "")}${Media.path}`)),
  Config.map(Option.getOrUndefined)
)

/**
 * Nothing: the role switched off (`serve --no-dialer`).
 *
 * @category layers
 */
export const none = Layer.empty
