/**
 * `voice-agent serve`: the composition of the daemon (docs/DAEMON.md). Storage (migrated), the
 * first-start demo organization, the carrier and the recordings, the HTTP API, the event
 * webhook worker, then the ready announcement; each is its own module, this one only wires them.
 * Layers build in that order and are released in reverse on SIGTERM/SIGINT: the server stops
 * accepting, requests in flight get up to `shutdownTimeoutSeconds`, then the database closes
 * (and releases the data directory).
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { AdminToken } from "@voice-agent/http/handlers/Admin"
import * as HttpApp from "@voice-agent/http/HttpApp"
import * as NodeServer from "@voice-agent/http/NodeServer"
import * as SdkAgentTasks from "@voice-agent/sdk-agents/SdkAgentTasks"
import { Clock, Config, ConfigProvider, Effect, identity, Layer, Option } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Carrier from "./Carrier.ts"
import * as Console from "./Console.ts"
import { DemoSeed } from "./DemoSeed.ts"
import * as Dialer from "./Dialer.ts"
import * as DirectCalls from "./DirectCalls.ts"
import * as Inbound from "./Inbound.ts"
import * as Health from "./instruments/Health.ts"
import * as Instruments from "./instruments/Instruments.ts"
import * as Traces from "./instruments/Traces.ts"
import * as Listen from "./Listen.ts"
import * as Logging from "./Logging.ts"
import * as Media from "./Media.ts"
import * as ModelProxy from "./ModelProxy.ts"
import * as ProviderConfig from "./ProviderConfig.ts"
import * as Ready from "./Ready.ts"
import * as Recordings from "./Recordings.ts"
import * as Relay from "./Relay.ts"
import * as SdkAgents from "./SdkAgents.ts"
import * as Sip from "./Sip.ts"
import * as Storage from "./Storage.ts"
import * as TwilioWebhooks from "./TwilioWebhooks.ts"
import * as Webhooks from "./Webhooks.ts"
import * as Workers from "./Workers.ts"

/**
 * @category models
 */
export interface ServeOptions {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** Run the dial loop in this process too (the default); `--no-dialer` serves the API alone. */
  readonly dialer: boolean
  /** This process's slot when it is a worker process of `serve --workers` (Workers.ts). */
  readonly workerSlot: Option.Option<number>
}

/**
 * How long requests in flight may take to finish once shutdown starts.
 *
 * @category constructors
 */
export const shutdownTimeoutSeconds = 10

/**
 * @category layers
 */
export const layer = (options: ServeOptions, log: Logging.LogSettings) => {
  // This daemon's id among those on the database: its dialer's leases and its relay's name.
  const worker = Dialer.workerId()
  const nodeServer = NodeServer.createServer()
  // The URL the other daemons reach this one at: a worker's own listener, or the server's.
  const internalUrl = Option.match(options.workerSlot, {
    onNone: () => Relay.serverUrl,
    onSome: (slot) => Workers.privateListener(nodeServer, slot)
  })
  const storage = Layer.unwrap(Effect.gen(function*() {
    const what = yield* Storage.describe(options.dataDir)
    const started = yield* Clock.currentTimeMillis
    return Storage.layer(options.dataDir).pipe(
      Layer.tap(() =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => Effect.logInfo(`Storage ready in ${now - started} ms: ${what}`)
        )
      )
    )
  }))
  // With Twilio, its webhooks are routes of this server too.
  const carrierRoutes = (chosen: Carrier.Choice) =>
    chosen._tag === "twilio"
      ? TwilioWebhooks.routes({ authToken: chosen.config.authToken, publicUrl: chosen.config.publicUrl })
      : Layer.empty
  const http = Layer.unwrap(
    Effect.map(
      Effect.all([Carrier.choice, Instruments.settings, Traces.settings]),
      ([chosen, instruments, traces]) =>
        Traces.serving(
          traces,
          HttpRouter.serve(
            Instruments.withRequestMetrics(
              instruments,
              Layer.mergeAll(
                HttpApp.layer,
                Console.routes(),
                Media.routes(nodeServer, { drainMs: shutdownTimeoutSeconds * 1000 }),
                Listen.endpoint,
                Relay.endpoint,
                SdkAgents.routes,
                carrierRoutes(chosen),
                Instruments.routes(instruments)
              )
            ),
            {
              disableLogger: !Logging.logsRequests(log),
              disableListenLog: true
            }
          )
        )
    )
  )
    .pipe(
      // With SIP, the carrier's calls are served in this process, in memory: it is handed the
      // media sessions (with live listen's registry, as the media endpoint's) and inbound calls.
      Layer.merge(Layer.unwrap(Effect.map(Carrier.choice, (chosen) => chosen._tag === "sip" ? Sip.bind : Layer.empty))),
      // Live listen: the media sessions of this process publish into the registry, the listen
      // route subscribes, and relays to and from the other daemons on the database; over the
      // server, whose address the others reach this one at.
      Layer.provide(Relay.layer(worker).pipe(Layer.provide(internalUrl))),
      Layer.provideMerge(NodeHttpServer.layer(() => nodeServer, {
        port: options.port,
        host: options.host,
        gracefulShutdownTimeout: `${shutdownTimeoutSeconds} seconds`,
        // Before any token or key is checked, a WebSocket frame is refused above 1 MiB (ws's
        // default lets 100 MiB in): media frames are a few hundred bytes, agent commands a few KB.
        websocket: { maxPayload: 1024 * 1024 }
      }))
    )
  const dialer = options.dialer
    ? Layer.unwrap(Effect.gen(function*() {
      // The media endpoint of this daemon, at the address it listens on (unless a public URL
      // says where carriers reach it).
      const server = yield* HttpServer.HttpServer
      const own = `${HttpServer.formatAddress(server.address).replace(/^http/, "ws")}${Media.path}`
      return Dialer.layer(worker, (yield* Dialer.publicMediaUrl) ?? own)
    }))
    : Dialer.none.pipe(Layer.tap(() => Effect.logInfo("Dialer off (--no-dialer): this process serves the API only")))
  // Build order: storage, then the carrier over it, then the API, the webhook worker and the
  // dialer. Release runs in reverse: the dialer stops claiming and drains its calls, then the
  // webhook worker finishes its attempts in flight, before the database closes.
  // Draining first on release: `/readyz` answers 503 while the rest shuts down.
  return Layer.merge(Ready.layer(log, shutdownTimeoutSeconds, options.workerSlot), Health.drainOnShutdown).pipe(
    Layer.provide(dialer),
    Layer.provide(Webhooks.layer),
    Layer.provide(Inbound.announce),
    Layer.provideMerge(http),
    // The agent of each call whose media session runs here.
    Layer.provide(Media.agent),
    // Inbound calls (carriers' webhooks, the admin API's simulated ones) and the reference SDK's
    // create-outbound calls stream to the media endpoint.
    Layer.provideMerge(DirectCalls.layer),
    Layer.provideMerge(Inbound.layer),
    Layer.provideMerge(Inbound.mediaEndpoint),
    // SDK agents (the reference SDK's sockets): the engine offers them calls before placing
    // or answering them.
    Layer.provideMerge(SdkAgents.layer),
    // Metrics: the calls, the carrier, providers and recordings, counted at their ports.
    Layer.provideMerge(Instruments.ports),
    Layer.provideMerge(Traces.callPorts),
    Layer.provideMerge(Carrier.layerConfig.pipe(Layer.provide(Media.connector))),
    // The tasks SDK agents set, for the simulated person (below both: the carrier reads them).
    Layer.provideMerge(SdkAgentTasks.layer),
    // Recordings: written by the media sessions, read by the API, and finalized by the recovery
    // of lost calls (the dialer's and the inbound sweep's).
    Layer.provideMerge(Recordings.layer(options.dataDir)),
    Layer.provideMerge(DemoSeed.layer.pipe(Layer.provideMerge(storage))),
    Layer.provideMerge(ModelProxy.layer),
    Layer.provideMerge(ProviderConfig.layer),
    Layer.provideMerge(Health.Draining.layer),
    // What the SIP carrier waits for (Sip.ts), shared by the carrier and `Sip.bind`.
    Layer.provideMerge(Sip.bindings),
    Layer.provide(AdminToken.layerConfig)
  )
}

