/**
 * Live listen across the daemons of one database, in the daemon (engine/ListenRelay,
 * docs/LISTEN.md "Several daemons"): this daemon announced to the others under its id, at the
 * URL they reach it at, `VOICE_AGENT_INTERNAL_URL` (default: the address the server listens on,
 * `http://127.0.0.1:<port>` when that is every interface); the registry of its live calls,
 * recorded in the database so that a listener on another daemon finds them here; and the
 * internal endpoint those listeners' daemons open.
 *
 * @since 0.1.0
 */
import * as ListenRelay from "@voice-agent/engine/ListenRelay"
import { Config, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import * as Media from "./Media.ts"

export { endpoint } from "@voice-agent/engine/ListenRelayRoute"

/**
 * The URL the other daemons reach this one at, if set.
 *
 * @category constructors
 */
export const internalUrl = Config.option(Config.String("VOICE_AGENT_INTERNAL_URL")).pipe(
  Config.map(Option.map((url) => url.trim().replace(/\/+$/, ""))),
  Config.map(Option.filter((url) => url !== ""))
)

/**
 * The address a server listening on `url` is reached at from this host: a wildcard address
 * (every interface) is reached at the loopback one.
 *
 * @category constructors
 */
export const reachableAt = (url: string): string =>
  url.replace(/^(\w+:\/\/)(0\.0\.0\.0|\[::\])(?=[:/]|$)/, "$1127.0.0.1")

/**
 * The relay of this daemon (`id`: the dialer's worker id), over the HTTP server it runs on, and
 * the live calls registry that records where their media is.
 *
 * @category layers
 */
export const layer = (id: string) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const url = Option.getOrElse(yield* internalUrl, () => reachableAt(HttpServer.formatAddress(server.address)))
    return ListenRelay.liveCalls.pipe(
      Layer.provideMerge(ListenRelay.layer({ id, internalUrl: url })),
      Layer.provide(Media.connector)
    )
  }))
