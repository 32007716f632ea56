/**
 * One call's media stream, server side: authenticates the stream, runs the call's agent over
 * it, records both channels on the call's timeline, and reports the agent's verdict.
 *
 * The carrier (Twilio, or the simulated one) opens the stream when the call is answered and
 * speaks Twilio Media Streams (`@voice-agent/media/TwilioMediaStream`). Until a `start`
 * message carries a valid, unexpired per-call token (`customParameters.token`, MediaToken),
 * nothing is read but the handshake: a stream that sends anything else first, or nothing
 * within `startTimeoutMs`, is closed with no byte of audio accepted. A call has one stream: the
 * first claims it (ConversationRepository.claimStream, across processes), and any later one
 * presenting the same token is closed the same way.
 *
 * Then, per frame of the person's audio (μ-law, any length): decoded to PCM, placed on the
 * timeline at its media timestamp, fed to voice activity detection, and handed to the agent in
 * the encoding it asked for. The agent's audio is sent back as media messages, each chunk
 * followed by a mark, and placed on the timeline at its playout time (the carrier plays what
 * it is sent in order); `interrupt` sends `clear` and truncates the timeline's agent channel at
 * the present, so the `agent` recording keeps only what the person could hear. The timeline
 * hands out aligned audio as it settles (the person's frames, or the clock when none come),
 * and both recordings are appended as the call runs.
 *
 * Time: positions are the stream's own (ms since the stream started; the stream starts at the
 * answer, so they are also the turns' offsets). When the person's frames stop coming the
 * session's clock, started with the stream, stands in for them.
 *
 * Ending: the person hanging up (`stop`, or the stream closing) ends the agent's input, and the
 * agent then answers its verdict; the agent returning first ends the call (the session closes
 * the stream, on which the carrier hangs up). Either way the verdict is published to CallEvents
 * (`AgentEnded`) for the dialer that holds the call, once the transcript is stored (up to
 * `transcriptFlushMs` after the end): the agent's turns are written in order by a fiber of their own,
 * so a slow or unreachable database never holds up the conversation. An agent that fails, dies
 * or takes longer than `verdictTimeoutMs` after the end is `agent-failure`.
 *
 * Bounds: the agent's input is a queue of `inputCapacity` items (a slow agent loses audio
 * frames, counted and logged, never the session's memory); a frame stamped more than
 * `futureFrameMs` ahead of the clock is refused, so the recordings never outgrow the call; the
 * agent's audio is paced to at most `aheadMs` ahead of playout; the timeline holds at most its
 * own window.
 *
 * @since 0.1.0
 */