/**
 * Runs the daemon until interrupted (SIGTERM/SIGINT through `NodeRuntime.runMain`).
 *
 * @category constructors
 */
export const serve = (options: ServeOptions, log: Logging.LogSettings) =>
  Logging.stackTraces(log).pipe(
    // The settings first: a wrong one stops serve at once, before the database opens.
    Effect.andThen(Effect.all([Carrier.choice, Instruments.settings, Traces.settings])),
    Effect.andThen(Layer.launch(layer(options, log))),
    Effect.onInterrupt(() => Effect.logInfo("Stopped")),
    Traces.around,
    // A worker process's lines say which worker said them.
    Option.isSome(options.workerSlot) ? Effect.annotateLogs({ worker_slot: options.workerSlot.value }) : identity,
    Effect.provide(Logging.layer(log))
  )

/**
 * `voice-agent dial`: the dial loop alone (storage, carrier, dialer; no HTTP), until
 * interrupted. Several may run on one PostgreSQL beside `serve --no-dialer` processes. Not with
 * the SIP carrier, whose calls' media runs in the process that dials (Sip.ts): it has no agent.
 *
 * @category constructors
 */
export const dial = (options: { readonly dataDir: string }, log: Logging.LogSettings) => {
  const worker = Dialer.workerId()
  const noSip = Effect.flatMap(Carrier.choice, (chosen) =>
    chosen._tag === "sip"
      ? Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({
            message: "VOICE_AGENT_CARRIER=sip runs in voice-agent serve only: a SIP call's media is served " +
              "by the process that dials it, and voice-agent dial has no agent (docs/SIP.md)"
          })
        )
      )
      : Effect.void)
  // Without a public URL no carrier can reach a media endpoint: calls go without media.
  const program = Layer.unwrap(Effect.map(Dialer.publicMediaUrl, (url) =>
    Dialer.layer(worker, url).pipe(
      Layer.provide(
        url === undefined ? Carrier.layerConfig : Carrier.layerConfig.pipe(Layer.provide(Media.connector))
      )
    ))).pipe(
      Layer.tap(() => Effect.logInfo(`Dialer ${worker} running (no HTTP API in this process)`)),
      Layer.provide(Storage.layer(options.dataDir))
    )
  return Logging.stackTraces(log).pipe(
    Effect.andThen(noSip),
    Effect.andThen(Layer.launch(program.pipe(Layer.provide(Sip.bindings)))),
    Effect.onInterrupt(() => Effect.logInfo("Stopped")),
    Traces.around,
    Effect.provide(Logging.layer(log))
  )
}
