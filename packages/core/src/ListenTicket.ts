/**
 * Listen tickets (docs/LISTEN.md): `POST /v1/conversations/{call_id}/listen-tickets` answers
 * `201 {ticket, expires_at}`, a credential for one live-listen upgrade of that call
 * (`GET /v1/conversations/{call_id}/listen?channel=...&ticket=<ticket>`, no header) within
 * {@link ttlMs}. A call that has not ended may have one, ringing included; an ended, unknown or
 * another organization's call is 404.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { ConversationNotFound } from "./Errors.ts"
import { ListenTicketRepository } from "./ports/ListenTicketRepository.ts"
import { fromMillis, toIso } from "./Time.ts"

/**
 * How long a ticket is good for, from its issue.
 *
 * @category constructors
 */
export const ttlMs = 60_000

/**
 * The answer to a ticket request.
 *
 * @category schemas
 */
export const ListenTicket = Schema.Struct({
  ticket: Schema.String.annotate({
    description: "Pass as `ticket` to GET /v1/conversations/{call_id}/listen: good for one upgrade of this call"
  }),
  expires_at: Schema.String.annotate({ description: "ISO 8601 instant after which the ticket is refused (401)" })
}).annotate({ identifier: "ListenTicket" })

/**
 * @category models
 */
export type ListenTicket = typeof ListenTicket.Type

/**
 * @category services
 */
export class ListenTickets extends Context.Service<ListenTickets, {
  /** A ticket for the organization's call `callId`, if it has not ended. */
  readonly issue: (organizationId: string, callId: string) => Effect.Effect<ListenTicket, ConversationNotFound>
}>()("@voice-agent/core/ListenTicket/ListenTickets") {
  static readonly layer = Layer.effect(
    ListenTickets,
    Effect.gen(function*() {
      const tickets = yield* ListenTicketRepository
      return ListenTickets.of({
        issue: Effect.fn("ListenTickets.issue")(function*(organizationId: string, callId: string) {
          const now = yield* Clock.currentTimeMillis
          const issued = yield* tickets.issue({
            organizationId,
            callId,
            expiresAt: fromMillis(now + ttlMs),
            now: fromMillis(now)
          })
          if (Option.isNone(issued)) return yield* new ConversationNotFound({ callId })
          return { ticket: issued.value.ticket, expires_at: toIso(issued.value.expiresAt) }
        })
      })
    })
  )
}
