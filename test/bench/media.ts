/**
 * Media benchmark (part of `npm run bench:parts`; `compare.ts` runs it at rising call counts):
 * N simultaneous answered calls (default 200; `node test/bench/media.ts 50` for another N,
 * `--seconds S` for the measured window, default 30, after `--warmup W` seconds, default 20)
 * streaming to the daemon's media route
 * (`daemon/src/Media.ts` `endpoint`, an HttpRouter server on 127.0.0.1, real WebSockets), each
 * served by the engine's MediaSession with the daemon's scripted agent over simulated speech and
 * recordings on (FileRecordingStore in a temporary directory, removed at the end), real clock.
 * Each of the N lines places a call, and a new one when it ends, until the window closes; then
 * the calls still up are hung up. The lines' first calls start spread over `--ramp S` seconds
 * (by default 10, or the warm-up when shorter; at least 1 s), and the person's pause before
 * replying varies by up to `--reply-spread MS` (default 1000) from call to call, the same for a
 * given call in every run: calls at every phase in the measured window, as a daemon's calls
 * are, not all starting, replying and ending within the same second (docs/PERFORMANCE.md, "Calls
 * in phase").
 * `--ramp 1 --reply-spread 0` gives the benchmark of before 2026-11-30 13:00Z, every call in
 * phase (the Twilio-like load generator only; SimCarrier's person keeps its own timing).
 *
 * The carriers run in child processes (`--carriers K`, default 1), so that this process's CPU
 * and memory figures are the server's:
 * - by default `media-twilio.ts`, a lean load generator that is Twilio's side of the wire in
 *   plain Node (a frame every 20 ms per call, marks echoed at playout, the person's reply in
 *   simulated speech once the agent's greeting has played): about 0.3 of a core at 200 calls;
 * - with `--carrier sim`, `media-carrier.ts`: the simulated carrier itself (SimCarrier over
 *   `Media.connector`, its person listening to the agent through SimSpeech), about 0.7 of a core
 *   at 200 calls, which on 2 cores leaves the server less than it would have in production.
 * Over IPC a child reports each stream's start and forwards each call's `Answered` (as the
 * carrier's webhook would; without it the session waits 500 ms for the answering-machine
 * verdict), and at the end its CPU, memory and send lags. `--single` runs SimCarrier in this
 * process instead, `--memory` over in-memory sockets (MemoryMedia).
 *
 * `--workers W` serves the calls from W worker processes sharing the port (`node:cluster`, as
 * `serve --workers N` runs the daemon; `MediaWorkers.ts`, `media-worker.ts`): the CPU and memory
 * figures are the workers', summed; the frame lag is measured in them as in one process.
 *
 * Variants: `--agent drain` replaces the scripted agent with one that only reads its input (the
 * session's own cost); `--server raw` replaces the daemon's route, session and agent with the
 * hand-written baseline (`raw-media-server.ts`: the same work on `node:http` and `ws` with plain
 * callbacks, no Effect).
 *
 * Frame lag, per inbound media frame: from its slot on the carrier's 20 ms grid (the stream's
 * start, read by the carrier right after `start` went out, plus the frame's `timestamp`) to the
 * moment the agent reads it from its input (the session has placed it on the timeline, run VAD
 * and queued it; the agent's input is wrapped, production code unchanged). Both ends read
 * `performance.timeOrigin + performance.now()` (the same machine clock in both processes). It
 * includes the carrier sending late ("carrier send lag" is that share), the socket and the
 * server's queueing. The p99 is printed for the measured window, for the whole run, and for each
 * second of it (the calls' set-up against the steady state). The event loop delay is beyond the
 * 10 ms sampling interval.
 *
 * Warm-up: the first `--warmup` seconds are run and not measured (frame lag, CPU), as a daemon
 * that has served calls for a while is: in them V8 compiles the hot paths, the engine's far more
 * than the baseline's (docs/PERFORMANCE.md, "Warm-up"). It outlasts a call (about 14 s), so that
 * the first calls' ends, whose code runs then for the first time in the process, come before the
 * measured window, not in it (docs/PERFORMANCE.md, "The first call's end"). The whole run's p99
 * is printed too.
 *
 * Figures and what they mean: docs/PERFORMANCE.md ("Concurrent calls").
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import { Console, Context, Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { fork } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { monitorEventLoopDelay, performance } from "node:perf_hooks"
import * as Media from "voice-agent/Media"
import * as BenchMain from "./BenchMain.ts"
import { callLines } from "./CallLines.ts"
import * as MediaServer from "./MediaServer.ts"
import * as MediaWorkers from "./MediaWorkers.ts"
import * as RawMediaServer from "./raw-media-server.ts"

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 200)
const measuredSeconds = Number(option("--seconds") ?? 30)
const warmupSeconds = Number(option("--warmup") ?? 20)
/** How long the calls run: the warm-up, then the measured window. */
const seconds = warmupSeconds + measuredSeconds
/** Over how long the lines' first calls start (`--ramp S`): 10 s, or the warm-up when shorter; at least 1 s. */
const rampMs = Math.round(Number(option("--ramp") ?? Math.max(1, Math.min(10, warmupSeconds))) * 1000)
/** How much the person's pause before replying varies from call to call (`--reply-spread MS`). */
const replySpreadMs = Number(option("--reply-spread") ?? 1000)
const memory = args.includes("--memory")
/** Carriers in a child process (the default), or in this one (`--single`, and with `--memory`). */
const split = !memory && !args.includes("--single")
/** How many child processes the carriers are spread over (`--carriers K`, split mode). */
const carrierProcesses = Number(option("--carriers") ?? 1)
/** The carrier of split mode: the lean Twilio-like load generator (default), or SimCarrier (`--carrier sim`). */
const simCarrier = option("--carrier") === "sim"
const carrierScript = simCarrier ? "media-carrier.ts" : "media-twilio.ts"
/** `--agent drain`: no conversation, the agent only reads its input (the session's own cost). */
const drainOnly = option("--agent") === "drain"
/** `--workers W`: the engine in W cluster worker processes sharing the port (`media-worker.ts`). */
const workerCount = Number(option("--workers") ?? 1)
/** `--server raw`: the hand-written baseline (raw-media-server.ts) instead of the daemon's media route. */
const rawServer = split && option("--server") === "raw"
const now = () => performance.timeOrigin + performance.now()

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

