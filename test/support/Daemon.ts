/**
 * Black-box helpers: run the real `voice-agent` executable (`node daemon/src/voice-agent.js`,
 * what npm links) as a child process, the way a user does.
 *
 * Synchronization is on output, never on time: `serve` resolves when its ready line appears
 * (or fails at once if the process exits first, with everything it printed), and `stop`
 * resolves with the exit code.
 *
 * @since 0.1.0
 */
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Deferred, Effect, Option } from "effect"
import { spawn } from "node:child_process"
import type { ChildProcess, ChildProcessWithoutNullStreams } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const bin = path.join(repoRoot, "daemon/src/voice-agent.js")

/**
 * The environment of a child: this one without storage, admin and log settings, plus `env`.
 * One process per daemon unless the test says otherwise (`--workers`, or `VOICE_AGENT_WORKERS`
 * in `env`): on PostgreSQL the default is a worker per core, which the tests of one daemon do
 * not need (test/daemon/workers.test.ts runs several), and would only slow.
 */
const childEnv = (env: Record<string, string> | undefined): NodeJS.ProcessEnv => {
  const base = { ...process.env }
  for (const name of ["DATABASE_URL", "VOICE_AGENT_ADMIN_TOKEN", "LOG_FORMAT", "LOG_LEVEL"]) delete base[name]
  return { ...base, VOICE_AGENT_WORKERS: "1", ...env }
}

/**
 * @category models
 */
export interface RunningDaemon {
  readonly pid: number
  /** Base URL from the ready line, e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  /** The demo key, when this start printed one. */
  readonly apiKey: Option.Option<string>
  /** Standard output lines so far. */
  readonly stdout: ReadonlyArray<string>
  /** Sends `signal` and waits for the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Effect.Effect<number | null>
  /** The first standard output line (so far or to come) that matches `pattern`. */
  readonly waitFor: (pattern: RegExp) => Effect.Effect<string>
}

const exitCode = (child: ChildProcess): Effect.Effect<number | null> =>
  Effect.callback<number | null>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  })

const readyPattern = /ready on (http:\/\/\S+)/
const keyPattern = /API key: (va_\S+)|"api_key":"(va_[^"]+)"/

/**
 * Starts `voice-agent <command>` with `args` and waits for a standard output line matching
 * `ready` (its first group is answered). The process is killed when the scope closes if the
 * test has not stopped it.
 */
const start = (command: string, args: ReadonlyArray<string>, env: Record<string, string> | undefined, ready: RegExp) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [bin, command, ...args], { cwd: repoRoot, env: childEnv(env), stdio: "pipe" })
      ),
      (child) =>
        child.exitCode === null && child.signalCode === null ? Effect.sync(() => child.kill("SIGKILL")) : Effect.void
    )
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const watchers: Array<{ readonly pattern: RegExp; readonly found: Deferred.Deferred<string> }> = []
    const isReady = yield* Deferred.make<string, Error>()
    createInterface({ input: child.stdout }).on("line", (line) => {
      stdout.push(line)
      const match = ready.exec(line)
      if (match !== null) Deferred.doneUnsafe(isReady, Effect.succeed((match[1] ?? line).replace(/[)"',]+$/, "")))
      for (const watcher of watchers) {
        if (watcher.pattern.test(line)) Deferred.doneUnsafe(watcher.found, Effect.succeed(line))
      }
    })
    createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line))
    child.once("exit", (code, signal) =>
      Deferred.doneUnsafe(
        isReady,
        Effect.fail(
          new Error(
            `voice-agent ${command} exited (code ${code}, signal ${signal}) before it was ready\n` +
              `stdout:\n${stdout.join("\n")}\nstderr:\n${stderr.join("\n")}`
          )
        )
      ))
    const readyMatch = yield* Deferred.await(isReady)
    return {
      child,
      readyMatch,
      stdout,
      stop: (signal: NodeJS.Signals = "SIGTERM") =>
        Effect.suspend(() => {
          child.kill(signal)
          return exitCode(child)
        }),
      waitFor: (pattern: RegExp) =>
        Effect.gen(function*() {
          const seen = stdout.find((line) => pattern.test(line))
          if (seen !== undefined) return seen
          const found = yield* Deferred.make<string>()
          watchers.push({ pattern, found })
          return yield* Deferred.await(found)
        })
    }
  })

