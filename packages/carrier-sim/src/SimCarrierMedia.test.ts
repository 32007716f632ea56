/**
 * The simulated carrier with media, under TestClock: each answered call's stream is served by a
 * small test server over MemoryMedia (not the engine's media session), which records every frame
 * the carrier sends and speaks to the person as the engine would (simulated speech in 100 ms
 * chunks with marks, at most 1 s ahead). The existing SimCarrier tests cover the carrier without
 * a MediaConnector.
 */
import { assert, describe, it } from "@effect/vitest"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { MediaConnectError, MediaConnector } from "@voice-agent/core/ports/MediaSocket"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import { Clock, Context, Deferred, Duration, Effect, Exit, Layer, Option, Queue, Result, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as SimCarrier from "./SimCarrier.ts"
import * as SimMediaStream from "./SimMediaStream.ts"
import * as SimOutcome from "./SimOutcome.ts"
import * as SimPerson from "./SimPerson.ts"
import * as SimVoice from "./SimVoice.ts"

/** A frame the test server received, when, and decoded. */
interface Received {
  readonly at: number
  readonly text: string
  readonly message: TwilioMediaStream.InboundMessage
}

/** The test server's end of one media stream. */
interface Connection {
  readonly url: string
  readonly socket: MediaSocket
  readonly received: Array<Received>
  /** Completed when the carrier closed the stream. */
  readonly closed: Deferred.Deferred<void>
}

/**
 * A carrier with media: its connector is MemoryMedia's, serving every stream with a small test
 * server that records what it receives (time, text, decoded) and hands the connection to the
 * test, which sends what it wants through `socket`.
 */
const setup = Effect.gen(function*() {
  const events = new Map<string, Array<CallEvent>>()
  const callEvents = CallEvents.of({
    publish: (callId, event) => Effect.sync(() => void events.set(callId, [...(events.get(callId) ?? []), event])),
    subscribe: () => Effect.succeed(Stream.empty)
  })
  const connections = yield* Queue.unbounded<Connection>()
  const urls: Array<string> = []
  const serve = (socket: MediaSocket) =>
    Effect.gen(function*() {
      const connection: Connection = {
        url: urls.at(-1) ?? "",
        socket,
        received: [],
        closed: yield* Deferred.make<void>()
      }
      yield* Queue.offer(connections, connection)
      yield* Stream.runForEach(socket.incoming, (text) =>
        Effect.gen(function*() {
          const decoded = TwilioMediaStream.decode(text)
          assert.isTrue(Result.isSuccess(decoded), text)
          if (Result.isSuccess(decoded)) {
            connection.received.push({ at: yield* Clock.currentTimeMillis, text, message: decoded.success })
          }
        }))
      yield* Deferred.succeed(connection.closed, undefined)
    })
  const memory = yield* Layer.build(MemoryMedia.connector(serve))
  const inner = Context.get(memory, MediaConnector)
  const connector = MediaConnector.of({
    connect: (url) => Effect.andThen(Effect.sync(() => urls.push(url)), inner.connect(url))
  })
  const scope = yield* Scope.make()
  const carrier: Carrier["Service"] = yield* SimCarrier.make.pipe(
    Scope.provide(scope),
    Effect.provideService(CallEvents, callEvents),
    Effect.provideService(MediaConnector, connector)
  )
  yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
  const place = (callId: string, to: string) =>
    carrier.placeCall({
      from: "+12025550100",
      to,
      callId,
      mediaUrl: `ws://localhost/media/${callId}`,
      mediaToken: `token-of-${callId}`
    })
  /** The next stream the carrier opened (it must have opened one). */
  const connection = Effect.map(Queue.poll(connections), Option.getOrThrow)
  const eventsOf = (callId: string): ReadonlyArray<CallEvent> => events.get(callId) ?? []
  return { carrier, connection, connections, eventsOf, place, scope } as const
})

const moveTo = (t: number) => TestClock.setTime(t)

/** Lets the fibers on both ends of the streams run, without moving the clock. */
const settle = Effect.forEach(Array.from({ length: 20 }), () => Effect.yieldNow, { discard: true })

const send = (connection: Connection, message: TwilioMediaStream.OutboundMessage) =>
  connection.socket.send(TwilioMediaStream.encode(message))

const streamSidOf = (connection: Connection): string => {
  const start = connection.received.find((r) => r.message._tag === "Start")
  assert.isDefined(start)
  return start.message._tag === "Start" ? start.message.streamSid : ""
}

/** Sends `samples` as one media message. */
const sendAudio = (connection: Connection, samples: Int16Array) =>
  send(
    connection,
    TwilioMediaStream.outboundMedia(streamSidOf(connection), Buffer.from(MuLaw.encode(samples)).toString("base64"))
  )

const sendMark = (connection: Connection, name: string) =>
  send(connection, TwilioMediaStream.outboundMark(streamSidOf(connection), name))

/**
 * Speaks `text` as the engine's media session does: 100 ms chunks, each followed by a mark,
 * sent at most 1 s ahead of playout. Run it forked: it sleeps.
 */
const speak = (connection: Connection, text: string) =>
  Effect.gen(function*() {
    const pcm = SimVoice.speak(text)
    const t0 = yield* Clock.currentTimeMillis
    for (let k = 0; k * 800 < pcm.length; k++) {
      const wait = t0 + 100 * k - 1_000 - (yield* Clock.currentTimeMillis)
      if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
      yield* sendAudio(connection, pcm.subarray(k * 800, (k + 1) * 800))
      yield* sendMark(connection, `${text.slice(0, 8)}#${k}`)
    }
  })

const frames = (connection: Connection) =>
  connection.received.flatMap((r) => r.message._tag === "Media" ? [{ at: r.at, media: r.message }] : [])

/** The person's audio so far, sample 0 at the stream's start (frames are contiguous). */
const personAudio = (connection: Connection): Int16Array => {
  const media = frames(connection)
  const out = new Int16Array(media.length * SimMediaStream.FRAME_SAMPLES)
  for (const { media: frame } of media) {
    const samples = MuLaw.decode(Buffer.from(frame.media.payload, "base64"))
    out.set(samples, frame.media.timestamp * 8)
  }
  return out
}

/** What the person said: text and start/end in ms since the stream's start. */
const personSaid = (connection: Connection) =>
  SimSpeech.decode(personAudio(connection)).map((u) => ({ text: u.text, startMs: u.start / 8, endMs: u.end / 8 }))

const marksOf = (connection: Connection) =>
  connection.received.flatMap((r) => r.message._tag === "Mark" ? [{ at: r.at, name: r.message.mark.name }] : [])

const ended = (events: ReadonlyArray<CallEvent>) => events.find((e) => e._tag === "Ended")

/** Milliseconds a text takes as simulated speech, said by `speaker`. */
const speechMs = (text: string, speaker: SimVoice.Speaker = "agent") => SimVoice.speak(text, speaker).length / 8

describe("SimCarrier with media", () => {
  it.effect("connects to the media URL at the answer and sends Twilio's connected and start, with the token", () =>
    Effect.gen(function*() {
      const { connections, connection, place } = yield* setup
      const { carrierCallId } = yield* place("call-1", "+12025550123")
      yield* moveTo(999)
      assert.strictEqual(yield* Queue.size(connections), 0)
      yield* moveTo(1_000)
      const c = yield* connection
      assert.strictEqual(c.url, "ws://localhost/media/call-1")
      const [connected, start] = c.received
      assert.strictEqual(connected?.text, `{"event":"connected","protocol":"Call","version":"1.0.0"}`)
      assert.isDefined(start)
      const streamSid = streamSidOf(c)
      assert.match(streamSid, /^MZ[0-9a-f]{32}$/)
      assert.strictEqual(
        start.text,
        JSON.stringify({
          event: "start",
          sequenceNumber: "1",
          start: {
            accountSid: SimCarrier.ACCOUNT_SID,
            streamSid,
            callSid: carrierCallId,
            tracks: ["inbound"],
            mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
            customParameters: { token: "token-of-call-1" }
          },
          streamSid
        })
      )
      assert.match(SimCarrier.ACCOUNT_SID, /^AC[0-9a-f]{32}$/)
      assert.deepStrictEqual(connected?.at, 1_000)
      assert.deepStrictEqual(start.at, 1_000)
    }))

  it.effect("sends a frame of 160 μ-law bytes every 20 ms, silence when the person says nothing", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(1_000)
      const c = yield* connection
      // each frame goes out once captured, at its end
      assert.strictEqual(frames(c).length, 0)
      yield* moveTo(1_019)
      assert.strictEqual(frames(c).length, 0)
      yield* moveTo(1_020)
      assert.strictEqual(frames(c).length, 1)
      yield* moveTo(3_000)
      const media = frames(c)
      assert.strictEqual(media.length, 100)
      const silence = Buffer.alloc(160, 0xff).toString("base64")
      assert.strictEqual(silence.length, 216)
      media.forEach(({ at, media: frame }, i) => {
        assert.strictEqual(at, 1_020 + 20 * i)
        assert.deepStrictEqual(frame, {
          _tag: "Media",
          sequenceNumber: i + 2,
          media: { track: "inbound", chunk: i + 1, timestamp: 20 * i, payload: silence },
          streamSid: streamSidOf(c)
        })
      })
      // every message after connected is numbered, from 1, with no gap
      assert.deepStrictEqual(
        c.received.slice(1).map((r) => "sequenceNumber" in r.message ? r.message.sequenceNumber : -1),
        Array.from({ length: 101 }, (_, i) => i + 1)
      )
    }))

  it.effect("a question spoken to the person gets the answer, 300 ms after it finished playing", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550123")
      yield* moveTo(1_000)
      const c = yield* connection
      const question = "Hello Jane, this is an automated call. Do you have a moment?"
      yield* Effect.forkChild(speak(c, question))
      yield* moveTo(12_000)
      const said = personSaid(c)
      assert.deepStrictEqual(said.map((u) => u.text), [SimPerson.yesAnswer])
      // in the stream's time: the question plays from 0; the person starts answering 300 ms after
      // it ended, with the next frame
      const replyAt = Math.ceil((speechMs(question) + SimPerson.timings.replyMs) / 20) * 20
      assert.closeTo(said[0]!.startMs, replyAt, 0.5)
      assert.closeTo(said[0]!.endMs, replyAt + speechMs(SimPerson.yesAnswer, "person"), 0.5)
    }))

  it.effect("answers each question by what it asks", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550199")
      yield* moveTo(1_000)
      const c = yield* connection
      const questions = ["What is your name?", "When were you born?", "Statement only.", "Which color: red, blue?"]
      for (const question of questions) {
        yield* Effect.forkChild(speak(c, question))
        yield* TestClock.adjust(5_000)
      }
      assert.deepStrictEqual(personSaid(c).map((u) => u.text), [
        "Alex Morgan",
        "March third twenty twenty seven",
        "red"
      ])
    }))

  it.effect("hangs up 300 ms after a goodbye: stop, close, Ended remote-hangup", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      const { carrierCallId } = yield* place("call-1", "+12025550100")
      yield* moveTo(1_000)
      const c = yield* connection
      const goodbye = "Thank you for your time. Goodbye."
      yield* Effect.forkChild(speak(c, goodbye))
      const endMs = 1_000 + speechMs(goodbye)
      yield* moveTo(endMs + SimPerson.timings.goodbyeMs - 1)
      assert.isUndefined(ended(eventsOf("call-1")))
      assert.isFalse(yield* Deferred.isDone(c.closed))
      yield* moveTo(endMs + SimPerson.timings.goodbyeMs)
      assert.deepStrictEqual(ended(eventsOf("call-1")), {
        _tag: "Ended",
        at: endMs + SimPerson.timings.goodbyeMs,
        reason: "remote-hangup"
      })
      assert.isTrue(yield* Deferred.isDone(c.closed))
      const last = c.received.at(-1)!
      const sequenceNumber = c.received.length - 1 // connected has none
      assert.strictEqual(
        last.text,
        JSON.stringify({
          event: "stop",
          sequenceNumber: String(sequenceNumber),
          stop: { accountSid: SimCarrier.ACCOUNT_SID, callSid: carrierCallId },
          streamSid: streamSidOf(c)
        })
      )
      assert.deepStrictEqual(eventsOf("call-1").map((e) => e._tag), ["Ringing", "Answered", "Ended"])
    }))

  it.effect("a whole conversation: the question answered, then goodbye", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550100")
      yield* moveTo(1_000)
      const c = yield* connection
      yield* Effect.forkChild(speak(c, "Hello, do you have a moment?"))
      yield* moveTo(6_000)
      assert.deepStrictEqual(personSaid(c).map((u) => u.text), [SimPerson.yesAnswer])
      yield* Effect.forkChild(speak(c, "Thanks. Goodbye."))
      yield* moveTo(20_000)
      assert.strictEqual(ended(eventsOf("call-1"))?._tag, "Ended")
      assert.strictEqual((ended(eventsOf("call-1")) as { reason: string }).reason, "remote-hangup")
    }))

  it.effect("the person who never hangs up answers, ignores goodbye, and the server ends the call", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(1_000)
      const c = yield* connection
      yield* Effect.forkChild(speak(c, "Do you have a moment?"))
      yield* moveTo(6_000)
      yield* Effect.forkChild(speak(c, "Goodbye."))
      yield* moveTo(30_000)
      assert.deepStrictEqual(personSaid(c).map((u) => u.text), [SimPerson.yesAnswer])
      assert.isUndefined(ended(eventsOf("call-1")))
      const before = c.received.length
      yield* c.socket.close
      yield* moveTo(30_000)
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 30_000, reason: "local-hangup" })
      // the carrier sends nothing after the server closed the stream
      yield* moveTo(40_000)
      assert.strictEqual(c.received.length, before)
      assert.isFalse(c.received.some((r) => r.message._tag === "Stop"))
    }))

  it.effect("the early hang-up: as soon as the line is said, whatever is said to them", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550180")
      yield* moveTo(1_000)
      const c = yield* connection
      yield* Effect.forkChild(speak(c, "Hello, do you have a moment?"))
      const gone = 1_000 + SimPerson.earlyHangupMs()
      assert.isBelow(gone, 1_800, "the line is about 0.7 s")
      yield* moveTo(gone - 1)
      assert.isUndefined(ended(eventsOf("call-1")))
      yield* moveTo(gone)
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: gone, reason: "remote-hangup" })
      assert.isTrue(yield* Deferred.isDone(c.closed))
      assert.strictEqual(c.received.at(-1)?.message._tag, "Stop")
      assert.deepStrictEqual(personSaid(c).map((u) => u.text), [SimPerson.earlyHangupLine])
    }))

  it.effect("the answering machine: greeting, beep, then silence until the server closes", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550140")
      yield* moveTo(1_000)
      assert.deepStrictEqual(eventsOf("call-1")[1], { _tag: "Answered", at: 1_000, answeredBy: "machine" })
      const c = yield* connection
      yield* moveTo(20_000)
      const audio = personAudio(c)
      const greetingMs = speechMs(SimPerson.voicemailGreeting, "person")
      const greeting = SimSpeech.decode(audio)
      assert.deepStrictEqual(greeting.map((u) => u.text), [SimPerson.voicemailGreeting])
      assert.closeTo(greeting[0]!.start, 0, 2)
      // the beep: 300 ms after the greeting, 500 ms of 1 kHz, exactly as μ-law carries it
      const beepAt = (greetingMs + SimPerson.timings.beepGapMs) * 8
      const beep = SimPerson.beep()
      assert.deepStrictEqual(
        audio.subarray(beepAt, beepAt + beep.length),
        MuLaw.decode(MuLaw.encode(beep))
      )
      assert.isTrue(audio.subarray(greetingMs * 8, beepAt).every((s) => s === 0))
      assert.isTrue(audio.subarray(beepAt + beep.length).every((s) => s === 0))
      assert.strictEqual(audio.length, 19_000 * 8) // the frames captured by then
      // the machine never hangs up; our side closing the stream ends the call
      assert.isUndefined(ended(eventsOf("call-1")))
      yield* c.socket.close
      yield* moveTo(20_000)
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 20_000, reason: "local-hangup" })
    }))

  it.effect("marks are echoed when the audio before them has played, and at once after a clear", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(1_000)
      const c = yield* connection
      const ms = (n: number) => new Int16Array(n * 8).fill(1000)
      // nothing queued: at once
      yield* sendMark(c, "now")
      yield* sendAudio(c, ms(100))
      yield* sendMark(c, "a")
      yield* sendAudio(c, ms(150))
      yield* sendMark(c, "b")
      yield* sendMark(c, "b2")
      yield* settle
      yield* moveTo(1_099)
      assert.deepStrictEqual(marksOf(c), [{ at: 1_000, name: "now" }])
      yield* moveTo(1_100)
      assert.deepStrictEqual(marksOf(c).map((m) => m.name), ["now", "a"])
      yield* moveTo(1_249)
      assert.strictEqual(marksOf(c).length, 2)
      yield* moveTo(1_250)
      assert.deepStrictEqual(marksOf(c).slice(2), [{ at: 1_250, name: "b" }, { at: 1_250, name: "b2" }])
      // audio sent after the queue ran dry plays from when it arrives
      yield* moveTo(2_000)
      yield* sendAudio(c, ms(40))
      yield* sendMark(c, "c")
      yield* settle
      yield* moveTo(2_040)
      assert.deepStrictEqual(marksOf(c).at(-1), { at: 2_040, name: "c" })
      // clear: the pending marks come back at once, in order, and the rest of the audio is dropped
      yield* moveTo(3_000)
      yield* sendAudio(c, ms(200))
      yield* sendMark(c, "d")
      yield* sendAudio(c, ms(300))
      yield* sendMark(c, "e")
      yield* settle
      yield* moveTo(3_050)
      assert.strictEqual(marksOf(c).length, 5)
      yield* send(c, TwilioMediaStream.clear(streamSidOf(c)))
      yield* moveTo(3_050)
      yield* settle
      assert.deepStrictEqual(marksOf(c).slice(5), [{ at: 3_050, name: "d" }, { at: 3_050, name: "e" }])
      // after a clear nothing is queued: a new mark comes back at once, new audio plays from now
      yield* sendMark(c, "f")
      yield* sendAudio(c, ms(100))
      yield* sendMark(c, "g")
      yield* settle
      yield* moveTo(3_150)
      assert.deepStrictEqual(marksOf(c).slice(7), [{ at: 3_050, name: "f" }, { at: 3_150, name: "g" }])
      yield* moveTo(10_000)
      assert.strictEqual(marksOf(c).length, 9)
      // marks are numbered in the stream's sequence, between the media frames
      const numbers = c.received.slice(1).map((r) => "sequenceNumber" in r.message ? r.message.sequenceNumber : -1)
      assert.deepStrictEqual(numbers, Array.from({ length: numbers.length }, (_, i) => i + 1))
    }))

  it.effect("an utterance cut by a clear is not heard, the next one is", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550123")
      yield* moveTo(1_000)
      const c = yield* connection
      const question = SimVoice.speak("Do you have a moment?")
      yield* sendAudio(c, question)
      yield* moveTo(1_500)
      yield* send(c, TwilioMediaStream.clear(streamSidOf(c)))
      yield* moveTo(2_000)
      yield* sendAudio(c, SimVoice.speak("What is your name?"))
      yield* moveTo(8_000)
      assert.deepStrictEqual(personSaid(c).map((u) => u.text), ["Alex Morgan"])
    }))

  it.effect("the playout buffer is bounded: audio beyond 2 s ahead is dropped", () =>
    Effect.gen(function*() {
      const { connection, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(1_000)
      const c = yield* connection
      const ms = (n: number) => new Int16Array(n * 8).fill(1000)
      yield* sendAudio(c, ms(1_500))
      yield* sendAudio(c, ms(1_000)) // would end 2.5 s ahead: dropped
      yield* sendAudio(c, ms(500))
      yield* sendMark(c, "end")
      yield* moveTo(10_000)
      assert.deepStrictEqual(marksOf(c), [{ at: 3_000, name: "end" }])
      assert.strictEqual(SimMediaStream.limits.maxBufferedMs, 2_000)
    }))

  it.effect("hangUp sends stop, closes the stream, and reports local-hangup", () =>
    Effect.gen(function*() {
      const { carrier, connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(5_000)
      const c = yield* connection
      yield* carrier.hangUp("call-1")
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 5_000, reason: "local-hangup" })
      yield* settle
      assert.isTrue(yield* Deferred.isDone(c.closed))
      assert.strictEqual(c.received.at(-1)?.message._tag, "Stop")
      yield* moveTo(10_000)
      assert.strictEqual(c.received.at(-1)?.message._tag, "Stop")
      assert.strictEqual(eventsOf("call-1").length, 3)
    }))

  it.effect("transfer: stop and close at once; the call goes on with the target, then ends remote-hangup", () =>
    Effect.gen(function*() {
      const { carrier, connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(5_000)
      const c = yield* connection
      yield* carrier.transfer("call-1", "+12025550105")
      yield* settle
      assert.isTrue(yield* Deferred.isDone(c.closed))
      assert.strictEqual(c.received.at(-1)?.message._tag, "Stop")
      // The person talks with the target for the target's conversation length: no end before.
      const talk = SimOutcome.conversationMs("+12025550105")
      yield* moveTo(5_000 + talk - 1)
      assert.isUndefined(ended(eventsOf("call-1")))
      yield* moveTo(5_000 + talk)
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 5_000 + talk, reason: "remote-hangup" })
    }))

  it.effect("transfer refused: a target not E.164 or unreachable, a call not answered or unknown; the call goes on", () =>
    Effect.gen(function*() {
      const { carrier, connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      const refusal = (callId: string, to: string) => Effect.flip(carrier.transfer(callId, to))
      const ringing = yield* refusal("call-1", "+12025550105")
      assert.strictEqual(ringing.message, "call call-1 is not answered")
      yield* moveTo(5_000)
      const c = yield* connection
      assert.strictEqual((yield* refusal("call-1", "desk")).message, "\"desk\" is not an E.164 number")
      const unreachable = yield* refusal("call-1", "+12025550171")
      assert.strictEqual(unreachable.message, "destination +12025550171 is unreachable")
      assert.strictEqual(unreachable.reason, "rejected")
      assert.strictEqual((yield* refusal("call-9", "+12025550105")).message, "call call-9 is not in progress")
      // Still streaming, still ours.
      yield* moveTo(6_000)
      assert.isFalse(yield* Deferred.isDone(c.closed))
      assert.strictEqual(c.received.at(-1)?.message._tag, "Media")
      assert.isUndefined(ended(eventsOf("call-1")))
      // Moved once, it cannot be moved again; our hang-up still ends it (as Twilio's would).
      yield* carrier.transfer("call-1", "+12025550105")
      assert.strictEqual((yield* refusal("call-1", "+12025550106")).message, "call call-1 is already transferred")
      yield* carrier.hangUp("call-1")
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 6_000, reason: "local-hangup" })
    }))

  it.effect("a person who never hangs up does after 5 minutes", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(1_000)
      const c = yield* connection
      for (let t = 60_000; t < 301_000; t += 60_000) yield* moveTo(t)
      yield* moveTo(300_999)
      assert.isUndefined(ended(eventsOf("call-1")))
      yield* moveTo(301_000)
      assert.deepStrictEqual(ended(eventsOf("call-1")), { _tag: "Ended", at: 301_000, reason: "remote-hangup" })
      assert.strictEqual(c.received.at(-1)?.message._tag, "Stop")
    }))

  it.effect("calls never answered open no stream", () =>
    Effect.gen(function*() {
      const { connections, eventsOf, place } = yield* setup
      yield* place("busy", "+12025550150")
      yield* place("no-answer", "+12025550160")
      yield* place("failed", "+12025550170")
      yield* moveTo(10_000)
      assert.strictEqual(yield* Queue.size(connections), 0)
      assert.deepStrictEqual(["busy", "no-answer", "failed"].map((id) => ended(eventsOf(id))), [
        { _tag: "Ended", at: 1_000, reason: "busy" },
        { _tag: "Ended", at: 3_000, reason: "no-answer" },
        { _tag: "Ended", at: 0, reason: "failed" }
      ])
    }))

  it.effect("a stream that cannot connect ends the call with local-hangup", () =>
    Effect.gen(function*() {
      const events: Array<CallEvent> = []
      const carrier = yield* SimCarrier.make.pipe(
        Effect.provideService(
          CallEvents,
          CallEvents.of({
            publish: (_, event) => Effect.sync(() => void events.push(event)),
            subscribe: () => Effect.succeed(Stream.empty)
          })
        ),
        Effect.provideService(
          MediaConnector,
          MediaConnector.of({
            connect: (url) => Effect.fail(new MediaConnectError({ url, message: "refused" }))
          })
        )
      )
      yield* carrier.placeCall({
        from: "+12025550100",
        to: "+12025550123",
        callId: "call-1",
        mediaUrl: "ws://localhost/media/call-1",
        mediaToken: "t"
      })
      yield* moveTo(10_000)
      assert.deepStrictEqual(events, [
        { _tag: "Ringing", at: 0 },
        { _tag: "Answered", at: 1_000, answeredBy: "human" },
        { _tag: "Ended", at: 1_000, reason: "local-hangup" }
      ])
    }))

  it.effect("closing the layer interrupts the stream: it is closed and nothing more is reported", () =>
    Effect.gen(function*() {
      const { connection, eventsOf, place, scope } = yield* setup
      yield* place("call-1", "+12025550123")
      yield* moveTo(2_000)
      const c = yield* connection
      yield* Scope.close(scope, Exit.void)
      yield* moveTo(3_000)
      assert.isTrue(yield* Deferred.isDone(c.closed))
      assert.deepStrictEqual(eventsOf("call-1").map((e) => e._tag), ["Ringing", "Answered"])
    }))

  it.effect("many calls stream at once, each on its own stream", () =>
    Effect.gen(function*() {
      const { connections, eventsOf, place } = yield* setup
      for (let i = 0; i < 20; i++) yield* place(`call-${i}`, `+120255501${String(80 + (i % 20)).padStart(2, "0")}`)
      yield* moveTo(1_000)
      assert.strictEqual(yield* Queue.size(connections), 20)
      const all = yield* Queue.takeAll(connections)
      yield* moveTo(20_000)
      for (let i = 0; i < 20; i++) {
        const reason = (ended(eventsOf(`call-${i}`)) as { reason?: string } | undefined)?.reason
        assert.strictEqual(reason, i < 10 ? "remote-hangup" : undefined, `call-${i}`)
      }
      assert.strictEqual(new Set(all.map(streamSidOf)).size, 20)
    }))
})

