/**
 * The media benchmark's hand-written baseline (`node test/bench/media.ts --server raw`): the
 * same per-call work as the daemon's media route, MediaSession and the scripted agent, written
 * directly on `node:http` and `ws` with plain callbacks, no Effect, on the same pure modules
 * (TwilioMediaStream, MuLaw, CallTimeline, Vad, SimSpeech, Wav, MediaToken). It answers how
 * much of the engine's cost per frame is the work itself and how much is the way it is run.
 *
 * Per call: the handshake (`start` with a valid media token, else the socket is closed); per
 * inbound frame: JSON decode, base64, μ-law to PCM, placed on the call's timeline, voice
 * activity, the recognizer (SimSpeech decoder, as the simulated speech-to-text), and `onFrame`
 * (where the engine hands the frame to the agent); what settled goes to the two recordings a
 * second at a time (streaming WAV files, `fs.write`). The agent: the scripted agent's greeting
 * as simulated speech at once, in 100 ms chunks each followed by a mark, paced to at most 1 s
 * ahead of playout and placed on the timeline at its playout time; after the person's first
 * utterance is recognized, its thanks; 3 s after the thanks has played, it closes the stream.
 */
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import * as Vad from "@voice-agent/media/Vad"
import * as Wav from "@voice-agent/media/Wav"
import { Option, Result } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { WebSocketServer } from "ws"
import type { WebSocket } from "ws"

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS
const chunkSamples = 100 * SAMPLES_PER_MS
const aheadSamples = 1_000 * SAMPLES_PER_MS
const recordSamples = 1_000 * SAMPLES_PER_MS
const batchSamples = 200 * SAMPLES_PER_MS
const hangUpGraceMs = 3_000

const greeting = SimVoice.speak("Hello Ann, this is an automated call. Do you have a moment?")
const thanks = SimVoice.speak("Thank you for your time. Goodbye.")

interface Recording {
  /** Undefined until the file is open; what is written before waits in `waiting`. */
  fd: number | undefined
  waiting: Array<{ readonly bytes: Uint8Array; readonly position: number }>
  bytes: number
  closed: boolean
  /** Writes not yet done: the file is closed after the last one. */
  inFlight: number
}

interface Call {
  readonly callId: string
  readonly streamSid: string
  readonly startedAt: number
  readonly timeline: CallTimeline.CallTimeline
  vad: Vad.State
  readonly decoder: SimSpeech.Decoder
  /** What the agent still has to send of its current say, and where it is in it. */
  saying: Int16Array | undefined
  sent: number
  playoutEnd: number
  markSeq: number
  lastMark: string | undefined
  heard: boolean
  thanked: boolean
  unrecorded: Array<CallTimeline.Segment>
  unrecordedSamples: number
  readonly recordings: { readonly agent: Recording; readonly remote: Recording }
}