/**
 * Starts `voice-agent serve` with `args` and waits until it is ready. The process is killed
 * when the scope closes if the test has not stopped it.
 *
 * @category constructors
 */
export const serve = (args: ReadonlyArray<string>, env?: Record<string, string>) =>
  Effect.gen(function*() {
    const started = yield* start("serve", args, env, readyPattern)
    const apiKey = Option.fromNullishOr(
      started.stdout.map((line) => keyPattern.exec(line)).find((m) => m !== null)?.slice(1).find((g) => g !== undefined)
    )
    return {
      pid: started.child.pid!,
      url: started.readyMatch,
      apiKey,
      stdout: started.stdout,
      stop: started.stop,
      waitFor: started.waitFor
    } satisfies RunningDaemon
  })

/**
 * Starts `voice-agent dial` with `args` and waits until its dialer has started; answers the
 * process and its worker id.
 *
 * @category constructors
 */
export const dial = (args: ReadonlyArray<string>, env?: Record<string, string>) =>
  Effect.gen(function*() {
    const started = yield* start("dial", args, env, /Dialer (\S+) started/)
    return {
      worker: started.readyMatch,
      stdout: started.stdout,
      stop: started.stop,
      waitFor: started.waitFor
    }
  })

/**
 * @category models
 */
export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `voice-agent <args>` to completion.
 *
 * @category constructors
 */
export const cli = (args: ReadonlyArray<string>, env?: Record<string, string>): Effect.Effect<CliResult> =>
  completion(() => spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: childEnv(env), stdio: "pipe" }))

/**
 * Runs `voice-agent <args>` to completion on a real pseudo-terminal (`script` from
 * util-linux), `input` typed on it. Standard output and error both reach the terminal, whose
 * output is answered as `stdout` (line ends as CRLF).
 *
 * @category constructors
 */
export const cliOnTerminal = (
  args: ReadonlyArray<string>,
  env?: Record<string, string>,
  input = ""
): Effect.Effect<CliResult> =>
  completion(() => {
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const command = [process.execPath, bin, ...args].map(quote).join(" ")
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: repoRoot, env: childEnv(env), stdio: "pipe" })
    // What the user types: the terminal holds it until the command reads a line.
    child.stdin.write(input)
    return child
  })

const completion = (start: () => ChildProcessWithoutNullStreams): Effect.Effect<CliResult> =>
  Effect.callback<CliResult>((resume) => {
    const child = start()
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.once("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * A fresh temporary directory, removed when the scope closes.
 *
 * @category constructors
 */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-test-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * `fetch` as an Effect, answering status and parsed JSON body (or `undefined`).
 *
 * @category constructors
 */
export const request = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
  })

/**
 * The `Authorization` header for a bearer token.
 *
 * @category constructors
 */
export const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } })

/**
 * A JSON POST with the bearer key.
 *
 * @category constructors
 */
export const postJson = (key: string, body: unknown): RequestInit => ({
  method: "POST",
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: JSON.stringify(body)
})

/**
 * A daemon in memory with its admin API on, and one organization owning `number` (the remote
 * agent tests' starting point): the daemon, the organization's id and API key, and a POST to the
 * admin API for more (`adminPost("organizations/<id>/inbound-calls", {...})`).
 *
 * @category constructors
 */
