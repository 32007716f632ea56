/**
 * The SIP carrier with the engine's own media session (as the daemon will provide it): the
 * session's gate takes the call the carrier answered, the agent is heard on the trunk's RTP,
 * and the agent's verdict is reported once the trunk hangs up.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import type { AgentCall, TransferResult } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Effect, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { harness, loud, request, rtpSocket, until } from "../test/carrierHarness.ts"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMedia from "./SipMedia.ts"
import * as SipMessage from "./SipMessage.ts"

const conversation: ConversationRecord = {
  id: "00000000-0000-4000-8000-000000000001",
  callId: request.callId,
  organizationId: "00000000-0000-4000-8000-000000000002",
  campaignId: null,
  contactId: "1",
  direction: "outbound",
  fromNumber: request.from,
  toNumber: request.to,
  startedAt: new Date(0),
  answeredAt: null,
  endedAt: null,
  durationSec: null,
  terminationReason: null
}

const conversations = ConversationRepository.of({
  insert: () => Effect.die("unused"),
  end: () => Effect.die("unused"),
  closeAbandoned: () => Effect.die("unused"),
  appendTurns: () => Effect.void,
  list: () => Effect.die("unused"),
  findByCallId: () => Effect.die("unused"),
  transcript: () => Effect.succeed([]),
  callContext: (id) => Effect.succeed(id === request.callId ? Option.some({ conversation, data: {} }) : Option.none()),
  claimStream: () => Effect.succeed(true),
  recordField: () => Effect.void,
  fields: () => Effect.succeed({}),
  recordLatency: () => Effect.void,
  latency: () => Effect.succeed([]),
  campaignLatency: () => Effect.die("unused")
})

/** A buzz at 220 Hz, `samples` long: a stand-in voice for simulated speech. */
const buzz = (samples: number) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / 8000)))

/** A 1 kHz tone, loud, `ms` long, as the agent's 16-bit PCM. */
const tone = (ms: number) =>
  Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)))

