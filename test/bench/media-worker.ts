/**
 * One worker of the media benchmark's `--workers W` mode (`media.ts` forks them with
 * `node:cluster`, as `serve --workers N` forks the daemon's): the daemon's media route on the
 * port the workers share, over `MediaServer`'s services. Over IPC it takes the calls' `Answered`
 * (`{ type: "answered" }`, sent to every worker: only the one serving the call has a session
 * waiting for it) and, on `{ type: "finish" }`, reports each frame its agents read (call id,
 * when, the frame's timestamp), its CPU and memory, and exits.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Context, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import * as Media from "voice-agent/Media"
import * as BenchMain from "./BenchMain.ts"
import * as MediaServer from "./MediaServer.ts"

const now = () => performance.timeOrigin + performance.now()
const port = Number(process.env["BENCH_MEDIA_PORT"] ?? 0)
const drainOnly = process.env["BENCH_MEDIA_AGENT"] === "drain"

/** Each frame read: call id, when, its timestamp (flat, for IPC). */
const reads: Array<string | number> = []
let inputs = 0

const program = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-bench-media-worker-"))),
    (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
  )
  const server = MediaServer.services(dir, {
    onFrame: (callId, timestampMs) => void reads.push(callId, now(), timestampMs),
    onInput: () => void inputs++
  }, drainOnly)
  const context = yield* Layer.build(server.layer)
  const events = Context.get(context, CallEvents)
  const nodeServer = createServer()
  yield* Layer.build(
    HttpRouter.serve(Media.routes(nodeServer, { drainMs: 0 }), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => nodeServer, { port, host: "127.0.0.1" })),
      Layer.provide(Layer.succeedContext(context))
    )
  )
  const rss0 = process.memoryUsage().rss
  let rssPeak = rss0
  const sampler = setInterval(() => void (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 500)
  // From the bench's `warm` on (the end of its warm-up).
  let cpu0 = process.cpuUsage()
  let warmupCpuUs = 0
  yield* Effect.callback<void>((resume) => {
    process.on("message", (message: { type: string; callId: string; event: CallEvent }) => {
      if (message.type === "answered") Effect.runFork(events.publish(message.callId, message.event))
      else if (message.type === "warm") {
        const warmup = process.cpuUsage(cpu0)
        warmupCpuUs = warmup.user + warmup.system
        cpu0 = process.cpuUsage()
      } else if (message.type === "finish") resume(Effect.void)
    })
  })
  clearInterval(sampler)
  const cpu = process.cpuUsage(cpu0)
  yield* Effect.promise(() =>
    new Promise<void>((resolve) =>
      process.send!({
        type: "report",
        reads,
        inputs,
        turns: server.turns(),
        cpuUs: cpu.user + cpu.system,
        warmupCpuUs,
        rss0,
        rssPeak
      }, () => resolve())
    )
  )
})

BenchMain.runMain(program)
