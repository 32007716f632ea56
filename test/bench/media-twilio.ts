/**
 * A lean carrier for the media benchmark (`test/bench/media.ts --carrier twilio` forks this):
 * what Twilio's media servers do for N lines of answered calls, in plain Node over `ws`, so that
 * the load generator takes little of the 2 cores the server under test shares with it.
 *
 * Per call, on the wire exactly as Twilio (twilio.com/docs/voice/media-streams/websocket-messages; the messages are
 * TwilioMediaStream's own encoding): `connected`, `start` with the call's media token, then one
 * inbound `media` frame every 20 ms on a grid from the stream's start (160 μ-law bytes; the
 * grid is driven by one 2 ms timer for every call, each frame sent when its slot is due). What
 * the server sends is "played" in real time: audio is queued after what is still playing, each
 * `mark` is echoed when the audio before it has played, `clear` echoes every pending mark at
 * once. The person: silence until the agent's audio has stopped playing for 300 ms (plus
 * `MEDIA_BENCH_PAUSE_MS` from the environment, 0 by default: longer calls; plus the call's own
 * share of the reply spread, `CallLines.spread`), then one
 * reply in simulated speech (SimSpeech, so the agent's recognizer hears a real utterance), then
 * silence. The call ends when the server closes the stream (the scripted agent ends it after
 * its thanks), or at the window's end (`stop`, then close); each line then places its next call.
 *
 * Arguments and reports as `media-carrier.ts` (N, seconds, media URL, first line, the ramp of
 * the first calls in ms; then the reply spread in ms; over IPC each stream's start, each call's
 * `Answered`, and at the end CPU, memory, send lags, calls placed).
 */
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import { Effect } from "effect"
import { performance } from "node:perf_hooks"
import WebSocket from "ws"
import * as CallLines from "./CallLines.ts"

const [nArg, secondsArg, mediaUrl = "", firstLineArg = "0", rampArg = "1000", replySpreadArg = "0"] = process.argv
  .slice(2)
const N = Number(nArg)
const firstLine = Number(firstLineArg)
const now = () => performance.timeOrigin + performance.now()
const report = (message: unknown, done?: () => void) => process.send?.(message, undefined, undefined, done)

const key = MediaToken.keyFrom(Effect.runSync(MemoryDialer.serverSecrets.cursorKey))
const deadline = now() + 1_000 + Number(secondsArg) * 1_000
/** How much longer than 300 ms the person waits before replying (module header). */
const replyPauseMs = Number(process.env["MEDIA_BENCH_PAUSE_MS"] ?? 0)
/** Over how long the lines' first calls start; how much the person's pause varies by call. */
const rampMs = Number(rampArg)
const replySpreadMs = Number(replySpreadArg)

/** The person's pause before replying on call `k` of `line`: the same in every run. */
const replyPause = (line: number, k: number) => 300 + replyPauseMs + replySpreadMs * CallLines.spread(line, k)

/** The person's reply as base64 μ-law frames of 20 ms; silence is one shared frame. */
const silence = Buffer.alloc(160, 0xff).toString("base64")
const replyFrames = (() => {
  const pcm = SimVoice.speak("Yes, I have a moment. Go ahead.")
  const frames: Array<string> = []
  for (let at = 0; at < pcm.length; at += 160) {
    const frame = new Int16Array(160)
    frame.set(pcm.subarray(at, at + 160))
    frames.push(Buffer.from(MuLaw.encode(frame)).toString("base64"))
  }
  return frames
})()

const sendLags: Array<number> = []
let placed = 0

interface Call {
  readonly callId: string
  readonly socket: WebSocket
  readonly streamSid: string
  start: number
  /** The next frame's number (from 0), -1 before `start` went out. */
  frame: number
  sequence: number
  /** When what the server sent will have played, on this process's clock. */
  playoutEnd: number
  /** Marks echoed when the audio before them has played: [name, at]. */
  marks: Array<[string, number]>
  /** The frame at which the reply starts, once decided. */
  replyAt: number | undefined
  readonly pause: number
  ended: boolean
}

const calls = new Set<Call>()

