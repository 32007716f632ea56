/**
 * One call's RTP session (RFC 3550) over a SIP trunk: the sockets, the person's audio in
 * through the jitter buffer, the agent's audio out at 20 ms a packet, telephone-events both
 * ways, symmetric RTP and RTCP reports. A scoped resource: the ports are the scope's, and
 * closing it sends an RTCP BYE, stops the pacer, ends `incoming` and frees the ports.
 *
 * What the `Carrier` adapter feeds the media session from it (the session's vocabulary,
 * `MediaCodec`): `incoming` is the person's audio as μ-law 8 kHz placed on the call's timeline
 * (ms since `originMs`, the answer) by `JitterBuffer`, with `Gap`s where audio was lost, each
 * key press once (`Dtmf`, at its first packet's arrival), and the echo of each `mark` (`Played`) once everything queued
 * before it was sent; `play` queues the agent's μ-law (any length: cut into 20 ms frames, a
 * short tail joined with what comes next), `mark` queues a mark, `clear` drops what is queued
 * (barge-in; the marks among it come back at once), `sendDtmf` presses keys.
 *
 * Sending (`RtpSender` per tick): one packet every 20 ms, paced on the clock's deadlines (not
 * on sleeps, which drift), always: the next queued frame, or comfort silence when the queue is
 * empty, as a trunk expects a continuous stream (NATs and media timeouts hang up on a silent
 * one). Behind by more than 200 ms (a stalled event loop), the sender skips the lost ticks in
 * its timestamps instead of bursting. A key press takes the ticks it needs as RFC 4733 events
 * when the peer takes telephone-event, or is played in band (`media/DtmfTones`) when not. The
 * outbound queue holds `queueFrames` frames: `play` waits while it is full.
 *
 * Receiving: every datagram is read in the socket's callback and never throws. RTCP (RFC 5761
 * types, on either port) is read for the peer's SRs (the LSR and DLSR of our reports); RTP
 * with the negotiated payload type (or PCMU 0, PCMA 8) is transcoded to μ-law and placed by the
 * jitter buffer, released at the next tick; telephone-events (the peer's payload type or
 * ours, `localTelephoneEvent`) go through `TelephoneEvent.receive`; other payload types are
 * counted as ignored, undecodable datagrams as malformed.
 *
 * Symmetric RTP (RFC 4961, as behind NAT): packets go to the SDP's address and port until the
 * peer's RTP arrives, then to where it comes from (the latest source of a valid packet); RTCP
 * to the source of the peer's RTCP, else RTP's port + 1. `update` (a re-INVITE) changes codec,
 * payload types, hold and, when the SDP's address or port changed, the target.
 *
 * Reports: an SR (we always send) with a report block of the peer's stream (`RtpReception`)
 * and our CNAME, every `rtcpIntervalMs` (5 s) randomised by ±50% (RFC 3550 §6.3.1).
 *
 * @since 0.1.0
 */
import * as ALaw from "@voice-agent/media/ALaw"
import * as DtmfTones from "@voice-agent/media/DtmfTones"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Clock, Effect, Queue, Result, Stream } from "effect"
import type { Cause, Scope } from "effect"
import type * as Dgram from "node:dgram"
import * as JitterBuffer from "./JitterBuffer.ts"
import * as RtcpReport from "./RtcpReport.ts"
import * as Rtp from "./Rtp.ts"
import * as RtpPorts from "./RtpPorts.ts"
import * as RtpReception from "./RtpReception.ts"
import * as RtpSender from "./RtpSender.ts"
import type * as Sdp from "./Sdp.ts"
import * as TelephoneEvent from "./TelephoneEvent.ts"

/**
 * The far end as the SDP negotiation gave it (`Sdp.Negotiated` fits).
 *
 * @category models
 */
export interface Remote {
  readonly codec: Sdp.Codec
  readonly payloadType: number
  readonly telephoneEvent: number | undefined
  readonly address: string
  readonly port: number
  /** The peer holds the call: nothing is sent (the clock still moves). */
  readonly held?: boolean
}

/**
 * @category models
 */
export interface Options {
  /** The address to bind (SIP_LISTEN's host). */
  readonly host: string
  /** RTP_PORTS. */
  readonly ports: { readonly low: number; readonly high: number }
  readonly remote: Remote
  /** The telephone-event payload type of our own SDP, accepted on the way in too. Default 101. */
  readonly localTelephoneEvent?: number
  /** Frames (20 ms) the outbound queue holds. Default 250 (5 s). */
  readonly queueFrames?: number
  /** Events `incoming` holds unread; past it, events are dropped (counted). Default 1,000. */
  readonly incomingCapacity?: number
  readonly jitter?: JitterBuffer.Options
  /** Mean interval of RTCP reports. Default 5,000 ms. */
  readonly rtcpIntervalMs?: number
  /** RTCP's CNAME. Default `voice-agent@<host>`. */
  readonly cname?: string
  /**
   * A port pair already bound (`RtpPorts.allocate`, its port in the SDP offer sent before the
   * answer); it stays its allocator's to close. Default: a pair bound from `ports`.
   */
  readonly bound?: RtpPorts.RtpPorts
  /** The origin of the call's timeline, on the clock (ms): the answer. Default now. */
  readonly originMs?: number
}

