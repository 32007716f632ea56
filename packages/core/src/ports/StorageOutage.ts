/**
 * Port that tells whether a failure means the storage cannot be reached now (a connection lost
 * or refused, a server shutting down or starting up) rather than that an operation is wrong.
 * What may wait for the storage to come back, or answer "try again shortly" (the HTTP API's
 * 503), asks it; the storage adapter knows its own errors (store-sql's `SqlStorageOutage`).
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Cause } from "effect"

/**
 * @category services
 */
export class StorageOutage extends Context.Service<StorageOutage, {
  /**
   * True for a cause made only of failures and defects that say the storage cannot be reached
   * now (not an interruption, not an empty cause).
   */
  readonly isUnavailableCause: (cause: Cause.Cause<unknown>) => boolean
}>()("@voice-agent/core/ports/StorageOutage") {}
