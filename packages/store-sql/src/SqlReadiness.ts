/**
 * Whether the database is ready for this build: it answers, and every migration this build
 * knows has been applied (the daemon's `GET /readyz`, docs/OPERATIONS.md). A check that does
 * not answer within its bound counts as not ready, so a load balancer's probe never hangs on a
 * database that is out of reach.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { migrations } from "./Migrations.ts"

/**
 * The id of the newest migration this build knows.
 *
 * @category constructors
 */
export const latestMigration: number = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/**
 * How long the check waits for the database.
 *
 * @category constructors
 */
export const checkTimeout = Duration.seconds(2)

/**
 * `None` when the database answers and is migrated; otherwise why not, as a sentence.
 *
 * @category constructors
 */
export const check: Effect.Effect<Option.Option<string>, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly id: number | null }>`SELECT max(migration_id) AS id FROM effect_sql_migrations`
  const applied = rows[0]?.id ?? 0
  return applied >= latestMigration
    ? Option.none<string>()
    : Option.some(`The database is not migrated (migration ${applied} of ${latestMigration} applied)`)
}).pipe(
  Effect.timeoutOption(checkTimeout),
  Effect.map(
    Option.getOrElse(() =>
      Option.some(`The database did not answer within ${Duration.toMillis(checkTimeout) / 1000} s`)
    )
  ),
  Effect.catchCause(() => Effect.succeed(Option.some("The database does not answer")))
)