export const start = (options: {
  readonly key: Uint8Array
  readonly dir: string
  /** Each inbound frame as the agent would read it. */
  readonly onFrame: (callId: string, timestampMs: number) => void
}): Promise<{ readonly url: string; readonly close: () => void }> => {
  const server = createServer()
  const wss = new WebSocketServer({ server, perMessageDeflate: false })
  const calls = new Set<{ call: Call; socket: WebSocket }>()

  const open = (callId: string, channel: string): Recording => {
    const recording: Recording = {
      fd: undefined,
      waiting: [{ bytes: Wav.streamingHeader(), position: 0 }],
      bytes: 0,
      closed: false,
      inFlight: 0
    }
    fs.open(path.join(options.dir, `${callId}-${channel}.wav`), "w", (error, fd) => {
      if (error) return
      recording.fd = fd
      for (const { bytes, position } of recording.waiting) writeAt(recording, fd, bytes, position)
      recording.waiting = []
      closeWhenDone(recording)
    })
    return recording
  }
  const closeWhenDone = (recording: Recording) => {
    if (recording.closed && recording.fd !== undefined && recording.inFlight === 0) fs.close(recording.fd, () => {})
  }
  const writeAt = (recording: Recording, fd: number, bytes: Uint8Array, position: number) => {
    recording.inFlight++
    fs.write(fd, bytes, 0, bytes.length, position, () => {
      recording.inFlight--
      closeWhenDone(recording)
    })
  }
  const put = (recording: Recording, bytes: Uint8Array, position: number) => {
    if (recording.fd === undefined) recording.waiting.push({ bytes, position })
    else writeAt(recording, recording.fd, bytes, position)
  }
  const append = (recording: Recording, samples: Int16Array) => {
    const bytes = Wav.encodeSamples(samples)
    // at explicit positions: writes run at once on libuv's threads, in any order
    put(recording, bytes, Wav.HEADER_BYTES + recording.bytes)
    recording.bytes += bytes.length
  }
  const record = (call: Call) => {
    for (const channel of ["agent", "remote"] as const) {
      const parts = call.unrecorded.map((segment) => segment[channel])
      const all = new Int16Array(parts.reduce((n, part) => n + part.length, 0))
      let at = 0
      for (const part of parts) {
        all.set(part, at)
        at += part.length
      }
      append(call.recordings[channel], all)
    }
    call.unrecorded = []
    call.unrecordedSamples = 0
  }
  const write = (call: Call, segments: Iterable<CallTimeline.Segment>, final = false) => {
    for (const segment of segments) {
      call.unrecorded.push(segment)
      call.unrecordedSamples += segment.remote.length
    }
    if (final || call.unrecordedSamples >= recordSamples) record(call)
  }
  const nowPosition = (call: Call) => (Date.now() - call.startedAt) * SAMPLES_PER_MS

  /** Sends what the agent may send now of its say: a chunk at a time, at most 1 s ahead. */
  const pump = (call: Call, socket: WebSocket) => {
    while (call.saying !== undefined) {
      const now = nowPosition(call)
      if (call.sent > 0 && call.playoutEnd - now > aheadSamples) return
      const pcm = call.saying.subarray(call.sent, call.sent + (call.sent === 0 ? 160 : chunkSamples))
      call.sent += pcm.length
      const position = Math.max(call.playoutEnd, now)
      CallTimeline.place(call.timeline, "agent", position, pcm)
      call.playoutEnd = position + pcm.length
      const name = `m${++call.markSeq}`
      call.lastMark = name
      socket.send(TwilioMediaStream.encode(
        TwilioMediaStream.outboundMedia(call.streamSid, Buffer.from(MuLaw.encode(pcm)).toString("base64"))
      ))
      socket.send(TwilioMediaStream.encode(TwilioMediaStream.outboundMark(call.streamSid, name)))
      if (call.sent >= call.saying.length) call.saying = undefined
    }
  }
  const say = (call: Call, socket: WebSocket, pcm: Int16Array) => {
    call.saying = pcm
    call.sent = 0
    pump(call, socket)
  }

  const end = (entry: { call: Call; socket: WebSocket }) => {
    if (!calls.delete(entry)) return
    const { call } = entry
    write(call, CallTimeline.finish(call.timeline), true)
    for (const recording of Object.values(call.recordings)) {
      for (const patch of Wav.patchSizes(recording.bytes)) put(recording, patch.bytes, patch.offset)
      recording.closed = true
      closeWhenDone(recording)
    }
  }

  wss.on("connection", (socket) => {
    let entry: { call: Call; socket: WebSocket } | undefined
    socket.on("message", (data) => {
      const decoded = TwilioMediaStream.decode(Buffer.isBuffer(data) ? data.toString() : "")
      if (Result.isFailure(decoded)) return
      const message = decoded.success
      if (entry === undefined) {
        if (message._tag === "Connected") return
        const token = message._tag === "Start" ? message.start.customParameters?.["token"] : undefined
        const callId = token === undefined ? Option.none() : MediaToken.verify(options.key, token, Date.now())
        if (message._tag !== "Start" || Option.isNone(callId)) return socket.close()
        const call: Call = {
          callId: callId.value,
          streamSid: message.streamSid,
          startedAt: Date.now(),
          timeline: CallTimeline.make(),
          vad: Vad.make(),
          decoder: new SimSpeech.Decoder(),
          saying: undefined,
          sent: 0,
          playoutEnd: 0,
          markSeq: 0,
          lastMark: undefined,
          heard: false,
          thanked: false,
          unrecorded: [],
          unrecordedSamples: 0,
          recordings: { agent: open(callId.value, "agent"), remote: open(callId.value, "remote") }
        }
        entry = { call, socket }
        calls.add(entry)
        say(call, socket, greeting)
        return
      }
      const { call } = entry
      switch (message._tag) {
        case "Media": {
          if (message.media.track !== "inbound") return
          const pcm = MuLaw.decode(Buffer.from(message.media.payload, "base64"))
          const timestampMs = message.media.timestamp
          CallTimeline.place(call.timeline, "remote", timestampMs * SAMPLES_PER_MS, pcm)
          call.vad = Vad.step(call.vad, pcm).state
          options.onFrame(call.callId, timestampMs)
          const gap = timestampMs * SAMPLES_PER_MS - call.decoder.offset
          if (gap > 0) call.decoder.pushSilence(gap)
          if (call.decoder.push(pcm).length > 0 && !call.heard) {
            call.heard = true
            say(call, socket, thanks)
            call.thanked = true
          }
          const settled = CallTimeline.settled(call.timeline)
          if (settled - call.timeline.cursor >= batchSamples) write(call, CallTimeline.advance(call.timeline, settled))
          return
        }
        case "Mark": {
          if (call.thanked && call.saying === undefined && message.mark.name === call.lastMark) {
            setTimeout(() => socket.close(1000), hangUpGraceMs)
          }
          return
        }
        case "Stop":
          return socket.close(1000)
        case "Connected":
        case "Start":
        case "Dtmf":
        case "Unknown":
          return
      }
    })
    socket.on("close", () => entry !== undefined && end(entry))
  })

  // The agent's pacing: what it may send now, every 20 ms.
  const pacer = setInterval(() => {
    for (const entry of calls) if (entry.call.saying !== undefined) pump(entry.call, entry.socket)
  }, 20)

  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `ws://127.0.0.1:${port}/carrier/twilio/media`,
        close: () => {
          clearInterval(pacer)
          for (const entry of calls) entry.socket.terminate()
          server.close()
        }
      })
    })
  })
}
