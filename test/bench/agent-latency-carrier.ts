/**
 * The carrier's side of the agent-latency bench (test/bench/agent-latency.ts): the simulated
 * carrier's stream (`SimMediaStream.run`) and a briefed `SimPerson` for each call, timing on
 * the carrier's side of the socket the end of each of the person's answers and the first
 * `media` the session sends after it.
 *
 * By default they run in a process of their own (`forkCarrier`: this file as a child, the
 * streams over real WebSockets to the engine's media endpoint), so that the simulated carrier's
 * 20 ms grid and the person's decoding of the agent's speech are not counted as the engine's,
 * as a real carrier's are not; `runCall` runs one over any socket, in process too.
 */
import * as NodeWS from "@effect/platform-node/NodeWS"
import * as SimMediaStream from "@voice-agent/carrier-sim/SimMediaStream"
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import type { FieldItem } from "@voice-agent/core/AgentTask"
import { incomingOf, MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Duration, Effect, Layer, References } from "effect"
import { fork } from "node:child_process"
import { performance } from "node:perf_hooks"

/** Milliseconds since the epoch, comparable across the bench's processes. */
export const now = () => performance.timeOrigin + performance.now()

/** One measured turn. */
export interface Turn {
  /** The last frame of the caller's answer left the carrier. */
  readonly a: number
  /** The carrier read the session's first `media` after it. */
  readonly b: number
}

/** What the carrier saw of one call. */
export interface CarrierTrack {
  readonly callId: string
  /** Speech frames the person has said (queued) and the carrier has sent. */
  framesSaid: number
  framesSent: number
  answers: number
  /** `a` of the turn waiting for the agent's first audio. */
  pending: number | undefined
  /** The carrier's playout of the agent's audio: when what it was sent finishes playing. */
  playEnd: number
  inReply: boolean
  clears: number
  readonly turns: Array<Turn>
  readonly gaps: Array<number>
}

/** A call for the carrier to take: its ids, the media token, when to start. */
export interface CallPlan {
  readonly n: number
  readonly callId: string
  readonly token: string
  readonly startAfterMs: number
}

export const emptyTrack = (callId: string): CarrierTrack => ({
  callId,
  framesSaid: 0,
  framesSent: 0,
  answers: 0,
  pending: undefined,
  playEnd: 0,
  inReply: false,
  clears: 0,
  turns: [],
  gaps: []
})

const SILENT_PAYLOAD = `"payload":"${Buffer.alloc(SimMediaStream.FRAME_SAMPLES, MuLaw.SILENCE).toString("base64")}"`
const MEDIA = "{\"event\":\"media\""
const PAYLOAD = /"payload":"([^"]*)"/

/** Bytes in a base64 payload. */
const base64Bytes = (text: string): number => {
  const payload = PAYLOAD.exec(text)?.[1] ?? ""
  return Math.floor((payload.length * 3) / 4) - (payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0)
}

/** The carrier's socket, timing the end of each answer and the agent's first audio after it. */
const watchCarrier = (socket: MediaSocket, track: CarrierTrack): MediaSocket => {
  const read = Effect.map(socket.read, (texts) => {
    if (texts === undefined) return texts
    const at = now()
    for (const text of texts) {
      if (text.startsWith("{\"event\":\"clear\"")) track.clears++
      if (!text.startsWith(MEDIA)) continue
      // the carrier plays μ-law at 8 kHz: a byte is 1/8 ms
      const ms = base64Bytes(text) / 8
      if (track.pending !== undefined) {
        track.turns.push({ a: track.pending, b: at })
        track.pending = undefined
        track.inReply = true
      } else if (track.inReply && at > track.playEnd + 1) {
        track.gaps.push(at - track.playEnd)
      }
      track.playEnd = Math.max(at, track.playEnd) + ms
    }
    return texts
  })
  return {
    ...socket,
    read,
    incoming: incomingOf(read),
    send: (text) =>
      Effect.tap(socket.send(text), () =>
        Effect.sync(() => {
          if (!text.startsWith(MEDIA) || text.includes(SILENT_PAYLOAD)) return
          track.inReply = false
          if (++track.framesSent === track.framesSaid) track.pending = now()
        }))
  }
}