/** Where each stream started on the carrier's clock, by our call id (from the `start` it sent). */
const carrierStart = new Map<string, number>()
const callOfToken = new Map<string, string>()
const lags: Array<number> = []
/** When the agent read each frame of `lags`, for the lag second by second. */
const readAt: Array<number> = []
/** Frames the agent read before the child's `start` for their call arrived: [read at, timestamp]. */
const pending = new Map<string, Array<readonly [number, number]>>()
let inputs = 0

const startedAt = (callId: string, at: number) => {
  carrierStart.set(callId, at)
  for (const [read, timestampMs] of pending.get(callId) ?? []) {
    lags.push(read - (at + timestampMs))
    readAt.push(read)
  }
  pending.delete(callId)
}

/** The carrier's socket, noting the instant its `start` went out (the grid's origin). */
const watchCarrier = (socket: MediaSocket): MediaSocket => ({
  ...socket,
  send: (text) =>
    Effect.tap(socket.send(text), () =>
      Effect.sync(() => {
        if (text.includes("\"media\":{")) return
        const message = JSON.parse(text) as { event?: string; start?: { customParameters?: Record<string, string> } }
        const token = message.start?.customParameters?.["token"]
        const callId = token === undefined ? undefined : callOfToken.get(token)
        if (message.event === "start" && callId !== undefined) startedAt(callId, now())
      }))
})

/** The agent (or the raw server) read a frame of the call at `at`: its lag. */
const readFrameAt = (callId: string, at: number, timestampMs: number) => {
  const start = carrierStart.get(callId)
  if (start !== undefined) {
    lags.push(at - (start + timestampMs))
    readAt.push(at)
  } else {
    const list = pending.get(callId) ?? []
    list.push([at, timestampMs])
    pending.set(callId, list)
  }
}
const readFrame = (callId: string, timestampMs: number) => readFrameAt(callId, now(), timestampMs)

