/**
 * `serve --workers N` (docs/DAEMON.md; why processes, docs/PERFORMANCE.md "Every core"): the
 * daemon on N event loops, one per worker process, all on one PostgreSQL.
 *
 * The primary process runs nothing of the daemon itself: it starts N workers (`node:cluster`),
 * each a whole daemon (`serve` again, with its own dialer, media sessions, webhook worker and
 * id), which share the listening port (the primary accepts connections and hands them round to
 * the workers). A call's media session, its agent and its recordings stay in the worker its
 * media stream reached; the API, the dialers and live listen work between workers as between
 * daemons (the database coordinates them; a listener reaches a call in another worker through
 * the relay, for which each worker also listens on a port of its own, `privateListener`).
 *
 * - Ready: once every worker is, the primary says the one ready line.
 * - A worker that dies is logged and started again (after 1 s, doubling to 30 s while the new
 *   one dies before it is ready). A worker that dies before it was ever ready stops them all:
 *   `serve` exits 1 (its error is on standard error).
 * - SIGTERM or SIGINT: every worker is sent SIGTERM at once and drains as a daemon does (calls
 *   up to 30 s, requests up to 10 s); the primary exits 0 when all have, and kills one still
 *   running after `stopTimeoutSeconds`.
 *
 * The embedded database (PGlite) is one process: there `--workers` is 1, the default, and
 * `serve` runs in its own process as it always did.
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Data, Deferred, Duration, Effect, Layer, Option, Redacted } from "effect"
import cluster from "node:cluster"
import type { Worker } from "node:cluster"
import type * as Http from "node:http"
import * as Net from "node:net"
import { availableParallelism } from "node:os"
import * as Logging from "./Logging.ts"
import * as Ready from "./Ready.ts"
import * as Relay from "./Relay.ts"

/** The environment variable that tells a worker its slot (1 to N). */
const slotVariable = "VOICE_AGENT_WORKER_SLOT"

/**
 * How long the primary waits for a worker to drain before it kills it: the daemon's drain of
 * calls (30 s) and of requests (10 s), and some.
 *
 * @category constructors
 */
export const stopTimeoutSeconds = 60

const configError = (message: string) => new Config.ConfigError(new ConfigProvider.SourceError({ message }))

/**
 * How many worker processes: `--workers` (`flag`), else `VOICE_AGENT_WORKERS`, else the number of
 * cores on PostgreSQL (`DATABASE_URL`) and 1 on the embedded database, which refuses more. The
 * SIP carrier (`VOICE_AGENT_CARRIER=sip`) runs in one process, so there the default is 1 and more
 * is refused: its UDP socket, shared by the workers, would hand a dialog's requests and RTP to any
 * of them, not the one holding the call (Sip.ts).
 *
 * @category constructors
 */
export const count = (flag: Option.Option<number>): Effect.Effect<number, Config.ConfigError> =>
  Effect.gen(function*() {
    const given = Option.isSome(flag) ? flag : yield* Config.option(Config.Int("VOICE_AGENT_WORKERS"))
    const databaseUrl = yield* Config.option(Config.Redacted("DATABASE_URL"))
    const postgres = Option.isSome(Option.filter(databaseUrl, (url) => Redacted.value(url).trim() !== ""))
    const carrier = yield* Config.option(Config.String("VOICE_AGENT_CARRIER"))
    const sip = Option.getOrElse(carrier, () => "").trim().toLowerCase() === "sip"
    if (Option.isNone(given)) return postgres && !sip ? availableParallelism() : 1
    if (given.value < 1) return yield* Effect.fail(configError(`--workers must be at least 1, not ${given.value}`))
    if (given.value > 1 && sip) {
      return yield* Effect.fail(
        configError(
          `--workers ${given.value} cannot run VOICE_AGENT_CARRIER=sip: a SIP call's dialog and RTP live in the ` +
            "one process that holds the SIP socket (use --workers 1, docs/SIP.md)"
        )
      )
    }
    if (given.value > 1 && !postgres) {
      return yield* Effect.fail(
        configError(`--workers ${given.value} needs PostgreSQL (DATABASE_URL): the embedded database is one process`)
      )
    }
    return given.value
  })

/**
 * This process's slot when it is a worker of `serve --workers`.
 *
 * @category constructors
 */
export const slot = (): Option.Option<number> =>
  cluster.isWorker ? Option.some(Number(process.env[slotVariable] ?? cluster.worker?.id ?? 1)) : Option.none()

/**
 * A worker's own listener, which the other workers and daemons reach it at (the shared port
 * reaches any worker): on the host of `VOICE_AGENT_INTERNAL_URL` (default `127.0.0.1`), at the
 * URL's port plus `slot` − 1 when it names one, else a port the system picks. Its connections
 * are served by the worker's HTTP server (`server`), every route included.
 *
 * @category layers
 */
