/**
 * Inbound calls through the SIP carrier: the trunk's INVITE to a number the engine accepts is
 * answered with our media and served like an answered outbound call; others refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Result } from "effect"
import { harness, host, loud, rtpSocket, until } from "../test/carrierHarness.ts"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import type * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>
const encoder = new TextEncoder()

/** An INVITE from the trunk to `to` at the user agent, with the trunk's media on `mediaPort`. */
const inviteTo = (to: string, peer: Peer, trunkPort: number, mediaPort: number): OutgoingRequest => ({
  _tag: "Request",
  method: "INVITE",
  uri: `sip:${to}@${host}:${peer.port}`,
  headers: [
    { name: "Max-Forwards", value: "70" },
    { name: "From", value: `<sip:+14155550199@${host}>;tag=trunk${Math.random().toString(16).slice(2, 8)}` },
    { name: "To", value: `<sip:${to}@${host}>` },
    { name: "Call-ID", value: `in-${Math.random().toString(16).slice(2)}@${host}` },
    { name: "CSeq", value: "1 INVITE" },
    { name: "Contact", value: `<sip:trunk@${host}:${trunkPort}>` },
    { name: "Content-Type", value: "application/sdp" }
  ],
  body: encoder.encode(Sdp.offer({ ...Trunk.trunkMedia, port: mediaPort }))
})

describe("SipCarrier inbound", () => {
  it.live("an accepted number: 200 with our SDP, Answered human, the agent heard on the trunk's RTP, BYE ends it", () =>
    Effect.gen(function*() {
      const { sessions, tags, trunk, us } = yield* harness({ inbound: true, callId: "call-in" })
      const media = yield* rtpSocket
      const invite = trunk.endpoint.prepare(inviteTo("+14155550100", us, trunk.endpoint.port, media.port), "UDP")
      const response = yield* trunk.endpoint.request(invite, us)
      assert.strictEqual(response.status, 200)
      assert.match(Trunk.text(response.body), /m=audio \d+ RTP\/AVP 0 101/)
      const dialog = (Dialog.fromResponse(invite, response) as Result.Success<Dialog.Dialog, string>).success
      yield* trunk.endpoint.send(InDialog.withoutVia(Dialog.request(dialog, "ACK", { via: "", seq: 1 }).request), us)

      yield* until(() => loud(media.received) >= 20)
      assert.deepStrictEqual(sessions.seen.tokens, ["token-in"])
      const bye = Dialog.request(dialog, "BYE", { via: "" })
      assert.strictEqual((yield* trunk.endpoint.request(InDialog.withoutVia(bye.request), us)).status, 200)
      assert.deepStrictEqual(yield* tags, ["Answered human", "Ended remote-hangup"])
      yield* until(() => sessions.seen.stopped)
    }).pipe(Effect.scoped))

  it.live("answered but never ACKed: the call is given up, Ended remote-hangup", () =>
    Effect.gen(function*() {
      const { tags, trunk, us } = yield* harness({ inbound: true, callId: "call-in" })
      const invite = trunk.endpoint.prepare(inviteTo("+14155550100", us, trunk.endpoint.port, 30_000), "UDP")
      assert.strictEqual((yield* trunk.endpoint.request(invite, us)).status, 200)
      assert.deepStrictEqual(yield* tags, ["Ended remote-hangup"])
    }).pipe(Effect.scoped))

  it.live("a stranger's number is refused 404, a declined call 603, and without the engine's inbound calls 480", () =>
    Effect.gen(function*() {
      const { trunk, us } = yield* harness({ inbound: true })
      const status = (to: string) =>
        Effect.map(
          trunk.endpoint.request(trunk.endpoint.prepare(inviteTo(to, us, trunk.endpoint.port, 30_000), "UDP"), us),
          (response) => response.status
        )
      assert.strictEqual(yield* status("+14155550177"), 404)
      assert.strictEqual(yield* status("+14155550111"), 603)
      const alone = yield* harness()
      const refused = yield* alone.trunk.endpoint.request(
        alone.trunk.endpoint.prepare(inviteTo("+14155550100", alone.us, alone.trunk.endpoint.port, 30_000), "UDP"),
        alone.us
      )
      assert.strictEqual(refused.status, 480)
    }).pipe(Effect.scoped))
})
