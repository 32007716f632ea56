/**
 * The failures a user can cause and fix (a data directory in use, a port in use, a bad
 * setting, an unknown id), turned into one sentence that `effect/cli` prints on standard error
 * before the process exits 1. Anything else stays a reported failure with its cause.
 *
 * @since 0.1.0
 */
import { ApiKeyNotFound, OrganizationNotFound, PhoneNumberTaken } from "@voice-agent/core/Errors"
import { DataDirLocked, DataDirUnavailable } from "@voice-agent/store-sql/DataDirLock"
import { Config, ConfigProvider, Effect } from "effect"
import { CliError } from "effect/cli"
import { ServeError } from "effect/http/HttpServerError"

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