/**
 * What comes from the peer, in order of release.
 *
 * @category models
 */
export type Incoming =
  | { readonly _tag: "Audio"; readonly atMs: number; readonly durationMs: number; readonly audio: Uint8Array }
  | { readonly _tag: "Gap"; readonly atMs: number; readonly durationMs: number }
  | { readonly _tag: "Dtmf"; readonly atMs: number; readonly digit: string }
  | { readonly _tag: "Played"; readonly name: string }

/**
 * Counts for the call's logs.
 *
 * @category models
 */
export interface Stats {
  readonly sent: { readonly packets: number; readonly octets: number; readonly silentTicks: number }
  readonly received: {
    readonly packets: number
    readonly malformed: number
    readonly ignored: number
    readonly rtcp: number
    readonly digits: number
    readonly late: number
    readonly duplicates: number
    readonly lostPackets: number
    readonly lostSamples: number
    readonly jitterMs: number
  }
  /** Events dropped because `incoming` was not read. */
  readonly incomingDropped: number
  /** Where RTP goes, and whether it was learnt from the peer's packets. */
  readonly target: { readonly address: string; readonly port: number; readonly latched: boolean }
}

/**
 * @category models
 */
export interface RtpSession {
  /** The local RTP port (RTCP is the next), for the SDP. */
  readonly port: number
  /** What comes from the peer (module header); one reader: it takes from one queue. Ends with the scope. */
  readonly incoming: Stream.Stream<Incoming>
  /** Queues μ-law 8 kHz audio; waits while the queue is full. */
  readonly play: (audio: Uint8Array) => Effect.Effect<void>
  /** Queues a mark, echoed as `Played` once what was queued before it is sent. */
  readonly mark: (name: string) => Effect.Effect<void>
  /** Presses keys (`0-9 * # A-D`, others skipped), in order, after what is queued. */
  readonly sendDtmf: (digits: string, durationMs?: number) => Effect.Effect<void>
  /** Drops the queued audio (barge-in); pending marks are echoed. */
  readonly clear: Effect.Effect<void>
  /** A re-INVITE's new negotiation. */
  readonly update: (remote: Remote) => Effect.Effect<void>
  readonly stats: Effect.Effect<Stats>
}

type Outbound =
  | { readonly _tag: "Frame"; readonly audio: Uint8Array }
  | { readonly _tag: "Mark"; readonly name: string }
  | { readonly _tag: "Press"; readonly digit: string; readonly durationMs: number }

const TICK_MS = 20
const MAX_BEHIND_MS = 200
const FRAME = Rtp.SAMPLES_PER_FRAME

const toMuLaw = (codec: Sdp.Codec, payload: Uint8Array): Uint8Array =>
  codec === "PCMA" ? MuLaw.encode(ALaw.decode(payload)) : payload.slice()