const program = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-bench-media-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const server = MediaServer.services(dir, { onFrame: readFrame, onInput: () => void inputs++ }, drainOnly)
  let turns = server.turns
  const context = yield* Layer.build(server.layer)
  const events = Context.get(context, CallEvents)

  // The media endpoint, and how the carrier reaches it.
  let mediaUrl = "ws://memory"
  let workers: MediaWorkers.Workers | undefined
  let inner: MediaConnector["Service"] | undefined
  if (rawServer) {
    const key = MediaToken.keyFrom(yield* MemoryDialer.serverSecrets.cursorKey)
    const raw = yield* Effect.acquireRelease(
      Effect.promise(() =>
        RawMediaServer.start({
          key,
          dir,
          onFrame: (callId, timestampMs) => {
            inputs++
            readFrame(callId, timestampMs)
          }
        })
      ),
      (server) => Effect.sync(server.close)
    )
    mediaUrl = raw.url
  } else if (workerCount > 1) {
    workers = yield* MediaWorkers.start(workerCount, { drainOnly })
    mediaUrl = `ws://127.0.0.1:${workers.port}${Media.path}`
  } else if (memory) {
    const built = yield* Layer.build(
      MemoryMedia.connector((socket) => MediaSession.serve(socket)).pipe(Layer.provide(Layer.succeedContext(context)))
    )
    inner = Context.get(built, MediaConnector)
  } else {
    const nodeServer = createServer()
    const server = yield* Layer.build(
      HttpRouter.serve(Media.routes(nodeServer, { drainMs: 0 }), { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => nodeServer, { port: 0, host: "127.0.0.1" })),
        Layer.provide(Layer.succeedContext(context))
      )
    )
    const address = Context.get(server, HttpServer.HttpServer).address
    mediaUrl = `${HttpServer.formatAddress(address).replace(/^http/, "ws")}${Media.path}`
    if (!split) inner = Context.get(yield* Layer.build(Media.connector), MediaConnector)
  }

  let placed = 0
  /** Publishes a call's `Answered` from a carrier child where the call's session waits for it. */
  const answered = (callId: string, event: CallEvent) =>
    workers === undefined ? Effect.runFork(events.publish(callId, event)) : workers.answered(callId, event)
  const carriers = Effect.gen(function*() {
    const connect = inner!.connect
    const connector = MediaConnector.of({ connect: (url) => Effect.map(connect(url), watchCarrier) })
    const carrier: Carrier["Service"] = yield* SimCarrier.make.pipe(
      Effect.provideService(CallEvents, events),
      Effect.provideService(MediaConnector, connector)
    )
    yield* callLines({
      carrier,
      events,
      mediaUrl,
      lines: N,
      seconds,
      rampMs,
      onPlace: (callId, mediaToken) => {
        callOfToken.set(mediaToken, callId)
        placed++
      }
    })
  })

  /** Carriers in a child process (media-twilio.ts or media-carrier.ts); what it reports at the end. */
  type Child = {
    placed: number
    cpuUs: number
    wallMs: number
    rssPeak: number
    sendLags: Array<number>
  }
  const child = (lines: number, firstLine: number) =>
    Effect.callback<Child>((resume) => {
      const args = [String(lines), String(seconds), mediaUrl, String(firstLine), String(rampMs), String(replySpreadMs)]
      const proc = fork(path.join(import.meta.dirname, carrierScript), args, {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        // a --cpu-prof of this process profiles the server only
        execArgv: process.execArgv.filter((arg) => !arg.startsWith("--cpu-prof"))
      })
      proc.on("message", (message: { type: string; callId: string; at: number; event: CallEvent } & Child) => {
        if (message.type === "start") startedAt(message.callId, message.at)
        else if (message.type === "answered") answered(message.callId, message.event)
        else if (message.type === "done") resume(Effect.succeed(message))
      })
      proc.on("exit", (code) => resume(Effect.die(new Error(`carrier process exited with ${code}`))))
      return Effect.sync(() => proc.kill())
    })

  // The histogram holds whole timer intervals, the resolution included: it is taken off below.
  const loopResolutionMs = 10
  const loop = monitorEventLoopDelay({ resolution: loopResolutionMs })
  loop.enable()
  const rss0 = process.memoryUsage().rss
  const heap0 = process.memoryUsage().heapUsed
  let rssPeak = rss0
  let heapPeak = heap0
  const sampler = setInterval(() => {
    const m = process.memoryUsage()
    rssPeak = Math.max(rssPeak, m.rss)
    heapPeak = Math.max(heapPeak, m.heapUsed)
  }, 500)
  // The figures count from the warm-up's end; the workers take their CPU from then too.
  let cpu0 = process.cpuUsage()
  let warmupCpu = { user: 0, system: 0 }
  let measuredFrom = now()
  const warmed = setTimeout(() => {
    warmupCpu = process.cpuUsage(cpu0)
    cpu0 = process.cpuUsage()
    measuredFrom = now()
    workers?.warm()
  }, warmupSeconds * 1000)
  let childReport: Child | undefined
  if (split) {
    const reports = yield* Effect.forEach(
      Array.from({ length: carrierProcesses }, (_, i) => i),
      (i) => {
        const first = Math.floor((i * N) / carrierProcesses)
        return child(Math.floor(((i + 1) * N) / carrierProcesses) - first, first)
      },
      { concurrency: "unbounded" }
    )
    childReport = {
      placed: reports.reduce((sum, r) => sum + r.placed, 0),
      cpuUs: reports.reduce((sum, r) => sum + r.cpuUs, 0),
      wallMs: Math.max(...reports.map((r) => r.wallMs)),
      rssPeak: reports.reduce((sum, r) => sum + r.rssPeak, 0),
      sendLags: reports.flatMap((r) => r.sendLags)
    }
    placed = childReport.placed
  } else yield* carriers
  const cpu = process.cpuUsage(cpu0)
  const wallS = (now() - measuredFrom) / 1000
  clearTimeout(warmed)
  clearInterval(sampler)
  loop.disable()
  // Let the sessions finish their recordings before the directory goes.
  yield* Effect.sleep(Duration.millis(1_500))
  // With workers, the server's figures are theirs: each frame read, their CPU and memory summed.
  let serverCpuS = (cpu.user + cpu.system) / 1e6
  let warmupCpuS = (warmupCpu.user + warmupCpu.system) / 1e6
  let serverRss = { start: rss0, peak: rssPeak }
  if (workers !== undefined) {
    const reports = yield* workers.finish
    for (const report of reports) {
      for (let i = 0; i < report.reads.length; i += 3) {
        readFrameAt(report.reads[i] as string, report.reads[i + 1] as number, report.reads[i + 2] as number)
      }
      inputs += report.inputs
    }
    const total = reports.reduce((sum, r) => sum + r.turns, 0)
    turns = () => total
    serverCpuS = reports.reduce((sum, r) => sum + r.cpuUs, 0) / 1e6
    warmupCpuS = reports.reduce((sum, r) => sum + r.warmupCpuUs, 0) / 1e6
    serverRss = {
      start: reports.reduce((sum, r) => sum + r.rss0, 0),
      peak: reports.reduce((sum, r) => sum + r.rssPeak, 0)
    }
  }

  // The p99 of each second of the run (by when the agent read the frame): the calls' set-up
  // in the first seconds against the steady state after.
  const firstRead = readAt.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY)
  const bySecond: Array<Array<number>> = []
  readAt.forEach((at, i) => (bySecond[Math.floor((at - firstRead) / 1000)] ??= []).push(lags[i]!))
  const delay = (intervalNs: number) => Math.max(0, intervalNs / 1e6 - loopResolutionMs)
  const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`
  const mb = (v: number) => `${(v / 1e6).toFixed(1)} MB`
  const cpuS = serverCpuS
  const measured = lags.filter((_, i) => readAt[i]! >= measuredFrom)
  const callSeconds = (measured.length * 20) / 1000
  yield* Console.log(
    [
      `media sessions: N=${N}, ${measuredSeconds} s measured after ${warmupSeconds} s of warm-up (+1 s of answers), ${
        memory ? "in-memory sockets (MemoryMedia)" : "WebSockets to an HttpRouter server (daemon media route)"
      }, ${
        split
          ? `carriers (${
            simCarrier ? "SimCarrier" : "Twilio-like load generator"
          }) in ${carrierProcesses} child process(es)`
          : "carriers in this process"
      }`,
      `  node ${process.version}, ${os.cpus().length} cores (shared with other work), ${
        drainOnly ? "agent draining its input" : "scripted agent"
      }, recordings on, real clock, first calls over ${
        rampMs / 1000
      } s, replies after 300 ms + up to ${replySpreadMs} ms`,
      ...(workers === undefined ? [] : [
        `  the server in ${workerCount} worker processes (node:cluster, one port): CPU and memory are theirs, summed`
      ]),
      `  calls placed ${placed}, agent input items ${inputs}, turns ${turns()}`,
      `frame lag (carrier's grid slot -> agent reads the frame)  n=${measured.length}  p50 ${
        ms(quantile(measured, 0.5))
      }  p99 ${ms(quantile(measured, 0.99))}  max ${ms(measured.reduce((a, b) => Math.max(a, b), 0))}  over 20 ms: ${
        (100 * measured.filter((l) => l > 20).length / measured.length).toFixed(2)
      }%`,
      `frame lag over the whole run, warm-up included  n=${lags.length}  p99 ${ms(quantile(lags, 0.99))}  max ${
        ms(lags.reduce((a, b) => Math.max(a, b), 0))
      }`,
      `frame lag p99 second by second (ms)  ${bySecond.map((second) => quantile(second, 0.99).toFixed(0)).join(" ")}`,
      ...(workers !== undefined ? [] : [
        `event loop delay  p50 ${ms(delay(loop.percentile(50)))}  p99 ${ms(delay(loop.percentile(99)))}  max ${
          ms(delay(loop.max))
        }`
      ]),
      `CPU ${split ? "server process " : ""}${cpuS.toFixed(1)} s in the ${wallS.toFixed(1)} s measured (${
        (100 * cpuS / wallS).toFixed(0)
      }% of one core), ${(1000 * cpuS / N).toFixed(0)} ms per call, ${
        (1000 * cpuS / callSeconds).toFixed(2)
      } ms per second of call audio${
        workers === undefined
          ? ` (user ${(cpu.user / 1e6).toFixed(1)} s, system ${(cpu.system / 1e6).toFixed(1)} s)`
          : ""
      }`,
      `CPU ${split ? "server process " : ""}in the warm-up ${warmupCpuS.toFixed(1)} s, ${
        (lags.length === measured.length ? 0 : 1000 * warmupCpuS / ((lags.length - measured.length) * 20 / 1000))
          .toFixed(2)
      } ms per second of call audio`,
      ...(childReport === undefined ? [] : [
        `CPU carrier process ${(childReport.cpuUs / 1e6).toFixed(1)} s in ${
          (childReport.wallMs / 1000).toFixed(1)
        } s (${(100 * childReport.cpuUs / 1e3 / childReport.wallMs).toFixed(0)}% of one core), RSS peak ${
          mb(childReport.rssPeak)
        }`,
        `carrier send lag (grid slot -> its socket took the frame)  n=${childReport.sendLags.length}  p50 ${
          ms(quantile(childReport.sendLags, 0.5))
        }  p99 ${ms(quantile(childReport.sendLags, 0.99))}  max ${
          ms(childReport.sendLags.reduce((a, b) => Math.max(a, b), 0))
        }`
      ]),
      `memory  RSS ${mb(serverRss.start)} -> peak ${mb(serverRss.peak)} (${
        mb((serverRss.peak - serverRss.start) / N)
      } per call${workers === undefined ? "" : `, ${workerCount} workers summed`})${
        workers !== undefined
          ? ""
          : `  heap ${mb(heap0)} -> peak ${mb(heapPeak)} (${mb((heapPeak - heap0) / N)} per call)`
      }`
    ].join("\n")
  )
})

Error.stackTraceLimit = 0
BenchMain.runMain(program)
