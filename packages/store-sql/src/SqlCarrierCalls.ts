/**
 * CarrierCalls on SQL: the carrier's id and duration of a call are columns of its conversation
 * (`carrier_call_id`, `carrier_duration_sec`, migration 0013).
 *
 * Ordering: the duration and the call's end are each one `UPDATE` of the conversation's row,
 * so whichever comes second waits for the first's row lock and then sees its change (PostgreSQL
 * re-reads a row updated under it before it updates it; PGlite runs one statement at a time). A
 * duration recorded first is taken by the end (`coalesce(carrier_duration_sec, …)` in every
 * statement that ends a call); one recorded after the end sets `duration_sec` itself.
 *
 * @since 0.1.0
 */
import { CarrierCalls } from "@voice-agent/core/ports/CarrierCalls"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { isStorableText } from "./internal/ids.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const link = SqlSchema.void({
    Request: Schema.Struct({ callId: Schema.String, carrierCallId: Schema.String }),
    execute: ({ callId, carrierCallId }) =>
      sql`
        UPDATE conversations SET carrier_call_id = ${carrierCallId}
        WHERE call_id = ${callId} AND carrier_call_id IS NULL`
  })

  const callIdOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ callId: Schema.String }),
    execute: (carrierCallId) =>
      sql`
        SELECT call_id AS "callId" FROM conversations WHERE carrier_call_id = ${carrierCallId}
        ORDER BY started_at DESC LIMIT 1`
  })

  const carrierCallIdOf = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ carrierCallId: Schema.String }),
    execute: (callId) =>
      sql`
        SELECT carrier_call_id AS "carrierCallId" FROM conversations
        WHERE call_id = ${callId} AND carrier_call_id IS NOT NULL`
  })

  const recordDuration = SqlSchema.void({
    Request: Schema.Struct({ callId: Schema.String, durationSec: Schema.Int }),
    execute: ({ callId, durationSec }) =>
      sql`
        UPDATE conversations SET carrier_duration_sec = ${durationSec},
               duration_sec = CASE WHEN ended_at IS NOT NULL AND answered_at IS NOT NULL THEN ${durationSec}
                 ELSE duration_sec END
        WHERE call_id = ${callId}`
  })

  return CarrierCalls.of({
    link: Effect.fn("CarrierCalls.link")(
      (callId: string, carrierCallId: string) =>
        isStorableText(callId) && isStorableText(carrierCallId) ? link({ callId, carrierCallId }) : Effect.void,
      orDieInfrastructure
    ),
    callIdOf: Effect.fn("CarrierCalls.callIdOf")(
      (carrierCallId: string) =>
        isStorableText(carrierCallId)
          ? Effect.map(callIdOf(carrierCallId), Option.map((row) => row.callId))
          : Effect.succeedNone,
      orDieInfrastructure
    ),
    carrierCallIdOf: Effect.fn("CarrierCalls.carrierCallIdOf")(
      (callId: string) =>
        isStorableText(callId)
          ? Effect.map(carrierCallIdOf(callId), Option.map((row) => row.carrierCallId))
          : Effect.succeedNone,
      orDieInfrastructure
    ),
    recordDuration: Effect.fn("CarrierCalls.recordDuration")(
      (callId: string, durationSec: number) =>
        isStorableText(callId) ? recordDuration({ callId, durationSec }) : Effect.void,
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(CarrierCalls, make)
