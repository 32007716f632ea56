/**
 * Helpers of the security tests that run a real daemon (`voice-agent serve`, test/support/Daemon)
 * on a fresh PostgreSQL database, so that a test can read what the daemon stored through SQL:
 * the rows a refused request must not have changed, the installation's secrets (to sign media
 * tokens as the dialer does), the key hashes. Also a raw WebSocket client that reports what a
 * server did with an upgrade: refused it (status and body), or accepted it (every text frame it
 * sent, and whether it closed the socket).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import WebSocket from "ws"
import * as Daemon from "../../support/Daemon.ts"

/**
 * Why the PostgreSQL daemon tests cannot run here (`undefined` when they can). With `CI=true`
 * an unanswering server fails the run instead (TestDatabase's rule).
 *
 * @category constructors
 */
export const postgresSkip = async (): Promise<string | undefined> =>
  (await TestDatabase.backends()).find((backend) => backend.name === "postgres")?.skip

/**
 * A SQL client on `url` for the scope.
 *
 * @category constructors
 */
export const sqlOn = (url: string) =>
  Effect.map(
    Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 2, connectTimeout: "5 seconds" })),
    (context) => Context.get(context, SqlClient.SqlClient)
  )

/**
 * A daemon on a fresh PostgreSQL database (recordings in the database too) with its admin API
 * and one organization owning `number` (Daemon.serveWithOrganization), plus a SQL client on
 * that database and a helper that adds organizations with a key and a number.
 *
 * @category constructors
 */
export const daemonOnPostgres = (name: string, number: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const url = yield* TestDatabase.freshDatabaseUrl("voice_agent_security")
    const started = yield* Daemon.serveWithOrganization(name, number, {
      DATABASE_URL: url,
      VOICE_AGENT_RECORDINGS: "database",
      ...env
    })
    const sql = yield* sqlOn(url)
    /** Another organization with an API key and `ownNumber`. */
    const organization = (orgName: string, ownNumber: string) =>
      Effect.gen(function*() {
        const id = ((yield* started.adminPost("organizations", { name: orgName })).body as { id: string }).id
        const key = ((yield* started.adminPost(`organizations/${id}/api-keys`, {})).body as { api_key: string })
          .api_key
        const added = yield* started.adminPost(`organizations/${id}/phone-numbers`, { phone_number: ownNumber })
        if (added.status !== 201) return yield* Effect.die(new Error(`adding ${ownNumber}: ${JSON.stringify(added)}`))
        return { id, key, number: ownNumber }
      })
    return { ...started, url, sql, organization }
  })

/**
 * Every row of every table of the public schema, as sorted JSON lines per table: two snapshots
 * are equal exactly when nothing was inserted, updated or deleted in between. `except` leaves
 * tables out (ones a running daemon writes on its own, such as its dialer's leases).
 *
 * @category constructors
 */
export const databaseSnapshot = (sql: SqlClient.SqlClient, except: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const tables = yield* sql<{ readonly name: string }>`
      SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
    const snapshot: Record<string, ReadonlyArray<string>> = {}
    for (const { name } of tables) {
      if (except.includes(name)) continue
      const rows = yield* sql<{ readonly row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql(name)} t`
      snapshot[name] = rows.map((r) => r.row).sort()
    }
    return snapshot
  }).pipe(Effect.orDie)

/**
 * What a server did with a WebSocket upgrade.
 *
 * @category models
 */
export interface SocketOutcome {
  /** The HTTP status of a refused upgrade (`undefined` when it was accepted). */
  readonly refusedWith: number | undefined
  /** The body of a refused upgrade. */
  readonly body: string
  /** Every text frame the server sent. */
  readonly frames: ReadonlyArray<string>
  /** The server closed the socket (rather than the client, after `waitMs`). */
  readonly closedByServer: boolean
}

/**
 * Opens a WebSocket to `url` with `headers`, sends `send` once open (then `more`, one frame
 * every 20 ms, while the socket is open), and collects what comes back until the server
 * closes it, `done(frames)` holds, or `waitMs` passes (then the client closes it).
 *
 * @category constructors
 */
