/**
 * One call's media stream, server side: authenticates the stream, runs the call's agent over
 * it, records both channels on the call's timeline, and reports the agent's verdict.
 *
 * The carrier (Twilio, or the simulated one) opens the stream when the call is answered. The
 * session reads and writes it through a `MediaCodec` (`@voice-agent/media/MediaCodec`), Twilio
 * Media Streams (`TwilioMediaCodec`) unless told otherwise, so the same session serves any
 * wire that carries μ-law audio, marks and a start with the call's token. Its parts, each a
 * module of its own:
 * - the gate (`MediaSessionHandshake`): nothing is read but the handshake until a `Start`
 *   carries a valid per-call token naming a live call whose stream it claims; anything else
 *   closes the stream with no byte of audio accepted;
 * - the person's side (here): per frame of the person's audio (μ-law, any length), decoded to
 *   PCM, placed on the timeline at its media timestamp, fed to voice activity detection, and
 *   handed to the agent in the encoding it asked for; marks and DTMF as they come. Frames are
 *   handled on the socket's own callback when it has one (`MediaSocket.listen`: the daemon's
 *   WebSockets), else as a fiber reads them;
 * - playout (`MediaSessionPlayout`): the agent's audio in chunks, each followed by a mark,
 *   placed at its playout time; `interrupt` clears; DTMF as tones;
 * - the recording tap (`MediaSessionRecording`): the timeline's aligned audio as it settles (the
 *   person's frames, or the clock when none come) to live listeners at once, and to both
 *   recordings a second at a time by a fiber of the session's;
 * - the agent, its transcript and its verdict (`MediaSessionVerdict`); when the carrier cannot
 *   tell a person from an answering machine, the agent starts once the engine has heard which
 *   (`MediaSessionMachineDetection`), the person's frames held back from it until then.
 *
 * Time: positions are the carrier's (ms since the stream started, as its media timestamps
 * count; the stream starts at the answer, so they are also the turns' offsets). The session
 * reads the carrier's present off the person's frames (`CarrierClock`): it is what `elapsedMs`
 * tells the agent, where a mark's echo places the agent's audio, and what moves the timeline
 * when the person's frames stop coming.
 *
 * Ending: the person hanging up (`Stop`, or the stream closing) ends the agent's input, and the
 * agent then answers its verdict; the agent returning first ends the call (the session closes
 * the stream, on which the carrier hangs up). A transfer (`AgentCall.transfer`) asks the
 * `Carrier` to move the call; once it has, the carrier stops the stream itself (as a hang-up
 * would), and the agent's verdict is `transfer`. The carrier is the context's when it has one
 * (the daemon's always does; without one, as in tests of the session alone, every transfer is
 * refused with that reason). Either way the verdict is published to CallEvents
 * (`AgentEnded`) for the dialer that holds the call, once the transcript is stored (up to
 * `transcriptFlushMs` after the end). An agent that fails, dies or takes longer than
 * `verdictTimeoutMs` after the end is `agent-failure`.
 *
 * Bounds: the agent's input is a queue of `inputCapacity` items (a slow agent loses audio
 * frames, counted and logged, never the session's memory); a frame stamped more than
 * `futureFrameMs` ahead of the clock is refused, so the recordings never outgrow the call; the
 * agent's audio is paced to at most `aheadMs` ahead of playout; the timeline holds at most its
 * own window.
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import type { AudioFrame, AudioSink, CallInput } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as Tracing from "@voice-agent/core/Tracing"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as CarrierClock from "@voice-agent/media/CarrierClock"
import type { MediaCodec } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as TwilioMediaCodec from "@voice-agent/media/TwilioMediaCodec"
import * as Vad from "@voice-agent/media/Vad"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, Queue, Stream } from "effect"
import type { Accepted, NextBatch } from "./MediaSessionHandshake.ts"
import * as MediaSessionHandshake from "./MediaSessionHandshake.ts"
import * as MediaSessionMachineDetection from "./MediaSessionMachineDetection.ts"
import * as MediaSessionPlayout from "./MediaSessionPlayout.ts"
import * as MediaSessionRecording from "./MediaSessionRecording.ts"
import * as MediaSessionVerdict from "./MediaSessionVerdict.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * @category models
 */
export interface MediaSessionSettings {
  /** The handshake (`Connected`, then `Start` with a valid token) must be done by then. */
  readonly startTimeoutMs: number
  /** Items the agent's input holds; past it, audio frames are dropped (counted). */
  readonly inputCapacity: number
  /** Agent audio goes out in chunks of this length (a say's first frame at once), each followed by a mark. */
  readonly chunkMs: number
  /** How far ahead of playout the agent's audio may be sent. */
  readonly aheadMs: number
  /** After the person hangs up, how long the agent may take to answer its verdict. */
  readonly verdictTimeoutMs: number
}