const place = (line: number, k: number) => {
  if (now() >= deadline) return
  const callId = `bench-${line}-${k}`
  const token = MediaToken.sign(key, callId, Date.now() + 3_600_000)
  placed++
  const socket = new WebSocket(mediaUrl, { perMessageDeflate: false })
  const call: Call = {
    callId,
    socket,
    streamSid: `MZ${callId.replace(/\W/g, "").padEnd(32, "0").slice(0, 32)}`,
    start: 0,
    frame: -1,
    sequence: 1,
    playoutEnd: 0,
    marks: [],
    replyAt: undefined,
    pause: replyPause(line, k),
    ended: false
  }
  socket.on("open", () => {
    report({ type: "answered", callId, event: { _tag: "Answered", at: Date.now(), answeredBy: "human" } })
    socket.send(TwilioMediaStream.encode({ _tag: "Connected", protocol: "Call", version: "1.0.0" }))
    socket.send(TwilioMediaStream.encode({
      _tag: "Start",
      sequenceNumber: call.sequence++,
      streamSid: call.streamSid,
      start: {
        streamSid: call.streamSid,
        accountSid: "AC00000000000000000000000000000000",
        callSid: `CA${call.streamSid.slice(2)}`,
        tracks: ["inbound"],
        customParameters: { token },
        mediaFormat: TwilioMediaStream.mulaw8k
      }
    }))
    call.start = now()
    call.frame = 0
    report({ type: "start", callId, at: call.start })
    calls.add(call)
  })
  socket.on("message", (data) => {
    // text frames, as `ws` hands them with its default binary type
    const text = Buffer.isBuffer(data) ? data.toString() : ""

    const at = now()
    if (text.startsWith("{\"event\":\"media\"")) {
      // 160 μ-law bytes (8 kHz) per 20 ms: base64 length * 3/4 bytes.
      const payload = text.slice(text.indexOf("\"payload\":\"") + 11, text.lastIndexOf("\""))
      const ms = (payload.length * 3 / 4) / 8
      call.playoutEnd = Math.max(call.playoutEnd, at) + ms
    } else if (text.startsWith("{\"event\":\"mark\"")) {
      const name = JSON.parse(text).mark.name as string
      call.marks.push([name, Math.max(call.playoutEnd, at)])
    } else if (text.startsWith("{\"event\":\"clear\"")) {
      call.playoutEnd = at
      for (const mark of call.marks) mark[1] = at
    }
  })
  const end = () => {
    if (call.ended) return
    call.ended = true
    calls.delete(call)
    place(line, k + 1)
  }
  socket.on("close", end)
  socket.on("error", end)
}

const tick = () => {
  const at = now()
  for (const call of calls) {
    if (call.socket.readyState !== WebSocket.OPEN) continue
    while (call.marks.length > 0 && call.marks[0]![1] <= at) {
      const [name] = call.marks.shift()!
      call.socket.send(TwilioMediaStream.encode({
        _tag: "Mark",
        sequenceNumber: call.sequence++,
        streamSid: call.streamSid,
        mark: { name }
      }))
    }
    if (at >= deadline) {
      call.socket.send(TwilioMediaStream.encode({
        _tag: "Stop",
        sequenceNumber: call.sequence++,
        streamSid: call.streamSid,
        stop: { accountSid: "AC00000000000000000000000000000000", callSid: `CA${call.streamSid.slice(2)}` }
      }))
      call.socket.close(1000)
      calls.delete(call)
      continue
    }
    while (call.start + call.frame * 20 <= at) {
      // The reply: its pause after the agent's first say has played.
      if (call.replyAt === undefined && call.playoutEnd > 0 && at - call.playoutEnd >= call.pause) {
        call.replyAt = call.frame
      }
      const r = call.replyAt === undefined ? -1 : call.frame - call.replyAt
      const payload = r >= 0 && r < replyFrames.length ? replyFrames[r]! : silence
      call.socket.send(TwilioMediaStream.encode({
        _tag: "Media",
        sequenceNumber: call.sequence++,
        streamSid: call.streamSid,
        media: { track: "inbound", chunk: call.frame + 1, timestamp: call.frame * 20, payload }
      }))
      sendLags.push(now() - (call.start + call.frame * 20))
      call.frame++
    }
  }
  if (at < deadline || calls.size > 0) return
  clearInterval(timer)
  const cpu = process.cpuUsage(cpu0)
  report(
    { type: "done", placed, sendLags, cpuUs: cpu.user + cpu.system, wallMs: now() - t0, rssPeak },
    () => process.exit(0)
  )
}

let rssPeak = process.memoryUsage().rss
setInterval(() => rssPeak = Math.max(rssPeak, process.memoryUsage().rss), 500).unref()
const cpu0 = process.cpuUsage()
const t0 = now()
const timer = setInterval(tick, 2)
for (let n = 0; n < N; n++) setTimeout(() => place(firstLine + n, 0), Math.floor((n * rampMs) / N))
