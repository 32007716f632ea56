/**
 * A PostgreSQL cluster of the test's own (initdb in a temporary directory, a free port on the
 * loopback, its socket in that directory), which the test may stop and start: the shared server
 * at 127.0.0.1:5432 is never touched. Uses the server binaries under `PG_BIN` (default Debian's
 * `/usr/lib/postgresql/15/bin`); they refuse to run as root, so as root they run as the
 * `postgres` user (`runuser`), which then owns the directory. Removed with the scope (stopped
 * with `-m immediate` first).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const binDir = process.env["PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
const isRoot = process.getuid?.() === 0

/**
 * Why no private cluster can run here, or `undefined` when one can.
 *
 * @category constructors
 */
export const unavailable: string | undefined = !fs.existsSync(path.join(binDir, "initdb"))
  ? `no PostgreSQL server binaries under ${binDir} (set PG_BIN)`
  : isRoot && spawnSync("id", ["-u", "postgres"]).status !== 0
  ? "running as root, and there is no postgres user to run the server as"
  : undefined

/**
 * @category models
 */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string
  /** `pg_ctl stop -m fast`: every session is ended, new connections are refused. */
  readonly stop: Effect.Effect<void>
  /** `pg_ctl start`, answering once the server accepts connections. */
  readonly start: Effect.Effect<void>
}

/** Runs a server binary (as `postgres` when root) to its end; dies with its output on failure. */
const pg = (command: string, args: ReadonlyArray<string>) =>
  Effect.callback<void>((resume) => {
    const [file, argv] = isRoot
      ? ["runuser", ["-u", "postgres", "--", path.join(binDir, command), ...args]]
      : [path.join(binDir, command), [...args]]
    const child = spawn(file, argv, { stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("error", (error) => resume(Effect.die(error)))
    child.once("close", (code) =>
      resume(
        code === 0 ? Effect.void : Effect.die(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output}`))
      ))
  })

/** A port nobody listens on now. */
const freePort = Effect.callback<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * A fresh cluster, started; stopped and removed when the scope closes.
 *
 * @category constructors
 */
export const make: Effect.Effect<Cluster, never, Scope.Scope> = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const made = fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-pg-"))
      if (isRoot) {
        const uid = Number(spawnSync("id", ["-u", "postgres"]).stdout.toString().trim())
        const gid = Number(spawnSync("id", ["-g", "postgres"]).stdout.toString().trim())
        fs.chownSync(made, uid, gid)
      }
      return made
    }),
    (made) => Effect.sync(() => fs.rmSync(made, { recursive: true, force: true }))
  )
  const data = path.join(dir, "data")
  yield* pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
  const port = yield* freePort
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off"
  ].join(" ")
  const start = pg("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-o", options, "-w", "-t", "60", "start"])
  const stop = pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
  yield* Effect.acquireRelease(
    start,
    () => pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).pipe(Effect.catchCause(() => Effect.void))
  )
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, start } satisfies Cluster
})
