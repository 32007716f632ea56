/**
 * The carrier side of the media benchmark in `--split` mode (`test/bench/media.ts` forks this):
 * N lines of simulated carrier calls (SimCarrier with its own in-memory CallEvents, a world per
 * call) streaming over real WebSockets (the daemon's `Media.connector`) to the parent's media
 * route, with media tokens signed under the bench's fixed test key (the parent's ServerSecrets is
 * the same fixed one). Arguments: N, seconds, media URL, first line, the ramp of the first calls
 * in ms. To the parent over IPC: each stream's start (when its `start` went out,
 * `performance.timeOrigin + performance.now()`, the grid's origin), and at the end this
 * process's CPU, memory, send lags and the number of calls placed.
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import { Context, Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import * as Media from "voice-agent/Media"
import * as BenchMain from "./BenchMain.ts"
import { callLines } from "./CallLines.ts"

const [nArg, secondsArg, mediaUrl = "", firstLineArg = "0", rampArg = "1000"] = process.argv.slice(2)
const N = Number(nArg)
const seconds = Number(secondsArg)
const now = () => performance.timeOrigin + performance.now()
const send = (message: unknown, done?: () => void) => process.send?.(message, undefined, undefined, done)

const callOfToken = new Map<string, string>()

/** The frame's `timestamp` if `text` is an inbound `media` message (as TwilioMediaStream writes it), else undefined. */
const mediaTimestamp = (text: string): number | undefined => {
  if (!text.startsWith("{\"event\":\"media\"")) return undefined
  const at = text.indexOf("\"timestamp\":\"")
  return at < 0 ? undefined : Number.parseInt(text.slice(at + 13, text.indexOf("\"", at + 13)), 10)
}

/**
 * The carrier's socket, reporting the instant its `start` went out (the grid's origin) and
 * noting each media frame's send lag (its grid slot -> the socket took it).
 */
const sendLags: Array<number> = []
const watchCarrier = (socket: MediaSocket): MediaSocket => {
  let start: number | undefined
  const sent = (text: string): void => {
    const timestamp = mediaTimestamp(text)
    if (timestamp !== undefined) {
      if (start !== undefined) sendLags.push(now() - (start + timestamp))
      return
    }
    const message = JSON.parse(text) as { event?: string; start?: { customParameters?: Record<string, string> } }
    const token = message.start?.customParameters?.["token"]
    const callId = token === undefined ? undefined : callOfToken.get(token)
    if (message.event === "start" && callId !== undefined) {
      start = now()
      send({ type: "start", callId, at: start })
    }
  }
  return { ...socket, send: (text) => Effect.map(socket.send(text), () => sent(text)) }
}

/**
 * CallEvents with a MemoryDialer world per call: its one PubSub would wake each of the N lines'
 * subscribers on every call's every event (about 9% of this process at 200 lines, not the
 * carrier's work).
 */
const callEventsPerCall: Effect.Effect<CallEvents["Service"]> = Effect.sync(() => {
  const calls = new Map<string, CallEvents["Service"]>()
  const of = (callId: string) =>
    Effect.suspend(() => {
      const known = calls.get(callId)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.map(MemoryDialer.callEvents(MemoryDialer.makeWorld()), (events) => {
        calls.set(callId, events)
        return events
      })
    })
  return CallEvents.of({
    publish: (callId, event) => Effect.flatMap(of(callId), (events) => events.publish(callId, event)),
    subscribe: (callId) => Effect.flatMap(of(callId), (events) => events.subscribe(callId))
  })
})

const program = Effect.gen(function*() {
  // The carrier's Answered reaches the server as its webhook would (the session reads the
  // answering-machine verdict from it, waiting up to 500 ms when it is missing).
  const local = yield* callEventsPerCall
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
    firstLine: Number(firstLineArg),
    seconds,
    rampMs: Number(rampArg),
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
  return { type: "done", placed, sendLags, cpuUs: cpu.user + cpu.system, wallMs: now() - t0, rssPeak }
})

Error.stackTraceLimit = 0
BenchMain.runMain(program, (done, exit) => send(done, exit))
