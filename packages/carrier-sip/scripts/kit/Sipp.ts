/**
 * SIPp (Debian's `sip-tester`, 3.6.1) run on one of the kit's scenarios (`packages/carrier-sip/
 * sipp/*.xml`), as a child process: the scenario copied into a working directory of its own
 * (SIPp writes its traces beside the scenario, and reads `rtp_stream` files from its working
 * directory), its messages and unexpected messages traced there, its exit code read.
 *
 * SIPp's exit code says whether every call followed the scenario: 0 all did, 1 some failed
 * (an unexpected message, a timeout), 97 stopped by a command, 99 no call, 255/254 a fatal or
 * socket error. `failures` reads the error trace for the reason.
 *
 * @since 0.1.0
 */
import { Data, Deferred, Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as dgram from "node:dgram"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Audio from "./Audio.ts"

/**
 * The folder of the kit's scenarios.
 *
 * @category constructors
 */
export const scenarios = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../sipp")

/**
 * SIPp is not installed (or `SIPP` names no program that runs).
 *
 * @category errors
 */
export class SippMissing extends Data.TaggedError("SippMissing")<{ readonly message: string }> {}

/**
 * The SIPp program: `SIPP`, else `sipp` on the PATH; checked by running `sipp -v`.
 *
 * @category constructors
 */
export const binary: Effect.Effect<string, SippMissing> = Effect.suspend(() => {
  const program = process.env["SIPP"] ?? "sipp"
  const probe = spawnSync(program, ["-v"], { encoding: "utf8" })
  const version = `${probe.stdout ?? ""}${probe.stderr ?? ""}`
  if (probe.error !== undefined || !/SIPp v\d/.test(version)) {
    return Effect.fail(
      new SippMissing({
        message: `SIPp not found (${program}${probe.error === undefined ? "" : `: ${probe.error.message}`}). ` +
          "Install Debian's sip-tester (apt-get install sip-tester), or set SIPP to the sipp program."
      })
    )
  }
  return Effect.succeed(program)
})

/**
 * A UDP port free on `host` now (bound, read, released: another program may take it before
 * SIPp does, which then fails to bind and says so).
 *
 * @category constructors
 */
export const freeUdpPort = (host: string, even = false): Effect.Effect<number> =>
  Effect.callback<number>((resume) => {
    const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4")
    socket.bind(0, host, () => {
      const port = socket.address().port
      socket.close(() => resume(Effect.succeed(port)))
    })
  }).pipe(
    Effect.flatMap((port) => even && port % 2 === 1 ? freeUdpPort(host, even) : Effect.succeed(port))
  )

/**
 * A port free on `host` for both UDP and TCP now (SIPp listens on one of them).
 *
 * @category constructors
 */
export const freePort = (host: string): Effect.Effect<number> =>
  Effect.flatMap(freeUdpPort(host), (port) =>
    Effect.callback<boolean>((resume) => {
      const server = net.createServer()
      server.once("error", () => resume(Effect.succeed(false)))
      server.listen({ host, port, exclusive: true }, () => server.close(() => resume(Effect.succeed(true))))
    }).pipe(Effect.flatMap((free) => free ? Effect.succeed(port) : freePort(host))))

/**
 * @category models
 */
export interface Options {
  /** The scenario's file name in `scenarios` (e.g. `trunk.xml`). */
  readonly scenario: string
  /** The working directory: the scenario is copied there, traces and audio files live there. */
  readonly dir: string
  /** The address SIPp listens on and puts in its messages. */
  readonly host: string
  readonly port: number
  /** The base of SIPp's RTP ports (`-mp`). */
  readonly mediaPort: number
  /** Stop after this many calls (`-m`). */
  readonly calls?: number
  /** Where a UAC sends its calls (`host:port`); none for a UAS. */
  readonly remote?: string
  /** SIP over UDP (the default) or TCP (`-t t1`: one connection for every call). */
  readonly transport?: "udp" | "tcp"
  /** More arguments (`-s`, `-set`, `-au`/`-ap`, ...). */
  readonly args?: ReadonlyArray<string>
  /** SIPp stops (and fails) after this many seconds whatever happens (`-timeout`); default 60. */
  readonly timeoutS?: number
  /** Text put in the scenario as it is copied (`@USERNAME@` → a name): SIPp expands no variable there. */
  readonly replace?: Readonly<Record<string, string>>
}

/**
 * @category models
 */
export interface Run {
  /** SIPp's exit code, once it has exited. */
  readonly exited: Effect.Effect<number>
  /** The messages trace so far. */
  readonly messages: () => string
  /** Why calls failed: SIPp's error trace and the end of its output. */
  readonly failures: () => string
}

/**
 * Starts SIPp on `options.scenario`; it is killed when the scope closes, if it still runs.
 *
 * @category constructors
 */
export const start = (options: Options) =>
  Effect.gen(function*() {
    const program = yield* binary
    fs.mkdirSync(options.dir, { recursive: true })
    let scenario = fs.readFileSync(path.join(scenarios, options.scenario), "latin1")
    for (const [token, value] of Object.entries(options.replace ?? {})) scenario = scenario.replaceAll(token, value)
    fs.writeFileSync(path.join(options.dir, options.scenario), scenario, "latin1")
    const args = [
      "-sf",
      options.scenario,
      "-i",
      options.host,
      "-p",
      String(options.port),
      "-mi",
      options.host,
      "-mp",
      String(options.mediaPort),
      "-nostdin",
      "-trace_msg",
      "-trace_err",
      "-timeout",
      `${options.timeoutS ?? 60}s`,
      "-timeout_error",
      ...(options.transport === "tcp" ? ["-t", "t1"] : []),
      ...(options.calls === undefined ? [] : ["-m", String(options.calls)]),
      ...(options.args ?? []),
      ...(options.remote === undefined ? [] : [options.remote])
    ]
    let output = ""
    const exit = yield* Deferred.make<number>()
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn(program, args, { cwd: options.dir, stdio: ["ignore", "pipe", "pipe"] })
        const keep = (chunk: Buffer) => {
          output = (output + chunk.toString("latin1")).slice(-4000)
        }
        child.stdout.on("data", keep)
        child.stderr.on("data", keep)
        child.once("exit", (code, signal) => Deferred.doneUnsafe(exit, Effect.succeed(code ?? (signal ? 128 : 255))))
        return child
      }),
      (child) => child.exitCode === null && child.signalCode === null ? Effect.sync(() => child.kill()) : Effect.void
    )
    const trace = (suffix: string) => {
      const base = options.scenario.replace(/\.xml$/, "")
      const file = fs.readdirSync(options.dir).find((name) => name.startsWith(`${base}_`) && name.endsWith(suffix))
      return file === undefined ? "" : fs.readFileSync(path.join(options.dir, file), "latin1")
    }
    return {
      exited: Deferred.await(exit),
      messages: () => trace("_messages.log"),
      failures: () => {
        const errors = trace("_errors.log").trim()
        return errors !== ""
          ? errors
          : output.replaceAll(String.fromCharCode(27), "").trim().split("\n").slice(-15).join("\n")
      }
    } satisfies Run
  })

/**
 * SIPp as the trunk (`trunk.xml`) on `host`, for `calls` calls, in a new working directory
 * (named from `prefix`) holding the audio files it plays; the directory is the caller's to remove.
 *
 * @category constructors
 */
export const startTrunk = (options: {
  readonly host: string
  readonly prefix: string
  readonly calls: number
  readonly timeoutS: number
}) =>
  Effect.gen(function*() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix))
    Audio.write(dir)
    const port = yield* freeUdpPort(options.host)
    const trunk = yield* start({
      scenario: "trunk.xml",
      dir,
      host: options.host,
      port,
      mediaPort: yield* freeUdpPort(options.host, true),
      calls: options.calls,
      timeoutS: options.timeoutS
    })
    return { dir, port, trunk }
  })