import type { ContactData } from "@voice-agent/core/Contact"
import type { TranscriptTurnRecord } from "@voice-agent/core/Conversation"
import * as Metrics from "@voice-agent/core/Metrics"
import type { AgentCall, AgentEnd, AudioFrame, CallContext, CallInput, Playback } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import type { RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import * as Tracing from "@voice-agent/core/Tracing"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import * as Vad from "@voice-agent/media/Vad"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, Queue, Result, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { transcriptFlushMs } from "./CallProgress.ts"
import { LiveCalls } from "./LiveCalls.ts"
import * as MediaToken from "./MediaToken.ts"

/**
 * @category models
 */
export interface MediaSessionSettings {
  /** The handshake (`connected`, then `start` with a valid token) must be done by then. */
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

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS

/** Audio the timeline hands out at a time to live listeners: 200 ms. */
const batchSamples = 200 * CallTimeline.SAMPLES_PER_MS

/**
 * Audio appended to the recordings at a time: one write per channel per second. Writes are the
 * costliest step of a frame's path under load (each is a system call on a worker thread whose
 * wake-up competes for the cores); a daemon killed mid-call loses at most this much.
 */
const recordSamples = 1000 * CallTimeline.SAMPLES_PER_MS

/**
 * A frame of the person's stamped further ahead of the session's clock (from the connection)
 * than this is refused and counted: a carrier sends what was said, never what is yet to be, so
 * only a broken or hostile stream gets there, and the recordings stay within the call's real
 * length plus this.
 */
const futureFrameMs = 5_000

/** With no frame of the person's for this long, the clock moves the timeline instead. */
const quietFramesMs = 500

/** The next batch of text frames (what arrived together), or `undefined` once the stream ended. */
type NextBatch = Effect.Effect<ReadonlyArray<string> | undefined>

/**
 * Reads the handshake: `connected` (optional), then the `start` message with a valid token;
 * answers the call it names and the frames that came after `start` in the same batch, which
 * the session reads first.
 */
const handshake = (next: NextBatch, key: Uint8Array) =>
  Effect.gen(function*() {
    for (;;) {
      const batch = yield* next
      if (batch === undefined) return Option.none()
      for (let i = 0; i < batch.length; i++) {
        const decoded = TwilioMediaStream.decode(batch[i]!)
        if (Result.isFailure(decoded)) return Option.none()
        const message = decoded.success
        if (message._tag === "Connected") continue
        if (message._tag !== "Start") return Option.none()
        const token = message.start.customParameters?.["token"]
        if (typeof token !== "string") return Option.none()
        const now = yield* Clock.currentTimeMillis
        const rest = batch.slice(i + 1)
        return Option.map(MediaToken.verify(key, token, now), (callId) => ({ callId, start: message, rest }))
      }
    }
  })

/**
 * Serves one media stream until it ends. Never fails: a refused stream is closed and logged.
 *
 * @category constructors
 */
export const serve = (
  socket: MediaSocket,
  settings: MediaSessionSettings = defaults
): Effect.Effect<void, never, Agent | CallEvents | ConversationRepository | RecordingStore | ServerSecrets> =>
  Effect.scoped(
    Effect.gen(function*() {
      const agent = yield* Agent
      const callEvents = yield* CallEvents
      const conversations = yield* ConversationRepository
      const recordings = yield* RecordingStore
      const key = MediaToken.keyFrom(yield* (yield* ServerSecrets).cursorKey)

      // The frames, a batch at a time (what the socket received together): the handshake reads
      // the head, the session the rest.
      const next: NextBatch = socket.read
      const connectedAt = yield* Clock.currentTimeMillis

      const accepted = yield* handshake(next, key).pipe(
        Effect.timeoutOption(Duration.millis(settings.startTimeoutMs)),
        Effect.map(Option.flatten)
      )
      if (Option.isNone(accepted)) {
        yield* Effect.logWarning("Media stream refused: no valid start with a call token")
        return yield* socket.close
      }
      const { callId, rest, start } = accepted.value
      const found = yield* conversations.callContext(callId)
      if (Option.isNone(found) || found.value.conversation.endedAt !== null) {
        yield* Effect.logWarning(`Media stream refused: call ${callId} is unknown or has ended`)
        return yield* socket.close
      }
      if (!(yield* conversations.claimStream(callId, randomUUID()))) {
        yield* Effect.logWarning(`Media stream refused: call ${callId} already has a stream`)
        return yield* socket.close
      }
      yield* run(socket, { first: rest, next, connectedAt }, callId, start.streamSid, found.value, settings, {
        agent,
        callEvents,
        conversations,
        recordings
      }).pipe(Tracing.forCall("call.media", callId))
    }).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.logError("Media session failed", cause).pipe(Effect.andThen(socket.close))
      )
    )
  )

interface Services {
  readonly agent: Agent["Service"]
  readonly callEvents: CallEvents["Service"]
  readonly conversations: ConversationRepository["Service"]
  readonly recordings: RecordingStore["Service"]
}