describe("SipCarrier with the engine's media session", () => {
  it.live("the agent's greeting reaches the trunk; the trunk's BYE ends the call and the verdict is reported", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-sip-carrier-"))),
        (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
      )
      const world = MemoryDialer.makeWorld()
      const heard: Array<number> = []
      const run = (call: AgentCall) =>
        Effect.gen(function*() {
          yield* call.say(Stream.make({ encoding: "pcm16" as const, samples: tone(600), timestampMs: 0 }))
          yield* Stream.runForEach(call.input, (item) =>
            Effect.sync(() => void heard.push(item._tag === "Audio" ? 1 : 0)))
          return { outcome: "completed", endedBy: "remote" } as const
        })
      const services = Layer.mergeAll(
        FileRecordingStore.layer(dir),
        Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
        Layer.succeed(ConversationRepository, conversations),
        Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets),
        Layer.succeed(Agent, Agent.of({ encoding: "pcm16", run }))
      )
      const context = yield* Effect.context<
        Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets
      >().pipe(Effect.provide(services))
      const mediaSessions = SipMedia.MediaSessions.of({
        serve: (socket, codec) => Effect.provide(MediaSession.serve(socket, { codec }), context)
      })
      const { sip, tags, trunk, us } = yield* harness({ world, mediaSessions })
      const media = yield* rtpSocket
      const key = MediaToken.keyFrom(new Uint8Array(32).fill(42))
      yield* sip.carrier.placeCall({ ...request, mediaToken: MediaToken.sign(key, request.callId, 9e15) })
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")

      // Answered `unknown`: the engine holds the agent until the audio tells a person (a short
      // "hello?", then silence) from a machine.
      const hello = new Int16Array(8000 * 3)
      hello.set(SimSpeech.encode("hello?", buzz(3000)))
      yield* media.speak(Number(/m=audio (\d+)/.exec(Trunk.text(invite.request.body))?.[1]), hello)
      yield* until(() => loud(media.received) >= 20)
      assert.isAbove(heard.length, 10)
      const bye = yield* trunk.inDialog(trunk.dialogOf(invite), "BYE", us)
      assert.strictEqual(bye.response.status, 200)
      assert.deepStrictEqual(yield* tags, ["Answered unknown", "Ended remote-hangup"])
      yield* until(() => (world.events.get(request.callId) ?? []).some((event) => event._tag === "AgentEnded"))
    }).pipe(Effect.scoped))

  it.live("the agent's transfer: its message reaches the trunk, then a REFER; the NOTIFY 200, our BYE, verdict transfer", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-sip-transfer-"))),
        (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
      )
      const world = MemoryDialer.makeWorld()
      const results: Array<TransferResult> = []
      const run = (call: AgentCall) =>
        Effect.gen(function*() {
          // The transfer message, played out, then the carrier asked to move the call.
          yield* call.say(Stream.make({ encoding: "pcm16" as const, samples: tone(600), timestampMs: 0 }))
          const result = yield* call.transfer("+14155550123")
          results.push(result)
          return result._tag === "Transferred"
            ? { outcome: "transfer", endedBy: "agent", transferTo: "+14155550123" } as const
            : { outcome: "agent-failure", endedBy: "agent" } as const
        })
      const services = Layer.mergeAll(
        FileRecordingStore.layer(dir),
        Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
        Layer.succeed(ConversationRepository, conversations),
        Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets),
        Layer.succeed(Agent, Agent.of({ encoding: "pcm16", run }))
      )
      // As the daemon can: the session's services without a Carrier (the SIP carrier provides itself).
      const context = yield* Effect.context<
        Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets
      >().pipe(Effect.provide(services))
      const mediaSessions = SipMedia.MediaSessions.of({
        serve: (socket, codec) => Effect.provide(MediaSession.serve(socket, { codec }), context)
      })
      const { sip, tags, trunk, us } = yield* harness({ world, mediaSessions })
      const media = yield* rtpSocket
      const key = MediaToken.keyFrom(new Uint8Array(32).fill(42))
      yield* sip.carrier.placeCall({ ...request, mediaToken: MediaToken.sign(key, request.callId, 9e15) })
      const invite = yield* trunk.next("INVITE")
      yield* trunk.answerInvite(invite, { ...Trunk.trunkMedia, port: media.port })
      yield* trunk.next("ACK")
      const hello = new Int16Array(8000 * 3)
      hello.set(SimSpeech.encode("hello?", buzz(3000)))
      yield* media.speak(Number(/m=audio (\d+)/.exec(Trunk.text(invite.request.body))?.[1]), hello)

      const refer = yield* trunk.next("REFER")
      // The message was heard before the REFER went out.
      assert.isAtLeast(loud(media.received), 20)
      assert.include(SipMessage.header(refer.request, "Refer-To"), "sip:+14155550123@")
      yield* refer.respond(SipEndpoint.answer(refer, 202))
      yield* trunk.inDialog(trunk.dialogOf(invite), "NOTIFY", us, {
        headers: [
          { name: "Event", value: "refer" },
          { name: "Subscription-State", value: "terminated" },
          { name: "Content-Type", value: "message/sipfrag" }
        ],
        body: "SIP/2.0 200 OK"
      })
      const bye = yield* trunk.next("BYE")
      yield* bye.respond(SipEndpoint.answer(bye, 200))
      assert.deepStrictEqual(yield* tags, ["Answered unknown", "Ended local-hangup"])
      yield* until(() => (world.events.get(request.callId) ?? []).some((event) => event._tag === "AgentEnded"))
      assert.deepStrictEqual(results, [{ _tag: "Transferred" }])
      const verdict = (world.events.get(request.callId) ?? []).find((event) => event._tag === "AgentEnded")
      assert.strictEqual(verdict?._tag === "AgentEnded" ? verdict.outcome : undefined, "transfer")
    }).pipe(Effect.scoped))
})