export const privateListener = (
  server: Http.Server,
  slot: number
): Layer.Layer<Relay.InternalUrl, Config.ConfigError> =>
  Layer.effect(
    Relay.InternalUrl,
    Effect.gen(function*() {
      const setting = yield* Relay.internalUrlSetting
      const base = new URL(Option.getOrElse(setting, () => "http://127.0.0.1"))
      const port = base.port === "" || base.port === "0" ? 0 : Number(base.port) + slot - 1
      const host = base.hostname.replace(/^\[(.*)\]$/, "$1")
      const listener = Net.createServer((socket) => server.emit("connection", socket))
      const bound = yield* Effect.acquireRelease(
        Effect.callback<number, Config.ConfigError>((resume) => {
          listener.once("error", (error) =>
            resume(Effect.fail(configError(`worker ${slot} cannot listen on ${host}:${port}: ${error.message}`))))
          listener.listen({ host, port, exclusive: true }, () => {
            resume(Effect.succeed((listener.address() as Net.AddressInfo).port))
          })
        }),
        () =>
          Effect.callback<void>((resume) => {
            listener.close(() =>
              resume(Effect.void)
            )
          })
      )
      return `${base.protocol}//${base.hostname}:${bound}`
    })
  )

/**
 * A worker that exited before it was ever ready.
 *
 * @category errors
 */
export class WorkerFailed extends Data.TaggedError("WorkerFailed")<{ readonly message: string }> {}

interface Exit {
  readonly code: number | null
  readonly signal: string | null
}

const describeExit = ({ code, signal }: Exit) => signal !== null ? `signal ${signal}` : `code ${code}`

/** A started worker: the URL it says when ready, and its exit. Stopped (SIGTERM, then SIGKILL) with the scope. */
const fork = (slot: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const worker: Worker = cluster.fork({ [slotVariable]: String(slot) })
      const ready = Deferred.makeUnsafe<string>()
      const exited = Deferred.makeUnsafe<Exit>()
      worker.on("message", (message: { readonly type?: unknown; readonly url?: unknown }) => {
        if (message?.type === Ready.workerReady && typeof message.url === "string") {
          Deferred.doneUnsafe(ready, Effect.succeed(message.url))
        }
      })
      // The IPC channel may fail as the worker dies; its exit says what happened.
      worker.on("error", () => {})
      worker.once("exit", (code, signal) => Deferred.doneUnsafe(exited, Effect.succeed({ code, signal })))
      return { worker, pid: worker.process.pid, ready: Deferred.await(ready), exited: Deferred.await(exited) }
    }),
    ({ exited, pid, worker }) =>
      Effect.gen(function*() {
        if (worker.isDead()) return
        worker.process.kill("SIGTERM")
        const stopped = yield* Effect.timeoutOption(exited, Duration.seconds(stopTimeoutSeconds))
        if (Option.isNone(stopped)) {
          yield* Effect.logWarning(`Worker pid ${pid} still running after ${stopTimeoutSeconds} s: killed`)
          worker.process.kill("SIGKILL")
          yield* exited
        }
      })
  )

/**
 * One worker slot, for as long as the primary runs: its worker, started again whenever it
 * dies. `firstReady` gets the URL of the slot's first worker to be ready; a slot whose first
 * worker dies before that fails.
 */
const runSlot = (slot: number, firstReady: Deferred.Deferred<string>) =>
  Effect.gen(function*() {
    let backoffMs = 1_000
    while (true) {
      const { exit, pid, wasReady } = yield* Effect.scoped(Effect.gen(function*() {
        const started = yield* fork(slot)
        yield* Effect.logInfo(`Worker ${slot} started (pid ${started.pid})`)
        const first = yield* Effect.raceFirst(Effect.asSome(started.ready), Effect.as(started.exited, Option.none()))
        if (Option.isSome(first)) yield* Deferred.succeed(firstReady, first.value)
        return { exit: yield* started.exited, pid: started.pid, wasReady: Option.isSome(first) }
      }))
      if (!wasReady && !(yield* Deferred.isDone(firstReady))) {
        return yield* new WorkerFailed({
          message: `Worker ${slot} (pid ${pid}) exited with ${describeExit(exit)} before it was ready`
        })
      }
      backoffMs = wasReady ? 1_000 : Math.min(backoffMs * 2, 30_000)
      yield* Effect.logWarning(
        `Worker ${slot} (pid ${pid}) exited with ${describeExit(exit)}; starting another in ${backoffMs / 1000} s`
      )
      yield* Effect.sleep(backoffMs)
    }
  })

/**
 * The primary process: `workers` worker processes until interrupted (SIGTERM/SIGINT), then
 * every one drained.
 *
 * @category constructors
 */
export const supervise = (workers: number, log: Logging.LogSettings): Effect.Effect<void, WorkerFailed> =>
  Effect.gen(function*() {
    yield* Effect.logInfo(
      `Starting ${workers} worker processes on one port (SDK agents need every call in one process: ` +
        "use --workers 1 for them, docs/REMOTE_AGENTS.md)"
    )
    const ready = Array.from({ length: workers }, () => Deferred.makeUnsafe<string>())
    const announced = Effect.forEach(ready, Deferred.await).pipe(
      Effect.flatMap((urls) => Ready.announce(urls[0]!, log, `${workers} worker processes; `))
    )
    yield* Effect.all(
      [Effect.forEach(ready, (deferred, i) => runSlot(i + 1, deferred), { concurrency: "unbounded" }), announced],
      { concurrency: "unbounded", discard: true }
    )
  }).pipe(
    Effect.onInterrupt(() => Effect.logInfo("Stopped")),
    Effect.provide(Logging.layer(log))
  )
