/**
 * The carrier side of the media benchmark in `--split` mode (`test/bench/media.ts` forks this):
 * N lines of simulated carrier calls (SimCarrier with its own in-memory CallEvents) streaming
 * over real WebSockets (the daemon's `Media.connector`) to the parent's media route, with media
 * tokens signed under the bench's fixed test key (the parent's ServerSecrets is the same fixed
 * one). Arguments: N, seconds, media URL. To the parent over IPC: each stream's start (when its
 * `start` went out, `performance.timeOrigin + performance.now()`, the grid's origin), and at the
 * end this process's CPU, memory and the number of calls placed.
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import { Context, Effect, Layer, References } from "effect"
import { performance } from "node:perf_hooks"
import * as Media from "voice-agent/Media"
import { callLines } from "./CallLines.ts"

const [nArg, secondsArg, mediaUrl = ""] = process.argv.slice(2)
const N = Number(nArg)
const seconds = Number(secondsArg)
const now = () => performance.timeOrigin + performance.now()
const send = (message: unknown, done?: () => void) => process.send?.(message, undefined, undefined, done)

const callOfToken = new Map<string, string>()

/** The carrier's socket, reporting the instant its `start` went out (the grid's origin). */
const sendLags: Array<number> = []
const watchCarrier = (socket: MediaSocket): MediaSocket => {
  let start: number | undefined
  return {
    ...socket,
    send: (text) =>
      Effect.tap(socket.send(text), () =>
        Effect.sync(() => {
          if (text.includes("\"media\":{")) {
            const timestamp = /"timestamp":"?(\d+)/.exec(text)?.[1]
            if (start !== undefined && timestamp !== undefined) sendLags.push(now() - (start + Number(timestamp)))
            return
          }
          const message = JSON.parse(text) as { event?: string; start?: { customParameters?: Record<string, string> } }
          const token = message.start?.customParameters?.["token"]
          const callId = token === undefined ? undefined : callOfToken.get(token)
          if (message.event === "start" && callId !== undefined) {
            start = now()
            send({ type: "start", callId, at: start })
          }
        }))
  }
}

const program = Effect.gen(function*() {
  // The carrier's Answered reaches the server as its webhook would (the session reads the
  // answering-machine verdict from it, waiting up to 500 ms when it is missing).
  const local = yield* MemoryDialer.callEvents(MemoryDialer.makeWorld())
  const events = CallEvents.of({
    ...local,
    publish: (callId, event) =>
      Effect.tap(local.publish(callId, event), () =>
        Effect.sync(() => {
          if (event._tag === "Answered") send({ type: "answered", callId, event })
        }))
  })
  const inner = Context.get(yield* Layer.build(Media.connector), MediaConnector)
  const connector = MediaConnector.of({ connect: (url) => Effect.map(inner.connect(url), watchCarrier) })
  const carrier: Carrier["Service"] = yield* SimCarrier.make.pipe(
    Effect.provideService(CallEvents, events),
    Effect.provideService(MediaConnector, connector)
  )
  let placed = 0
  const calls = callLines({
    carrier,
    events,
    mediaUrl,
    lines: N,
    seconds,
    onPlace: (callId, mediaToken) => {
      callOfToken.set(mediaToken, callId)
      placed++
    }
  })

  let rssPeak = process.memoryUsage().rss
  const sampler = setInterval(() => rssPeak = Math.max(rssPeak, process.memoryUsage().rss), 500)
  const cpu0 = process.cpuUsage()
  const t0 = now()
  yield* calls
  const cpu = process.cpuUsage(cpu0)
  clearInterval(sampler)
  const sorted = sendLags.sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
  const sendLag = { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN }
  return { type: "done", placed, sendLag, cpuUs: cpu.user + cpu.system, wallMs: now() - t0, rssPeak }
})

Effect.runPromise(
  program.pipe(Effect.scoped, Effect.provideService(References.MinimumLogLevel, "Error"))
).then(
  (done) => send(done, () => process.exit(0)),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
