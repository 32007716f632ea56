import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue } from "effect"
import { TestClock } from "effect/testing"
import * as Trunk from "../test/scriptedTrunk.ts"
import type * as Call from "./Call.ts"
import * as Sdp from "./Sdp.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

const { host, ourMedia, trunkMedia } = Trunk
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** An outbound call the trunk answered with `headers` in its 200; the trunk's INVITE kept. */
const answered = (headers: ReadonlyArray<SipMessage.Header> = []) =>
  Effect.gen(function*() {
    const trunk = yield* Trunk.make
    const ua = yield* Trunk.userAgent(trunk.endpoint.port)
    const dialing = yield* Effect.forkChild(ua.dial({ to: "+14155550100", from: "+14155550199", local: ourMedia }))
    const invite = yield* trunk.next("INVITE")
    yield* invite.respond(SipEndpoint.answer(invite, 200, {
      headers: [
        { name: "Contact", value: trunk.contact },
        { name: "Content-Type", value: "application/sdp" },
        ...headers
      ],
      body: encoder.encode(Sdp.offer(trunkMedia))
    }))
    const call = yield* Fiber.join(dialing)
    yield* trunk.next("ACK")
    const peer: Peer = { transport: "UDP", host, port: ua.port }
    return { trunk, call, invite, peer, ua }
  })

/** The trunk answers our BYE, so that the call ends. */
const byeAnswered = (trunk: Effect.Success<typeof Trunk.make>, call: Call.Call) =>
  Effect.gen(function*() {
    const bye = yield* trunk.next("BYE")
    yield* bye.respond(SipEndpoint.answer(bye, 200))
    return yield* call.ended
  })

const notify = (fragment: string, state: string) => ({
  headers: [
    { name: "Event", value: "refer" },
    { name: "Subscription-State", value: state },
    { name: "Content-Type", value: "message/sipfrag" }
  ],
  body: fragment
})