/** One call's stream, over `socket`, until the session ends it; what the carrier saw in `track`. */
export const runCall = (
  plan: CallPlan,
  socket: MediaSocket,
  track: CarrierTrack,
  briefing: SimPerson.Briefing
) => {
  const sid = String(plan.n).padStart(32, "0")
  return SimMediaStream.run({
    socket: watchCarrier(socket, track),
    accountSid: `AC${sid}`,
    callSid: `CA${sid}`,
    streamSid: `MZ${sid}`,
    customParameters: { token: plan.token },
    person: (line) =>
      SimPerson.behave("conversation", {
        heard: line.heard,
        say: (samples) =>
          Effect.suspend(() => {
            track.framesSaid += Math.ceil(samples.length / SimMediaStream.FRAME_SAMPLES)
            track.answers++
            return line.say(samples)
          })
      }, briefing),
    hangUp: Effect.never
  })
}

interface Job {
  readonly type: "run"
  readonly url: string
  readonly plans: ReadonlyArray<CallPlan>
  readonly fields: ReadonlyArray<FieldItem>
  readonly timeoutMs: number
}

interface Done {
  readonly type: "done"
  readonly tracks: ReadonlyArray<CarrierTrack>
  readonly failures: ReadonlyArray<string>
  readonly cpuMs: number
}

/** The child's side: takes every call of the job over WebSockets, then reports what it saw. */
const child = Effect.gen(function*() {
  process.once("disconnect", () => process.exit(1))
  const job = yield* Effect.callback<Job>((resume) => {
    process.once("message", (message: Job) => resume(Effect.succeed(message)))
    process.send!({ type: "ready" })
  })
  const connector = yield* MediaConnector
  const briefing: SimPerson.Briefing = { fields: job.fields, answers: {} }
  const cpu0 = process.cpuUsage()
  const tracks = job.plans.map((plan) => emptyTrack(plan.callId))
  const failures = yield* Effect.forEach(job.plans, (plan, i) =>
    Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(plan.startAfterMs))
      const socket = yield* connector.connect(job.url)
      yield* runCall(plan, socket, tracks[i]!, briefing)
    }).pipe(
      Effect.scoped,
      Effect.timeoutOption(Duration.millis(job.timeoutMs)),
      Effect.map((done) => done._tag === "None" ? `call ${plan.n} timed out` : undefined),
      Effect.catch((error) => Effect.succeed(`call ${plan.n}: ${error.message}`))
    ), { concurrency: "unbounded" })
  const cpu = process.cpuUsage(cpu0)
  const done: Done = {
    type: "done",
    tracks,
    failures: failures.filter((failure) => failure !== undefined),
    cpuMs: (cpu.user + cpu.system) / 1000
  }
  yield* Effect.callback<void>((resume) => {
    process.send!(done, () => resume(Effect.void))
  })
}).pipe(Effect.provide(SocketMedia.connector.pipe(Layer.provide(NodeWS.layerWebSocketConstructor))))

/**
 * The carrier in a child process: `run` hands it the calls (their streams to `url`) and returns
 * what it saw once every call has ended.
 */
export const forkCarrier = Effect.gen(function*() {
  const proc = yield* Effect.acquireRelease(
    Effect.sync(() =>
      fork(import.meta.filename, ["--carrier"], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        execArgv: process.execArgv.filter((arg) => !arg.startsWith("--cpu-prof"))
      })
    ),
    (p) => Effect.sync(() => p.kill())
  )
  const receive = <A>(type: string) =>
    Effect.callback<A>((resume) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return
        proc.off("message", onMessage)
        resume(Effect.succeed(message as A))
      }
      proc.on("message", onMessage)
      proc.once("exit", (code) => resume(Effect.die(new Error(`the carrier's process exited with ${code}`))))
    })
  yield* receive<{ type: "ready" }>("ready")
  const run = (job: Omit<Job, "type">) =>
    Effect.suspend(() => {
      const done = receive<Done>("done")
      proc.send({ type: "run", ...job } satisfies Job)
      return done
    })
  return { run }
})

if (process.argv.includes("--carrier")) {
  Effect.runPromise(child.pipe(Effect.provideService(References.MinimumLogLevel, "Error"))).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
}
