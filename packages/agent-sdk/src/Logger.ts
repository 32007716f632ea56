/**
 * Where the SDK reports what it does: connections, calls, handler failures. Pass your own
 * (pino, winston and console all fit the shape) or use `stderrLogger` / `silentLogger`.
 *
 * @since 0.1.0
 */
import { formatWithOptions } from "node:util"

export interface Logger {
  readonly debug: (message: string, ...details: ReadonlyArray<unknown>) => void
  readonly info: (message: string, ...details: ReadonlyArray<unknown>) => void
  readonly warn: (message: string, ...details: ReadonlyArray<unknown>) => void
  readonly error: (message: string, ...details: ReadonlyArray<unknown>) => void
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent"

const ranks: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 }

const isLogLevel = (value: string | undefined): value is LogLevel => value !== undefined && value in ranks

/** Discards everything. */
export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

/**
 * One line per record on standard error, `<ISO time> <LEVEL> [<scope>] <message> <details>`,
 * for records at `level` or above.
 */
export const stderrLogger = (level: LogLevel = "info", scope = "agent-sdk"): Logger => {
  const write =
    (recordLevel: Exclude<LogLevel, "silent">) => (message: string, ...details: ReadonlyArray<unknown>): void => {
      if (ranks[recordLevel] < ranks[level]) return
      const text = formatWithOptions({ colors: false, breakLength: Infinity }, message, ...details)
      process.stderr.write(`${new Date().toISOString()} ${recordLevel.toUpperCase().padEnd(5)} [${scope}] ${text}\n`)
    }
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") }
}

/**
 * The logger used when none is given: `stderrLogger` at `VOICE_AGENT_LOG_LEVEL` (debug, info,
 * warn, error, silent), `info` when unset or unknown.
 */
export const defaultLogger = (env: NodeJS.ProcessEnv = process.env): Logger => {
  const level = env["VOICE_AGENT_LOG_LEVEL"]?.toLowerCase()
  return stderrLogger(isLogLevel(level) ? level : "info")
}
