/**
 * The engine's media session against a hand-driven carrier end (Twilio's side of Media
 * Streams, frame by frame) under TestClock: the token gate, the recordings' alignment on the
 * call's timeline, `mixed` as the clipped sum, barge-in and clear, and the verdict.
 */
import { assert, describe, it } from "@effect/vitest"
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import type { Agent, AudioFrame, AudioSink, CallInput, Playback, TransferResult } from "@voice-agent/core/ports/Agent"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MediaToken from "@voice-agent/engine/MediaToken"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import * as DtmfTones from "@voice-agent/media/DtmfTones"
import type { MediaCodec } from "@voice-agent/media/MediaCodec"
import { ignored } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import * as Wav from "@voice-agent/media/Wav"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import { Clock, Deferred, Effect, Fiber, Layer, Logger, Stream } from "effect"
import { TestClock } from "effect/testing"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import {
  agentLayer,
  answeringPerson,
  askedAndAnswered,
  callId,
  countedPair,
  firstSound,
  harness,
  key,
  readWav,
  settle,
  streamSid,
  tone,
  until
} from "../support/MediaSessionHarness.ts"

/** The carrier's end: sends Twilio frames, answers marks at once, collects what the session sent. */
const carrierEnd = (socket: MediaSocket, readBySession?: () => number) =>
  Effect.gen(function*() {
    const received: Array<TwilioMediaStream.OutboundMessage> = []
    const closed = yield* Deferred.make<void>()
    let ended = false
    // Twilio plays what it is sent in order and echoes a mark when the audio before it has played;
    // `clear` drops what is queued and echoes the pending marks at once.
    let playoutEnd = 0
    const pending = new Map<string, Fiber.Fiber<void>>()
    const echo = (name: string) =>
      socket.send(TwilioMediaStream.encode({ _tag: "Mark", sequenceNumber: 0, streamSid, mark: { name } } as never))
    yield* Effect.forkScoped(
      Stream.runForEach(socket.incoming, (text) =>
        Effect.gen(function*() {
          const decoded = TwilioMediaStream.decodeOutbound(text)
          if (decoded._tag === "Failure") return yield* Effect.die(`bad frame from the session: ${text}`)
          const message = decoded.success
          received.push(message)
          const now = yield* Clock.currentTimeMillis
          switch (message._tag) {
            case "OutboundMedia": {
              const ms = Buffer.from(message.media.payload, "base64").length / 8
              playoutEnd = Math.max(playoutEnd, now) + ms
              return
            }
            case "OutboundMark": {
              const name = message.mark.name
              const fiber = yield* Effect.forkScoped(
                Effect.sleep(Math.max(0, playoutEnd - now)).pipe(
                  Effect.andThen(echo(name)),
                  Effect.ensuring(Effect.sync(() => pending.delete(name)))
                )
              )
              pending.set(name, fiber)
              return
            }
            case "Clear": {
              playoutEnd = now
              for (const [name, fiber] of Array.from(pending)) {
                yield* Fiber.interrupt(fiber)
                yield* echo(name)
              }
              pending.clear()
              return
            }
            case "Unknown":
              return
          }
        })).pipe(Effect.ensuring(Effect.andThen(Effect.sync(() => ended = true), Deferred.succeed(closed, undefined))))
    )
    let sequence = 1
    let sent = 0
    const send = (message: unknown) =>
      Effect.andThen(
        Effect.sync(() => sent++),
        socket.send(TwilioMediaStream.encode(message as TwilioMediaStream.Message))
      )
    const readAll = readBySession === undefined ? Effect.void : until(() => ended || readBySession() >= sent)
    const handshake = (token: string) =>
      Effect.andThen(
        send({ _tag: "Connected", protocol: "Call", version: "1.0.0" }),
        send({
          _tag: "Start",
          sequenceNumber: sequence++,
          start: {
            accountSid: "AC00000000000000000000000000000001",
            streamSid,
            callSid: "CA00000000000000000000000000000001",
            tracks: ["inbound"],
            mediaFormat: TwilioMediaStream.mulaw8k,
            customParameters: { token }
          },
          streamSid
        })
      )
    let chunk = 1
    /** 20 ms of the person's audio at `timestampMs`, then 20 ms of clock. */
    const frame = (timestampMs: number, pcm: Int16Array) =>
      Effect.andThen(
        send({
          _tag: "Media",
          sequenceNumber: sequence++,
          media: {
            track: "inbound",
            chunk: chunk++,
            timestamp: timestampMs,
            payload: Buffer.from(MuLaw.encode(pcm)).toString("base64")
          },
          streamSid
        }),
        Effect.andThen(readAll, Effect.andThen(TestClock.adjust(20), settle))
      )
    const stop = send({
      _tag: "Stop",
      sequenceNumber: sequence++,
      stop: { accountSid: "AC00000000000000000000000000000001", callSid: "CA00000000000000000000000000000001" },
      streamSid
    })
    return { received, closed, handshake, frame, stop }
  })