describe("Call", () => {
  it.effect("REFER: Refer-To the target, NOTIFY 100 then 200 (each answered 200): transferred", () =>
    Effect.gen(function*() {
      const { trunk, call, invite, peer, ua } = yield* answered()
      const referring = yield* Effect.forkChild(call.refer(ua.uriOf("+14155550123")))
      const refer = yield* trunk.next("REFER")
      assert.strictEqual(
        SipMessage.header(refer.request, "Refer-To"),
        `<sip:+14155550123@${host}>`
      )
      yield* refer.respond(SipEndpoint.answer(refer, 202))
      const trying = yield* trunk.inDialog(
        trunk.dialogOf(invite),
        "NOTIFY",
        peer,
        notify("SIP/2.0 100 Trying", "active;expires=60")
      )
      assert.strictEqual(trying.response.status, 200)
      assert.isUndefined(referring.pollUnsafe())
      const ok = yield* trunk.inDialog(
        trying.dialog,
        "NOTIFY",
        peer,
        notify("SIP/2.0 200 OK\r\n", "terminated;reason=noresource")
      )
      assert.strictEqual(ok.response.status, 200)
      assert.deepStrictEqual(yield* Fiber.join(referring), { status: 200, reason: "OK" })
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))

  it.effect("REFER failing at the target (NOTIFY 486) or refused (403): TransferFailed, the call still up", () =>
    Effect.gen(function*() {
      const { trunk, call, invite, peer } = yield* answered()
      const first = yield* Effect.forkChild(Effect.flip(call.refer(`sip:+14155550123@${host}`)))
      const refer = yield* trunk.next("REFER")
      yield* refer.respond(SipEndpoint.answer(refer, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", peer, notify("SIP/2.0 486 Busy Here", "terminated"))
      const failed = yield* Fiber.join(first)
      assert.deepStrictEqual([failed.status, failed.reason], [486, "Busy Here"])
      const second = yield* Effect.forkChild(Effect.flip(call.refer(`sip:+14155550123@${host}`)))
      const refused = yield* trunk.next("REFER")
      yield* refused.respond(SipEndpoint.answer(refused, 403, { reason: "Transfers Not Allowed" }))
      assert.strictEqual((yield* Fiber.join(second)).reason, "Transfers Not Allowed")
      // A NOTIFY with no REFER pending is for no subscription.
      const stray = yield* trunk.inDialog(
        trunk.dialogOf(invite),
        "NOTIFY",
        peer,
        notify("SIP/2.0 200 OK", "terminated")
      )
      assert.strictEqual(stray.response.status, 481)
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))

  it.effect("session timer, we refresh (refresher=uac): a re-INVITE at half the interval, ACKed", () =>
    Effect.gen(function*() {
      const { trunk, call } = yield* answered([
        { name: "Session-Expires", value: "120;refresher=uac" },
        { name: "Require", value: "timer" }
      ])
      yield* TestClock.adjust(59_000)
      assert.strictEqual(yield* Queue.size(trunk.inbox), 0)
      yield* TestClock.adjust(1_000)
      const refresh = yield* trunk.next("INVITE")
      assert.strictEqual(SipMessage.header(refresh.request, "Session-Expires"), "120;refresher=uac")
      assert.include(decoder.decode(refresh.request.body), "m=audio 40000")
      yield* refresh.respond(SipEndpoint.answer(refresh, 200, {
        headers: [
          { name: "Contact", value: trunk.contact },
          { name: "Session-Expires", value: "120;refresher=uac" },
          { name: "Content-Type", value: "application/sdp" }
        ],
        body: encoder.encode(Sdp.offer(trunkMedia))
      }))
      yield* trunk.next("ACK")
      assert.deepStrictEqual(yield* Queue.take(call.events), { _tag: "Refreshed", by: "local" })
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))

  it.effect("session timer, we refresh and the peer allows UPDATE: an UPDATE without a body", () =>
    Effect.gen(function*() {
      const { trunk, call } = yield* answered([
        { name: "Session-Expires", value: "300;refresher=uac" },
        { name: "Allow", value: "INVITE, ACK, BYE, CANCEL, UPDATE" }
      ])
      yield* TestClock.adjust(150_000)
      const update = yield* trunk.next("UPDATE")
      assert.strictEqual(update.request.body.length, 0)
      assert.strictEqual(SipMessage.header(update.request, "Session-Expires"), "300;refresher=uac")
      yield* update.respond(SipEndpoint.answer(update, 200, {
        headers: [{ name: "Session-Expires", value: "300;refresher=uac" }]
      }))
      assert.deepStrictEqual(yield* Queue.take(call.events), { _tag: "Refreshed", by: "local" })
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))

  it.effect("session timer, the peer refreshes (refresher=uas): its UPDATE keeps the call; silence ends it with BYE", () =>
    Effect.gen(function*() {
      const { trunk, call, invite, peer } = yield* answered([
        { name: "Session-Expires", value: "90;refresher=uas" },
        { name: "Require", value: "timer" }
      ])
      yield* TestClock.adjust(50_000)
      const update = yield* trunk.inDialog(trunk.dialogOf(invite), "UPDATE", peer, {
        headers: [{ name: "Session-Expires", value: "90;refresher=uac" }, { name: "Supported", value: "timer" }]
      })
      assert.strictEqual(update.response.status, 200)
      assert.strictEqual(SipMessage.header(update.response, "Session-Expires"), "90;refresher=uac")
      assert.deepStrictEqual(yield* Queue.take(call.events), { _tag: "Refreshed", by: "remote" })
      // 90 s less 30 s from the refresh, not from the INVITE.
      yield* TestClock.adjust(50_000)
      assert.strictEqual(yield* Queue.size(trunk.inbox), 0)
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(yield* byeAnswered(trunk, call), { by: "local", reason: "session expired" })
    }).pipe(Effect.scoped))

  it.effect("hold sent by us: a re-INVITE with our SDP sendonly, the trunk's answer read", () =>
    Effect.gen(function*() {
      const { trunk, call } = yield* answered()
      const holding = yield* Effect.forkChild(call.hold(true))
      const reinvite = yield* trunk.next("INVITE")
      assert.include(decoder.decode(reinvite.request.body), "a=sendonly")
      yield* trunk.answerInvite(reinvite)
      const negotiated = yield* Fiber.join(holding)
      assert.strictEqual(negotiated.direction, "recvonly")
      yield* trunk.next("ACK")
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))

  it.effect("glare: the trunk's re-INVITE during ours gets 491; our 491 is tried again after 2.1-4 s", () =>
    Effect.gen(function*() {
      const { trunk, call, invite, peer } = yield* answered()
      const holding = yield* Effect.forkChild(call.hold(true))
      const ours = yield* trunk.next("INVITE")
      const theirs = yield* trunk.inDialog(trunk.dialogOf(invite), "INVITE", peer, {
        headers: [{ name: "Content-Type", value: "application/sdp" }],
        body: Sdp.offer({ ...trunkMedia, version: 2 })
      })
      assert.strictEqual(theirs.response.status, 491)
      yield* ours.respond(SipEndpoint.answer(ours, 491))
      yield* Trunk.advanceUntil(trunk.inbox, 4_000)
      const again = yield* trunk.next("INVITE")
      assert.isAbove(again.request.cseq.seq, ours.request.cseq.seq)
      yield* trunk.answerInvite(again)
      assert.strictEqual((yield* Fiber.join(holding)).direction, "recvonly")
      yield* trunk.next("ACK")
      yield* Effect.forkChild(call.hangup)
      yield* byeAnswered(trunk, call)
    }).pipe(Effect.scoped))
})
