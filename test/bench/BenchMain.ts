/**
 * How a bench process runs its program: as the daemon runs (errors only in the logs, traces
 * off), then exits with 0 once `onDone` has had the result (by default at once), or with 1 and
 * the error on standard error when it failed.
 */
import { Effect, References } from "effect"
import type { Scope } from "effect"

export const runMain = <A>(
  program: Effect.Effect<A, unknown, Scope.Scope>,
  onDone: (result: A, exit: () => void) => void = (_, exit) => exit()
): void => {
  Effect.runPromise(
    program.pipe(
      Effect.scoped,
      Effect.provideService(References.MinimumLogLevel, "Error"),
      // As the daemon runs at its default log level (daemon/src/Logging.ts, Server.ts).
      Effect.provideService(References.TracerEnabled, false)
    )
  ).then(
    (result) => onDone(result, () => process.exit(0)),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
}
