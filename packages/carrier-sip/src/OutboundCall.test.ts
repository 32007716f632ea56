import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as DigestAuth from "./DigestAuth.ts"
import type * as OutboundCall from "./OutboundCall.ts"
import * as Sdp from "./Sdp.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"

const { host, ourMedia } = Trunk
const dialOptions = { to: "+14155550100", from: "+14155550199", local: ourMedia }

/** `name="value"` or `name=value` of an Authorization header. */
const authParam = (value: string, name: string) => new RegExp(`${name}="?([^",]*)"?`).exec(value)?.[1]

describe("OutboundCall", () => {
  it.effect("answered: 180 and 183 (its early SDP) reported, the 2xx ACKed with the trunk's SDP; BYE from the trunk, then from us", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port)
      const progress = yield* Queue.unbounded<OutboundCall.Progress>()
      const us = { transport: "UDP" as const, host, port: ua.port }

      const dialing = yield* Effect.forkChild(ua.dial({ ...dialOptions, onProgress: (p) => Queue.offer(progress, p) }))
      const invite = yield* trunk.next("INVITE")
      assert.strictEqual(SipMessage.header(invite.request, "Content-Type"), "application/sdp")
      assert.include(Trunk.text(invite.request.body), "m=audio 40000 RTP/AVP 0 8 101")
      assert.strictEqual(
        `${invite.request.uri.user}@${invite.request.uri.host}:${invite.request.uri.port}`,
        `+14155550100@${host}:${trunk.endpoint.port}`
      )
      assert.strictEqual(invite.request.from.sip?.user, "+14155550199")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      const ringing = yield* Queue.take(progress)
      assert.deepStrictEqual([ringing.status, ringing.sdp], [180, undefined])
      yield* invite.respond(SipEndpoint.answer(invite, 183, {
        headers: [{ name: "Content-Type", value: "application/sdp" }],
        body: new TextEncoder().encode(Sdp.offer(Trunk.trunkMedia))
      }))
      const early = yield* Queue.take(progress)
      assert.strictEqual(early.status, 183)
      assert.include(early.sdp, "m=audio 30000")
      yield* trunk.answerInvite(invite)
      const call = yield* Fiber.join(dialing)
      assert.strictEqual(call.direction, "outbound")
      assert.strictEqual(call.remote().port, Trunk.trunkMedia.port)
      assert.strictEqual(call.remote().codec, "PCMU")
      yield* trunk.next("ACK")

      const bye = yield* trunk.inDialog(trunk.dialogOf(invite), "BYE", us)
      assert.strictEqual(bye.response.status, 200)
      assert.deepStrictEqual(yield* call.ended, { by: "remote", reason: "bye" })
      // The call is gone: a second BYE is for no dialog.
      assert.strictEqual((yield* trunk.inDialog(bye.dialog, "BYE", us)).response.status, 481)

      const second = yield* Effect.forkChild(ua.dial(dialOptions))
      const invite2 = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite2)
      const call2 = yield* Fiber.join(second)
      yield* trunk.next("ACK")
      const hangingUp = yield* Effect.forkChild(call2.hangup)
      const theirBye = yield* trunk.next("BYE")
      assert.strictEqual(theirBye.request.callId, invite2.request.callId)
      yield* theirBye.respond(SipEndpoint.answer(theirBye, 200))
      yield* Fiber.join(hangingUp)
      assert.deepStrictEqual(yield* call2.ended, { by: "local", reason: "hangup" })
      const events = yield* Queue.takeAll(call2.events).pipe(Effect.catch(() => Effect.succeed([])))
      assert.deepStrictEqual(events.map((e) => e._tag), ["Ended"])
    }).pipe(Effect.scoped))

  it.effect("over TCP: the INVITE, its ACK and our BYE on the trunk's TCP port", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port, {
        config: { trunk: { host, port: trunk.endpoint.port, transport: "tcp" } }
      })
      const dialing = yield* Effect.forkChild(ua.dial(dialOptions))
      const invite = yield* trunk.next("INVITE")
      assert.strictEqual(invite.source.transport, "TCP")
      assert.include(SipMessage.header(invite.request, "Contact")!, ";transport=tcp")
      yield* trunk.answerInvite(invite)
      const call = yield* Fiber.join(dialing)
      assert.strictEqual((yield* trunk.next("ACK")).source.transport, "TCP")
      yield* Effect.forkChild(call.hangup)
      const bye = yield* trunk.next("BYE")
      assert.strictEqual(bye.source.transport, "TCP")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      yield* call.ended
    }).pipe(Effect.scoped))

  it.effect("busy: 486 is `busy` with the trunk's status and reason phrase, logged", () =>
    Trunk.withLogs((logged) =>
      Effect.gen(function*() {
        const trunk = yield* Trunk.make
        const ua = yield* Trunk.userAgent(trunk.endpoint.port)
        const dialing = yield* Effect.forkChild(Effect.flip(ua.dial(dialOptions)))
        const invite = yield* trunk.next("INVITE")
        yield* invite.respond(SipEndpoint.answer(invite, 486, { reason: "Busy Here (line 2)" }))
        const failed = yield* Fiber.join(dialing)
        assert.deepStrictEqual([failed.outcome, failed.status, failed.reason], ["busy", 486, "Busy Here (line 2)"])
        assert.isTrue(logged.some((line) => line.includes("486 Busy Here (line 2)")), logged.join("\n"))
      })
    ).pipe(Effect.scoped))

  it.effect("no answer: at the ring timeout CANCEL, the trunk's 487, and `no-answer`", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port, { config: { ringTimeoutS: 20 } })
      const progress = yield* Queue.unbounded<OutboundCall.Progress>()
      const dialing = yield* Effect.forkChild(
        Effect.flip(ua.dial({ ...dialOptions, onProgress: (p) => Queue.offer(progress, p) }))
      )
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* Queue.take(progress)
      yield* TestClock.adjust(19_000)
      assert.isUndefined(dialing.pollUnsafe())
      yield* TestClock.adjust(1_000)
      // The trunk's transaction layer answers the CANCEL 200 and the INVITE 487.
      yield* invite.cancelled
      const failed = yield* Fiber.join(dialing)
      assert.deepStrictEqual([failed.outcome, failed.status], ["no-answer", 487])
    }).pipe(Effect.scoped))

  it.effect("a dial interrupted while ringing sends CANCEL", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port)
      const progress = yield* Queue.unbounded<OutboundCall.Progress>()
      const dialing = yield* Effect.forkChild(ua.dial({ ...dialOptions, onProgress: (p) => Queue.offer(progress, p) }))
      const invite = yield* trunk.next("INVITE")
      yield* invite.respond(SipEndpoint.answer(invite, 180))
      yield* Queue.take(progress)
      yield* Fiber.interrupt(dialing)
      yield* invite.cancelled
    }).pipe(Effect.scoped))

  it.effect("a 200 crossing the CANCEL is ACKed, then ended with BYE; still `no-answer`", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.raw
      const ua = yield* Trunk.userAgent(trunk.port, { config: { ringTimeoutS: 5 } })
      const dialing = yield* Effect.forkChild(Effect.flip(ua.dial(dialOptions)))
      const invite = yield* trunk.next("INVITE")
      const reply = (
        request: SipMessage.SipRequest,
        status: number,
        options: Parameters<typeof SipMessage.response>[3] = {}
      ) =>
        trunk.send(
          SipMessage.response(request, status, SipMessage.REASONS[status]!, { toTag: "late", ...options })!,
          ua.port
        )
      yield* reply(invite, 180)
      yield* TestClock.adjust(5_000)
      const cancel = yield* trunk.next("CANCEL")
      // The trunk had answered already: its 200 to the INVITE crosses the CANCEL.
      yield* reply(invite, 200, {
        headers: [
          { name: "Contact", value: `<sip:trunk@${host}:${trunk.port}>` },
          { name: "Content-Type", value: "application/sdp" }
        ],
        body: new TextEncoder().encode(Sdp.offer(Trunk.trunkMedia))
      })
      yield* reply(cancel, 200)
      const ack = yield* trunk.next("ACK")
      assert.strictEqual(ack.cseq.seq, invite.cseq.seq)
      const bye = yield* trunk.next("BYE")
      yield* reply(bye, 200)
      const failed = yield* Fiber.join(dialing)
      assert.strictEqual(failed.outcome, "no-answer")
    }).pipe(Effect.scoped))

  it.effect("a 200 with no Contact: ACKed where the INVITE went, then `failed`", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.raw
      const ua = yield* Trunk.userAgent(trunk.port)
      const dialing = yield* Effect.forkChild(Effect.flip(ua.dial(dialOptions)))
      const invite = yield* trunk.next("INVITE")
      yield* trunk.send(SipMessage.response(invite, 200, "OK", { toTag: "nocontact" })!, ua.port)
      const ack = yield* trunk.next("ACK")
      assert.strictEqual(ack.to.params.find(([name]) => name === "tag")?.[1], "nocontact")
      const failed = yield* Fiber.join(dialing)
      assert.deepStrictEqual([failed.outcome, failed.status], ["failed", 200])
    }).pipe(Effect.scoped))

  it.effect("a digest challenge: 401, then the INVITE again with a new CSeq and branch and the right Authorization", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port, {
        config: { credentials: { username: "alice", password: Redacted.make("s3cret") } }
      })
      const dialing = yield* Effect.forkChild(ua.dial(dialOptions))
      const first = yield* trunk.next("INVITE")
      yield* first.respond(SipEndpoint.answer(first, 401, {
        headers: [{
          name: "WWW-Authenticate",
          value: "Digest realm=\"trunk.example\", nonce=\"n0nce\", qop=\"auth\", algorithm=SHA-256, opaque=\"op\""
        }]
      }))
      const second = yield* trunk.next("INVITE")
      assert.strictEqual(second.request.cseq.seq, first.request.cseq.seq + 1)
      const branch = (incoming: SipEndpoint.Incoming) => SipHeaders.param(incoming.request.via[0]!.params, "branch")
      assert.notStrictEqual(branch(second), branch(first))
      assert.strictEqual(second.request.callId, first.request.callId)
      const authorization = SipMessage.header(second.request, "Authorization")!
      const challenge = DigestAuth.parseChallenge(
        "Digest realm=\"trunk.example\", nonce=\"n0nce\", qop=\"auth\", algorithm=SHA-256, opaque=\"op\""
      )
      assert.isTrue(Result.isSuccess(challenge))
      const expected = DigestAuth.answer((challenge as Result.Success<DigestAuth.Challenge, string>).success, {
        username: "alice",
        password: "s3cret",
        method: "INVITE",
        uri: authParam(authorization, "uri")!,
        cnonce: authParam(authorization, "cnonce")!,
        nc: 1
      })
      assert.strictEqual(authParam(authorization, "uri"), `sip:+14155550100@${host}:${trunk.endpoint.port}`)
      assert.strictEqual(authParam(authorization, "username"), "alice")
      assert.strictEqual(authParam(authorization, "response"), expected.response)
      assert.strictEqual(authParam(authorization, "opaque"), "op")
      yield* trunk.answerInvite(second)
      const call = yield* Fiber.join(dialing)
      assert.strictEqual(call.remote().port, Trunk.trunkMedia.port)
      yield* trunk.next("ACK")
      yield* Effect.forkChild(call.hangup)
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      yield* call.ended
    }).pipe(Effect.scoped))

  it.effect("a second challenge (not stale) fails with the trunk's status and reason, logged", () =>
    Trunk.withLogs((logged) =>
      Effect.gen(function*() {
        const trunk = yield* Trunk.make
        const ua = yield* Trunk.userAgent(trunk.endpoint.port, {
          config: { credentials: { username: "alice", password: Redacted.make("wrong") } }
        })
        const dialing = yield* Effect.forkChild(Effect.flip(ua.dial(dialOptions)))
        const challenge = { name: "Proxy-Authenticate", value: "Digest realm=\"trunk\", nonce=\"a\", qop=\"auth\"" }
        const first = yield* trunk.next("INVITE")
        yield* first.respond(SipEndpoint.answer(first, 407, { headers: [challenge] }))
        const second = yield* trunk.next("INVITE")
        assert.isDefined(SipMessage.header(second.request, "Proxy-Authorization"))
        yield* second.respond(SipEndpoint.answer(second, 407, { headers: [challenge], reason: "Bad Credentials" }))
        const failed = yield* Fiber.join(dialing)
        assert.deepStrictEqual([failed.outcome, failed.status, failed.reason], ["failed", 407, "Bad Credentials"])
        assert.isTrue(logged.some((line) => line.includes("challenged again") && line.includes("407 Bad Credentials")))
        // No third attempt.
        assert.strictEqual(yield* Queue.size(trunk.inbox), 0)
      })
    ).pipe(Effect.scoped))
})
