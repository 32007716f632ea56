/**
 * ServerSecrets on SQL (table `server_secrets`, filled by migration 0002). The key is read
 * once, when the layer is built, and kept for the life of the process.
 *
 * @since 0.1.0
 */
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cursorKey = yield* Effect.cached(
    sql<{ readonly value: Uint8Array }>`SELECT value FROM server_secrets WHERE name = 'cursor_key'`.pipe(
      Effect.flatMap(([row]) =>
        row === undefined
          ? Effect.die("server_secrets has no cursor_key: migration 0002 did not run")
          : Effect.succeed(row.value)
      ),
      orDieInfrastructure
    )
  )
  return ServerSecrets.of({ cursorKey })
})

/**
 * @category layers
 */
export const layer = Layer.effect(ServerSecrets, make)
