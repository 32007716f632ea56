import { assert, describe, it } from "@effect/vitest"
import * as ALaw from "@voice-agent/media/ALaw"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect, Exit, Fiber, Queue, Result, Scope, Stream } from "effect"
import * as Dgram from "node:dgram"
import * as RtcpReport from "./RtcpReport.ts"
import * as Rtp from "./Rtp.ts"
import * as RtpPorts from "./RtpPorts.ts"
import * as RtpSession from "./RtpSession.ts"
import * as TelephoneEvent from "./TelephoneEvent.ts"

const HOST = "127.0.0.1"
const range = () => {
  const low = 20_000 + 2 * Math.floor(Math.random() * 15_000)
  return { low, high: low + 39 }
}

interface Datagram {
  readonly bytes: Uint8Array
  readonly port: number
}

/** A plain UDP socket on loopback standing for the trunk: what it receives, queued. */
const peer = (socket?: Dgram.Socket) =>
  Effect.gen(function*() {
    const bound = socket ?? (yield* Effect.acquireRelease(
      Effect.callback<Dgram.Socket>((resume) => {
        const s = Dgram.createSocket("udp4")
        s.bind(0, HOST, () => resume(Effect.succeed(s)))
      }),
      (s) => Effect.sync(() => s.close())
    ))
    const received = yield* Queue.unbounded<Datagram>()
    bound.on("message", (m, from) => Queue.offerUnsafe(received, { bytes: new Uint8Array(m), port: from.port }))
    return {
      port: bound.address().port,
      received,
      send: (bytes: Uint8Array, port: number) => Effect.sync(() => bound.send(bytes, port, HOST))
    }
  })

/** Reads datagrams until `done` says so (5 s at most), decoding RTP. */
const collect = <A>(
  queue: Queue.Queue<Datagram>,
  decode: (d: Datagram) => A | undefined,
  done: (all: ReadonlyArray<A>) => boolean
) =>
  Effect.gen(function*() {
    const all: Array<A> = []
    while (!done(all)) {
      const value = decode(yield* Queue.take(queue))
      if (value !== undefined) all.push(value)
    }
    return all
  }).pipe(Effect.timeout("5 seconds"), Effect.orDie)

const rtpOf = (d: Datagram) => {
  const r = Rtp.decode(d.bytes)
  return Result.isSuccess(r) && !Rtp.isRtcp(d.bytes) ? r.success : undefined
}

const remote = (port: number, codec: "PCMU" | "PCMA" = "PCMU"): RtpSession.Remote => ({
  codec,
  payloadType: codec === "PCMU" ? 0 : 8,
  telephoneEvent: 101,
  address: HOST,
  port
})

const frames = (...values: Array<number>) => {
  const out = new Uint8Array(values.length * 160)
  values.forEach((v, i) => out.fill(v, i * 160, (i + 1) * 160))
  return out
}

/** The incoming events until `count` match `keep`, 5 s at most. */
const incoming = (session: RtpSession.RtpSession, keep: (e: RtpSession.Incoming) => boolean, count: number) =>
  session.incoming.pipe(Stream.filter(keep), Stream.take(count), Stream.runCollect, Effect.timeout("5 seconds"))

let sequence = 0
const packet = (i: number, payload: Uint8Array, options: { pt?: number; ssrc?: number; marker?: boolean } = {}) =>
  Rtp.encode({
    payloadType: options.pt ?? 0,
    marker: options.marker ?? false,
    sequence: (sequence + i) & 0xffff,
    timestamp: 8000 + i * 160,
    ssrc: options.ssrc ?? 0x5eed,
    payload
  })

