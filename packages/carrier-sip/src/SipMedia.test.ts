/**
 * The engine's media session serving a call over an `RtpSession`, on loopback: a plain UDP
 * socket plays the trunk and the person (RTP packets stamped as a phone would), the session
 * runs a scripted agent over simulated speech, and the recordings are read back.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AgentCall, AgentEnd, Playback } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { AnsweredBy, CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryConversations from "@voice-agent/engine/testing/MemoryConversations"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as ALaw from "@voice-agent/media/ALaw"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Wav from "@voice-agent/media/Wav"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Result, Scope, Stream } from "effect"
import * as Dgram from "node:dgram"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Rtp from "./Rtp.ts"
import * as RtpSession from "./RtpSession.ts"
import * as SipMedia from "./SipMedia.ts"
import * as TelephoneEvent from "./TelephoneEvent.ts"

const HOST = "127.0.0.1"
const callId = "call-sip-1"
const key = MediaToken.keyFrom(new Uint8Array(32).fill(42))
const range = () => {
  const low = 20_000 + 2 * Math.floor(Math.random() * 15_000)
  return { low, high: low + 39 }
}

const conversation = MemoryConversations.outbound(callId)

const tone = (hz: number, samples: number, amplitude = 8000) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 8000)))

/** A stand-in voice for simulated speech: a buzz the length of the words. */
const utterance = (text: string) => SimSpeech.encode(text, tone(220, text.length * 500))

/** The session's services over memory and a temporary recordings directory; the carrier answered with `answeredBy`. */
const harness = (answeredBy: AnsweredBy) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-sip-media-"))),
      (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
    )
    const world = MemoryDialer.makeWorld()
    world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy }])
    const memory = MemoryConversations.make((id) => id === callId ? { conversation, data: {} } : undefined)
    const { turns } = memory
    const conversations = memory.repository
    const services = Layer.mergeAll(
      FileRecordingStore.layer(dir),
      Layer.effect(CallEvents, MemoryDialer.callEvents(world)),
      Layer.succeed(ConversationRepository, conversations),
      Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets)
    )
    /** The engine's media session with `run` as the call's agent, as the daemon would provide it. */
    const sessions = (run: (call: AgentCall) => Effect.Effect<AgentEnd>) =>
      Layer.effect(
        SipMedia.MediaSessions,
        Effect.gen(function*() {
          const context = yield* Effect.context<
            Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets
          >()
          return SipMedia.MediaSessions.of({
            serve: (socket, codec) => Effect.provide(MediaSession.serve(socket, { codec }), context)
          })
        })
      ).pipe(Layer.provide(Layer.merge(services, Layer.succeed(Agent, Agent.of({ encoding: "pcm16", run })))))
    return { dir, world, turns, sessions }
  })

interface Received {
  readonly packet: Rtp.RtpPacket
  readonly pcm: Int16Array
}

/** The trunk and the person: a UDP socket sending RTP stamped on its own clock, and what it receives. */
const person = (codec: "PCMU" | "PCMA") =>
  Effect.gen(function*() {
    const socket = yield* Effect.acquireRelease(
      Effect.callback<Dgram.Socket>((resume) => {
        const s = Dgram.createSocket("udp4")
        s.bind(0, HOST, () => resume(Effect.succeed(s)))
      }),
      (s) => Effect.sync(() => s.close())
    )
    const received: Array<Received> = []
    socket.on("message", (message) => {
      const bytes = new Uint8Array(message)
      if (Rtp.isRtcp(bytes)) return
      const decoded = Rtp.decode(bytes)
      if (Result.isFailure(decoded)) return
      const packet = decoded.success
      const pcm = packet.payloadType === 8 ? ALaw.decode(packet.payload) : MuLaw.decode(packet.payload)
      received.push({ packet, pcm })
    })
    const payloadType = codec === "PCMU" ? 0 : 8
    const encode = codec === "PCMU" ? MuLaw.encode : ALaw.encode
    const ssrc = 0x5eed
    let sequence = 1000
    const send = (port: number, bytes: Uint8Array) => Effect.sync(() => socket.send(bytes, port, HOST))
    /**
     * Plays `signal` (8 kHz PCM; silence where nothing is said) to `port` in 20 ms packets, RTP
     * timestamp 160 a packet from `timestamp0`, paced on the clock 400 ms ahead of real time (a
     * loaded machine's pauses then cost no packets); `presses` are key presses at packet indexes,
     * `lost` the indexes of audio packets the network loses.
     * Answers the local time the first packet left.
     */
    const play = (
      port: number,
      signal: Int16Array,
      presses: ReadonlyMap<number, string> = new Map(),
      lost: ReadonlySet<number> = new Set()
    ) =>
      Effect.gen(function*() {
        const timestamp0 = 90_000
        const started = yield* Clock.currentTimeMillis
        const frames = Math.ceil(signal.length / 160)
        let pressing: Array<TelephoneEvent.PressPacket> = []
        let pressTimestamp = 0
        for (let i = 0; i < frames; i++) {
          const wait = started + i * 20 - 400 - (yield* Clock.currentTimeMillis)
          if (wait > 0) yield* Effect.sleep(wait)
          const frame = new Int16Array(160)
          frame.set(signal.subarray(i * 160, (i + 1) * 160))
          const timestamp = timestamp0 + i * 160
          const packet = Rtp.encode({
            payloadType,
            marker: i === 0,
            sequence: sequence++,
            timestamp,
            ssrc,
            payload: encode(frame)
          })
          if (!lost.has(i)) yield* send(port, packet)
          const digit = presses.get(i)
          if (digit !== undefined) {
            pressing = TelephoneEvent.press(digit, 100)
            pressTimestamp = timestamp
          }
          const event = pressing.shift()
          if (event !== undefined) {
            yield* send(
              port,
              Rtp.encode({
                payloadType: 101,
                marker: event.marker,
                sequence: sequence++,
                timestamp: pressTimestamp,
                ssrc,
                payload: event.payload
              })
            )
          }
        }
        return started
      })
    return { port: socket.address().port, received, play }
  })