/**
 * @category constructors
 */
export const defaults: MediaSessionSettings = {
  startTimeoutMs: 10_000,
  inputCapacity: 500,
  chunkMs: 100,
  aheadMs: 1_000,
  verdictTimeoutMs: 5_000
}

/**
 * How a session is served: its wire (Twilio Media Streams by default) and its settings
 * (`defaults` by default).
 *
 * @category models
 */
export interface ServeOptions {
  readonly codec?: MediaCodec | undefined
  readonly settings?: MediaSessionSettings | undefined
}

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS

/**
 * A frame of the person's stamped further ahead of the session's clock (from the connection)
 * than this is refused and counted: a carrier sends what was said, never what is yet to be, so
 * only a broken or hostile stream gets there, and the recordings stay within the call's real
 * length plus this.
 */
const futureFrameMs = 5_000

/** With no frame of the person's for this long, the clock moves the timeline instead. */
const quietFramesMs = 500

/**
 * For the session's loops, each turn of which waits (a queue, a latch, the clock): `forever`'s
 * yield after each turn would only cost every call one more trip through the scheduler.
 */
const waitingLoop = { disableYield: true } as const

/**
 * Serves one media stream until it ends. Never fails: a refused stream is closed and logged.
 *
 * @category constructors
 */
export const serve = (
  socket: MediaSocket,
  options: ServeOptions = {}
): Effect.Effect<void, never, Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets> =>
  Effect.scoped(
    Effect.gen(function*() {
      const codec = options.codec ?? TwilioMediaCodec.codec
      const settings = options.settings ?? defaults
      const agent = yield* Agent
      const callEvents = yield* CallEvents
      const carrier = yield* Effect.serviceOption(Carrier)
      const conversations = yield* ConversationRepository
      const recordings = yield* RecordingStore
      const key = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)

      // The frames, a batch at a time (what the socket received together): the handshake reads
      // the head, the session the rest.
      const next: NextBatch = socket.read
      const connectedAt = yield* Clock.currentTimeMillis

      const accepted = yield* MediaSessionHandshake.accept(
        next,
        codec,
        { key, startTimeoutMs: settings.startTimeoutMs },
        conversations
      )
      if (Option.isNone(accepted)) return yield* socket.close
      yield* run(socket, codec, { next, connectedAt }, accepted.value, settings, {
        agent,
        callEvents,
        carrier,
        conversations,
        recordings
      }).pipe(Tracing.forCall("call.media", accepted.value.callId))
    }).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.logError("Media session failed", cause).pipe(Effect.andThen(socket.close))
      )
    )
  )

/**
 * A fiber that sends, in order, what was queued, for a socket that cannot send synchronously;
 * `drain` stops it and sends what is left.
 */
const senderOf = (sendAll: (texts: ReadonlyArray<string>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const outgoing = yield* Queue.unbounded<string>()
    const fiber = yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.takeAll(outgoing), (texts) => Effect.uninterruptible(sendAll(texts))),
        waitingLoop
      )
    )
    return {
      sendUnsafe: (text: string) => void Queue.offerUnsafe(outgoing, text),
      drain: Effect.andThen(Fiber.interrupt(fiber), Effect.flatMap(Queue.clear(outgoing), sendAll))
    }
  })

interface Services {
  readonly agent: Agent["Service"]
  readonly callEvents: CallEvents["Service"]
  readonly carrier: Option.Option<Carrier["Service"]>
  readonly conversations: ConversationRepository["Service"]
  readonly recordings: RecordingStore["Service"]
}

