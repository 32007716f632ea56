import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Result } from "effect"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as ClientTransaction from "./ClientTransaction.ts"
import * as Dialog from "./Dialog.ts"
import type * as InboundCall from "./InboundCall.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>
const { host, ourMedia, trunkMedia } = Trunk
const OWNED = "+14155550100"
const encoder = new TextEncoder()

/** A request from the trunk to `to` at the user agent, outside any dialog. */
const outside = (method: string, to: string, port: number, trunkPort: number, body?: string): OutgoingRequest => ({
  _tag: "Request",
  method,
  uri: `sip:${to}@${host}:${port}`,
  headers: [
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: `<sip:+14155550199@${host}>;tag=trunk${Math.random().toString(16).slice(2, 8)}` },
    { name: "To", value: `<sip:${to}@${host}>` },
    { name: "Call-ID", value: `${method}-${Math.random().toString(16).slice(2)}@${host}` },
    { name: "CSeq", value: `1 ${method}` },
    { name: "Contact", value: `<sip:trunk@${host}:${trunkPort}>` },
    ...(body === undefined ? [] : [{ name: "Content-Type", value: "application/sdp" }])
  ],
  body: body === undefined ? undefined : encoder.encode(body)
})

/** The user agent answering calls to OWNED with `ourMedia`, and the trunk facing it. */
const setup = (decide?: (invite: InboundCall.Invite) => Effect.Effect<InboundCall.Decision>) =>
  Effect.gen(function*() {
    const trunk = yield* Trunk.make
    const ua = yield* Trunk.userAgent(trunk.endpoint.port, {
      owns: (number) => number === OWNED,
      decide: decide ?? (() => Effect.succeed({ _tag: "Answer", local: ourMedia }))
    })
    const peer: Peer = { transport: "UDP", host, port: ua.port }
    return { trunk, ua, peer }
  })

/** The trunk calls OWNED: the provisionals seen, the 2xx ACKed; the trunk's dialog. */
const call = (
  trunk: Effect.Success<typeof Trunk.make>,
  peer: Peer
) =>
  Effect.gen(function*() {
    const invite = trunk.endpoint.prepare(
      outside("INVITE", OWNED, peer.port, trunk.endpoint.port, Sdp.offer(trunkMedia)),
      "UDP"
    )
    const provisionals: Array<number> = []
    const response = yield* trunk.endpoint.request(invite, peer, {
      onProvisional: (r) => Effect.sync(() => void provisionals.push(r.status))
    })
    assert.strictEqual(response.status, 200)
    const dialog = (Dialog.fromResponse(invite, response) as Result.Success<Dialog.Dialog, string>).success
    const ack = Dialog.request(dialog, "ACK", { via: "", seq: 1 })
    yield* trunk.endpoint.send(InDialog.withoutVia(ack.request), peer)
    return { dialog, response, provisionals }
  })

