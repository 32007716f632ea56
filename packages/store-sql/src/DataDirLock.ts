/**
 * Exclusive ownership of an embedded data directory by one process.
 *
 * Owns: the lock file `voice-agent.lock` in the data directory, holding the holder's pid,
 * created atomically (`wx`: create, fail if it exists), removed when the holder's scope
 * closes; a lock whose pid is dead (the holder crashed) is stale and taken over. Does not own
 * what is stored in the directory (Database opens PGlite inside it).
 *
 * PGlite is a single-process database: two processes writing one directory corrupt it. The
 * daemon and the CLI both open the directory through this lock, so the second one gets
 * {@link DataDirLocked} and tells the user to go through the running daemon's admin API.
 *
 * Limits, accepted: a pid reused by an unrelated process keeps a stale lock looking live
 * (remove the file by hand); two processes taking over the same stale lock at the same
 * instant can both remove it before one re-creates it, leaving the later one holding it
 * alone (the earlier one's file is gone). Both need a crash first and a race within
 * microseconds after.
 *
 * @since 0.1.0
 */
import type { Scope } from "effect"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The lock file's name inside the data directory.
 *
 * @category constructors
 */
export const lockFileName = "voice-agent.lock"

/**
 * Another live process (possibly this one) holds the data directory.
 *
 * @category errors
 */
export class DataDirLocked extends Schema.TaggedError<DataDirLocked>()("DataDirLocked", {
  dataDir: Schema.String,
  pid: Schema.Int
}) {
  override get message(): string {
    return `The data directory ${this.dataDir} is in use by another voice-agent process (pid ${this.pid}). ` +
      "Use the admin API of the running daemon instead, or stop that process first."
  }
}

/**
 * The data directory cannot be created, read or written.
 *
 * @category errors
 */
export class DataDirUnavailable extends Schema.TaggedError<DataDirUnavailable>()("DataDirUnavailable", {
  dataDir: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The data directory ${this.dataDir} cannot be used: ${this.reason}`
  }
}

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
const isAlive = (pid: number): Effect.Effect<boolean> =>
  Effect.try({ try: () => process.kill(pid, 0), catch: errorCode }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )

/** The pid in the lock file; `undefined` when the file is gone or holds no pid (yet). */
const readHolder = (dataDir: string, file: string): Effect.Effect<number | undefined, DataDirUnavailable> =>
  Effect.try({ try: () => fs.readFileSync(file, "utf8"), catch: (error) => error }).pipe(
    Effect.map((text) => /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined),
    Effect.catch((error) =>
      errorCode(error) === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(new DataDirUnavailable({ dataDir, reason: describe(error) }))
    )
  )

/** Creates the lock file with our pid; `false` when it already exists. */
const create = (dataDir: string, file: string): Effect.Effect<boolean, DataDirUnavailable> =>
  Effect.try({
    try: () => fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" }),
    catch: (error) => error
  }).pipe(
    Effect.as(true),
    Effect.catch((error) =>
      errorCode(error) === "EEXIST"
        ? Effect.succeed(false)
        : Effect.fail(new DataDirUnavailable({ dataDir, reason: describe(error) }))
    )
  )

const remove = (file: string): Effect.Effect<void> =>
  Effect.try({ try: () => fs.unlinkSync(file), catch: (error) => error }).pipe(Effect.ignore)

const take = Effect.fnUntraced(function*(dataDir: string) {
  yield* Effect.try({
    try: () => fs.mkdirSync(dataDir, { recursive: true }),
    catch: (error) => new DataDirUnavailable({ dataDir, reason: describe(error) })
  })
  const file = path.join(dataDir, lockFileName)
  // A few rounds: each round either creates the file, finds a live holder, or clears a stale one.
  for (let round = 0; round < 3; round++) {
    if (yield* create(dataDir, file)) return file
    let holder = yield* readHolder(dataDir, file)
    if (holder === undefined) {
      // Created but not yet written by a process starting right now: give it a moment.
      yield* Effect.sleep("50 millis")
      holder = yield* readHolder(dataDir, file)
    }
    if (holder !== undefined && (yield* isAlive(holder))) {
      return yield* new DataDirLocked({ dataDir, pid: holder })
    }
    yield* Effect.logInfo(`Taking over the stale lock of ${dataDir} (pid ${holder ?? "unknown"} is not running)`)
    yield* remove(file)
  }
  const holder = yield* readHolder(dataDir, file)
  return yield* new DataDirLocked({ dataDir, pid: holder ?? 0 })
})

/** Removes the lock file if it is still ours. */
const release = (file: string): Effect.Effect<void> =>
  readHolder(path.dirname(file), file).pipe(
    Effect.flatMap((holder) => holder === process.pid ? remove(file) : Effect.void),
    Effect.ignore
  )

/**
 * Holds `dataDir` (created if missing) for the current scope.
 *
 * @category constructors
 */
export const acquire = (dataDir: string): Effect.Effect<void, DataDirLocked | DataDirUnavailable, Scope.Scope> =>
  Effect.asVoid(Effect.acquireRelease(take(dataDir), release))
