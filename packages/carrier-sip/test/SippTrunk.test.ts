/**
 * The SIP carrier against SIPp as the trunk (the conformance kit's `sipp/trunk.xml`): a transfer
 * (`SipCarrier.transfer`, beside the `Carrier` port until the port has one) seen by the trunk
 * as a REFER in the call's dialog to `sip:<target>@<trunk>`, followed through its NOTIFYs
 * (100, then 200), then the BYE. And the trunk scenario itself, against a caller whose INVITE
 * goes out again after the 200 and who ACKs each 200 (`sipp/retransmitting-uac.xml`), as the
 * engine's client transaction does on a busy machine.
 *
 * SIPp must be installed (Debian's sip-tester): without it the test fails and says so.
 */
import { assert, describe, it } from "@effect/vitest"
import * as SipCarrier from "@voice-agent/carrier-sip/SipCarrier"
import * as SipMedia from "@voice-agent/carrier-sip/SipMedia"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as Sipp from "../scripts/kit/Sipp.ts"
import * as Trace from "../scripts/kit/Trace.ts"
import { request, rtpPorts, scriptedSessions, until } from "./carrierHarness.ts"

const host = "127.0.0.1"

describe("the SIP carrier, SIPp as the trunk", () => {
  it.live("the trunk takes in an INVITE sent again after its 200, and an ACK for each 200", () =>
    Effect.gen(function*() {
      const { dir, port, trunk } = yield* Sipp.startTrunk({
        host,
        prefix: "va-sipp-retransmit-",
        calls: 1,
        timeoutS: 30
      })
      const caller = yield* Sipp.start({
        scenario: "retransmitting-uac.xml",
        dir,
        host,
        port: yield* Sipp.freeUdpPort(host),
        mediaPort: yield* Sipp.freeUdpPort(host, true),
        calls: 1,
        remote: `${host}:${port}`,
        timeoutS: 30
      })
      assert.strictEqual(yield* caller.exited, 0, caller.failures())
      assert.strictEqual(yield* trunk.exited, 0, trunk.failures())
      fs.rmSync(dir, { recursive: true, force: true })
    }))

  it.live("a transfer is a REFER to the target, followed to its NOTIFY 200, then BYE", () =>
    Effect.gen(function*() {
      const { dir, port, trunk } = yield* Sipp.startTrunk({ host, prefix: "va-sipp-refer-", calls: 1, timeoutS: 30 })
      const world = MemoryDialer.makeWorld()
      const events = yield* MemoryDialer.callEvents(world)
      const sip = yield* SipCarrier.makeWithUserAgent({
        trunk: { host, port, transport: "udp" },
        credentials: undefined,
        register: false,
        listen: { host, port: 0 },
        publicAddress: host,
        rtpPorts: rtpPorts(),
        ringTimeoutS: 30
      }).pipe(
        Effect.provide(Layer.merge(
          Layer.succeed(CallEvents, events),
          Layer.succeed(SipMedia.MediaSessions, scriptedSessions().service)
        ))
      )
      const placed = yield* sip.carrier.placeCall({ ...request, to: "+14155550302" })
      const tags = () => (world.events.get(request.callId) ?? []).map((event) => event._tag)
      yield* until(() => tags().includes("Answered"))

      const done = yield* sip.transfer(request.callId, "+14155550123")
      assert.deepStrictEqual(done, { status: 200, reason: "OK" })
      yield* until(() => tags().includes("Ended"))
      const ended = world.events.get(request.callId)!.find((event) => event._tag === "Ended")
      assert.strictEqual(ended?._tag === "Ended" ? ended.reason : undefined, "local-hangup")

      assert.strictEqual(yield* trunk.exited, 0, trunk.failures())
      const call = Trace.messages(trunk.messages()).filter((m) => m.callId === placed.carrierCallId)
      const refer = call.find((m) => m.startLine.startsWith("REFER "))
      assert.isDefined(refer, Trace.summary(call))
      assert.match(refer.text, /^Refer-To: <sip:\+14155550123@127\.0\.0\.1>\r?$/m)
      assert.deepStrictEqual(
        call.map((m) =>
          `${m.direction === "sent" ? ">" : "<"} ${m.startLine.split(" ")[0]} ${m.startLine.split(" ")[1]}`
        ),
        [
          "< INVITE sip:+14155550302@127.0.0.1:" + port,
          "> SIP/2.0 180",
          "> SIP/2.0 200",
          `< ACK ${call[3]?.startLine.split(" ")[1]}`,
          `< REFER ${refer.startLine.split(" ")[1]}`,
          "> SIP/2.0 202",
          `> NOTIFY ${call[6]?.startLine.split(" ")[1]}`,
          "< SIP/2.0 200",
          `> NOTIFY ${call[8]?.startLine.split(" ")[1]}`,
          "< SIP/2.0 200",
          `< BYE ${call[10]?.startLine.split(" ")[1]}`,
          "> SIP/2.0 200"
        ],
        Trace.summary(call)
      )
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
