/**
 * How the daemon and the CLI log: one line per event, JSON lines with `LOG_FORMAT=json`,
 * text otherwise; the minimum level from `LOG_LEVEL` (`error`, `warn`, `info` (default),
 * `debug`, `trace`; any case) or the global `--log-level` flag. `serve` logs to standard
 * output; the admin commands log to standard error and print only their result on standard
 * output.
 *
 * Per-request access logging is off unless the level is `debug` or lower: Effect's request
 * logger costs about 60% of the server's throughput (measured: 45k requests/s without it,
 * 17k with it, on a trivial route).
 *
 * JavaScript stack traces likewise (`serve` and `dial`, {@link stackTraces}): above `debug` a
 * failure is logged with its message and the chain of service calls it went through
 * (`at CampaignService.get` …, the names of `Effect.fn`), without file positions. Effect
 * captures a call-site stack on every `Effect.fn` call in case one fails, and that costs about
 * 13% of a simple API request's throughput (`GET /v2/campaigns/{code}`: 3,300 requests/s with
 * traces, 3,800 without, `npm run bench`).
 *
 * @since 0.1.0
 */
import { Cause, Config, ConfigProvider, Effect, Formatter, Layer, Logger, References } from "effect"
import type { LogLevel } from "effect"

/**
 * @category models
 */
export interface LogSettings {
  readonly format: "text" | "json"
  readonly level: LogLevel.LogLevel
}

const levels: Record<string, LogLevel.LogLevel> = {
  none: "None",
  fatal: "Fatal",
  error: "Error",
  warn: "Warn",
  warning: "Warn",
  info: "Info",
  debug: "Debug",
  trace: "Trace",
  all: "All"
}

const invalid = (message: string) => Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))

/**
 * `LOG_FORMAT` (`text` or `json`) and `LOG_LEVEL` (`info` when unset; the CLI's global
 * `--log-level` flag overrides it for one run).
 *
 * @category constructors
 */
export const settings: Config.Config<LogSettings> = Config.all({
  format: Config.String("LOG_FORMAT").pipe(
    Config.withDefault("text"),
    Config.mapEffect((s) => {
      const format = s.trim().toLowerCase()
      return format === "json" || format === "text"
        ? Effect.succeed<LogSettings["format"]>(format)
        : invalid(`LOG_FORMAT must be "text" or "json", not ${JSON.stringify(s)}`)
    })
  ),
  level: Config.String("LOG_LEVEL").pipe(
    Config.withDefault("info"),
    Config.mapEffect((s) => {
      const level = levels[s.trim().toLowerCase()]
      return level === undefined
        ? invalid(`LOG_LEVEL must be one of ${Object.keys(levels).join(", ")}, not ${JSON.stringify(s)}`)
        : Effect.succeed(level)
    })
  )
})

/**
 * True when per-request access lines should be written.
 *
 * @category guards
 */
export const logsRequests = (s: LogSettings): boolean => s.level === "Debug" || s.level === "Trace" || s.level === "All"

/**
 * True when failures are logged with their JavaScript stack traces (`debug` or lower).
 *
 * @category guards
 */
export const keepsStackTraces = (s: LogSettings): boolean => logsRequests(s)

/**
 * Turns the process's stack traces off above `debug` (see the module header). For the
 * daemon's own processes only: it sets `Error.stackTraceLimit`, which is global.
 *
 * @category constructors
 */
export const stackTraces = (s: LogSettings): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!keepsStackTraces(s)) Error.stackTraceLimit = 0
  })

const show = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Text lines: `2026-11-21T05:34:18.644Z INFO  message key=value`, one per event (a failure's
 * cause follows on the next lines).
 *
 * @category constructors
 */
export const formatText = Logger.make<unknown, string>(({ cause, date, fiber, logLevel, message }) => {
  const parts = [
    date.toISOString(),
    logLevel.toUpperCase().padEnd(5),
    ...(Array.isArray(message) ? message : [message]).map(show)
  ]
  for (const [key, value] of Object.entries(fiber.getRef(References.CurrentLogAnnotations))) {
    parts.push(`${key}=${show(value)}`)
  }
  const line = parts.join(" ")
  return cause.reasons.length > 0 ? `${line}\n${Cause.pretty(cause)}` : line
})

/**
 * JSON lines (Effect's structured format); a line logged inside a span that is exported (traces
 * on, docs/OPERATIONS.md) carries its `trace_id` and `span_id`, so logs and traces join up.
 *
 * @category encoding
 */
export const formatJson = Logger.make((options) => {
  const line = Logger.formatStructured.log(options)
  const span = options.fiber.cache.span
  return Formatter.formatJson(
    options.fiber.cache.tracer !== undefined && span?._tag === "Span" && span.sampled
      ? { ...line, trace_id: span.traceId, span_id: span.spanId }
      : line
  )
})

/**
 * The logger and minimum level of `s`. With `stderr`, every line goes to standard error
 * (the CLI keeps standard output for its results).
 *
 * @category layers
 */
export const layer = (s: LogSettings, options?: { readonly stderr?: boolean }): Layer.Layer<never> => {
  const format = s.format === "json" ? formatJson : formatText
  return Layer.mergeAll(
    Logger.layer([options?.stderr === true ? Logger.withConsoleError(format) : Logger.withConsoleLog(format)]),
    Layer.succeed(References.MinimumLogLevel, s.level)
  )
}
