/**
 * The SIP carrier's tests' world: a scripted trunk, a user agent, the carrier over it with a
 * scripted media session, the trunk's RTP socket, and the events of the call.
 */
import * as Rtp from "@voice-agent/carrier-sip/Rtp"
import * as SipCarrier from "@voice-agent/carrier-sip/SipCarrier"
import * as SipMedia from "@voice-agent/carrier-sip/SipMedia"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import { InboundCalls } from "@voice-agent/core/ports/InboundCalls"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import * as Dgram from "node:dgram"
import * as Trunk from "./scriptedTrunk.ts"

export const { host } = Trunk
export const request: PlaceCallRequest = {
  from: "+14155550199",
  to: "+14155550100",
  callId: "call-1",
  mediaUrl: "unused",
  mediaToken: "token-1"
}
export const rtpPorts = () => {
  const low = 20_000 + 2 * Math.floor(Math.random() * 15_000)
  return { low, high: low + 39 }
}

/** 400 ms of a loud 1 kHz tone in μ-law: the scripted agent's greeting. */
export const greeting = MuLaw.encode(
  Int16Array.from({ length: 3200 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)))
)

/**
 * A scripted media session: reads the `Start` (its token kept), says the greeting, counts the
 * person's audio frames, and ends at `Stop`, or closes its end (the agent hanging up) at `hangUp`.
 */
export const scriptedSessions = () => {
  const seen = { tokens: [] as Array<string | undefined>, audioFrames: 0, stopped: false }
  const hangUp = Deferred.makeUnsafe<void>()
  const service = SipMedia.MediaSessions.of({
    serve: (socket, codec) =>
      Effect.gen(function*() {
        const reader = Effect.gen(function*() {
          for (let batch = yield* socket.read; batch !== undefined; batch = yield* socket.read) {
            for (const frame of batch) {
              const event = codec.decode(frame)
              if (event._tag === "Start") {
                seen.tokens.push(event.token)
                yield* socket.send(codec.encode(event.streamId, { _tag: "Media", audio: greeting }))
              } else if (event._tag === "Media") seen.audioFrames++
              else if (event._tag === "Stop") {
                seen.stopped = true
                return
              }
            }
          }
        })
        yield* Effect.raceFirst(reader, Deferred.await(hangUp))
        yield* socket.close
      })
  })
  return { seen, hangUp, service }
}

/** The trunk's RTP socket: what it receives, and RTP it sends. */
export const rtpSocket = Effect.gen(function*() {
  const socket = yield* Effect.acquireRelease(
    Effect.callback<Dgram.Socket>((resume) => {
      const s = Dgram.createSocket("udp4")
      s.bind(0, host, () => resume(Effect.succeed(s)))
    }),
    (s) => Effect.sync(() => s.close())
  )
  const received: Array<Rtp.RtpPacket> = []
  socket.on("message", (message) => {
    const bytes = new Uint8Array(message)
    if (Rtp.isRtcp(bytes)) return
    const decoded = Rtp.decode(bytes)
    if (decoded._tag === "Success") received.push(decoded.success)
  })
  /** `signal` (8 kHz PCM; default 400 ms of the loud tone) as PCMU packets, 20 ms apart, to `port`. */
  const speak = (port: number, signal: Int16Array = MuLaw.decode(greeting)) =>
    Effect.gen(function*() {
      const frames = Math.ceil(signal.length / 160)
      for (let i = 0; i < frames; i++) {
        const frame = new Int16Array(160)
        frame.set(signal.subarray(i * 160, (i + 1) * 160))
        socket.send(
          Rtp.encode({
            payloadType: 0,
            marker: i === 0,
            sequence: i,
            timestamp: i * 160,
            ssrc: 7,
            payload: MuLaw.encode(frame)
          }),
          port,
          host
        )
        yield* Effect.sleep(20)
      }
    })
  return { port: socket.address().port, received, speak }
})

/** The engine's inbound calls: +14155550100 accepted as `call-in`, +14155550111 declined, others not ours. */
export const inboundCalls = InboundCalls.of({
  accept: ({ to }) =>
    Effect.succeed(
      to === "+14155550100"
        ? {
          _tag: "Accepted",
          call: {
            callId: "call-in",
            conversationId: "c",
            organizationId: "o",
            mediaUrl: "unused",
            mediaToken: "token-in"
          }
        }
        : to === "+14155550111"
        ? { _tag: "Declined", callId: "call-declined", organizationId: "o" }
        : { _tag: "NotOurs" }
    )
})

/**
 * A trunk, a user agent (inbound INVITEs to the carrier's `decide`), the carrier over it (with
 * the engine's inbound calls when `inbound`), and the events of `callId` (default `call-1`).
 */
export const harness = (
  options: {
    readonly ringTimeoutS?: number
    readonly inbound?: boolean
    readonly callId?: string
    /** The events' world (default a new one). */
    readonly world?: MemoryDialer.World
    /** RTP_PORTS (default 40 ports at random). */
    readonly rtpPorts?: { readonly low: number; readonly high: number }
    /** The media sessions (default the scripted one). */
    readonly mediaSessions?: SipMedia.MediaSessions["Service"]
  } = {}
) =>
  Effect.gen(function*() {
    const world = options.world ?? MemoryDialer.makeWorld()
    const events = yield* MemoryDialer.callEvents(world)
    const trunk = yield* Trunk.make
    const sessions = scriptedSessions()
    const services = Layer.merge(
      Layer.succeed(CallEvents, events),
      Layer.succeed(SipMedia.MediaSessions, options.mediaSessions ?? sessions.service)
    )
    const sip = yield* SipCarrier.makeWithUserAgent({
      trunk: { host, port: trunk.endpoint.port, transport: "udp" },
      credentials: undefined,
      register: false,
      listen: { host, port: 0 },
      publicAddress: host,
      rtpPorts: options.rtpPorts ?? rtpPorts(),
      ringTimeoutS: options.ringTimeoutS ?? 30
    }, { inboundAckWaitMs: 2000 }).pipe(
      Effect.provide(
        options.inbound === true ? Layer.merge(services, Layer.succeed(InboundCalls, inboundCalls)) : services
      )
    )
    const ua = sip.calls
    const stream = yield* events.subscribe(options.callId ?? request.callId)
    // The call's events as tags: those published so far (`seen`), and all of them once it ended (`tags`).
    const seen: Array<string> = []
    const published = yield* Effect.forkChild(
      Stream.runForEach(
        Stream.takeUntil(stream, (event: CallEvent) => event._tag === "Ended"),
        (event) => Effect.sync(() => void seen.push(tagOf(event)))
      )
    )
    const tags = Effect.as(Fiber.join(published), seen as ReadonlyArray<string>)
    const us = { transport: "UDP" as const, host, port: ua.port }
    return { trunk, ua, sip, sessions, tags, seen, us, world }
  })

const tagOf = (event: CallEvent): string =>
  event._tag === "Answered"
    ? `Answered ${event.answeredBy}`
    : event._tag === "Ended"
    ? `Ended ${event.reason}`
    : event._tag

/** Waits (real time, 10 s at most) until `done()`. */
export const until = Trunk.until

export const loud = (packets: ReadonlyArray<Rtp.RtpPacket>) =>
  packets.filter((p) => MuLaw.decode(p.payload).some((s) => Math.abs(s) > 4000)).length
