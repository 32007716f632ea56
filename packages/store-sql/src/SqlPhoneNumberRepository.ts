/**
 * PhoneNumberRepository on SQL (table `phone_numbers`, keyed by the number: one owner each).
 *
 * @since 0.1.0
 */
import { OrganizationNotFound, PhoneNumberTaken } from "@voice-agent/core/Errors"
import type { E164 as E164Type } from "@voice-agent/core/PhoneNumber"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { isUniqueViolation, orDieInfrastructure } from "./internal/sqlErrors.ts"

const OwnedRow = Schema.Struct({
  organizationId: Schema.String,
  phoneNumber: E164,
  smsEnabled: Schema.Boolean
})

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(
    `organization_id::text AS "organizationId", phone_number AS "phoneNumber", sms_enabled AS "smsEnabled"`
  )

  // Inserts only when the organization exists: a missing one is "no row".
  const insert = SqlSchema.findOneOption({
    Request: OwnedRow,
    Result: OwnedRow,
    execute: (n) =>
      sql`
        INSERT INTO phone_numbers (phone_number, organization_id, sms_enabled)
        SELECT ${n.phoneNumber}, o.id, ${n.smsEnabled} FROM organizations o WHERE o.id = ${n.organizationId}
        RETURNING ${columns}`
  })

  const listByOrganization = SqlSchema.findAll({
    Request: Schema.String,
    Result: OwnedRow,
    execute: (organizationId) =>
      sql`SELECT ${columns} FROM phone_numbers WHERE organization_id = ${organizationId} ORDER BY phone_number`
  })

  const findOwnedAmong = SqlSchema.findAll({
    Request: Schema.Struct({ organizationId: Schema.String, phoneNumbers: Schema.Array(Schema.String) }),
    Result: OwnedRow,
    execute: ({ organizationId, phoneNumbers }) =>
      sql`
        SELECT ${columns} FROM phone_numbers
        WHERE organization_id = ${organizationId} AND phone_number = ANY(${phoneNumbers}::text[])
        ORDER BY phone_number`
  })

  const findByNumber = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: OwnedRow,
    execute: (phoneNumber) => sql`SELECT ${columns} FROM phone_numbers WHERE phone_number = ${phoneNumber}`
  })

  return PhoneNumberRepository.of({
    add: Effect.fn("PhoneNumberRepository.add")(
      function*(organizationId: string, number: { readonly phoneNumber: E164Type; readonly smsEnabled: boolean }) {
        const row = isUuid(organizationId)
          ? yield* insert({ organizationId, ...number }).pipe(
            Effect.catchIf(
              isUniqueViolation("phone_numbers_pkey"),
              () => Effect.fail(new PhoneNumberTaken({ phoneNumber: number.phoneNumber }))
            )
          )
          : Option.none()
        if (Option.isNone(row)) return yield* new OrganizationNotFound({ organizationId })
        return row.value
      },
      orDieInfrastructure
    ),
    list: Effect.fn("PhoneNumberRepository.list")(
      (organizationId: string) => isUuid(organizationId) ? listByOrganization(organizationId) : Effect.succeed([]),
      orDieInfrastructure
    ),
    findOwned: Effect.fn("PhoneNumberRepository.findOwned")(
      (organizationId: string, phoneNumbers: ReadonlyArray<E164Type>) =>
        isUuid(organizationId) && phoneNumbers.length > 0
          ? findOwnedAmong({ organizationId, phoneNumbers })
          : Effect.succeed([]),
      orDieInfrastructure
    ),
    findOwner: Effect.fn("PhoneNumberRepository.findOwner")(
      (phoneNumber: E164Type) => findByNumber(phoneNumber),
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(PhoneNumberRepository, make)
