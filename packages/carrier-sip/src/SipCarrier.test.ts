/**
 * The SIP carrier against a scripted trunk on loopback: what it publishes to `CallEvents`, what
 * the trunk sees, and the media between the trunk's RTP socket and a scripted media session.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { PlaceCallRequest } from "@voice-agent/core/ports/Carrier"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Dgram from "node:dgram"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Rtp from "./Rtp.ts"
import * as Sdp from "./Sdp.ts"
import * as SipCarrier from "./SipCarrier.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMedia from "./SipMedia.ts"
import * as SipMessage from "./SipMessage.ts"

const { host } = Trunk
const request: PlaceCallRequest = {
  from: "+14155550199",
  to: "+14155550100",
  callId: "call-1",
  mediaUrl: "unused",
  mediaToken: "token-1"
}
const rtpPorts = () => {
  const low = 20_000 + 2 * Math.floor(Math.random() * 15_000)
  return { low, high: low + 39 }
}

/** 400 ms of a loud 1 kHz tone in μ-law: the scripted agent's greeting. */
const greeting = MuLaw.encode(
  Int16Array.from({ length: 3200 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)))
)

/**
 * A scripted media session: reads the `Start` (its token kept), says the greeting, counts the
 * person's audio frames, and ends at `Stop`, or closes its end (the agent hanging up) at `hangUp`.
 */
const scriptedSessions = () => {
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
const rtpSocket = Effect.gen(function*() {
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
  /** 20 packets of a person's speech (a loud tone), 20 ms apart, to `port`. */
  const speak = (port: number) =>
    Effect.gen(function*() {
      for (let i = 0; i < 20; i++) {
        const payload = greeting.subarray((i % 20) * 160, (i % 20) * 160 + 160)
        socket.send(
          Rtp.encode({ payloadType: 0, marker: i === 0, sequence: i, timestamp: i * 160, ssrc: 7, payload }),
          port,
          host
        )
        yield* Effect.sleep(20)
      }
    })
  return { port: socket.address().port, received, speak }
})

/** A trunk, a user agent, the carrier over it, and the events of `call-1`. */
const harness = (options: { readonly ringTimeoutS?: number } = {}) =>
  Effect.gen(function*() {
    const world = MemoryDialer.makeWorld()
    const events = yield* MemoryDialer.callEvents(world)
    const trunk = yield* Trunk.make
    const ua = yield* Trunk.userAgent(trunk.endpoint.port, { config: { ringTimeoutS: options.ringTimeoutS ?? 30 } })
    const sessions = scriptedSessions()
    const sip = yield* SipCarrier.make({
      config: { listen: { host, port: 0 }, publicAddress: host, rtpPorts: rtpPorts() },
      calls: ua
    }).pipe(
      Effect.provide(Layer.merge(
        Layer.succeed(CallEvents, events),
        Layer.succeed(SipMedia.MediaSessions, sessions.service)
      ))
    )
    const stream = yield* events.subscribe(request.callId)
    const published = yield* Effect.forkChild(
      Stream.runCollect(Stream.takeUntil(stream, (event: CallEvent) => event._tag === "Ended"))
    )
    const tags = Effect.map(Fiber.join(published), (all) =>
      Array.from(all, (event) =>
        event._tag === "Answered"
          ? `Answered ${event.answeredBy}`
          : event._tag === "Ended"
          ? `Ended ${event.reason}`
          : event._tag))
    const us = { transport: "UDP" as const, host, port: ua.port }
    return { trunk, ua, sip, sessions, tags, us }
  })

/** Waits (real time, 10 s at most) until `done()`. */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!done() && Date.now() < deadline) yield* Effect.sleep(20)
    assert.isTrue(done(), "waited")
  })

const loud = (packets: ReadonlyArray<Rtp.RtpPacket>) =>
  packets.filter((p) => MuLaw.decode(p.payload).some((s) => Math.abs(s) > 4000)).length

