/**
 * `psql` against the benchmark's PostgreSQL (127.0.0.1:5432, user postgres): the commands run in
 * order, stopping at the first error; answers what they print (unaligned, tuples only).
 */
import { spawnSync } from "node:child_process"

/**
 * @category constructors
 */
export const psql = (database: string, ...commands: ReadonlyArray<string>): string => {
  const result = spawnSync(
    "psql",
    ["-h", "127.0.0.1", "-U", "postgres", "-d", database, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At"].concat(
      commands.flatMap((c) => ["-c", c])
    ),
    { encoding: "utf8" }
  )
  if (result.status !== 0) throw new Error(`psql: ${result.stderr}`)
  return result.stdout
}