const run = (
  socket: MediaSocket,
  codec: MediaCodec,
  frames: { readonly next: NextBatch; readonly connectedAt: number },
  accepted: Accepted,
  settings: MediaSessionSettings,
  services: Services
) =>
  Effect.gen(function*() {
    const { agent, callEvents, carrier, conversations, recordings } = services
    const { callId, streamId } = accepted
    const clock = yield* Clock.Clock
    const carrierClock = CarrierClock.make(accepted.startedAt)
    const presentMs = () => CarrierClock.nowMs(carrierClock, clock.currentTimeMillisUnsafe())
    // Whole ms for the agent (a frame of any length can end mid-ms): turns' offsets are integers.
    const elapsedMs = Effect.sync(() => Math.round(presentMs()))
    const answeredBy = yield* MediaSessionVerdict.answeredByOf(callEvents, callId)
    yield* Effect.logInfo(`Media stream of call ${callId} started (${answeredBy})`)
    const detection = MediaSessionMachineDetection.make(callId, answeredBy)

    const tap = yield* MediaSessionRecording.make(recordings, callId)
    const timeline = tap.timeline

    // The agent's input; its audio goes to the agent's sink instead once it takes it.
    const input = yield* Queue.dropping<CallInput, Cause.Done>(settings.inputCapacity)
    let dropped = 0
    let audioSink: AudioSink | undefined
    let sinkFailure: unknown
    const offerUnsafe = (item: CallInput) => {
      if (!Queue.offerUnsafe(input, item)) dropped++
    }
    const toAgent = (frame: AudioFrame) => {
      if (audioSink === undefined) return offerUnsafe({ _tag: "Audio", frame })
      try {
        audioSink(frame)
      } catch (error) {
        audioSink = undefined
        sinkFailure = error
        offerUnsafe({ _tag: "Audio", frame })
      }
    }
    // What is queued and not yet read goes to the sink first, in order; the rest stays queued.
    const takeAudio = (sink: AudioSink) =>
      Effect.sync(() => {
        const queued: Array<CallInput> = []
        for (let taken = Queue.takeUnsafe(input); taken !== undefined; taken = Queue.takeUnsafe(input)) {
          if (taken._tag === "Failure") break
          queued.push(taken.value)
        }
        audioSink = sink
        for (const item of queued) {
          if (item._tag === "Audio") toAgent(item.frame)
          else offerUnsafe(item)
        }
      })

    // The playout sends synchronously: on the socket itself when it can (`sendUnsafe`), else
    // through a fiber of the session's that sends, in order, what was queued (at most what the
    // playout paces: about `aheadMs` of audio and its marks).
    const sendAll = (texts: ReadonlyArray<string>) =>
      Effect.forEach(texts, (text) => socket.send(text), { discard: true })
    const sender = socket.sendUnsafe === undefined ? yield* senderOf(sendAll) : undefined
    const sendUnsafe = socket.sendUnsafe ?? sender!.sendUnsafe
    const playout = MediaSessionPlayout.make({
      send: (event) => sendUnsafe(codec.encode(streamId, event)),
      timeline,
      present: () => presentMs() * SAMPLES_PER_MS,
      chunkMs: settings.chunkMs,
      aheadMs: settings.aheadMs
    })

    const context = MediaSessionVerdict.contextOf(callId, accepted.call, detection.provisional)
    const encoding = agent.encodingFor === undefined ? agent.encoding : yield* agent.encodingFor(context)
    const transcript = yield* MediaSessionVerdict.transcript(conversations, accepted.call.conversation.id, callId)
    const over = yield* Deferred.make<void>()
    // The carrier stops the stream of a call it moved, maybe before it answers the transfer.
    let transfersInFlight = 0
    const agentRun = yield* MediaSessionVerdict.runAgent(agent, {
      context,
      input: Stream.fromQueue(input),
      elapsedMs,
      say: playout.say,
      interrupt: playout.interrupt,
      sendDtmf: playout.sendDtmf,
      transfer: (to) =>
        Effect.suspend(() => {
          transfersInFlight++
          return MediaSessionVerdict.transfer(carrier, callId, to)
        }).pipe(Effect.ensuring(Effect.sync(() => void transfersInFlight--))),
      emitTurn: transcript.emitTurn,
      emitLatency: transcript.emitLatency,
      hungUp: Deferred.await(over),
      takeAudio
    }, detection.answeredBy)

    // The session's clock, one fiber: the person's frames move the timeline while they come, and
    // the clock stands in for them when none come (Twilio may send no silent frames), and only
    // then, so frames the session is slow to read are never cut off as late by the clock; and what
    // was handed out is written to the recordings from here, once a second of it waits (or the
    // agent's sink failed), never per frame. It wakes once per `quietFramesMs` while frames come
    // (when the last one could be that old), more often when none do. A write is not interrupted
    // halfway (it would be lost).
    let lastFrameAt = accepted.startedAt
    const tick = Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      playout.pumpUnsafe()
      if (now - lastFrameAt >= quietFramesMs) {
        tap.handOutTo(CarrierClock.nowMs(carrierClock, now) * SAMPLES_PER_MS - timeline.reorderWindow)
      }
      const failure = sinkFailure
      sinkFailure = undefined
      return Effect.andThen(
        failure === undefined ? Effect.void : Effect.logWarning(
          `Call ${callId}: the agent's audio sink failed; its audio comes as input again`,
          failure
        ),
        tap.record
      )
    })
    const sessionClock = yield* Effect.forkScoped(Effect.forever(
      Effect.andThen(
        Effect.suspend(() =>
          Effect.sleep(Duration.millis(Math.max(200, lastFrameAt + quietFramesMs - clock.currentTimeMillisUnsafe())))
        ),
        Effect.uninterruptible(tick)
      ),
      waitingLoop
    ))

    // The person's side, one batch of frames at a time: each frame is handled synchronously
    // (decoded, placed, run through VAD, queued for the agent), then what settled is recorded.
    let vad = Vad.make()
    let early = 0
    /** Handles the frames of one batch; answers whether the person hung up (`Stop`). */
    const receive = (batch: ReadonlyArray<string>, now: number): boolean => {
      for (const text of batch) {
        const event = codec.decode(text)
        switch (event._tag) {
          case "Media": {
            const timestampMs = event.timestampMs
            if (timestampMs > now - frames.connectedAt + futureFrameMs) {
              early++
              continue
            }
            const bytes = event.audio
            const pcm = MuLaw.decode(bytes)
            lastFrameAt = now
            Metrics.observeUnsafe(Metrics.mediaFrameLag, Math.max(0, now - frames.connectedAt - timestampMs) / 1000)
            CallTimeline.place(timeline, "remote", timestampMs * SAMPLES_PER_MS, pcm)
            CarrierClock.frame(carrierClock, now, timestampMs + pcm.length / SAMPLES_PER_MS)
            if (detection.holds(pcm, timestampMs)) continue
            const stepped = Vad.step(vad, pcm)
            vad = stepped.state
            if (stepped.event === "speech-start") {
              offerUnsafe({ _tag: "SpeechStarted", timestampMs })
              if (playout.playingAfter(timestampMs * SAMPLES_PER_MS)) offerUnsafe({ _tag: "BargeIn", timestampMs })
            } else if (stepped.event === "speech-end") {
              offerUnsafe({ _tag: "SpeechStopped", timestampMs })
            }
            toAgent(
              encoding === "mulaw"
                ? { encoding: "mulaw", bytes, timestampMs }
                : { encoding: "pcm16", samples: pcm, timestampMs }
            )
            continue
          }
          case "Mark":
            playout.markedUnsafe(event.name, CarrierClock.streamMs(carrierClock, now) * SAMPLES_PER_MS)
            continue
          case "Dtmf":
            offerUnsafe({
              _tag: "Dtmf",
              digit: event.digit,
              timestampMs: Math.round(CarrierClock.streamMs(carrierClock, now))
            })
            continue
          case "Stop":
            return true
          case "Connected":
          case "Start":
          case "Ignored":
            continue
        }
      }
      return false
    }

    // Each batch is handled as it is received: on the socket's own callback when it has one
    // (`listen`, no fiber step per frame), else by a fiber reading it; what settled is handed out
    // there too.
    // Which side ended the call first: the person (`Stop`, or the stream closed), or the agent
    // (its run returned its verdict). Told by both sides' callbacks, with no fiber waiting on each.
    const ended = Deferred.makeUnsafe<"person" | "agent">()
    let personDone = false
    const endPerson = () => {
      personDone = true
      Deferred.doneUnsafe(ended, Exit.succeed("person"))
    }
    agentRun.fiber.addObserver((exit) => {
      if (Exit.isSuccess(exit)) Deferred.doneUnsafe(ended, Exit.succeed("agent"))
    })
    const onBatch = (batch: ReadonlyArray<string>) => {
      if (personDone || batch.length === 0) return
      const stopped = receive(batch, clock.currentTimeMillisUnsafe())
      playout.pumpUnsafe()
      tap.handOutSettled()
      if (stopped) endPerson()
    }
    onBatch(accepted.rest)
    if (socket.listen !== undefined) {
      socket.listen({ onBatch, onEnd: endPerson })
    } else {
      yield* Effect.forkScoped(Effect.gen(function*() {
        while (!personDone) {
          const batch = yield* frames.next
          if (batch === undefined) return endPerson()
          onBatch(batch)
        }
      }))
    }
    // Until `Stop` or the stream closes; or until the agent ends the call.
    const first = yield* Deferred.await(ended)
    // Nothing more is read (frames after the end are not the call's).
    personDone = true
    yield* Queue.end(input)
    yield* Deferred.succeed(over, undefined)
    // Nothing more will play: a `say` in progress ends as interrupted, and later ones at once.
    yield* playout.finish
    // A transfer under way when the stream stopped: the agent answers once the carrier has
    // (within the carrier's own time limit), however long that takes.
    const end = yield* MediaSessionVerdict.awaitVerdict(
      agentRun.verdict,
      transfersInFlight > 0 ? "agent" : first,
      settings.verdictTimeoutMs
    )
    yield* Fiber.interrupt(agentRun.fiber)
    if (sender !== undefined) yield* sender.drain
    if (first === "agent") {
      yield* socket.close
    }
    yield* Fiber.interrupt(sessionClock)
    yield* tap.finish
    // The whole transcript is stored before the verdict says the call is over.
    yield* transcript.flush
    if (dropped > 0) yield* Effect.logWarning(`Call ${callId}: the agent fell behind; ${dropped} input item(s) dropped`)
    if (early > 0) {
      yield* Effect.logWarning(
        `Call ${callId}: ${early} frame(s) stamped over ${futureFrameMs} ms ahead of the clock refused`
      )
    }
    yield* MediaSessionVerdict.publish(callEvents, callId, end)
  })
