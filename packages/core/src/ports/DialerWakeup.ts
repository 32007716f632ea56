/**
 * Port that wakes the dial loops at once when something may have made a contact callable: an
 * upload, a campaign resumed or changed, a call that ended. On PostgreSQL it reaches every
 * daemon sharing the database (LISTEN/NOTIFY); on the embedded database, the one process.
 * A wake-up carries nothing: the loop looks for itself. Missing one only delays a dial until
 * the loop's own timer.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Scope, Stream } from "effect"

/**
 * @category services
 */
export class DialerWakeup extends Context.Service<DialerWakeup, {
  /** Wakes every dial loop (after the caller's transaction has committed). */
  readonly notify: Effect.Effect<void>
  /** One element per wake-up received while the scope is open. */
  readonly wakeups: Effect.Effect<Stream.Stream<void>, never, Scope.Scope>
}>()("@voice-agent/core/ports/DialerWakeup") {}