const remoteOf = (port: number, codec: "PCMU" | "PCMA"): RtpSession.Remote => ({
  codec,
  payloadType: codec === "PCMU" ? 0 : 8,
  telephoneEvent: 101,
  address: HOST,
  port
})

/** The texts of simulated speech in the received packets (in sequence order). */
const heard = (received: ReadonlyArray<Received>) => {
  const ordered = [...received].sort((a, b) => a.packet.sequence - b.packet.sequence)
  const samples = new Int16Array(ordered.length * 160)
  ordered.forEach((r, i) => samples.set(r.pcm.subarray(0, 160), i * 160))
  return SimSpeech.decode(samples).map((u) => u.text)
}

/** Packets carrying sound (not comfort silence). */
const loud = (received: ReadonlyArray<Received>) => received.filter((r) => r.pcm.some((s) => Math.abs(s) > 500)).length

/** The agent: hears simulated speech (`onUtterance`), notes key presses and barge-ins (`onBargeIn`). */
const listener = (
  onUtterance: (text: string, call: AgentCall) => Effect.Effect<void>,
  onBargeIn: (call: AgentCall) => Effect.Effect<void> = () => Effect.void
) => {
  const digits: Array<string> = []
  const texts: Array<string> = []
  const bargeIns: Array<number> = []
  /** Where the agent's audio had holes (ms), and where it ended. */
  const holes: Array<number> = []
  let endMs = 0
  const run = (call: AgentCall) =>
    Effect.gen(function*() {
      const decoder = new SimSpeech.Decoder()
      let originMs: number | undefined
      yield* Stream.runForEach(call.input, (item) =>
        Effect.gen(function*() {
          switch (item._tag) {
            case "Audio": {
              if (item.frame.encoding !== "pcm16") return
              if (originMs !== undefined && item.frame.timestampMs > endMs + 0.5) holes.push(endMs)
              endMs = item.frame.timestampMs + item.frame.samples.length / 8
              originMs ??= item.frame.timestampMs
              const gap = Math.round((item.frame.timestampMs - originMs) * 8) - decoder.offset
              if (gap > 0) decoder.pushSilence(gap)
              for (const found of decoder.push(item.frame.samples)) {
                texts.push(found.text)
                yield* onUtterance(found.text, call)
              }
              return
            }
            case "Dtmf":
              digits.push(item.digit)
              return
            case "BargeIn":
              bargeIns.push(item.timestampMs)
              return yield* onBargeIn(call)
            case "SpeechStarted":
            case "SpeechStopped":
              return
          }
        }))
      return { outcome: "completed", endedBy: "remote" } as const
    })
  return { run, digits, texts, bargeIns, holes }
}

const readWav = (dir: string, channel: string) => {
  const file = fs.readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith(`${channel}.wav`))
  assert.isDefined(file, `${channel}.wav in ${fs.readdirSync(dir, { recursive: true }).join(", ")}`)
  return Wav.decodeSamples(new Uint8Array(fs.readFileSync(path.join(dir, file))).subarray(44))
}

/** The first sample index from `from` whose 20 ms window holds energy, or -1. */
const firstSound = (samples: Int16Array, from = 0) => {
  for (let i = from; i + 160 <= samples.length; i += 8) {
    let energy = 0
    for (let j = i; j < i + 160; j++) energy += samples[j]! * samples[j]!
    if (energy / 160 > 1_000_000) return i
  }
  return -1
}

