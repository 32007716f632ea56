/**
 * Live listen across the daemons of one database, in the daemon (engine/ListenRelay,
 * docs/LISTEN.md "Several daemons"): this daemon announced to the others under its id, at the
 * URL they reach it at (`InternalUrl`); the registry of its live calls, recorded in the database
 * so that a listener on another daemon finds them here; and the internal endpoint those
 * listeners' daemons open.
 *
 * The URL is `VOICE_AGENT_INTERNAL_URL`, by default the address the server listens on
 * (`http://127.0.0.1:<port>` when that is every interface); a worker process of
 * `serve --workers` has a listener of its own instead (Workers.privateListener).
 *
 * @since 0.1.0
 */
import * as ListenRelay from "@voice-agent/engine/ListenRelay"
import { Config, ConfigProvider, Context, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import * as Media from "./Media.ts"

export { endpoint } from "@voice-agent/engine/ListenRelayRoute"

/**
 * The URL the other daemons reach this one at.
 *
 * @category services
 */
export class InternalUrl extends Context.Service<InternalUrl, string>()("voice-agent/Relay/InternalUrl") {}

/**
 * `VOICE_AGENT_INTERNAL_URL`, if set: an `http:` or `https:` URL (a trailing slash dropped).
 *
 * @category constructors
 */
export const internalUrlSetting = Config.option(Config.String("VOICE_AGENT_INTERNAL_URL")).pipe(
  Config.map(Option.map((url) => url.trim().replace(/\/+$/, ""))),
  Config.map(Option.filter((url) => url !== "")),
  Config.mapEffect((url) => {
    if (Option.isNone(url) || /^https?:$/.test(URL.parse(url.value)?.protocol ?? "")) return Effect.succeed(url)
    return Effect.fail(
      new Config.ConfigError(
        new ConfigProvider.SourceError({
          message: `VOICE_AGENT_INTERNAL_URL must be an http or https URL, not ${JSON.stringify(url.value)}`
        })
      )
    )
  })
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
 * The URL of a daemon that is one process: the setting, else the server's own address.
 *
 * @category layers
 */
export const serverUrl: Layer.Layer<InternalUrl, Config.ConfigError, HttpServer.HttpServer> = Layer.effect(
  InternalUrl,
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    return Option.getOrElse(yield* internalUrlSetting, () => reachableAt(HttpServer.formatAddress(server.address)))
  })
)

/**
 * The relay of this daemon (`id`: the dialer's worker id), at its internal URL, and the live
 * calls registry that records where their media is.
 *
 * @category layers
 */
export const layer = (id: string) =>
  Layer.unwrap(Effect.map(InternalUrl, (internalUrl) =>
    ListenRelay.liveCalls.pipe(
      Layer.provideMerge(ListenRelay.layer({ id, internalUrl })),
      Layer.provide(Media.connector)
    )))