describe("SipCarrier", () => {
  it.live("answered: Ringing, Answered unknown, RTP both ways through the media session, BYE from the trunk ends it remote-hangup", () =>
    Effect.gen(function*() {
      const { sessions, sip, tags, trunk, us } = yield* harness()
      const media = yield* rtpSocket
      const placed = yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      assert.strictEqual(placed.carrierCallId, invite.request.callId)
      const offeredPort = Number(/m=audio (\d+)/.exec(Trunk.text(invite.request.body))?.[1])
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")

      // The agent's greeting reaches the trunk; the person's speech reaches the agent.
      yield* until(() => loud(media.received) >= 20)
      assert.strictEqual(media.received[0]?.payloadType, 0)
      yield* media.speak(offeredPort)
      yield* until(() => sessions.seen.audioFrames >= 15)
      assert.deepStrictEqual(sessions.seen.tokens, ["token-1"])

      const bye = yield* trunk.inDialog(trunk.dialogOf(invite), "BYE", us)
      assert.strictEqual(bye.response.status, 200)
      assert.deepStrictEqual(yield* tags, ["Ringing", "Answered unknown", "Ended remote-hangup"])
      yield* until(() => sessions.seen.stopped)
      // Hanging up a call that has ended is no error.
      yield* sip.carrier.hangUp(request.callId)
    }).pipe(Effect.scoped))

  it.live("the agent hangs up (the session closes its end): BYE to the trunk, Ended local-hangup", () =>
    Effect.gen(function*() {
      const { sessions, sip, tags, trunk } = yield* harness()
      const media = yield* rtpSocket
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")
      yield* until(() => sessions.seen.tokens.length === 1)
      yield* Deferred.succeed(sessions.hangUp, undefined)
      const bye = yield* trunk.next("BYE")
      assert.strictEqual(bye.request.callId, invite.request.callId)
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      assert.deepStrictEqual(yield* tags, ["Answered unknown", "Ended local-hangup"])
    }).pipe(Effect.scoped))

  it.live("hangUp while up: BYE, Ended local-hangup once it returns", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk } = yield* harness()
      const media = yield* rtpSocket
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")
      const hangingUp = yield* Effect.forkChild(sip.carrier.hangUp(request.callId))
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      yield* Fiber.join(hangingUp)
      assert.deepStrictEqual(yield* tags, ["Answered unknown", "Ended local-hangup"])
    }).pipe(Effect.scoped))

  it.live("a re-INVITE moving the media: our RTP follows to the new address", () =>
    Effect.gen(function*() {
      const { sip, trunk, us } = yield* harness()
      const media = yield* rtpSocket
      const moved = yield* rtpSocket
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")
      yield* until(() => media.received.length > 0)
      const reinvite = yield* trunk.inDialog(trunk.dialogOf(invite), "INVITE", us, {
        headers: [{ name: "Content-Type", value: "application/sdp" }],
        body: Sdp.offer({ ...Trunk.trunkMedia, port: moved.port, version: 2 })
      })
      assert.strictEqual(reinvite.response.status, 200)
      yield* trunk.endpoint.send(
        InDialog.withoutVia(Dialog.request(reinvite.dialog, "ACK", { via: "", seq: reinvite.dialog.localSeq }).request),
        us
      )
      yield* until(() => moved.received.length >= 5)
      const hangingUp = yield* Effect.forkChild(sip.carrier.hangUp(request.callId))
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      yield* Fiber.join(hangingUp)
    }).pipe(Effect.scoped))

  it.live("transfer: REFER to the target on the trunk, its NOTIFY 200, then BYE; a failed one keeps the call", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk, us } = yield* harness()
      const media = yield* rtpSocket
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")
      const notify = (fragment: string) => ({
        headers: [
          { name: "Event", value: "refer" },
          { name: "Subscription-State", value: "terminated" },
          { name: "Content-Type", value: "message/sipfrag" }
        ],
        body: fragment
      })

      const refused = yield* Effect.forkChild(Effect.flip(sip.transfer(request.callId, "+14155550123")))
      const first = yield* trunk.next("REFER")
      yield* first.respond(SipEndpoint.answer(first, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", us, notify("SIP/2.0 486 Busy Here"))
      const failed = yield* Fiber.join(refused)
      assert.strictEqual(failed.reason, "rejected")
      assert.include(failed.message, "486 Busy Here")

      const transferring = yield* Effect.forkChild(sip.transfer(request.callId, "+14155550123"))
      const refer = yield* trunk.next("REFER")
      assert.include(SipMessage.header(refer.request, "Refer-To"), `sip:+14155550123@${host}:${trunk.endpoint.port}`)
      yield* refer.respond(SipEndpoint.answer(refer, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", us, notify("SIP/2.0 200 OK"))
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      assert.deepStrictEqual(yield* Fiber.join(transferring), { status: 200, reason: "OK" })
      assert.deepStrictEqual(yield* tags, ["Answered unknown", "Ended local-hangup"])
    }).pipe(Effect.scoped))

  it.effect("busy: 486 publishes Ended busy, never Answered", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk } = yield* harness()
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* invite.respond(SipEndpoint.answer(invite, 486))
      assert.deepStrictEqual(yield* tags, ["Ringing", "Ended busy"])
    }).pipe(Effect.scoped))

  it.effect("a 503 is Ended failed", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk } = yield* harness()
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 503))
      assert.deepStrictEqual(yield* tags, ["Ended failed"])
    }).pipe(Effect.scoped))

  it.effect("no answer: at the ring timeout CANCEL, Ended no-answer", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk } = yield* harness({ ringTimeoutS: 20 })
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* Trunk.realPause
      yield* TestClock.adjust(19_000)
      const at19 = yield* Effect.raceFirst(
        Effect.as(invite.cancelled, "cancelled"),
        Effect.as(Trunk.realPause, "ringing")
      )
      assert.strictEqual(at19, "ringing")
      yield* TestClock.adjust(1_000)
      // The trunk's transaction layer answers the CANCEL 200 and the INVITE 487.
      yield* invite.cancelled
      assert.deepStrictEqual(yield* tags, ["Ringing", "Ended no-answer"])
    }).pipe(Effect.scoped))

  it.effect("hangUp while ringing: CANCEL, Ended local-hangup", () =>
    Effect.gen(function*() {
      const { sip, tags, trunk } = yield* harness()
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* Trunk.realPause
      yield* sip.carrier.hangUp(request.callId)
      yield* invite.cancelled
      assert.deepStrictEqual(yield* tags, ["Ringing", "Ended local-hangup"])
    }).pipe(Effect.scoped))

  it.effect("refuses a number that is not E.164, a call id already in a call, and every SMS", () =>
    Effect.gen(function*() {
      const { sip, trunk } = yield* harness()
      const bad = yield* Effect.flip(sip.carrier.placeCall({ ...request, to: "4155550100" }))
      assert.strictEqual(bad.reason, "rejected")
      yield* sip.carrier.placeCall(request)
      yield* trunk.next("INVITE")
      const twice = yield* Effect.flip(sip.carrier.placeCall(request))
      assert.strictEqual(twice.reason, "rejected")
      const sms = yield* Effect.flip(sip.carrier.sendSms({ from: request.from, to: request.to, body: "hi" }))
      assert.strictEqual(sms.reason, "rejected")
      assert.include(sms.message, "SMS")
    }).pipe(Effect.scoped))
})