/** Waits (real time, 15 s at most) until `done()`. */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 15_000
    while (!done() && Date.now() < deadline) yield* Effect.sleep(20)
    assert.isTrue(done(), "waited for the call")
  })

const verdicts = (world: MemoryDialer.World) =>
  (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")

describe("SipMedia", () => {
  for (const codec of ["PCMU", "PCMA"] as const) {
    it.live(`${codec}: speech and a key press reach the agent, its reply comes back in ${codec}, recordings aligned`, () =>
      Effect.gen(function*() {
        const { dir, sessions, turns, world } = yield* harness("human")
        const trunk = yield* person(codec)
        const originMs = yield* Clock.currentTimeMillis
        const rtp = yield* RtpSession.make({
          host: HOST,
          ports: range(),
          remote: remoteOf(trunk.port, codec),
          originMs
        })
        const agent = listener((text, call) =>
          text === "hello agent"
            ? Effect.asVoid(Effect.forkChild(call.say(Stream.make({
              encoding: "pcm16" as const,
              samples: utterance("hello person"),
              timestampMs: 0
            }))))
            : Effect.void
        )
        const ended = yield* Deferred.make<void>()
        const served = yield* Effect.forkChild(
          SipMedia.serve({ rtp, callId, token: MediaToken.sign(key, callId, 9e15), ended: Deferred.await(ended) })
            .pipe(Effect.provide(sessions(agent.run)))
        )
        // The person: 500 ms of silence, "hello agent", a beep 2.5 s after the words began,
        // the key 5 pressed at 3.5 s, silence to 5 s; five packets lost before the beep.
        const signal = new Int16Array(5 * 8000)
        const words = utterance("hello agent")
        signal.set(words, 4000)
        signal.set(tone(1000, 800, 12000), 4000 + 20_000)
        const firstSent = yield* trunk.play(
          rtp.port,
          signal,
          new Map([[175, "5"]]),
          new Set([120, 121, 122, 123, 124])
        )
        yield* until(() => heard(trunk.received).includes("hello person") && agent.digits.length > 0)
        yield* Deferred.succeed(ended, undefined)
        yield* Fiber.join(served)

        assert.deepStrictEqual(agent.texts, ["hello agent"])
        assert.deepStrictEqual(agent.digits, ["5"])
        assert.deepStrictEqual(agent.holes, [], "the lost packets reach the agent as silence, in their place")
        assert.deepStrictEqual(heard(trunk.received), ["hello person"])
        assert.isTrue(trunk.received.every((r) => r.packet.payloadType === (codec === "PCMU" ? 0 : 8)))
        assert.deepStrictEqual(verdicts(world).map((e) => e._tag === "AgentEnded" && e.outcome), ["completed"])
        assert.isAtLeast(turns.length, 0)

        // The person's words where the RTP timestamps put them: the first packet anchors the
        // stream at its arrival (less its 20 ms), every later one sits at its timestamp's distance.
        const remote = readWav(dir, "remote")
        const wordsAt = firstSound(remote)
        assert.approximately(wordsAt / 8, firstSent - originMs - 20 + 500, 60, "the words 500 ms into the stream")
        const beepAt = firstSound(remote, wordsAt + words.length + 80)
        assert.approximately((beepAt - wordsAt) / 8, 2500, 3, "the beep 2.5 s after the words, as stamped")
        // The agent's reply is in its channel, after the words it answers.
        const agentChannel = readWav(dir, "agent")
        assert.isAbove(firstSound(agentChannel), wordsAt + words.length)
      }))
  }

  it.live("a barge-in clears the agent's audio: the trunk hears it stop", () =>
    Effect.gen(function*() {
      const { sessions } = yield* harness("human")
      const trunk = yield* person("PCMU")
      const rtp = yield* RtpSession.make({ host: HOST, ports: range(), remote: remoteOf(trunk.port, "PCMU") })
      let playback: Playback | undefined
      const agent = listener(() => Effect.void, (call) => call.interrupt)
      const run = (call: AgentCall) =>
        Effect.gen(function*() {
          // Four seconds of talk; the person's voice cuts it short.
          yield* Effect.forkChild(
            Effect.tap(
              call.say(Stream.make({ encoding: "pcm16" as const, samples: tone(600, 32_000), timestampMs: 0 })),
              (p) => Effect.sync(() => void (playback = p))
            )
          )
          return yield* agent.run(call)
        })
      const ended = yield* Deferred.make<void>()
      const served = yield* Effect.forkChild(
        SipMedia.serve({ rtp, callId, token: MediaToken.sign(key, callId, 9e15), ended: Deferred.await(ended) })
          .pipe(Effect.provide(sessions(run)))
      )
      // The person talks over the agent from 1 s to 1.6 s.
      const signal = new Int16Array(3 * 8000)
      signal.set(tone(300, 4800, 12000), 8000)
      yield* trunk.play(rtp.port, signal)
      yield* until(() => playback !== undefined)
      yield* Deferred.succeed(ended, undefined)
      yield* Fiber.join(served)

      assert.strictEqual(agent.bargeIns.length, 1)
      assert.strictEqual(playback?._tag, "Interrupted")
      const talked = loud(trunk.received)
      assert.isAbove(talked, 25, "the agent was heard before the person spoke")
      // Its audio stops within 200 ms of the person's voice (54 packets for a barge-in at 1040 ms
      // here; 105 when the clear is not passed on: the second the session had sent ahead).
      const bargeInMs = agent.bargeIns[0]!
      assert.isAtMost(talked, bargeInMs / 20 + 10, `the rest was dropped (${talked} packets of sound)`)
      const afterLastSound = trunk.received.length - 1 -
        [...trunk.received].reverse().findIndex((r) => r.pcm.some((s) => Math.abs(s) > 500))
      assert.isAbove(trunk.received.length - afterLastSound, 25, "comfort silence after the clear")
    }))

  it.live("answered by unknown: the engine detects the machine from the RTP audio, and the agent's end hangs up", () =>
    Effect.gen(function*() {
      const { sessions, world } = yield* harness("unknown")
      const trunk = yield* person("PCMU")
      const rtp = yield* RtpSession.make({ host: HOST, ports: range(), remote: remoteOf(trunk.port, "PCMU") })
      let answeredBy: string | undefined
      const run = (call: AgentCall) =>
        Effect.sync(() => {
          answeredBy = call.context.answeredBy
          return { outcome: "voicemail", endedBy: "agent" } as const
        })
      let hangUps = 0
      const served = yield* Effect.forkChild(
        SipMedia.serve({
          rtp,
          callId,
          token: MediaToken.sign(key, callId, 9e15),
          hangUp: Effect.sync(() => void hangUps++)
        }).pipe(Effect.provide(sessions(run)))
      )
      // An answering machine's beep, 300 ms in.
      const signal = new Int16Array(2 * 8000)
      signal.set(tone(1000, 4000, 12000), 2400)
      yield* Effect.forkChild(trunk.play(rtp.port, signal))
      yield* Fiber.join(served)
      assert.strictEqual(answeredBy, "machine")
      assert.strictEqual(hangUps, 1, "the session closed the stream: the adapter hangs up once")
      assert.deepStrictEqual(verdicts(world).map((e) => e._tag === "AgentEnded" && e.outcome), ["voicemail"])
    }))

  it.live("the RTP session closing (the dialog torn down) ends the call as the person's hang-up", () =>
    Effect.gen(function*() {
      const { world, sessions } = yield* harness("human")
      const trunk = yield* person("PCMU")
      const scope = yield* Scope.make()
      const rtp = yield* RtpSession.make({ host: HOST, ports: range(), remote: remoteOf(trunk.port, "PCMU") }).pipe(
        Scope.provide(scope)
      )
      const agent = listener(() => Effect.void)
      let hangUps = 0
      const served = yield* Effect.forkChild(
        SipMedia.serve({
          rtp,
          callId,
          token: MediaToken.sign(key, callId, 9e15),
          hangUp: Effect.sync(() => void hangUps++)
        }).pipe(Effect.provide(sessions(agent.run)))
      )
      yield* trunk.play(rtp.port, tone(440, 4000))
      yield* Scope.close(scope, Exit.void)
      yield* Fiber.join(served)
      assert.deepStrictEqual(verdicts(world).map((e) => e._tag === "AgentEnded" && [e.outcome, e.endedBy]), [[
        "completed",
        "remote"
      ]])
      assert.strictEqual(hangUps, 0, "nothing to hang up: the person did")
    }))

  it.live("a stream with a bad token is refused: nothing reaches an agent, and the call is hung up", () =>
    Effect.gen(function*() {
      const { dir, sessions } = yield* harness("human")
      const trunk = yield* person("PCMU")
      const rtp = yield* RtpSession.make({ host: HOST, ports: range(), remote: remoteOf(trunk.port, "PCMU") })
      let hangUps = 0
      yield* SipMedia.serve({
        rtp,
        callId,
        token: MediaToken.sign(key, "another-call", 9e15),
        hangUp: Effect.sync(() => void hangUps++)
      }).pipe(Effect.provide(sessions(() => Effect.die("never run"))))
      assert.strictEqual(hangUps, 1)
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }))
})