const run = (
  socket: MediaSocket,
  frames: { readonly first: ReadonlyArray<string>; readonly next: NextBatch; readonly connectedAt: number },
  callId: string,
  streamSid: string,
  found: { readonly conversation: { readonly id: string } & CallContextFields; readonly data: ContactData },
  settings: MediaSessionSettings,
  services: Services
) =>
  Effect.gen(function*() {
    const { agent, callEvents, conversations, recordings } = services
    const { conversation } = found
    const clock = yield* Clock.Clock
    const startedAt = clock.currentTimeMillisUnsafe()
    const elapsedMs = Effect.map(Clock.currentTimeMillis, (now) => now - startedAt)
    const answeredBy = yield* answeredByOf(callEvents, callId)
    yield* Effect.logInfo(`Media stream of call ${callId} started (${answeredBy})`)

    // A recording that cannot start (or later fails) is logged and dropped; the call goes on.
    const open = (channel: CallTimeline.Channel) =>
      recordings.openWriter(callId, channel).pipe(
        Effect.catch((error) =>
          Effect.as(Effect.logError(`Recording ${channel} of call ${callId} not started: ${error.message}`), undefined)
        )
      )
    const writers: Record<CallTimeline.Channel, RecordingWriter | undefined> = {
      agent: yield* open("agent"),
      remote: yield* open("remote")
    }
    const timeline = CallTimeline.make()
    // Live listeners (when the process has the registry): every written segment, until the end.
    const live = yield* Effect.serviceOption(LiveCalls).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.undefined, onSome: (calls) => calls.register(callId) }))
    )
    // What was handed out and not yet appended to the recordings (at most about `recordSamples`).
    let unrecorded: Array<CallTimeline.Segment> = []
    let unrecordedSamples = 0
    const record = Effect.gen(function*() {
      const segments = unrecorded
      unrecorded = []
      unrecordedSamples = 0
      for (const channel of ["agent", "remote"] as const) {
        const writer = writers[channel]
        if (writer === undefined || segments.length === 0) continue
        const written = yield* Effect.result(writer.write(concat(segments.map((segment) => segment[channel]))))
        if (Result.isFailure(written)) {
          writers[channel] = undefined
          yield* Effect.logError(`Recording ${channel} of call ${callId} stopped: ${written.failure.message}`)
        }
      }
    })
    /** Hands segments to live listeners at once, and to the recordings a second at a time (all at the end). */
    const write = (segments: Iterable<CallTimeline.Segment>, final = false) =>
      Effect.gen(function*() {
        for (const segment of segments) {
          if (live !== undefined) yield* live.publish(segment)
          unrecorded.push(segment)
          unrecordedSamples += segment.remote.length
        }
        if (final || unrecordedSamples >= recordSamples) yield* record
      })
    const advanceTo = (position: number) =>
      Effect.suspend(() => write(CallTimeline.advance(timeline, Math.max(timeline.cursor, position))))

    // The agent's input.
    const input = yield* Queue.dropping<CallInput, Cause.Done>(settings.inputCapacity)
    let dropped = 0

    // Playout of the agent's audio: `playoutEnd` is where the carrier will finish what it was
    // sent (in timeline samples); each chunk's mark resolves its waiter.
    let playoutEnd = 0
    let markSeq = 0
    let generation = 0
    let finished = false
    const marks = new Map<string, Deferred.Deferred<void>>()
    const nowPosition = Effect.map(elapsedMs, (ms) => ms * SAMPLES_PER_MS)
    const send = (message: TwilioMediaStream.Message) => socket.send(TwilioMediaStream.encode(message))

    const say = (audio: Stream.Stream<AudioFrame>): Effect.Effect<Playback> =>
      Effect.gen(function*() {
        const myGeneration = generation
        const startPosition = Math.max(playoutEnd, yield* nowPosition)
        if (finished) return { _tag: "Interrupted", startMs: startPosition / SAMPLES_PER_MS, playedMs: 0 } as const
        let last: Deferred.Deferred<void> | undefined
        let pending: Array<Int16Array> = []
        let pendingSamples = 0
        const flush = Effect.gen(function*() {
          if (pendingSamples === 0) return
          const pcm = concat(pending)
          pending = []
          pendingSamples = 0
          // Pace: at most `aheadMs` ahead of what the person hears now.
          const now = yield* nowPosition
          const ahead = playoutEnd - now - settings.aheadMs * SAMPLES_PER_MS
          if (ahead > 0) yield* Effect.sleep(Duration.millis(ahead / SAMPLES_PER_MS))
          if (generation !== myGeneration) return
          const position = Math.max(playoutEnd, yield* nowPosition)
          CallTimeline.place(timeline, "agent", position, pcm)
          playoutEnd = position + pcm.length
          const name = `m${++markSeq}`
          const played = yield* Deferred.make<void>()
          marks.set(name, played)
          last = played
          yield* send(
            TwilioMediaStream.outboundMedia(streamSid, Buffer.from(MuLaw.encode(pcm)).toString("base64"))
          )
          yield* send(TwilioMediaStream.outboundMark(streamSid, name))
        })
        const chunk = settings.chunkMs * SAMPLES_PER_MS
        yield* Stream.runForEachArray(audio, (frames) =>
          Effect.gen(function*() {
            for (const frame of frames) {
              if (generation !== myGeneration) return
              const pcm = frame.encoding === "pcm16" ? frame.samples : MuLaw.decode(frame.bytes)
              pending.push(pcm)
              pendingSamples += pcm.length
              // The first audio of a say goes out at once: the person hears the reply start
              // as soon as it exists; the rest goes in chunks.
              if (pendingSamples >= chunk || last === undefined) yield* flush
            }
          }))
        yield* flush
        const startMs = startPosition / SAMPLES_PER_MS
        if (last !== undefined) yield* Deferred.await(last)
        if (generation !== myGeneration) {
          return { _tag: "Interrupted", startMs, playedMs: (yield* elapsedMs) - startMs } as const
        }
        return { _tag: "Played", startMs, endMs: playoutEnd / SAMPLES_PER_MS } as const
      })

    const interrupt = Effect.gen(function*() {
      generation++
      const now = yield* nowPosition
      CallTimeline.truncate(timeline, "agent", Math.max(timeline.cursor, now))
      playoutEnd = Math.min(playoutEnd, now)
      yield* send(TwilioMediaStream.clear(streamSid))
      for (const waiter of marks.values()) yield* Deferred.succeed(waiter, undefined)
      marks.clear()
    })

    const context: CallContext = {
      callId,
      conversationId: conversation.id,
      direction: conversation.direction,
      from: conversation.fromNumber,
      to: conversation.toNumber,
      campaignId: conversation.campaignId,
      contactId: conversation.contactId,
      data: found.data,
      answeredBy
    }
    const encoding = agent.encodingFor === undefined ? agent.encoding : yield* agent.encodingFor(context)

    // Transcript turns reach the store in the order the agent emits them, off the agent's path:
    // a slow or unreachable database never holds up what the agent says next. A batch that
    // cannot be written is logged and dropped; the call's verdict waits for the rest.
    const turns = yield* Queue.unbounded<TranscriptTurnRecord, Cause.Done>()
    const turnWriter = yield* Effect.forkScoped(
      Queue.takeAll(turns).pipe(
        Effect.flatMap((batch) =>
          conversations.appendTurns(conversation.id, batch).pipe(
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logError(`Transcript of call ${callId}: ${batch.length} turn(s) not written`, cause)
            )
          )
        ),
        Effect.forever,
        Effect.catch(() => Effect.void)
      )
    )
    const call: AgentCall = {
      context,
      input: Stream.fromQueue(input),
      elapsedMs,
      say,
      interrupt,
      sendDtmf: (digits) => say(Stream.fromIterable(dtmfFrames(digits))).pipe(Effect.asVoid),
      emitTurn: (turn) =>
        Queue.offer(turns, { speaker: turn.speaker, text: turn.text, offsetMs: turn.offsetMs }).pipe(Effect.asVoid)
    }

    const verdict = yield* Deferred.make<AgentEnd>()
    const agentFiber = yield* Effect.forkScoped(
      agent.run(call).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Deferred.succeed(
            verdict,
            Exit.isSuccess(exit) ? exit.value : { outcome: "agent-failure", endedBy: "agent" } satisfies AgentEnd
          )
        )
      )
    )

    // The clock stands in for the person's frames when none come (Twilio may send no silent
    // frames), and only then: while frames come, their timestamps move the timeline, so frames
    // the session is slow to read are never cut off as late by the clock.
    let lastFrameAt = startedAt
    yield* Effect.forkScoped(Effect.forever(
      Effect.andThen(
        Effect.sleep(Duration.millis(200)),
        Effect.suspend(() => {
          const now = clock.currentTimeMillisUnsafe()
          return now - lastFrameAt < quietFramesMs
            ? Effect.void
            : advanceTo((now - startedAt) * SAMPLES_PER_MS - timeline.reorderWindow)
        })
      )
    ))

    // The person's side, one batch of frames at a time: each frame is handled synchronously
    // (decoded, placed, run through VAD, queued for the agent), then what settled is recorded.
    let vad = Vad.make()
    const playedUnsafe = (waiter: Deferred.Deferred<void> | undefined) => {
      if (waiter !== undefined) Deferred.doneUnsafe(waiter, Exit.void)
    }
    const offerUnsafe = (item: CallInput) => {
      if (!Queue.offerUnsafe(input, item)) dropped++
    }
    let early = 0
    /** Handles the frames of one batch; answers whether the person hung up (`stop`). */
    const receive = (batch: ReadonlyArray<string>, now: number): boolean => {
      const nowPosition = (now - startedAt) * SAMPLES_PER_MS
      for (const text of batch) {
        const decoded = TwilioMediaStream.decode(text)
        if (Result.isFailure(decoded)) continue
        const message = decoded.success
        switch (message._tag) {
          case "Media": {
            if (message.media.track !== "inbound") continue
            const timestampMs = message.media.timestamp
            if (timestampMs > now - frames.connectedAt + futureFrameMs) {
              early++
              continue
            }
            const bytes: Uint8Array = Buffer.from(message.media.payload, "base64")
            const pcm = MuLaw.decode(bytes)
            lastFrameAt = now
            Metrics.observeUnsafe(Metrics.mediaFrameLag, Math.max(0, now - frames.connectedAt - timestampMs) / 1000)
            CallTimeline.place(timeline, "remote", timestampMs * SAMPLES_PER_MS, pcm)
            const stepped = Vad.step(vad, pcm)
            vad = stepped.state
            if (stepped.event === "speech-start") {
              offerUnsafe({ _tag: "SpeechStarted", timestampMs })
              if (playoutEnd > nowPosition) offerUnsafe({ _tag: "BargeIn", timestampMs })
            } else if (stepped.event === "speech-end") {
              offerUnsafe({ _tag: "SpeechStopped", timestampMs })
            }
            offerUnsafe({
              _tag: "Audio",
              frame: encoding === "mulaw"
                ? { encoding: "mulaw", bytes, timestampMs }
                : { encoding: "pcm16", samples: pcm, timestampMs }
            })
            continue
          }
          case "Mark": {
            playedUnsafe(marks.get(message.mark.name))
            marks.delete(message.mark.name)
            continue
          }
          case "Dtmf":
            offerUnsafe({ _tag: "Dtmf", digit: message.dtmf.digit, timestampMs: now - startedAt })
            continue
          case "Stop":
            return true
          case "Connected":
          case "Start":
          case "Unknown":
            continue
        }
      }
      return false
    }

    // Until `stop` or the stream closes; or until the agent ends the call.
    const personSide = Effect.gen(function*() {
      let batch: ReadonlyArray<string> | undefined = frames.first
      while (batch !== undefined) {
        if (batch.length > 0) {
          const stopped = receive(batch, clock.currentTimeMillisUnsafe())
          // What settled goes out 200 ms at a time (live listeners; the recordings gather it).
          const settled = CallTimeline.settled(timeline)
          if (settled - timeline.cursor >= batchSamples) yield* write(CallTimeline.advance(timeline, settled))
          if (stopped) return
        }
        batch = yield* frames.next
      }
    })
    const agentDone = Deferred.await(verdict)
    const first = yield* Effect.raceFirst(
      Effect.as(personSide, "person" as const),
      Effect.as(agentDone, "agent" as const)
    )
    yield* Queue.end(input)
    // Nothing more will play: a `say` in progress ends as interrupted, and later ones at once.
    generation++
    finished = true
    for (const waiter of marks.values()) yield* Deferred.succeed(waiter, undefined)
    marks.clear()
    const end = first === "agent"
      ? yield* Deferred.await(verdict)
      : yield* Deferred.await(verdict).pipe(
        Effect.timeoutOption(Duration.millis(settings.verdictTimeoutMs)),
        Effect.map(Option.getOrElse((): AgentEnd => ({ outcome: "agent-failure", endedBy: "remote" })))
      )
    yield* Fiber.interrupt(agentFiber)
    if (first === "agent") yield* socket.close
    yield* write(CallTimeline.finish(timeline), true)
    // The whole transcript is stored before the verdict says the call is over.
    yield* Queue.end(turns)
    const flushed = yield* Fiber.join(turnWriter).pipe(Effect.timeoutOption(Duration.millis(transcriptFlushMs)))
    if (Option.isNone(flushed)) {
      yield* Effect.logWarning(`Call ${callId}: transcript not all written ${transcriptFlushMs} ms after the end`)
    }
    if (dropped > 0) yield* Effect.logWarning(`Call ${callId}: the agent fell behind; ${dropped} input item(s) dropped`)
    if (early > 0) {
      yield* Effect.logWarning(
        `Call ${callId}: ${early} frame(s) stamped over ${futureFrameMs} ms ahead of the clock refused`
      )
    }
    const at = yield* Clock.currentTimeMillis
    yield* callEvents.publish(callId, { _tag: "AgentEnded", at, outcome: end.outcome, endedBy: end.endedBy })
    yield* Effect.logInfo(`Media stream of call ${callId} ended: ${end.outcome} (ended by ${end.endedBy})`)
  })

