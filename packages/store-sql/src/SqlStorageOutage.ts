/**
 * A database that cannot be reached now, as its errors say it (effect/sql's `SqlError` and
 * PostgreSQL's SQLSTATEs): one rule for the daemon (what work of a call in progress may wait for
 * the database to come back) and, through core's `StorageOutage` port, the HTTP API (answered 503
 * rather than 500 meanwhile).
 *
 * @since 0.1.0
 */
import { StorageOutage } from "@voice-agent/core/ports/StorageOutage"
import { Cause, Layer } from "effect"
import { SqlError } from "effect/sql"

/**
 * SQLSTATEs of a server going away or not back yet: `admin_shutdown` (57P01: `pg_ctl stop -m
 * fast` ends every session with it), `crash_shutdown` (57P02), `cannot_connect_now` (57P03:
 * starting up or recovering).
 */
const unavailableStates: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03"])

/**
 * True for an error that says the database cannot be reached now, rather than that a statement
 * is wrong: a connection that could not be opened or was lost (`ConnectionError`), or a server
 * shutting down or starting up. Repositories turn every SQL error into a defect (ports carry no
 * infrastructure errors); work that can wait for the database to come back (a call's events
 * and end, its transcript) retries on these, and only these.
 *
 * A statement in flight when its connection was lost may still have committed (the server may
 * have committed and died before answering): retry only what is idempotent or checks its own
 * preconditions again.
 *
 * @category guards
 */
export const isUnavailable = (error: unknown): boolean => {
  if (!SqlError.isSqlError(error)) return false
  const reason = error.reason
  if (reason._tag === "ConnectionError") return true
  if (reason._tag !== "UnknownError") return false
  const code = (reason.cause as { readonly code?: unknown } | null | undefined)?.code
  return typeof code === "string" && unavailableStates.has(code)
}

/**
 * True for a cause made only of {@link isUnavailable} failures and defects (not an
 * interruption, not an empty cause).
 *
 * @category guards
 */
export const isUnavailableCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.length > 0 &&
  cause.reasons.every((reason) =>
    Cause.isFailReason(reason)
      ? isUnavailable(reason.error)
      : Cause.isDieReason(reason)
      ? isUnavailable(reason.defect)
      : false
  )

/**
 * The `StorageOutage` port on SQL.
 *
 * @category layers
 */
export const layer: Layer.Layer<StorageOutage> = Layer.succeed(StorageOutage, StorageOutage.of({ isUnavailableCause }))