export const serveWithOrganization = (name: string, number: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const adminToken = `admin-${name}-secret`
    const daemon = yield* serve(["--port", "0", "--data-dir", ":memory:"], {
      VOICE_AGENT_ADMIN_TOKEN: adminToken,
      ...env
    })
    const adminPost = (path: string, body: unknown) =>
      request(`${daemon.url}/admin/v1/${path}`, postJson(adminToken, body))
    const organizationId = ((yield* adminPost("organizations", { name })).body as { id: string }).id
    const key = ((yield* adminPost(`organizations/${organizationId}/api-keys`, {})).body as { api_key: string })
      .api_key
    const added = yield* adminPost(`organizations/${organizationId}/phone-numbers`, { phone_number: number })
    if (added.status !== 201) return yield* Effect.die(new Error(`adding ${number}: ${JSON.stringify(added)}`))
    return { daemon, organizationId, key, adminPost }
  })

/**
 * Creates a campaign open all week (UTC) from today, with the demo number as origin, attaches
 * the agent definition `agentId` when given, and uploads `contacts`; answers its code.
 *
 * @category constructors
 */
export const campaignWithContacts = (
  url: string,
  key: string,
  name: string,
  contacts: ReadonlyArray<{ readonly phone_number: string; readonly data?: Record<string, unknown> }>,
  options?: { readonly agentId?: string }
) =>
  Effect.gen(function*() {
    const created = yield* request(
      `${url}/v2/campaigns`,
      postJson(key, {
        name,
        origin_phone_numbers: ["+12025550100"],
        start_date: new Date().toISOString().slice(0, 10),
        calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
        timezone: "UTC",
        max_concurrency: 10
      })
    )
    if (created.status !== 201) return yield* Effect.die(`campaign not created: ${JSON.stringify(created.body)}`)
    const code = (created.body as { campaign_code: string }).campaign_code
    if (options?.agentId !== undefined) {
      const attached = yield* request(`${url}/v2/campaigns/${code}/agent`, {
        ...postJson(key, { agent_id: options.agentId }),
        method: "PUT"
      })
      if (attached.status !== 200) return yield* Effect.die(`agent not attached: ${JSON.stringify(attached.body)}`)
    }
    const uploaded = yield* request(
      `${url}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
      postJson(key, { contacts })
    )
    if (uploaded.status !== 200) return yield* Effect.die(`contacts not uploaded: ${JSON.stringify(uploaded.body)}`)
    return code
  })

/**
 * What a call left besides its record: its transcript (the JSON body) and the HTTP status of
 * each recording channel, `agent`, `remote`, `mixed` (a call never answered: `[]` and three 404s).
 *
 * @category constructors
 */
export const callTraces = (url: string, key: string, callId: string) =>
  Effect.gen(function*() {
    const transcript = yield* request(`${url}/v1/conversations/${callId}/transcript`, bearer(key))
    const recordings = yield* Effect.forEach(["agent", "remote", "mixed"], (channel) =>
      Effect.promise(async () => {
        const response = await fetch(`${url}/v1/conversations/${callId}/channels/${channel}/recording`, bearer(key))
        await response.arrayBuffer()
        return response.status
      }))
    return { transcript: transcript.body, recordings }
  })

/**
 * The two storages a daemon test runs on: the embedded database in memory, and a fresh database
 * on the test PostgreSQL server (`skip` says why it cannot run here, if it cannot). `storage`
 * answers the `serve` arguments and environment that select it.
 *
 * @category constructors
 */
export const storages = async (prefix?: string) => {
  const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")
  return [
    {
      name: "the embedded database",
      skip: undefined,
      storage: Effect.succeed({ args: ["--data-dir", ":memory:"], env: {} })
    },
    {
      name: "PostgreSQL",
      skip: postgres === undefined ? "no PostgreSQL backend" : postgres.skip,
      storage: Effect.map(TestDatabase.freshDatabaseUrl(prefix), (url) => ({
        args: [] as Array<string>,
        env: { DATABASE_URL: url } as Record<string, string>
      }))
    }
  ] as const
}