describe("InboundCall", () => {
  it.effect("an owned number: 180, then 200 with our SDP answer; the ACK delivers the call", () =>
    Effect.gen(function*() {
      const { trunk, ua, peer } = yield* setup()
      const { response, provisionals, dialog } = yield* call(trunk, peer)
      assert.deepStrictEqual(provisionals.filter((s) => s !== 100), [180])
      const answer = Sdp.parse(new TextDecoder().decode(response.body))
      assert.isTrue(Result.isSuccess(answer))
      assert.include(new TextDecoder().decode(response.body), "m=audio 40000 RTP/AVP 0 101")
      const answered = yield* Queue.take(ua.inbound)
      assert.strictEqual(answered.direction, "inbound")
      assert.strictEqual(answered.remote().port, trunkMedia.port)
      const bye = yield* trunk.inDialog(dialog, "BYE", peer)
      assert.strictEqual(bye.response.status, 200)
      assert.strictEqual((yield* answered.ended).by, "remote")
    }).pipe(Effect.scoped))

  it.effect("a stranger's number: 404, logged, and the decider never asked", () =>
    Trunk.withLogs((logged) =>
      Effect.gen(function*() {
        let asked = 0
        const { trunk, peer } = yield* setup(() => Effect.sync(() => (asked++, { _tag: "Answer", local: ourMedia })))
        const response = yield* trunk.endpoint.request(
          outside("INVITE", "+14155550111", peer.port, trunk.endpoint.port, Sdp.offer(trunkMedia)),
          peer
        )
        assert.deepStrictEqual([response.status, asked], [404, 0])
        assert.isTrue(logged.some((line) => line.includes("to +14155550111: refused 404 Not Found")), logged.join("\n"))
      })
    ).pipe(Effect.scoped))

  it.effect("refused by the decider with its status; cancelled by the caller before the answer", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      let calls = 0
      const { trunk, peer } = yield* setup(() =>
        ++calls === 1
          ? Effect.succeed({ _tag: "Reject", status: 486 })
          : Effect.as(Deferred.await(release), { _tag: "Answer", local: ourMedia })
      )
      const busy = yield* trunk.endpoint.request(
        outside("INVITE", OWNED, peer.port, trunk.endpoint.port, Sdp.offer(trunkMedia)),
        peer
      )
      assert.strictEqual(busy.status, 486)
      const invite = trunk.endpoint.prepare(
        outside("INVITE", OWNED, peer.port, trunk.endpoint.port, Sdp.offer(trunkMedia)),
        "UDP"
      )
      const ringing = yield* Deferred.make<void>()
      const pending = yield* Effect.forkChild(trunk.endpoint.request(invite, peer, {
        onProvisional: (r) => r.status === 180 ? Deferred.succeed(ringing, undefined).pipe(Effect.asVoid) : Effect.void
      }))
      yield* Deferred.await(ringing)
      const cancelled = yield* trunk.endpoint.request(ClientTransaction.cancelFor(invite), peer)
      assert.strictEqual(cancelled.status, 200)
      assert.strictEqual((yield* Fiber.join(pending)).status, 487)
    }).pipe(Effect.scoped))

  it.effect("session timers asked by the caller: 422 under our Min-SE; otherwise echoed; 100rel required: 420", () =>
    Effect.gen(function*() {
      const { trunk, ua, peer } = yield* setup()
      const withTimer = (value: string): OutgoingRequest => {
        const invite = outside("INVITE", OWNED, peer.port, trunk.endpoint.port, Sdp.offer(trunkMedia))
        return {
          ...invite,
          headers: [...invite.headers, { name: "Session-Expires", value }, { name: "Supported", value: "timer" }]
        }
      }
      const reliable = withTimer("1800")
      const needs100rel = yield* trunk.endpoint.request({
        ...reliable,
        headers: [...reliable.headers, { name: "Require", value: "100rel, timer" }]
      }, peer)
      assert.deepStrictEqual([needs100rel.status, SipMessage.header(needs100rel, "Unsupported")], [420, "100rel"])
      const short = yield* trunk.endpoint.request(withTimer("60"), peer)
      assert.deepStrictEqual([short.status, SipMessage.header(short, "Min-SE")], [422, "90"])
      const invite = trunk.endpoint.prepare(withTimer("1800"), "UDP")
      const ok = yield* trunk.endpoint.request(invite, peer)
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(SipMessage.header(ok, "Session-Expires"), "1800;refresher=uac")
      assert.include(SipMessage.headerValues(ok, "Require"), "timer")
      const dialog = (Dialog.fromResponse(invite, ok) as Result.Success<Dialog.Dialog, string>).success
      yield* trunk.endpoint.send(InDialog.withoutVia(Dialog.request(dialog, "ACK", { via: "", seq: 1 }).request), peer)
      yield* Queue.take(ua.inbound)
      yield* trunk.inDialog(dialog, "BYE", peer)
    }).pipe(Effect.scoped))

  it.effect("re-INVITE on hold: answered recvonly (sendonly mirrored) and reported `held`; then off hold", () =>
    Effect.gen(function*() {
      const { trunk, ua, peer } = yield* setup()
      const { dialog } = yield* call(trunk, peer)
      const answered = yield* Queue.take(ua.inbound)
      const hold = yield* trunk.inDialog(dialog, "INVITE", peer, {
        headers: [{ name: "Content-Type", value: "application/sdp" }],
        body: Sdp.offer({ ...trunkMedia, version: 2, direction: "sendonly" })
      })
      assert.strictEqual(hold.response.status, 200)
      assert.include(new TextDecoder().decode(hold.response.body), "a=recvonly")
      const held = yield* Queue.take(answered.events)
      assert.deepStrictEqual(held._tag === "Reinvited" && [held.held, held.negotiated.direction], [true, "sendonly"])
      yield* trunk.endpoint.send(
        InDialog.withoutVia(Dialog.request(hold.dialog, "ACK", { via: "", seq: hold.dialog.localSeq }).request),
        peer
      )
      const resume = yield* trunk.inDialog(hold.dialog, "INVITE", peer, {
        headers: [{ name: "Content-Type", value: "application/sdp" }],
        body: Sdp.offer({ ...trunkMedia, version: 3 })
      })
      assert.include(new TextDecoder().decode(resume.response.body), "a=sendrecv")
      const resumed = yield* Queue.take(answered.events)
      assert.isTrue(resumed._tag === "Reinvited" && !resumed.held)
      // Our SDP's version went up with each answer.
      assert.match(new TextDecoder().decode(resume.response.body), /o=voice-agent 42 3 /)
      yield* trunk.inDialog(resume.dialog, "BYE", peer)
    }).pipe(Effect.scoped))

  it.effect("OPTIONS 200 in and out of a dialog; an unknown method 501; a request for no dialog 481", () =>
    Effect.gen(function*() {
      const { trunk, ua, peer } = yield* setup()
      const options = yield* trunk.endpoint.request(outside("OPTIONS", OWNED, peer.port, trunk.endpoint.port), peer)
      assert.strictEqual(options.status, 200)
      assert.include(SipMessage.headerValues(options, "Allow"), "INVITE")
      assert.include(SipMessage.headerValues(options, "Accept"), "application/sdp")
      const unknown = yield* trunk.endpoint.request(outside("FROBNICATE", OWNED, peer.port, trunk.endpoint.port), peer)
      assert.strictEqual(unknown.status, 501)
      const stray = yield* trunk.endpoint.request(outside("BYE", OWNED, peer.port, trunk.endpoint.port), peer)
      assert.strictEqual(stray.status, 481)

      const { dialog } = yield* call(trunk, peer)
      yield* Queue.take(ua.inbound)
      const inside = yield* trunk.inDialog(dialog, "OPTIONS", peer)
      assert.strictEqual(inside.response.status, 200)
      const unknownInside = yield* trunk.inDialog(inside.dialog, "FROBNICATE", peer)
      assert.strictEqual(unknownInside.response.status, 501)
      const wrongTag = yield* trunk.inDialog({ ...unknownInside.dialog, remoteTag: "not-ours" }, "BYE", peer)
      assert.strictEqual(wrongTag.response.status, 481)
      yield* trunk.inDialog(unknownInside.dialog, "BYE", peer)
    }).pipe(Effect.scoped))
})
