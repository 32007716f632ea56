/**
 * The `voice-agent` command line: `serve` (the daemon, docs/DAEMON.md), the admin commands
 * (AdminCommands.ts, docs/ADMIN.md, against the database) and the campaign commands
 * (CampaignCommands.ts, ContactCommands.ts, CallCommands.ts, docs/CLI.md, clients of a running
 * daemon's HTTP API). Parsing, help and `--version` come from `effect/cli`.
 *
 * A usage error prints the command's help and the error on standard error (standard output
 * stays for results, so `--json` output is never mixed with help) and exits 2 (bin.ts).
 *
 * @since 0.1.0
 */
import { Console, Context, Effect, Layer, Option, References } from "effect"
import { CliOutput, Command, Flag, TerminalCapabilities } from "effect/cli"
import packageJson from "../package.json" with { type: "json" }
import { commands as adminCommands, dataDirFlag } from "./AdminCommands.ts"
import * as CallCommands from "./CallCommands.ts"
import * as CampaignCommands from "./CampaignCommands.ts"
import * as ContactCommands from "./ContactCommands.ts"
import * as Failures from "./Failures.ts"
import * as Logging from "./Logging.ts"

const serve = Command.make(
  "serve",
  {
    port: Flag.Int("port").pipe(
      Flag.withDescription("TCP port; 0 picks a free one (the ready line shows it)"),
      Flag.withDefault(8080)
    ),
    host: Flag.String("host").pipe(Flag.withDescription("Interface to listen on"), Flag.withDefault("127.0.0.1")),
    dataDir: dataDirFlag,
    dialer: Flag.Boolean("dialer").pipe(
      Flag.withDescription("Run the dialer in this process too (default on; --no-dialer serves the API alone)"),
      Flag.withDefault(true)
    ),
    workers: Flag.Int("workers").pipe(
      Flag.withDescription(
        "Worker processes, each a whole daemon on one port (default: the number of cores on PostgreSQL, " +
          "1 on the embedded database; VOICE_AGENT_WORKERS)"
      ),
      Flag.optional
    )
  },
  Effect.fn("cli.serve")(function*(options) {
    // LOG_LEVEL, or the global --log-level flag when given (it sets the minimum level here).
    return yield* Failures.forUser(Effect.gen(function*() {
      const log: Logging.LogSettings = { ...(yield* Logging.settings), level: yield* References.MinimumLogLevel }
      // Loaded here, not at the top: the admin commands then skip loading the HTTP application.
      const Workers = yield* Effect.promise(() => import("./Workers.ts"))
      const workerSlot = Workers.slot()
      const workers = Option.isSome(workerSlot) ? 1 : yield* Workers.count(options.workers)
      if (workers > 1) {
        return yield* Workers.supervise(workers, log).pipe(
          Effect.mapError((failed) => Failures.userError(`${failed.message}; its error is above`))
        )
      }
      const Server = yield* Effect.promise(() => import("./Server.ts"))
      return yield* Server.serve({ ...options, workerSlot }, log)
    }))
  })
).pipe(Command.withDescription("Run the HTTP API and the dialer in one process"))

const dial = Command.make(
  "dial",
  { dataDir: dataDirFlag },
  Effect.fn("cli.dial")(function*(options) {
    return yield* Failures.forUser(Effect.gen(function*() {
      const log: Logging.LogSettings = { ...(yield* Logging.settings), level: yield* References.MinimumLogLevel }
      const Server = yield* Effect.promise(() => import("./Server.ts"))
      return yield* Server.dial(options, log)
    }))
  })
).pipe(Command.withDescription("Run the dialer alone (no HTTP API), e.g. beside `serve --no-dialer` on one PostgreSQL"))

/**
 * @category constructors
 */
export const root = Command.make("voice-agent").pipe(
  Command.withDescription("voice-agent: a self-hostable voice-agent engine"),
  Command.withSubcommands([
    serve,
    dial,
    ...adminCommands,
    CampaignCommands.command,
    ContactCommands.command,
    CallCommands.command
  ])
)

/** effect/cli's presenter, with a usage error's help on standard error too. */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag !== "InvalidInvocation" ? CliOutput.defaultPresenter.present(event) : Effect.gen(function*() {
      const context = yield* Effect.context()
      const formatter = Context.getOrUndefined(context, CliOutput.Formatter) ??
        CliOutput.defaultFormatter({
          colors: Context.get(context, TerminalCapabilities.TerminalCapabilities).canColor
        })
      yield* Console.error(formatter.formatHelpDoc(event.helpDoc))
      yield* Console.error(formatter.formatErrors(event.errors))
    })
}

/**
 * Parses `args` (without the node and script paths) and runs the command. Logs go to standard
 * error, so that an admin command's standard output holds just its result; `serve` switches
 * them to standard output (and is the one that rejects a bad LOG_FORMAT or LOG_LEVEL).
 *
 * @category constructors
 */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(root, { version: packageJson.version })(args).pipe(
    Effect.provide(CliOutput.layerPresenter(presenter)),
    Effect.provide(Layer.unwrap(
      Effect.gen(function*() {
        return yield* Logging.settings
      }).pipe(
        Effect.orElseSucceed((): Logging.LogSettings => ({ format: "text", level: "Info" })),
        Effect.map((log) => Logging.layer(log, { stderr: true }))
      )
    ))
  )