export const exchange = (
  url: string,
  options: {
    readonly headers?: Readonly<Record<string, string>>
    readonly send?: ReadonlyArray<string>
    readonly more?: ReadonlyArray<string>
    readonly waitMs?: number
    readonly done?: (frames: ReadonlyArray<string>) => boolean
  } = {}
): Effect.Effect<SocketOutcome> =>
  Effect.callback<SocketOutcome>((resume) => {
    const frames: Array<string> = []
    let finished = false
    let timer: NodeJS.Timeout | undefined
    let pacer: NodeJS.Timeout | undefined
    const socket = new WebSocket(url, { headers: { ...options.headers } })
    const finish = (outcome: SocketOutcome) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      clearInterval(pacer)
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.terminate()
      resume(Effect.succeed(outcome))
    }
    socket.on("unexpected-response", (_request, response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        finish({
          refusedWith: response.statusCode,
          body: Buffer.concat(chunks).toString("utf8"),
          frames,
          closedByServer: true
        }))
    })
    socket.on("open", () => {
      for (const frame of options.send ?? []) socket.send(frame)
      const more = [...(options.more ?? [])]
      pacer = setInterval(() => {
        const next = more.shift()
        if (next === undefined) return clearInterval(pacer)
        if (socket.readyState === WebSocket.OPEN) socket.send(next)
      }, 20)
    })
    socket.on("message", (data) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
      frames.push(bytes.toString("utf8"))
      if (options.done?.(frames) === true) {
        finish({ refusedWith: undefined, body: "", frames, closedByServer: false })
      }
    })
    socket.on("close", () => finish({ refusedWith: undefined, body: "", frames, closedByServer: true }))
    socket.on("error", () => finish({ refusedWith: undefined, body: "", frames, closedByServer: true }))
    timer = setTimeout(
      () => finish({ refusedWith: undefined, body: "", frames, closedByServer: false }),
      options.waitMs ?? 5_000
    )
    return Effect.sync(() => finish({ refusedWith: undefined, body: "", frames, closedByServer: false }))
  })

/**
 * An open WebSocket a test drives frame by frame.
 *
 * @category models
 */
export interface Client {
  /** Every text frame received so far. */
  readonly frames: ReadonlyArray<string>
  readonly send: (frame: string) => Effect.Effect<void>
  /** The frames so far once `done` holds for them, or after `waitMs` whatever they are. */
  readonly until: (done: (frames: ReadonlyArray<string>) => boolean, waitMs: number) => Effect.Effect<
    ReadonlyArray<string>
  >
}

/**
 * Opens a WebSocket for the scope (closed when it ends); fails if the upgrade is refused.
 *
 * @category constructors
 */
export const client = (url: string, headers: Readonly<Record<string, string>> = {}) =>
  Effect.acquireRelease(
    Effect.callback<WebSocket, Error>((resume) => {
      const socket = new WebSocket(url, { headers: { ...headers } })
      socket.once("open", () => resume(Effect.succeed(socket)))
      socket.once("error", (error) => resume(Effect.fail(error)))
    }),
    (socket) => Effect.sync(() => socket.terminate())
  ).pipe(Effect.map((socket): Client => {
    const frames: Array<string> = []
    socket.on("message", (data) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
      frames.push(bytes.toString("utf8"))
    })
    return {
      frames,
      send: (frame) => Effect.sync(() => socket.send(frame)),
      until: (done, waitMs) =>
        Effect.gen(function*() {
          const deadline = Date.now() + waitMs
          while (!done(frames) && Date.now() < deadline) yield* Effect.sleep("20 millis")
          return [...frames]
        })
    }
  }))

/**
 * The `ws://` URL of a daemon's `path`.
 *
 * @category constructors
 */
export const wsUrl = (daemonUrl: string, path: string): string => `${daemonUrl.replace(/^http/, "ws")}${path}`