/**
 * Opens the session: binds a port pair and starts sending (silence until `play`).
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<RtpSession, RtpPorts.RtpPortsExhausted, Scope.Scope> =>
  Effect.gen(function*() {
    const ports = options.bound ?? (yield* RtpPorts.allocate(options.host, options.ports))
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()
    const originMs = options.originMs ?? now()
    const localTelephoneEvent = options.localTelephoneEvent ?? 101
    const cname = options.cname ?? `voice-agent@${options.host}`
    const rtcpIntervalMs = options.rtcpIntervalMs ?? 5000

    let remote = options.remote
    const sender = RtpSender.make({
      codec: remote.codec,
      payloadType: remote.payloadType,
      telephoneEvent: remote.telephoneEvent
    })
    const jitter = JitterBuffer.make(options.jitter)
    const reception = RtpReception.make()
    let dtmfState = TelephoneEvent.receiver()
    const target = { address: remote.address, port: remote.port, latched: false }
    let rtcpTarget: { address: string; port: number } | undefined
    const counts = { packets: 0, malformed: 0, ignored: 0, rtcp: 0, digits: 0, incomingDropped: 0, silentTicks: 0 }
    let closed = false

    const incoming = yield* Queue.dropping<Incoming, Cause.Done>(options.incomingCapacity ?? 1000)
    const outbound = yield* Queue.bounded<Outbound>(options.queueFrames ?? 250)
    let partial: Uint8Array = new Uint8Array(0)

    const emit = (event: Incoming) => {
      if (!Queue.offerUnsafe(incoming, event)) counts.incomingDropped++
    }
    const send = (socket: Dgram.Socket, bytes: Uint8Array, port: number, address: string) => {
      if (closed) return
      try {
        socket.send(bytes, port, address, () => undefined)
      } catch {
        // a closed socket or an unresolvable address: the packet is lost, as UDP's are
      }
    }

    const onRtcp = (bytes: Uint8Array, from: Dgram.RemoteInfo) => {
      const parsed = RtcpReport.parse(bytes)
      if (Result.isFailure(parsed)) {
        counts.malformed++
        return
      }
      counts.rtcp++
      rtcpTarget = { address: from.address, port: from.port }
      for (const part of parsed.success) {
        if (part._tag === "SenderReport" && part.ssrc === reception.ssrc) {
          RtpReception.senderReport(reception, part.sender.ntpSeconds, part.sender.ntpFraction, now())
        }
      }
    }

    const onRtp = (message: Buffer, from: Dgram.RemoteInfo) => {
      const bytes = new Uint8Array(message.buffer, message.byteOffset, message.byteLength)
      if (Rtp.isRtcp(bytes)) return onRtcp(bytes, from)
      const decoded = Rtp.decode(bytes)
      if (Result.isFailure(decoded)) {
        counts.malformed++
        return
      }
      const packet = decoded.success
      const pt = packet.payloadType
      const isEvent = pt === remote.telephoneEvent || pt === localTelephoneEvent
      const codec: Sdp.Codec | undefined = pt === remote.payloadType
        ? remote.codec
        : pt === 0
        ? "PCMU"
        : pt === 8
        ? "PCMA"
        : undefined
      if (!isEvent && codec === undefined) {
        counts.ignored++
        return
      }
      if (target.address !== from.address || target.port !== from.port || !target.latched) {
        target.address = from.address
        target.port = from.port
        target.latched = true
      }
      counts.packets++
      const arrival = now()
      RtpReception.received(reception, packet, arrival)
      const atMs = Math.max(0, arrival - originMs)
      if (isEvent) {
        const { digit, state } = TelephoneEvent.receive(dtmfState, packet.timestamp, packet.payload)
        dtmfState = state
        if (digit !== undefined) {
          counts.digits++
          emit({ _tag: "Dtmf", atMs, digit })
        }
        return
      }
      JitterBuffer.push(jitter, { ...packet, payload: toMuLaw(codec!, packet.payload) }, atMs)
    }

    ports.rtp.on("message", onRtp)
    ports.rtcp.on(
      "message",
      (message, from) => onRtcp(new Uint8Array(message.buffer, message.byteOffset, message.byteLength), from)
    )
    // A socket error (ICMP unreachable on some systems) must not become an uncaught exception.
    ports.rtp.on("error", () => undefined)
    ports.rtcp.on("error", () => undefined)

    const release = (frames: ReadonlyArray<JitterBuffer.Frame>) => {
      for (const frame of frames) {
        emit(
          frame._tag === "Audio"
            ? { _tag: "Audio", atMs: frame.atMs, durationMs: frame.durationMs, audio: frame.payload }
            : frame
        )
      }
    }

    // `rtpNow`: the stream's timestamp of this moment (the SR pairs it with the NTP time).
    const report = (bye: string | undefined, rtpNow: number): Effect.Effect<void> => {
      const at = now()
      const ntp = RtcpReport.ntpOf(at)
      const block = RtpReception.block(reception, at)
      const bytes = RtcpReport.compound({
        ssrc: sender.ssrc,
        sender: sender.packets === 0 ? undefined : {
          ntpSeconds: ntp.seconds,
          ntpFraction: ntp.fraction,
          rtpTimestamp: rtpNow >>> 0,
          packets: sender.packets,
          octets: sender.octets
        },
        reports: block === undefined ? [] : [block],
        cname,
        bye
      })
      const to = rtcpTarget ?? { address: target.address, port: target.port + 1 }
      // Resolves once the datagram left (a BYE must, before the socket closes), or at once if it cannot.
      return Effect.callback<void>((resume) => {
        if (closed) return resume(Effect.void)
        try {
          ports.rtcp.send(bytes, to.port, to.address, () => resume(Effect.void))
        } catch {
          resume(Effect.void)
        }
      })
    }

    // Takes the next frame to send, echoing the marks before it and starting key presses.
    const nextFrame = (): Uint8Array | undefined => {
      while (true) {
        const item = Queue.takeUnsafe(outbound)
        if (item === undefined || item._tag !== "Success") return undefined
        const value = item.value
        if (value._tag === "Frame") return value.audio
        if (value._tag === "Mark") emit({ _tag: "Played", name: value.name })
        else {
          RtpSender.pressKey(sender, value.digit, value.durationMs)
          return undefined
        }
      }
    }

    const tick = () => {
      release(JitterBuffer.pull(jitter, now() - originMs))
      const audio = RtpSender.pressing(sender) ? undefined : nextFrame()
      if (audio === undefined && !RtpSender.pressing(sender)) counts.silentTicks++
      const packet = RtpSender.tick(sender, audio, remote.held !== true)
      if (packet !== undefined) send(ports.rtp, packet, target.port, target.address)
    }

    const pacer = Effect.gen(function*() {
      let deadline = now()
      let nextReport = deadline + rtcpIntervalMs * (0.5 + Math.random())
      while (true) {
        const wait = deadline - now()
        if (wait > 0) yield* Effect.sleep(wait)
        tick()
        deadline += TICK_MS
        const behind = now() - deadline
        if (behind > MAX_BEHIND_MS) {
          const frames = Math.floor(behind / TICK_MS)
          RtpSender.skip(sender, frames)
          deadline += frames * TICK_MS
        }
        if (now() >= nextReport) {
          // the next tick, at `deadline`, carries `sender.timestamp`
          yield* report(undefined, sender.timestamp - Math.round((deadline - now()) * 8))
          nextReport = now() + rtcpIntervalMs * (0.5 + Math.random())
        }
      }
    })

    yield* Effect.addFinalizer(() =>
      report("", sender.lastTimestamp).pipe(
        Effect.timeoutOption(200),
        Effect.andThen(Effect.sync(() => {
          closed = true
          release(JitterBuffer.drain(jitter))
          Queue.endUnsafe(incoming)
        }))
      )
    )
    yield* Effect.forkScoped(pacer)

    const enqueue = (item: Outbound) => Effect.asVoid(Queue.offer(outbound, item))
    const flushPartial = Effect.suspend(() => {
      if (partial.length === 0) return Effect.void
      const audio = new Uint8Array(FRAME).fill(MuLaw.SILENCE)
      audio.set(partial)
      partial = new Uint8Array(0)
      return enqueue({ _tag: "Frame", audio })
    })

    const play = (audio: Uint8Array): Effect.Effect<void> =>
      Effect.gen(function*() {
        let bytes = audio
        if (partial.length > 0) {
          bytes = new Uint8Array(partial.length + audio.length)
          bytes.set(partial)
          bytes.set(audio, partial.length)
          partial = new Uint8Array(0)
        }
        let offset = 0
        for (; offset + FRAME <= bytes.length; offset += FRAME) {
          yield* enqueue({ _tag: "Frame", audio: bytes.slice(offset, offset + FRAME) })
        }
        partial = bytes.slice(offset)
      })

    const sendDtmf = (digits: string, durationMs = 100): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* flushPartial
        for (const digit of digits) {
          if (TelephoneEvent.eventOf(digit) === undefined) continue
          if (remote.telephoneEvent !== undefined) {
            yield* enqueue({ _tag: "Press", digit, durationMs })
          } else {
            for (const tone of DtmfTones.encode(digit)) yield* play(MuLaw.encode(tone))
            yield* flushPartial
          }
        }
      })

    const clear = Effect.gen(function*() {
      partial = new Uint8Array(0)
      const dropped = yield* Queue.clear(outbound)
      for (const item of dropped) if (item._tag === "Mark") emit({ _tag: "Played", name: item.name })
    })

    const update = (next: Remote) =>
      Effect.sync(() => {
        if (next.address !== remote.address || next.port !== remote.port) {
          target.address = next.address
          target.port = next.port
          target.latched = false
          rtcpTarget = undefined
        }
        remote = next
        sender.codec = next.codec
        sender.payloadType = next.payloadType
        sender.telephoneEvent = next.telephoneEvent
      })

    const stats = Effect.sync((): Stats => ({
      sent: { packets: sender.packets, octets: sender.octets, silentTicks: counts.silentTicks },
      received: {
        packets: counts.packets,
        malformed: counts.malformed,
        ignored: counts.ignored,
        rtcp: counts.rtcp,
        digits: counts.digits,
        late: jitter.stats.late,
        duplicates: jitter.stats.duplicates,
        lostPackets: RtpReception.cumulativeLost(reception),
        lostSamples: jitter.stats.lostSamples,
        jitterMs: reception.jitter / 8
      },
      incomingDropped: counts.incomingDropped,
      target: { ...target }
    }))

    return {
      port: ports.port,
      incoming: Stream.fromQueue(incoming),
      play,
      mark: (name) => Effect.andThen(flushPartial, enqueue({ _tag: "Mark", name })),
      sendDtmf,
      clear,
      update,
      stats
    } satisfies RtpSession
  })
