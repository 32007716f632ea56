/**
 * The media benchmark's `--workers W` mode, the primary's side: W `media-worker.ts` processes
 * (`node:cluster`, as `serve --workers N` runs the daemon) sharing one port, each a media route
 * with its own event loop; the primary hands the connections round to them, a media stream to
 * one worker for the whole call. The bench's own process then only runs the figures.
 */
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Effect } from "effect"
import cluster from "node:cluster"
import type { Worker } from "node:cluster"
import * as path from "node:path"

/** What a worker reports when told to finish. */
export interface Report {
  /** Each frame its agents read, flat: call id, when (ms, the machine's clock), timestamp. */
  readonly reads: ReadonlyArray<string | number>
  readonly inputs: number
  readonly turns: number
  /** CPU from the warm-up's end, and in the warm-up. */
  readonly cpuUs: number
  readonly warmupCpuUs: number
  readonly rss0: number
  readonly rssPeak: number
}

export interface Workers {
  readonly port: number
  /** Tells every worker that the call was answered (the one serving it is waiting). */
  readonly answered: (callId: string, event: CallEvent) => void
  /** The warm-up is over: each worker counts its CPU from now. */
  readonly warm: () => void
  /** Asks every worker for its report; they exit after sending it. */
  readonly finish: Effect.Effect<ReadonlyArray<Report>>
}

/** Starts `count` workers on one port the system picks; answers once all listen. */
export const start = (count: number, options: { readonly drainOnly: boolean }) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly port: number; readonly forked: ReadonlyArray<Worker> }>((resume) => {
      cluster.setupPrimary({
        exec: path.join(import.meta.dirname, "media-worker.ts"),
        // a --cpu-prof of the bench profiles its own process only
        execArgv: process.execArgv.filter((arg) => !arg.startsWith("--cpu-prof")),
        silent: false
      })
      const forked: Array<Worker> = []
      let listening = 0
      let port = 0
      const onListening = (_: Worker, address: { readonly port: number }) => {
        port = address.port
        if (++listening === count) {
          cluster.off("listening", onListening)
          resume(Effect.succeed({ port, forked }))
        }
      }
      cluster.on("listening", onListening)
      for (let i = 0; i < count; i++) {
        const worker = cluster.fork({ BENCH_MEDIA_PORT: "0", BENCH_MEDIA_AGENT: options.drainOnly ? "drain" : "" })
        worker.on("exit", (code) => {
          if (code !== 0) resume(Effect.die(new Error(`media worker exited with ${code}`)))
        })
        forked.push(worker)
      }
    }),
    ({ forked }) => Effect.sync(() => forked.forEach((worker) => worker.isDead() || worker.kill()))
  ).pipe(Effect.map(({ forked, port }): Workers => ({
    port,
    answered: (callId, event) => forked.forEach((worker) => worker.send({ type: "answered", callId, event })),
    warm: () => forked.forEach((worker) => worker.send({ type: "warm" })),
    finish: Effect.forEach(forked, (worker) =>
      Effect.callback<Report>((resume) => {
        worker.on("message", (message: { type: string } & Report) => {
          if (message.type === "report") resume(Effect.succeed(message))
        })
        worker.send({ type: "finish" })
      }), { concurrency: "unbounded" })
  })))
