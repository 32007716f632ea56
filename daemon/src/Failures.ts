/**
 * The failures a user can cause and fix (a data directory in use, a port in use, a bad
 * setting, an unknown id), turned into one sentence that `effect/cli` prints on standard error
 * before the process exits 1. Anything else stays a reported failure with its cause.
 *
 * Usage errors (a missing argument or flag, an unknown command or flag, a value of the wrong
 * kind; docs/CLI.md) exit 2 instead: {@link isUsageFailure}.
 *
 * @since 0.1.0
 */
import { ApiKeyNotFound, OrganizationNotFound, PhoneNumberTaken } from "@voice-agent/core/Errors"
import { DataDirLocked, DataDirUnavailable } from "@voice-agent/store-sql/DataDirLock"
import { Cause, Config, ConfigProvider, Data, Effect, Option } from "effect"
import { CliError } from "effect/cli"
import { ServeError } from "effect/http/HttpServerError"
import type { PlatformError } from "effect/PlatformError"

/**
 * @category models
 */
export type Expected =
  | DataDirLocked
  | DataDirUnavailable
  | OrganizationNotFound
  | ApiKeyNotFound
  | PhoneNumberTaken
  | ServeError
  | Config.ConfigError

const isExpected = (error: unknown): error is Expected =>
  error instanceof DataDirLocked || error instanceof DataDirUnavailable || error instanceof OrganizationNotFound ||
  error instanceof ApiKeyNotFound || error instanceof PhoneNumberTaken || error instanceof ServeError ||
  error instanceof Config.ConfigError

const adminApiHint = "For example: curl -X POST -H \"Authorization: Bearer $VOICE_AGENT_ADMIN_TOKEN\" " +
  "-H \"Content-Type: application/json\" -d '{\"name\":\"acme\"}' http://127.0.0.1:8080/admin/v1/organizations " +
  "(the daemon must run with VOICE_AGENT_ADMIN_TOKEN set)."

/**
 * The sentence for an expected failure.
 *
 * @category encoding
 */
export const describe = (error: Expected): string => {
  if (error instanceof Config.ConfigError) {
    return `Invalid setting: ${error.cause instanceof ConfigProvider.SourceError ? error.cause.message : error.message}`
  }
  switch (error._tag) {
    case "OrganizationNotFound":
      return `No organization with id ${error.organizationId}`
    case "ApiKeyNotFound":
      return `No live API key with id ${error.keyId} in this organization`
    case "PhoneNumberTaken":
      return `The number ${error.phoneNumber} is already registered`
    case "DataDirLocked":
      return `${error.message}\n${adminApiHint}`
    case "DataDirUnavailable":
      return error.message
    case "ServeError":
      return `Cannot listen: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}. ` +
        "Pick another --port or --host."
  }
}

/**
 * Expected failures of `effect` become a `CliError.UserError` carrying their sentence.
 *
 * @category constructors
 */
export const forUser = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is E & Expected => isExpected(error),
    (error) => Effect.fail(new CliError.UserError({ userMessage: describe(error), cause: error }))
  )

/**
 * A `CliError.UserError` with `message`.
 *
 * @category constructors
 */
export const userError = (message: string) => new CliError.UserError({ userMessage: message, cause: message })

/**
 * A `CliError.UserError` (a failure whose sentence the user reads), as opposed to a defect.
 *
 * @category guards
 */
export const isUserError = (error: unknown): error is CliError.UserError => error instanceof CliError.UserError

/**
 * A usage error found by a command itself (a flag the parser cannot require, such as
 * `--accept-terms`): exit 2, like the parser's own.
 *
 * @category errors
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/**
 * A `CliError.UserError` with `message` that exits 2.
 *
 * @category constructors
 */
export const usageError = (message: string) =>
  new CliError.UserError({ userMessage: message, cause: new UsageError({ message }) })

/**
 * Whether a failed run failed on a usage error (exit 2): the parser's (shown with the command's
 * help) or a {@link usageError}.
 *
 * @category guards
 */
export const isUsageFailure = (cause: Cause.Cause<unknown>): boolean =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => false,
    onSome: (error) =>
      (CliError.isCliError(error) && error._tag === "ShowHelp") ||
      (isUserError(error) && error.cause instanceof UsageError)
  })

/**
 * What went wrong with a file, in a few words: "no such file", "permission denied", ...
 *
 * @category encoding
 */
export const fileProblem = (error: PlatformError): string => {
  const reason = error.reason
  if (reason._tag === "NotFound") return "no such file"
  if (reason._tag === "PermissionDenied") return "permission denied"
  return reason.description ?? reason.message
}