/** The arrays end to end, in a new array (the one array itself when there is only one). */
const concat = (parts: ReadonlyArray<Int16Array>): Int16Array => {
  if (parts.length === 1) return parts[0]!
  let length = 0
  for (const part of parts) length += part.length
  const all = new Int16Array(length)
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.length
  }
  return all
}

type CallContextFields = {
  readonly direction: CallContext["direction"]
  readonly fromNumber: string
  readonly toNumber: string
  readonly campaignId: string | null
  readonly contactId: string | null
}

/** The carrier's answering-machine detection, from the call's Answered event when recorded. */
const answeredByOf = (callEvents: CallEvents["Service"], callId: string) =>
  Effect.scoped(
    Effect.gen(function*() {
      const events = yield* callEvents.subscribe(callId)
      const answered = yield* Stream.runHead(
        events.pipe(Stream.filter((event) => event._tag === "Answered"))
      ).pipe(Effect.timeoutOption(Duration.millis(500)), Effect.map(Option.flatten))
      return Option.match(answered, {
        onNone: () => "human" as const,
        onSome: (event) => event._tag === "Answered" ? event.answeredBy : "human" as const
      })
    })
  )

const DTMF: Record<string, readonly [number, number]> = {
  "1": [697, 1209],
  "2": [697, 1336],
  "3": [697, 1477],
  "4": [770, 1209],
  "5": [770, 1336],
  "6": [770, 1477],
  "7": [852, 1209],
  "8": [852, 1336],
  "9": [852, 1477],
  "*": [941, 1209],
  "0": [941, 1336],
  "#": [941, 1477],
  "A": [697, 1633],
  "B": [770, 1633],
  "C": [852, 1633],
  "D": [941, 1633]
}

/**
 * DTMF digits as audio: 100 ms of the digit's two tones, then 100 ms of silence, each; `w` (as
 * in the reference SDK and Twilio's `sendDigits`) is half a second of silence.
 */
const dtmfFrames = (digits: string): Array<AudioFrame> =>
  digits.toUpperCase().split("").flatMap((digit) => {
    if (digit === "W") return [{ encoding: "pcm16" as const, samples: new Int16Array(4000), timestampMs: 0 }]
    const tones = DTMF[digit]
    if (tones === undefined) return []
    const samples = new Int16Array(1600)
    for (let i = 0; i < 800; i++) {
      const t = i / 8000
      samples[i] = Math.round(8000 * (Math.sin(2 * Math.PI * tones[0] * t) + Math.sin(2 * Math.PI * tones[1] * t)))
    }
    return [{ encoding: "pcm16" as const, samples, timestampMs: 0 }]
  })