describe("MediaSession", () => {
  it.effect("refuses a stream without a valid token before any audio, and opens no recording", () =>
    Effect.gen(function*() {
      const { dir, services } = yield* harness
      for (const token of ["", "nonsense", MediaToken.sign(key, callId, -1), MediaToken.sign(key, "other", 9e15)]) {
        const [carrier, server] = yield* MemoryMedia.pair
        const session = yield* Effect.forkChild(
          MediaSession.serve(server).pipe(
            Effect.provide(Layer.merge(services, agentLayer(() => Effect.die("never run"))))
          )
        )
        const end = yield* carrierEnd(carrier)
        yield* end.handshake(token)
        yield* end.frame(0, tone(440, 160))
        yield* Fiber.join(session)
        yield* Deferred.await(end.closed)
        assert.deepStrictEqual(end.received, [], token)
      }
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }))

  it.effect("a second stream of a call whose stream runs is refused before any audio; the first goes on", () =>
    Effect.gen(function*() {
      const { services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      let runs = 0
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          runs++
          yield* Stream.runDrain(call.input)
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const token = MediaToken.sign(key, callId, 9e15)
      const [firstCarrier, firstServer] = yield* MemoryMedia.pair
      const first = yield* Effect.forkChild(
        MediaSession.serve(firstServer).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const firstEnd = yield* carrierEnd(firstCarrier)
      yield* firstEnd.handshake(token)
      yield* until(() => runs === 1)
      yield* firstEnd.frame(0, tone(440, 160))

      const [secondCarrier, secondServer] = yield* MemoryMedia.pair
      const logged: Array<string> = []
      const capture = Logger.layer([
        Logger.make(({ logLevel, message }) =>
          void logged.push(`${logLevel} ${(Array.isArray(message) ? message : [message]).join(" ")}`)
        )
      ])
      const second = yield* Effect.forkChild(
        MediaSession.serve(secondServer).pipe(Effect.provide(Layer.mergeAll(services, agent, capture)))
      )
      const secondEnd = yield* carrierEnd(secondCarrier)
      yield* secondEnd.handshake(token)
      yield* secondEnd.frame(0, tone(440, 160))
      yield* Fiber.join(second)
      yield* Deferred.await(secondEnd.closed)
      assert.deepStrictEqual(secondEnd.received, [], "nothing sent on the second stream")
      assert.strictEqual(runs, 1, "one agent for the call")
      assert.deepStrictEqual(logged, [`Warn Media stream refused: call ${callId} already has a stream`])

      yield* firstEnd.frame(20, tone(440, 160))
      yield* firstEnd.stop
      yield* Fiber.join(first)
      const verdicts = (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")
      assert.strictEqual(verdicts.length, 1, "the first stream's call ends with its verdict")
    }))

  it.effect("frames stamped far ahead of the clock are refused: the recordings stay as long as the call", () =>
    Effect.gen(function*() {
      const { dir, services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const agent = agentLayer((call) =>
        Effect.as(Stream.runDrain(call.input), { outcome: "completed", endedBy: "remote" } as const)
      )
      const [carrier, server, readBySession] = yield* countedPair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const end = yield* carrierEnd(carrier, readBySession)
      yield* end.handshake(MediaToken.sign(key, callId, 9e15))
      // One second of the person, every frame after the first jumping 10 s further ahead.
      for (let i = 0; i < 50; i++) yield* end.frame(i * 10_000, tone(440, 160))
      yield* end.stop
      yield* Fiber.join(session)
      const remote = readWav(dir, "remote").samples
      assert.isAbove(remote.length, 0)
      assert.isAtMost(
        remote.length,
        7 * 8000,
        "at most the call's second and the 5 s allowance, not the silence between the frames"
      )
    }))

  it.effect("aligns both channels on the call's timeline; mixed is their clipped sum; the verdict is published", () =>
    Effect.gen(function*() {
      const { dir, services, world } = yield* harness
      // The carrier reports the answer before it opens the stream.
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const [carrier, server, readBySession] = yield* countedPair
      const agentSpoke = tone(500, 8000) // one second
      let playedFrom = -1
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          yield* call.emitTurn({ speaker: "AGENT", text: "tone", offsetMs: yield* call.elapsedMs })
          const playback = yield* call.say(
            Stream.make({ encoding: "pcm16" as const, samples: agentSpoke, timestampMs: 0 })
          )
          playedFrom = playback.startMs
          yield* Stream.runDrain(call.input)
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const session = yield* Effect.forkChild(
        MediaSession.serve(server).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const end = yield* carrierEnd(carrier, readBySession)
      yield* end.handshake(MediaToken.sign(key, callId, 9e15))
      // Two seconds of the person: silence, and a 1 kHz tone from 1500 ms to 1600 ms.
      for (let t = 0; t < 2000; t += 20) {
        yield* end.frame(t, t >= 1500 && t < 1600 ? tone(1000, 160, 12000) : new Int16Array(160))
      }
      yield* end.stop
      yield* Fiber.join(session)

      const remote = readWav(dir, "remote").samples
      const agentChannel = readWav(dir, "agent").samples
      assert.approximately(firstSound(remote) / 8, 1500, 20, "the person's tone at 1500 ms")
      // At the instant its playback started, as the session reported it to the agent.
      assert.isAtLeast(playedFrom, 0)
      assert.approximately(firstSound(agentChannel) / 8, playedFrom, 20, "the agent's speech where it was played")
      assert.isAtLeast(Math.min(remote.length, agentChannel.length), 1900 * 8)
      // `mixed`, as the store serves it, is the clipped sum of the two channels sample for sample.
      const servedBytes = yield* RecordingStore.use((store) =>
        Effect.flatMap(store.read(callId, "mixed"), (read) => Stream.runCollect(read.bytes))
      ).pipe(Effect.provide(FileRecordingStore.layer(dir)), Effect.orDie)
      const mixedFile = Buffer.concat([...servedBytes])
      const mixed = Wav.decodeSamples(new Uint8Array(mixedFile).subarray(44))
      const length = Math.max(remote.length, agentChannel.length)
      assert.strictEqual(mixed.length, length)
      const expected = Int16Array.from(
        { length },
        (_, k) => Math.max(-32768, Math.min(32767, (remote[k] ?? 0) + (agentChannel[k] ?? 0)))
      )
      assert.isTrue(Buffer.from(mixed.buffer).equals(Buffer.from(expected.buffer)), "mixed = clip(agent + remote)")
      const verdicts = (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")
      assert.deepStrictEqual(verdicts.map((e) => e._tag === "AgentEnded" && [e.outcome, e.endedBy]), [[
        "completed",
        "remote"
      ]])
      if (spawnSync("sox", ["--version"]).status === 0) {
        for (const channel of ["agent", "remote"]) {
          const info = spawnSync("sox", ["--i", readWav(dir, channel).path], { encoding: "utf8" })
          assert.strictEqual(info.status, 0, info.stderr)
          assert.include(info.stdout, "Sample Rate    : 8000")
        }
      }
    }))

  it.effect("on a barge-in the agent interrupts: the agent recording holds silence where the cleared audio was", () =>
    Effect.gen(function*() {
      const { dir, services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const [carrier, server, readBySession] = yield* countedPair
      let playback: unknown
      let interruptedAt = 0
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          const speaking = yield* Effect.forkChild(
            call.say(Stream.make({ encoding: "pcm16" as const, samples: tone(500, 16000), timestampMs: 0 }))
          )
          yield* call.input.pipe(
            Stream.takeUntil((input) => input._tag === "BargeIn"),
            Stream.runDrain
          )
          interruptedAt = yield* call.elapsedMs
          yield* call.interrupt
          playback = yield* Fiber.join(speaking)
          yield* Stream.runDrain(call.input)
          return { outcome: "cut-short", endedBy: "remote" } as const
        })
      )
      const session = yield* Effect.forkChild(
        MediaSession.serve(server).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const end = yield* carrierEnd(carrier, readBySession)
      yield* end.handshake(MediaToken.sign(key, callId, 9e15))
      // The person starts speaking at 600 ms, over the agent's two seconds (once the agent's audio
      // is on its way: the session's recording writes are real I/O, which the TestClock does not
      // wait for).
      for (let t = 0; t < 2400; t += 20) {
        if (t === 600) yield* until(() => end.received.some((m) => m._tag === "OutboundMedia"))
        yield* end.frame(t, t >= 600 ? tone(300, 160, 12000) : new Int16Array(160))
      }
      yield* end.stop
      yield* Fiber.join(session)

      assert.include(end.received.map((m) => m._tag), "Clear")
      assert.strictEqual((playback as { _tag: string })._tag, "Interrupted")
      const agentChannel = readWav(dir, "agent").samples
      const loud = (from: number, to: number) => {
        let peak = 0
        for (let i = from * 8; i < Math.min(to * 8, agentChannel.length); i++) {
          peak = Math.max(peak, Math.abs(agentChannel[i]!))
        }
        return peak
      }
      const startedAt = (playback as { startMs: number }).startMs
      assert.isBelow(startedAt, interruptedAt)
      assert.isAbove(loud(startedAt, Math.min(startedAt + 100, interruptedAt)), 4000, "heard from its start")
      assert.isAbove(interruptedAt, 600, "after the person started")
      assert.isAbove(loud(interruptedAt - 100, interruptedAt), 4000, "heard until the interruption")
      assert.strictEqual(loud(interruptedAt + 20, 2400), 0, "nothing of the cleared audio after it")
    }))
})

/**
 * A wire of the test's own, to show the session is not Twilio's: one text line a frame, words
 * apart, audio as hex. From the carrier `hello`, `start <stream> <token>`, `audio <ms> <hex>`,
 * `mark <name>`, `key <digit>`, `bye`; to it `<stream> play <hex>`, `<stream> mark <name>`,
 * `<stream> clear`.
 */
const lineCodec: MediaCodec = {
  name: "lines",
  decode: (frame) => {
    const [word = "", first, second] = frame.split(" ")
    switch (word) {
      case "hello":
        return { _tag: "Connected" }
      case "start":
        return { _tag: "Start", streamId: first ?? "", token: second }
      case "audio":
        return { _tag: "Media", timestampMs: Number(first), audio: new Uint8Array(Buffer.from(second ?? "", "hex")) }
      case "mark":
        return { _tag: "Mark", name: first ?? "" }
      case "key":
        return { _tag: "Dtmf", digit: first ?? "" }
      case "bye":
        return { _tag: "Stop" }
      default:
        return ignored
    }
  },
  encode: (streamId, event) => {
    switch (event._tag) {
      case "Media":
        return `${streamId} play ${Buffer.from(event.audio).toString("hex")}`
      case "Mark":
        return `${streamId} mark ${event.name}`
      case "Clear":
        return `${streamId} clear`
    }
  }
}

describe("MediaSession over another wire", () => {
  /** The carrier's end of the line wire: echoes each mark at once, collects what the session sent. */
  const lineCarrier = (socket: MediaSocket) =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const closed = yield* Deferred.make<void>()
      yield* Effect.forkScoped(
        Stream.runForEach(socket.incoming, (text) =>
          Effect.gen(function*() {
            received.push(text)
            const [, word, name] = text.split(" ")
            if (word === "mark") yield* socket.send(`mark ${name}`)
          })).pipe(Effect.ensuring(Deferred.succeed(closed, undefined)))
      )
      return { received, closed }
    })

  it.effect("refuses a stream whose start has no valid token, before any audio", () =>
    Effect.gen(function*() {
      const { dir, services } = yield* harness
      const [carrier, server] = yield* MemoryMedia.pair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server, { codec: lineCodec }).pipe(
          Effect.provide(Layer.merge(services, agentLayer(() => Effect.die("never run"))))
        )
      )
      const end = yield* lineCarrier(carrier)
      yield* carrier.send("hello")
      yield* carrier.send("start s1 nonsense")
      yield* carrier.send(`audio 0 ${Buffer.from(MuLaw.encode(tone(440, 160))).toString("hex")}`)
      yield* Fiber.join(session)
      yield* Deferred.await(end.closed)
      assert.deepStrictEqual(end.received, [])
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }))

  it.effect("runs the call: the person's audio and keys to the agent, its speech, tones and clear to the wire", () =>
    Effect.gen(function*() {
      const { dir, services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const spoken = tone(500, 1600)
      let inputs: ReadonlyArray<CallInput> = []
      let playback: Playback | undefined
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          playback = yield* call.say(Stream.make({ encoding: "pcm16" as const, samples: spoken, timestampMs: 0 }))
          yield* call.sendDtmf("1")
          inputs = Array.from(yield* Stream.runCollect(call.input))
          yield* call.interrupt
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const [carrier, server, readBySession] = yield* countedPair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server, { codec: lineCodec }).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      const end = yield* lineCarrier(carrier)
      yield* carrier.send("hello")
      yield* carrier.send(`start s1 ${MediaToken.sign(key, callId, 9e15)}`)
      // The agent speaks first (its speech and tones, 100 ms chunks each with its mark echoed at once).
      yield* until(() => end.received.length === 8)
      // One second of the person: silence, and a 1 kHz tone from 400 ms to 600 ms.
      const sent: Array<Uint8Array> = []
      for (let t = 0; t < 1000; t += 20) {
        const bytes = MuLaw.encode(t >= 400 && t < 600 ? tone(1000, 160, 12000) : new Int16Array(160))
        sent.push(bytes)
        yield* carrier.send(`audio ${t} ${Buffer.from(bytes).toString("hex")}`)
      }
      // The session has read every frame (the handshake's, the marks' echoes and the person's).
      yield* until(() => readBySession() === 2 + 4 + sent.length)
      // Past the person's second, the agent's audio was all heard when it interrupts.
      yield* TestClock.adjust(1000)
      yield* carrier.send("key 5")
      yield* carrier.send("bye")
      yield* Fiber.join(session)
      yield* until(() => end.received.length === 9)

      const hex = (pcm: Int16Array) => Buffer.from(MuLaw.encode(pcm)).toString("hex")
      const tone1 = DtmfTones.encode("1")[0]!
      assert.deepStrictEqual(end.received, [
        `s1 play ${hex(spoken.subarray(0, 800))}`,
        "s1 mark m1",
        `s1 play ${hex(spoken.subarray(800))}`,
        "s1 mark m2",
        `s1 play ${hex(tone1.subarray(0, 800))}`,
        "s1 mark m3",
        `s1 play ${hex(tone1.subarray(800))}`,
        "s1 mark m4",
        "s1 clear"
      ])
      assert.deepStrictEqual(playback, { _tag: "Played", startMs: 0, endMs: 200 })
      const audio = inputs.flatMap((input) => input._tag === "Audio" ? [input.frame] : [])
      assert.deepStrictEqual(audio.map((frame) => frame.timestampMs), sent.map((_, i) => i * 20))
      assert.deepStrictEqual(
        audio.map((frame) => frame.encoding === "pcm16" ? Array.from(frame.samples) : []),
        sent.map((bytes) => Array.from(MuLaw.decode(bytes)))
      )
      assert.deepStrictEqual(inputs.flatMap((input) => input._tag === "Dtmf" ? [input.digit] : []), ["5"])
      assert.isTrue(inputs.some((input) => input._tag === "SpeechStarted"))
      assert.approximately(firstSound(readWav(dir, "remote").samples) / 8, 400, 20, "the person's tone at 400 ms")
      assert.strictEqual(firstSound(readWav(dir, "agent").samples), 0, "the agent's speech from the start")
      const verdicts = (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")
      assert.deepStrictEqual(verdicts.map((e) => e._tag === "AgentEnded" && [e.outcome, e.endedBy]), [[
        "completed",
        "remote"
      ]])
    }))
})

describe("MediaSession's audio sink (AgentCall.takeAudio)", () => {
  /** The carrier of the line wire, echoing marks; sends the person's frames as hex. */
  const lineFrames = (count: number, from: number) =>
    Array.from({ length: count }, (_, i) => {
      const t = (from + i) * 20
      return { t, bytes: MuLaw.encode(t >= 200 && t < 600 ? tone(1000, 160, 12000) : new Int16Array(160)) }
    })

  const run = (sinkFor: (taken: Array<AudioFrame>) => AudioSink) =>
    Effect.gen(function*() {
      const { services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const go = yield* Deferred.make<void>()
      const taken: Array<AudioFrame> = []
      let inputs: ReadonlyArray<CallInput> = []
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          // Frames queued before the agent takes the audio go to the sink first.
          yield* Deferred.await(go)
          yield* call.takeAudio!(sinkFor(taken))
          inputs = Array.from(yield* Stream.runCollect(call.input))
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const [carrier, server, readBySession] = yield* countedPair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server, { codec: lineCodec }).pipe(Effect.provide(Layer.merge(services, agent)))
      )
      yield* Effect.forkScoped(Stream.runDrain(carrier.incoming))
      yield* carrier.send("hello")
      yield* carrier.send(`start s1 ${MediaToken.sign(key, callId, 9e15)}`)
      const sent = [...lineFrames(10, 0), ...lineFrames(40, 10)]
      for (const frame of sent.slice(0, 10)) {
        yield* carrier.send(`audio ${frame.t} ${Buffer.from(frame.bytes).toString("hex")}`)
      }
      yield* until(() => readBySession() === 2 + 10)
      yield* Deferred.succeed(go, undefined)
      yield* settle
      for (const frame of sent.slice(10)) {
        yield* carrier.send(`audio ${frame.t} ${Buffer.from(frame.bytes).toString("hex")}`)
      }
      yield* carrier.send("key 7")
      yield* carrier.send("bye")
      yield* Fiber.join(session)
      const pcm = (frames: ReadonlyArray<AudioFrame>) =>
        frames.map((frame) => frame.encoding === "pcm16" ? Array.from(frame.samples) : [])
      return { sent, taken, inputs, pcm, world }
    })

  it.effect("gets every frame once and in order, those queued before first; the other inputs stay", () =>
    Effect.gen(function*() {
      const { inputs, pcm, sent, taken, world } = yield* run((taken) => (frame) => void taken.push(frame))
      assert.deepStrictEqual(taken.map((frame) => frame.timestampMs), sent.map((frame) => frame.t))
      assert.deepStrictEqual(pcm(taken), sent.map((frame) => Array.from(MuLaw.decode(frame.bytes))))
      assert.deepStrictEqual(inputs.filter((input) => input._tag === "Audio"), [])
      assert.deepStrictEqual(inputs.flatMap((input) => input._tag === "Dtmf" ? [input.digit] : []), ["7"])
      assert.deepStrictEqual(inputs.filter((input) => input._tag === "SpeechStarted").length, 1)
      const verdicts = (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")
      assert.strictEqual(verdicts.length, 1)
    }))

  it.effect("a sink that throws is dropped: that frame and the ones after come as input, the call goes on", () =>
    Effect.gen(function*() {
      const { inputs, sent, taken, world } = yield* run((taken) => (frame) => {
        if (taken.length === 15) throw new Error("sink broke")
        taken.push(frame)
      })
      const asInput = inputs.flatMap((input) => input._tag === "Audio" ? [input.frame.timestampMs] : [])
      assert.deepStrictEqual(taken.map((frame) => frame.timestampMs), sent.slice(0, 15).map((frame) => frame.t))
      assert.deepStrictEqual(asInput, sent.slice(15).map((frame) => frame.t))
      const verdicts = (world.events.get(callId) ?? []).filter((e: CallEvent) => e._tag === "AgentEnded")
      assert.deepStrictEqual(verdicts.map((e) => e._tag === "AgentEnded" && e.outcome), ["completed"])
    }))
})

describe("MediaSession: the agent's transfer", () => {
  /**
   * A call whose agent transfers at once, through a carrier that `transfer`s as given (told the
   * carrier's end of the stream, to stop it as a carrier that moved the call does); answers the
   * verdicts and what the agent got.
   */
  const transferring = (
    transfer: ((end: { readonly stop: Effect.Effect<void> }) => Effect.Effect<void, CarrierError>) | undefined
  ) =>
    Effect.gen(function*() {
      const { services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      const got: Array<TransferResult> = []
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          const result = yield* call.transfer("+12025550188")
          got.push(result)
          if (result._tag === "Transferred") {
            return { outcome: "transfer", endedBy: "agent", transferTo: "+12025550188" } as const
          }
          yield* Stream.runDrain(call.input)
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const ready = yield* Deferred.make<{ readonly stop: Effect.Effect<void> }>()
      const carrier = Layer.succeed(
        Carrier,
        Carrier.of({
          placeCall: () => Effect.die("unused"),
          hangUp: () => Effect.die("unused"),
          sendSms: () => Effect.die("unused"),
          transfer: (id, to) =>
            transfer === undefined || id !== callId || to !== "+12025550188"
              ? Effect.die("unexpected transfer")
              : Effect.flatMap(Deferred.await(ready), transfer)
        })
      )
      const [carrierSide, server] = yield* MemoryMedia.pair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server).pipe(
          Effect.provide(Layer.mergeAll(services, agent, transfer === undefined ? Layer.empty : carrier))
        )
      )
      const end = yield* carrierEnd(carrierSide)
      let stopped = false
      yield* Deferred.succeed(ready, { stop: Effect.andThen(Effect.sync(() => void (stopped = true)), end.stop) })
      yield* end.handshake(MediaToken.sign(key, callId, 9e15))
      yield* end.frame(0, tone(440, 160))
      // The agent has asked; the carrier stopped the stream (and is still answering), or refused.
      yield* until(() => stopped || got.length > 0)
      yield* TestClock.adjust("10 seconds")
      if (!stopped) yield* end.stop
      yield* Fiber.join(session)
      const verdicts = (world.events.get(callId) ?? []).flatMap((e: CallEvent) =>
        e._tag === "AgentEnded" ? [e.outcome] : []
      )
      return { got, verdicts }
    })

  it.effect("moved: the carrier stops the stream and answers 8 s later; the verdict is transfer all the same", () =>
    Effect.gen(function*() {
      const { got, verdicts } = yield* transferring((end) => Effect.andThen(end.stop, Effect.sleep("8 seconds")))
      assert.deepStrictEqual(got, [{ _tag: "Transferred" }])
      assert.deepStrictEqual(verdicts, ["transfer"])
    }))

  it.effect("refused with the carrier's reason (or for want of a carrier): the agent stays on the call", () =>
    Effect.gen(function*() {
      const refused = yield* transferring(() =>
        Effect.fail(new CarrierError({ reason: "rejected", message: "destination unreachable" }))
      )
      assert.deepStrictEqual(refused.got, [{ _tag: "Refused", reason: "destination unreachable" }])
      assert.deepStrictEqual(refused.verdicts, ["completed"])
      const alone = yield* transferring(undefined)
      assert.deepStrictEqual(alone.got, [{ _tag: "Refused", reason: "no carrier serves this media session" }])
    }))
})

describe("MediaSession on the carrier's timeline", () => {
  it.effect("the agent's audio is where the carrier played it, however late the session's clock started", () =>
    Effect.gen(function*() {
      const { conversations, dir, services, world } = yield* harness
      world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "human" }])
      // The session takes 40 ms to look the call up: a clock of its own would start 40 ms after
      // the carrier's, and place the agent's audio 40 ms early against the person's.
      let looking = false
      const slow = ConversationRepository.of({
        ...conversations,
        callContext: (id) =>
          Effect.sync(() => void (looking = true)).pipe(
            Effect.andThen(Effect.delay(conversations.callContext(id), "40 millis")),
            Effect.ensuring(Effect.sync(() => void (looking = false)))
          )
      })
      const question = SimSpeech.encode("Ready?", tone(300, 2400))
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          yield* Effect.sleep("500 millis")
          yield* call.say(Stream.make({ encoding: "pcm16" as const, samples: question, timestampMs: 0 }))
          yield* Stream.runDrain(call.input)
          return { outcome: "completed", endedBy: "remote" } as const
        })
      )
      const [carrier, server, readBySession] = yield* countedPair
      const session = yield* Effect.forkChild(
        MediaSession.serve(server).pipe(
          Effect.provideService(ConversationRepository, slow),
          Effect.provide(Layer.merge(services, agent))
        )
      )
      // The clock moves while the session looks the call up, slowly, on it.
      const ended = yield* answeringPerson({ carrier, readBySession, waiting: () => looking, ms: 3_000 })
      assert.strictEqual(ended, "remote-hangup")
      yield* Fiber.join(session)
      const { asked } = askedAndAnswered(dir)
      assert.closeTo(asked.endMs - asked.startMs, question.length / 8, 1, "the whole question")
    }))

  describe("answering machines the carrier cannot tell (Answered says unknown)", () => {
    /** An agent that notes who it was told answered, when it started, and what it was given. */
    const noting = () => {
      const seen = {
        answeredBy: undefined as string | undefined,
        startedMs: -1,
        inputs: [] as Array<{ readonly tag: CallInput["_tag"]; readonly timestampMs: number }>
      }
      const agent = agentLayer((call) =>
        Effect.gen(function*() {
          seen.answeredBy = call.context.answeredBy
          seen.startedMs = yield* call.elapsedMs
          yield* Stream.runForEach(call.input, (input) =>
            Effect.sync(() =>
              void seen.inputs.push({
                tag: input._tag,
                timestampMs: input._tag === "Audio" ? input.frame.timestampMs : input.timestampMs
              })
            ))
          return { outcome: seen.answeredBy === "machine" ? "voicemail" : "completed", endedBy: "remote" } as const
        })
      )
      return { seen, agent }
    }

    /** Plays `pcm` as the person's side from the answer, then `stop`; the session's recordings. */
    const call = (pcm: Int16Array, agent: Layer.Layer<Agent>) =>
      Effect.gen(function*() {
        const { dir, services, world } = yield* harness
        world.events.set(callId, [{ _tag: "Answered", at: 0, answeredBy: "unknown" }])
        const [carrier, server, readBySession] = yield* countedPair
        const session = yield* Effect.forkChild(
          MediaSession.serve(server).pipe(Effect.provide(Layer.merge(services, agent)))
        )
        const end = yield* carrierEnd(carrier, readBySession)
        yield* end.handshake(MediaToken.sign(key, callId, 9e15))
        for (let at = 0; at + 160 <= pcm.length; at += 160) yield* end.frame(at / 8, pcm.subarray(at, at + 160))
        yield* end.stop
        yield* Fiber.join(session)
        return { remote: readWav(dir, "remote").samples, verdicts: world.events.get(callId) ?? [] }
      })

    const withSilence = (before: number, pcm: Int16Array, after: number) => {
      const out = new Int16Array(before * 8 + pcm.length + after * 8)
      out.set(pcm, before * 8)
      return out
    }

    it.effect("a machine's greeting: the agent starts when the engine has heard a machine, told so", () =>
      Effect.gen(function*() {
        const greeting = SimVoice.speak(SimPerson.voicemailGreeting, "person")
        const { seen, agent } = noting()
        const { remote, verdicts } = yield* call(withSilence(300, greeting, 1000), agent)
        assert.strictEqual(seen.answeredBy, "machine")
        // 2.4 s into the greeting, which starts at 300 ms; the frames before are the recordings'
        // alone, the agent's input starts with the frame that decided.
        assert.approximately(seen.startedMs, 300 + 2400, 100)
        const first = seen.inputs[0]!
        assert.strictEqual(first.tag, "Audio")
        assert.approximately(first.timestampMs, seen.startedMs, 40)
        assert.deepStrictEqual(
          seen.inputs.filter((input) => input.tag !== "Audio").map((input) => input.tag).slice(0, 2),
          ["SpeechStarted", "SpeechStopped"],
          "the rest of the greeting, as speech"
        )
        const recordedFrom = firstSound(remote) / 8
        assert.isTrue(recordedFrom >= 300 && recordedFrom < 400, `the whole greeting recorded, from ${recordedFrom} ms`)
        assert.deepStrictEqual(
          verdicts.filter((e: CallEvent) => e._tag === "AgentEnded").map((e) => e._tag === "AgentEnded" && e.outcome),
          ["voicemail"]
        )
      }))

    it.effect("a person's hello: the agent starts, told a person, once the silence after it has lasted 1.2 s", () =>
      Effect.gen(function*() {
        const hello = SimVoice.speak(SimPerson.helloLine, "person")
        const { seen, agent } = noting()
        yield* call(withSilence(300, hello, 3000), agent)
        assert.strictEqual(seen.answeredBy, "human")
        assert.approximately(seen.startedMs, 300 + hello.length / 8 + 1200, 100)
        assert.isTrue(seen.inputs.every((input) => input.timestampMs >= seen.startedMs - 40), "nothing held before")
        assert.notInclude(seen.inputs.map((input) => input.tag), "SpeechStarted", "the hello was not the agent's")
      }))

    it.effect("a person who hangs up before the engine decides: the agent starts as for a person, input ended", () =>
      Effect.gen(function*() {
        const { seen, agent } = noting()
        yield* call(withSilence(300, SimVoice.speak(SimPerson.earlyHangupLine, "person"), 200), agent)
        assert.strictEqual(seen.answeredBy, "human")
        assert.deepStrictEqual(seen.inputs, [])
      }))
  })
})