describe("SimPerson.answerFor", () => {
  it("answers by what the question asks", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Hello Jane, this is an automated call. Do you have a moment?", "Yes, I have a moment."],
      ["Is this a good time?", "Yes, I have a moment."],
      ["Hello, do you have a moment?", "Yes, I have a moment."],
      ["Jane, what is your name?", "Alex Morgan"],
      ["What is your name?", "Alex Morgan"],
      ["How many people live with you?", "forty two"],
      ["When were you born?", "March third twenty twenty seven"],
      ["What is your date of birth?", "March third twenty twenty seven"],
      ["Could you tell me the last four digits of your card?", "one two three four"],
      ["What is your account number?", "one two three four"],
      ["When would you like to book an appointment?", "next Tuesday at ten a m"],
      ["Which do you prefer: email, phone or text?", "email"],
      ["How should we reach you (email, phone)?", "email"]
    ]
    for (const [question, answer] of cases) assert.strictEqual(SimPerson.answerFor(question), answer, question)
  })

  it("tells questions and goodbyes", () => {
    assert.isTrue(SimPerson.isQuestion("Do you have a moment? "))
    assert.isFalse(SimPerson.isQuestion("Thanks."))
    assert.isTrue(SimPerson.isGoodbye("Thank you for your time. GoodBye."))
    assert.isFalse(SimPerson.isGoodbye("Good day."))
  })
})
