/**
 * DaemonDirectory on SQL (table `daemons` and `conversations.media_daemon_id`, migration 0019).
 *
 * Owns: the daemons' announcements (one row per daemon, renewed by its heartbeat, removed when
 * it stops; a new announcement forgets the rows of daemons long silent, in the same statement)
 * and the column that says which daemon serves a call's media. Every statement is one round
 * trip by a primary or unique key: the heartbeat is a few statements a minute per daemon, the
 * media record one per answered call, and a listener's look-up one per look-up.
 *
 * @since 0.1.0
 */
import { DaemonDirectory } from "@voice-agent/core/ports/DaemonDirectory"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { isStorableText } from "./internal/ids.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

const Address = Schema.Struct({ id: Schema.String, internalUrl: Schema.String })

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const upsert = SqlSchema.void({
    Request: Schema.Struct({
      id: Schema.String,
      internalUrl: Schema.String,
      now: Schema.Date,
      forgetBefore: Schema.Date
    }),
    execute: ({ forgetBefore, id, internalUrl, now }) =>
      sql`
        WITH forgotten AS (DELETE FROM daemons WHERE heard_at < ${forgetBefore} AND id <> ${id})
        INSERT INTO daemons (id, internal_url, started_at, heard_at) VALUES (${id}, ${internalUrl}, ${now}, ${now})
        ON CONFLICT (id) DO UPDATE SET internal_url = excluded.internal_url, heard_at = excluded.heard_at`
  })

  const remove = SqlSchema.void({
    Request: Schema.String,
    execute: (id) => sql`DELETE FROM daemons WHERE id = ${id}`
  })

  const findLive = SqlSchema.findAll({
    Request: Schema.Date,
    Result: Address,
    execute: (since) =>
      sql`SELECT id, internal_url AS "internalUrl" FROM daemons WHERE heard_at >= ${since} ORDER BY id`
  })

  const recordMedia = SqlSchema.void({
    Request: Schema.Struct({ callId: Schema.String, daemonId: Schema.String }),
    execute: ({ callId, daemonId }) =>
      sql`UPDATE conversations SET media_daemon_id = ${daemonId} WHERE call_id = ${callId}`
  })

  const findMediaServer = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ daemonId: Schema.String, internalUrl: Schema.NullOr(Schema.String) }),
    execute: (callId) =>
      sql`
        SELECT c.media_daemon_id AS "daemonId", d.internal_url AS "internalUrl"
        FROM conversations c LEFT JOIN daemons d ON d.id = c.media_daemon_id
        WHERE c.call_id = ${callId} AND c.media_daemon_id IS NOT NULL`
  })

  return DaemonDirectory.of({
    announce: Effect.fn("DaemonDirectory.announce")(
      function*({ daemon, forgetBefore, now }) {
        yield* upsert({ ...daemon, now, forgetBefore })
      },
      orDieInfrastructure
    ),
    withdraw: Effect.fn("DaemonDirectory.withdraw")(
      function*(daemonId) {
        yield* remove(daemonId)
      },
      orDieInfrastructure
    ),
    live: Effect.fn("DaemonDirectory.live")(
      function*(since) {
        return yield* findLive(since)
      },
      orDieInfrastructure
    ),
    servesMedia: Effect.fn("DaemonDirectory.servesMedia")(
      function*(callId, daemonId) {
        if (!isStorableText(callId)) return
        yield* recordMedia({ callId, daemonId })
      },
      orDieInfrastructure
    ),
    mediaServer: Effect.fn("DaemonDirectory.mediaServer")(
      function*(callId) {
        if (!isStorableText(callId)) return yield* Effect.succeedNone
        return yield* findMediaServer(callId)
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(DaemonDirectory, make)
