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
import { Layer } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"

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
 * The dial loop of this process, named `worker`.
 *
 * @category layers
 */
export const layer = (worker: string, mediaBaseUrl: string) =>
  DialLoop.layer(
    DialerSettings.make(worker, {
      drainMs: drainSeconds * 1000,
      mediaUrl: (callId) => `${mediaBaseUrl}/media/${callId}`
    })
  )

/**
 * Nothing: the role switched off (`serve --no-dialer`).
 *
 * @category layers
 */
export const none = Layer.empty
