/**
 * The SIP carrier against a scripted trunk on loopback: what it publishes to `CallEvents`, what
 * the trunk sees, and the media between the trunk's RTP socket and a scripted media session.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { harness, host, loud, request, rtpPorts, rtpSocket, until } from "../test/carrierHarness.ts"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"

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

  it.live("Carrier.transfer: REFER to the target on the trunk, its NOTIFY 200, then BYE; a failed one keeps the call", () =>
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

      const refused = yield* Effect.forkChild(Effect.flip(sip.carrier.transfer(request.callId, "+14155550123")))
      const first = yield* trunk.next("REFER")
      yield* first.respond(SipEndpoint.answer(first, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", us, notify("SIP/2.0 486 Busy Here"))
      const failed = yield* Fiber.join(refused)
      assert.strictEqual(failed.reason, "rejected")
      assert.include(failed.message, "486 Busy Here")

      const transferring = yield* Effect.forkChild(sip.carrier.transfer(request.callId, "+14155550123"))
      const refer = yield* trunk.next("REFER")
      assert.strictEqual(SipMessage.header(refer.request, "Refer-To"), `<sip:+14155550123@${host}>`)
      yield* refer.respond(SipEndpoint.answer(refer, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", us, notify("SIP/2.0 200 OK"))
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      yield* Fiber.join(transferring)
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
      const { seen, sip, tags, trunk } = yield* harness()
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      // the 180 crosses a real socket: hang up once the carrier has told it
      yield* until(() => seen.includes("Ringing"))
      yield* sip.carrier.hangUp(request.callId)
      yield* invite.cancelled
      assert.deepStrictEqual(yield* tags, ["Ringing", "Ended local-hangup"])
    }).pipe(Effect.scoped))

  it.effect("no RTP port pair free: rate-limited (retryable), nothing sent; free again once the call ended", () =>
    Effect.gen(function*() {
      const { low } = rtpPorts()
      const { sip, tags, trunk } = yield* harness({ rtpPorts: { low, high: low + 1 } })
      yield* sip.carrier.placeCall(request)
      const invite = yield* trunk.next("INVITE")
      const exhausted = yield* Effect.flip(sip.carrier.placeCall({ ...request, callId: "call-2" }))
      assert.strictEqual(exhausted.reason, "rate-limited")
      assert.isTrue(exhausted.isRetryable)
      assert.include(exhausted.message, `RTP_PORTS ${low}-${low + 1}`)
      yield* invite.respond(SipEndpoint.answer(invite, 486))
      assert.deepStrictEqual(yield* tags, ["Ended busy"])
      // The pair is closed right after `Ended` is published.
      let placed = yield* Effect.result(sip.carrier.placeCall({ ...request, callId: "call-3" }))
      for (let tries = 0; tries < 50 && placed._tag === "Failure"; tries++) {
        yield* Trunk.realPause
        placed = yield* Effect.result(sip.carrier.placeCall({ ...request, callId: "call-3" }))
      }
      assert.strictEqual(placed._tag, "Success")
      yield* trunk.next("INVITE")
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