describe("RtpSession", () => {
  it.live("sends the agent's audio in 20 ms PCMU packets between comfort silence, numbered in order", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) })
      yield* session.play(frames(1, 2, 3))
      yield* session.play(frames(4).subarray(0, 100))
      yield* session.mark("end")
      const packets = yield* collect(trunk.received, rtpOf, (all) => all.filter((p) => p.payload[0] === 4).length > 0)
      const ssrc = packets[0]!.ssrc
      for (let i = 1; i < packets.length; i++) {
        assert.strictEqual(packets[i]!.sequence, (packets[i - 1]!.sequence + 1) & 0xffff)
        // 160 a packet; more only if the pacer fell 200 ms behind (a stalled machine) and skipped
        const step = ((packets[i]!.timestamp - packets[i - 1]!.timestamp) >>> 0) / 160
        assert.isTrue(Number.isInteger(step) && step >= 1 && (step === 1 || step > 10), `step ${step}`)
        assert.strictEqual(packets[i]!.ssrc, ssrc)
      }
      const audio = packets.filter((p) => p.payload[0] !== MuLaw.SILENCE)
      assert.deepStrictEqual(audio.map((p) => [p.payload[0], p.marker, p.payloadType, p.payload.length]), [
        [1, true, 0, 160],
        [2, false, 0, 160],
        [3, false, 0, 160],
        [4, false, 0, 160]
      ])
      // the short tail was padded with silence, and the packets before the audio were silence
      assert.isTrue(audio[3]!.payload.subarray(100).every((b) => b === MuLaw.SILENCE))
      assert.isTrue(packets.indexOf(audio[0]!) === 0 || packets[packets.indexOf(audio[0]!) - 1]!.payload[0] === 0xff)
      const played = yield* incoming(session, (e) => e._tag === "Played", 1)
      assert.deepStrictEqual(played, [{ _tag: "Played", name: "end" }])
    }))

  it.live("two sessions find each other by symmetric RTP and carry PCMU audio byte for byte", () =>
    Effect.gen(function*() {
      // a's SDP names a port nobody listens on: it learns b's from b's packets
      const nowhere = yield* peer()
      const a = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(nowhere.port) })
      const b = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(a.port) })
      const speech = MuLaw.encode(Int16Array.from({ length: 480 }, (_, i) => Math.round(8000 * Math.sin(i / 5))))
      const heardByA = incoming(a, (e) => e._tag === "Audio" && e.audio.some((x) => x !== MuLaw.SILENCE), 3)
      yield* b.play(speech)
      const atA = yield* heardByA
      assert.deepStrictEqual(
        atA.map((e) => (e._tag === "Audio" ? Array.from(e.audio) : [])),
        [0, 1, 2].map((i) => Array.from(speech.subarray(i * 160, (i + 1) * 160)))
      )
      const positions = atA.map((e) => (e._tag === "Audio" ? e.atMs : -1))
      // 20 ms apart, by their timestamps (more only if b's pacer stalled and skipped ticks)
      assert.isTrue([positions[1]! - positions[0]!, positions[2]! - positions[1]!].every((d) => d === 20 || d > 200))
      // and back: a now sends to b's port
      yield* a.play(frames(9))
      const atB = yield* incoming(b, (e) => e._tag === "Audio" && e.audio[0] === 9, 1)
      assert.strictEqual(atB.length, 1)
      const stats = yield* a.stats
      assert.deepStrictEqual(stats.target, { address: HOST, port: b.port, latched: true })
    }))

  it.live("sends and receives PCMA on the wire, μ-law to the media session", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port, "PCMA") })
      const mulaw = MuLaw.encode(Int16Array.from({ length: 160 }, (_, i) => (i % 20) * 500 - 5000))
      yield* session.play(mulaw)
      const [sent] = yield* collect(
        trunk.received,
        (d) => {
          const p = rtpOf(d)
          return p !== undefined && p.payload[0] !== ALaw.SILENCE ? p : undefined
        },
        (all) => all.length === 1
      )
      assert.strictEqual(sent!.payloadType, 8)
      assert.deepStrictEqual(Array.from(sent!.payload), Array.from(ALaw.encode(MuLaw.decode(mulaw))))
      const alaw = ALaw.encode(Int16Array.from({ length: 160 }, (_, i) => i * 100 - 8000))
      const heard = incoming(session, (e) => e._tag === "Audio", 1)
      yield* trunk.send(packet(0, alaw, { pt: 8 }), session.port)
      const [event] = yield* heard
      assert.deepStrictEqual(
        event!._tag === "Audio" ? Array.from(event!.audio) : [],
        Array.from(MuLaw.encode(ALaw.decode(alaw)))
      )
    }))

  it.live("drops what is queued on clear (barge-in), echoing its marks at once", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) })
      // two seconds of audio, then a mark, cleared as soon as queued
      yield* session.play(frames(...Array.from({ length: 100 }, (_, i) => 1 + (i % 100))))
      yield* session.mark("reply")
      yield* session.clear
      assert.deepStrictEqual(yield* incoming(session, (e) => e._tag === "Played", 1), [{
        _tag: "Played",
        name: "reply"
      }])
      yield* session.play(frames(200))
      const audio = yield* collect(
        trunk.received,
        (d) => {
          const p = rtpOf(d)
          return p !== undefined && p.payload[0] !== MuLaw.SILENCE ? p.payload[0] : undefined
        },
        (all) => all.includes(200)
      )
      // what was sent before the clear came first, in order; the rest never went out
      assert.isTrue(audio.length < 50, `${audio.length} frames went out`)
      assert.deepStrictEqual(audio, [...Array.from({ length: audio.length - 1 }, (_, i) => i + 1), 200])
    }))

  it.live("holds play back while its queue is full, losing nothing", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({
        host: HOST,
        ports: range(),
        remote: remote(trunk.port),
        queueFrames: 2
      })
      yield* session.play(frames(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
      const audio = yield* collect(
        trunk.received,
        (d) => {
          const p = rtpOf(d)
          return p !== undefined && p.payload[0] !== MuLaw.SILENCE ? p.payload[0] : undefined
        },
        (all) => all.length === 10
      )
      assert.deepStrictEqual(audio, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }))

  it.live("follows a re-INVITE: a new address, and silence on the wire while held", () =>
    Effect.gen(function*() {
      const before = yield* peer()
      const after = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(before.port) })
      yield* collect(before.received, rtpOf, (all) => all.length >= 1)
      yield* session.update({ ...remote(after.port, "PCMA"), payloadType: 8, held: true })
      yield* session.play(frames(5))
      yield* session.mark("held")
      yield* incoming(session, (e) => e._tag === "Played", 1)
      yield* session.update({ ...remote(after.port, "PCMA"), payloadType: 8 })
      const mulaw = frames(6)
      yield* session.play(mulaw)
      const sent = yield* collect(
        after.received,
        (d) => {
          const p = rtpOf(d)
          return p !== undefined && p.payload[0] !== ALaw.SILENCE ? p : undefined
        },
        (all) => all.length === 1
      )
      // frame 5, played while held, never went out; frame 6 did, in A-law
      assert.deepStrictEqual(
        sent.map((p) => [p.payloadType, p.payload[0]]),
        [[8, ALaw.encode(MuLaw.decode(mulaw))[0]]]
      )
      assert.deepStrictEqual((yield* session.stats).target, { address: HOST, port: after.port, latched: false })
    }))

  it.live("re-targets to where the peer's packets come from", () =>
    Effect.gen(function*() {
      const signalled = yield* peer()
      const behindNat = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(signalled.port) })
      yield* collect(signalled.received, rtpOf, (all) => all.length >= 2)
      assert.deepStrictEqual((yield* session.stats).target, { address: HOST, port: signalled.port, latched: false })
      yield* behindNat.send(packet(0, frames(1)), session.port)
      const after = yield* collect(behindNat.received, rtpOf, (all) => all.length >= 3)
      assert.strictEqual(after.length, 3)
      assert.deepStrictEqual((yield* session.stats).target, { address: HOST, port: behindNat.port, latched: true })
    }))

  it.live("reports each key press once, and presses keys as RFC 4733 events", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) })
      const heard = incoming(session, (e) => e._tag === "Dtmf", 2)
      let i = 0
      for (const [digit, ts] of [["7", 1000], ["#", 5000]] as const) {
        const packets = TelephoneEvent.press(digit, 60)
        for (const p of [...packets, packets[0]!]) {
          yield* trunk.send(
            Rtp.encode({
              payloadType: 101,
              marker: p.marker,
              sequence: i++,
              timestamp: ts,
              ssrc: 9,
              payload: p.payload
            }),
            session.port
          )
        }
      }
      assert.deepStrictEqual((yield* heard).map((e) => (e._tag === "Dtmf" ? e.digit : "")), ["7", "#"])

      yield* session.sendDtmf("1x#", 40)
      const events = yield* collect(
        trunk.received,
        (d) => {
          const p = rtpOf(d)
          return p?.payloadType === 101 ? { p, e: TelephoneEvent.decode(p.payload)! } : undefined
        },
        (all) => all.filter(({ e }) => e.end && e.event === 11).length === 3
      )
      const presses = [...new Set(events.map(({ p }) => p.timestamp))].map((ts) =>
        events.filter(({ p }) => p.timestamp === ts).map(({ e, p }) => [e.event, e.end, e.duration, p.marker])
      )
      assert.deepStrictEqual(presses, [
        [[1, false, 160, true], [1, true, 320, false], [1, true, 320, false], [1, true, 320, false]],
        [[11, false, 160, true], [11, true, 320, false], [11, true, 320, false], [11, true, 320, false]]
      ])
      assert.strictEqual((yield* session.stats).received.digits, 2)
    }))

  it.live("plays keys in band when the peer takes no telephone-event", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({
        host: HOST,
        ports: range(),
        remote: { ...remote(trunk.port), telephoneEvent: undefined }
      })
      yield* session.sendDtmf("5")
      // 100 ms of tone: five frames of audio, none of them events
      const tones = yield* collect(
        trunk.received,
        (d) => {
          const p = rtpOf(d)
          return p !== undefined && p.payload.some((b) => b !== MuLaw.SILENCE) ? p : undefined
        },
        (all) => all.length === 5
      )
      assert.isTrue(tones.every((p) => p.payloadType === 0))
    }))

  it.live("puts lost and reordered packets in their places through the jitter buffer", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) })
      const heard = incoming(session, (e) => e._tag === "Gap" || (e._tag === "Audio" && e.audio[0] !== 0xff), 6)
      sequence = 100
      for (const i of [0, 1, 3, 2, 5]) yield* trunk.send(packet(i, frames(i + 1)), session.port)
      const events = yield* heard
      assert.deepStrictEqual(events.map((e) => (e._tag === "Audio" ? e.audio[0] : e._tag)), [1, 2, 3, 4, "Gap", 6])
      const start = events[0]!._tag === "Audio" ? events[0]!.atMs : 0
      assert.deepStrictEqual(
        events.map((e) => (e._tag === "Audio" || e._tag === "Gap" ? e.atMs - start : -1)),
        [0, 20, 40, 60, 80, 100]
      )
      const stats = yield* session.stats
      assert.deepStrictEqual([stats.received.lostPackets, stats.received.lostSamples], [1, 160])
    }))

  it.live("counts garbage and keeps going", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const session = yield* RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) })
      const heard = incoming(session, (e) => e._tag === "Audio" && e.audio[0] === 42, 1)
      for (
        const junk of [
          Uint8Array.of(1, 2, 3),
          new TextEncoder().encode("INVITE sip:x@y SIP/2.0\r\n\r\n"),
          Uint8Array.of(0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
          Uint8Array.of(0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1),
          Uint8Array.of(0x80, 200, 0, 40, 0, 0, 0, 1)
        ]
      ) yield* trunk.send(junk, session.port)
      yield* trunk.send(Uint8Array.of(0x80, 201, 0, 9), session.port + 1)
      yield* trunk.send(packet(0, frames(7), { pt: 13 }), session.port)
      yield* trunk.send(packet(1, frames(42)), session.port)
      assert.strictEqual((yield* heard).length, 1)
      const stats = yield* session.stats
      assert.deepStrictEqual([stats.received.malformed, stats.received.ignored, stats.received.packets], [6, 1, 1])
    }))

  it.live("frees its ports and ends incoming when its scope closes", () =>
    Effect.gen(function*() {
      const trunk = yield* peer()
      const scope = yield* Scope.make()
      const session = yield* Scope.provide(
        RtpSession.make({ host: HOST, ports: range(), remote: remote(trunk.port) }),
        scope
      )
      const all = yield* Effect.forkChild(Stream.runCollect(session.incoming))
      yield* Scope.close(scope, Exit.void)
      yield* Effect.timeout(Effect.asVoid(Fiber.await(all)), "5 seconds")
      const again = yield* RtpPorts.allocate(HOST, { low: session.port, high: session.port + 1 })
      assert.strictEqual(again.port, session.port)
    }))

  it.live("sends RTCP sender reports with a block for the peer's stream, and a BYE at the end", () =>
    Effect.gen(function*() {
      const ports = yield* RtpPorts.allocate(HOST, range())
      const rtp = yield* peer(ports.rtp)
      const rtcp = yield* peer(ports.rtcp)
      const scope = yield* Scope.make()
      const session = yield* Scope.provide(
        RtpSession.make({ host: HOST, ports: range(), remote: remote(ports.port), rtcpIntervalMs: 100, cname: "me" }),
        scope
      )
      sequence = 65534
      for (let i = 0; i < 4; i++) yield* rtp.send(packet(i, frames(1), { ssrc: 77 }), session.port)
      const ntp = RtcpReport.ntpOf(Date.now())
      yield* rtcp.send(
        RtcpReport.compound({
          ssrc: 77,
          sender: { ntpSeconds: ntp.seconds, ntpFraction: ntp.fraction, rtpTimestamp: 0, packets: 4, octets: 640 },
          reports: [],
          cname: "trunk"
        }),
        session.port + 1
      )
      const parse = (d: Datagram) => {
        const r = RtcpReport.parse(d.bytes)
        return Result.isSuccess(r) ? r.success : undefined
      }
      const reports = yield* collect(rtcp.received, parse, (all) =>
        all.some((parts) => {
          const head = parts[0]!
          return head._tag === "SenderReport" &&
            head.reports[0]?.lastSr === RtcpReport.middle32(ntp.seconds, ntp.fraction)
        }))
      const last = reports[reports.length - 1]!
      const sr = last[0]!
      assert.strictEqual(sr._tag, "SenderReport")
      if (sr._tag !== "SenderReport") return
      const sent = (yield* Queue.clear(rtp.received)).map((d) => rtpOf(d)!)
      const ssrc = sent[0]!.ssrc
      assert.strictEqual(sr.ssrc, ssrc)
      // the SR's RTP timestamp is the stream's clock at its NTP time: among the packets' (a second's slack)
      const since = (ts: number) => (ts - sent[0]!.timestamp) >>> 0
      assert.isTrue(since(sr.sender.rtpTimestamp) <= since(sent.at(-1)!.timestamp) + 8000)
      assert.isTrue(sr.sender.packets > 0 && sr.sender.octets === sr.sender.packets * 160)
      assert.deepStrictEqual(
        { ssrc: sr.reports[0]!.ssrc, highest: sr.reports[0]!.highestSequence, lost: sr.reports[0]!.cumulativeLost },
        { ssrc: 77, highest: 65536 + 1, lost: 0 }
      )
      assert.deepStrictEqual(last[1], { _tag: "SourceDescription", chunks: [{ ssrc, cname: "me" }] })
      assert.strictEqual((yield* session.stats).received.rtcp, 1)

      yield* Scope.close(scope, Exit.void)
      const bye = yield* collect(rtcp.received, parse, (all) => all.some((parts) => parts.at(-1)?._tag === "Bye"))
      assert.deepStrictEqual(bye.at(-1)!.at(-1), { _tag: "Bye", ssrcs: [ssrc], reason: undefined })
    }))
})
