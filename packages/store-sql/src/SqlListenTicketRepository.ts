/**
 * ListenTicketRepository on SQL (table `listen_tickets`, migration 0014).
 *
 * Owns: the ticket format (`lt_` + 32 random bytes, base64url) and its storage as a SHA-256
 * hex digest, like API keys (SqlApiKeyRepository): 256 random bits leave nothing to
 * brute-force, so a fast hash is the right one, and every look-up is one probe of the primary
 * key. The hash the index compares is of the presented ticket, which an attacker cannot steer
 * towards a stored one, so how long the comparison takes tells nothing.
 *
 * Why rows, not a ticket signed with the installation's key: one use has to be recorded
 * somewhere every daemon sees anyway, and a row gives expiry, the call and the one use in a
 * single conditional `DELETE` (see the migration). Issue prunes the expired rows in the same
 * statement.
 *
 * @since 0.1.0
 */
import { ListenTicketRepository } from "@voice-agent/core/ports/ListenTicketRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { isStorableText } from "./internal/ids.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * Prefix of every listen ticket, so a leaked one is recognizable.
 *
 * @category constructors
 */
export const ticketPrefix = "lt_"

const hashTicket = (ticket: string): string => createHash("sha256").update(ticket, "utf8").digest("hex")

const generateTicket = (): string => ticketPrefix + randomBytes(32).toString("base64url")

const Use = Schema.Struct({ ticketHash: Schema.String, callId: Schema.String, now: Schema.Date })

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Inserts only for the organization's call that has not ended: anything else is "no row".
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({
      ticketHash: Schema.String,
      organizationId: Schema.String,
      callId: Schema.String,
      expiresAt: Schema.Date,
      now: Schema.Date
    }),
    Result: Schema.Struct({ expiresAt: Schema.Date }),
    execute: ({ callId, expiresAt, now, organizationId, ticketHash }) =>
      sql`
        WITH pruned AS (DELETE FROM listen_tickets WHERE expires_at <= ${now})
        INSERT INTO listen_tickets (ticket_hash, call_id, expires_at)
        SELECT ${ticketHash}, c.call_id, ${expiresAt} FROM conversations c
        WHERE c.call_id = ${callId} AND c.organization_id = ${organizationId} AND c.ended_at IS NULL
        RETURNING expires_at AS "expiresAt"`
  })

  const findLive = SqlSchema.findOneOption({
    Request: Use,
    Result: Schema.Struct({ organizationId: Schema.String }),
    execute: ({ callId, now, ticketHash }) =>
      sql`
        SELECT c.organization_id::text AS "organizationId"
        FROM listen_tickets t JOIN conversations c ON c.call_id = t.call_id
        WHERE t.ticket_hash = ${ticketHash} AND t.call_id = ${callId} AND t.expires_at > ${now}`
  })

  const deleteLive = SqlSchema.findOneOption({
    Request: Use,
    Result: Schema.Struct({ callId: Schema.String }),
    execute: ({ callId, now, ticketHash }) =>
      sql`
        DELETE FROM listen_tickets
        WHERE ticket_hash = ${ticketHash} AND call_id = ${callId} AND expires_at > ${now}
        RETURNING call_id AS "callId"`
  })

  return ListenTicketRepository.of({
    issue: Effect.fn("ListenTicketRepository.issue")(
      function*(input) {
        if (!isUuid(input.organizationId) || !isStorableText(input.callId)) return Option.none()
        const ticket = generateTicket()
        const row = yield* insert({ ...input, ticketHash: hashTicket(ticket) })
        return Option.map(row, ({ expiresAt }) => ({ ticket, expiresAt }))
      },
      orDieInfrastructure
    ),
    check: Effect.fn("ListenTicketRepository.check")(
      function*({ callId, now, ticket }) {
        if (!isStorableText(callId)) return Option.none()
        const row = yield* findLive({ ticketHash: hashTicket(ticket), callId, now })
        return Option.map(row, ({ organizationId }) => organizationId)
      },
      orDieInfrastructure
    ),
    redeem: Effect.fn("ListenTicketRepository.redeem")(
      function*({ callId, now, ticket }) {
        if (!isStorableText(callId)) return false
        return Option.isSome(yield* deleteLive({ ticketHash: hashTicket(ticket), callId, now }))
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(ListenTicketRepository, make)
