/**
 * Storage port for listen tickets (docs/LISTEN.md): a short-lived,
 * one-use credential for one call's live-listen WebSocket, for clients that cannot send an
 * `Authorization` header on an upgrade (browsers). Tickets are stored as hashes only; the
 * plaintext exists once, in the answer to `issue`. They live in the database every daemon
 * shares, so a ticket issued by one daemon is good on any other, and its one use holds
 * across all of them.
 *
 * Instants are the caller's (its `Clock`), so expiry follows the clock tests drive.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"

/**
 * @category models
 */
export interface IssuedListenTicket {
  /** The plaintext ticket: shown to the caller once, never stored. */
  readonly ticket: string
  readonly expiresAt: Date
}

/**
 * @category services
 */
export class ListenTicketRepository extends Context.Service<ListenTicketRepository, {
  /**
   * A ticket for the organization's call `callId`, good until `expiresAt`; none when the call
   * is not the organization's or has ended. Tickets expired at `now` are pruned.
   */
  readonly issue: (input: {
    readonly organizationId: string
    readonly callId: string
    readonly expiresAt: Date
    readonly now: Date
  }) => Effect.Effect<Option.Option<IssuedListenTicket>>
  /** The organization whose ticket `ticket` is good for `callId` at `now`, leaving it unused. */
  readonly check: (input: {
    readonly ticket: string
    readonly callId: string
    readonly now: Date
  }) => Effect.Effect<Option.Option<string>>
  /**
   * Uses the ticket up: true for the one request, on any daemon, that finds it still good for
   * `callId` at `now`; false for every other (used, expired, another call's, not a ticket).
   */
  readonly redeem: (input: {
    readonly ticket: string
    readonly callId: string
    readonly now: Date
  }) => Effect.Effect<boolean>
}>()("@voice-agent/core/ports/ListenTicketRepository") {}
