/**
 * The simulated carrier's end of one Twilio Media Stream (a bidirectional `<Connect><Stream>`):
 * the client that Twilio is, over a `MediaSocket`, for the person (or machine) on an answered
 * call. It speaks Twilio's side of the wire exactly (`@voice-agent/media/TwilioMediaStream`,
 * reference/telephony.md §2):
 *
 * - Handshake: `connected`, then `start` (`sequenceNumber` 1; the stream's `MZ…` id, the call's
 *   `CA…` id, `tracks: ["inbound"]`, μ-law 8000 Hz mono, and the custom parameters, where the
 *   media token travels).
 * - Then one inbound `media` frame every 20 ms, paced by `Clock` (so `TestClock` drives it) on
 *   a fixed grid from the stream's start: 160 μ-law bytes in base64, `chunk` counting from 1,
 *   `timestamp` the frame's start in ms since the stream started (0, 20, 40…), `sequenceNumber`
 *   counting every message after `connected`. What the person says (`Line.say`, 8 kHz PCM)
 *   goes out frame by frame; otherwise the frame is silence (0xFF). A frame the socket could
 *   not take in time goes out late with its own timestamp, as a late packet would.
 * - What the server sends is played in real time, as Twilio buffers and plays it: `media`
 *   audio is queued after what is still playing (or starts now); a `mark` is echoed (same name)
 *   when the audio queued before it has finished playing, at once when nothing is queued;
 *   `clear` drops the audio not yet played and echoes every pending mark at once, in order.
 *   The audio that did play is what the person hears: it goes through a `SimSpeech.Decoder`
 *   (silence between plays counted), and each utterance of simulated speech reaches
 *   `Line.heard` as its text the moment its last chunk has finished playing. A `clear` in the
 *   middle of an utterance cuts it short: it is not heard.
 * - The end: the server closing the stream ends the call (with `<Connect><Stream>` Twilio
 *   ends the call when the stream closes): `local-hangup`, nothing more sent. The person
 *   hanging up (their script returning) is `remote-hangup`, and the carrier hanging up (the
 *   `hangUp` effect completing) `local-hangup`: both send `stop` and then close the stream.
 *
 * Frames the server sends that are not JSON, of an unknown event, or for another stream are
 * ignored, each kind logged once per stream.
 *
 * Bounds, per stream: the playout queue holds at most `limits.maxBufferedMs` of audio (the
 * engine sends at most about 1.1 s ahead) and `limits.maxQueued` entries; audio beyond is
 * dropped (logged once), a mark beyond is echoed at once. The person's speech queue holds
 * `limits.maxLines` lines, what they heard and have not yet handled `limits.maxHeard`
 * utterances (the oldest dropped). The decoder's memory is bounded by SimSpeech. Sending `stop`
 * waits at most `limits.stopTimeoutMs` for a socket whose buffer is full.
 *
 * @since 0.1.0
 */
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import { Clock, Deferred, Duration, Effect, Fiber, Queue, Result, Semaphore, Stream } from "effect"

/**
 * Milliseconds of audio per inbound frame.
 *
 * @category models
 */
export const FRAME_MS = 20

/**
 * Samples (and μ-law bytes) per inbound frame: 20 ms at 8 kHz.
 *
 * @category models
 */
export const FRAME_SAMPLES = 160

const SAMPLES_PER_MS = 8

/**
 * The per-stream bounds (see the module header).
 *
 * @category models
 */
export const limits: {
  readonly maxBufferedMs: number
  readonly maxQueued: number
  readonly maxLines: number
  readonly maxHeard: number
  readonly stopTimeoutMs: number
} = {
  maxBufferedMs: 2_000,
  maxQueued: 512,
  maxLines: 8,
  maxHeard: 16,
  stopTimeoutMs: 1_000
}

/**
 * The person's end of the call, as the stream offers it.
 *
 * @category models
 */
export interface Line {
  /** The text of each utterance of simulated speech the person heard, once it finished playing. */
  readonly heard: Queue.Dequeue<string>
  /**
   * Speaks `samples` (8 kHz 16-bit PCM) after what is already being said, in 20 ms frames (the
   * last one padded with silence). A line beyond `limits.maxLines` waiting is dropped.
   */
  readonly say: (samples: Int16Array) => Effect.Effect<void>
}

/**
 * @category models
 */
export interface StreamOptions {
  readonly socket: MediaSocket
  /** `AC…`, in `start` and `stop`. */
  readonly accountSid: string
  /** The carrier's call id (`CA…`). */
  readonly callSid: string
  /** `MZ…`, on every message. */
  readonly streamSid: string
  /** The `<Parameter>`s of the stream (the media token). */
  readonly customParameters: Readonly<Record<string, string>>
  /** The person (or machine): runs from the start of the stream, and returns when they hang up. */
  readonly person: (line: Line) => Effect.Effect<void>
  /** Completes when the carrier hangs up the call. */
  readonly hangUp: Effect.Effect<void>
}

/** Audio or a mark waiting in the playout queue; positions are samples since the stream's start. */
type Entry =
  | { readonly _tag: "Audio"; readonly start: number; readonly samples: Int16Array }
  | { readonly _tag: "Mark"; readonly at: number; readonly name: string }

/** What playing up to an instant gave: marks to echo, in order, and utterances heard. */
interface Played {
  readonly marks: Array<string>
  readonly heard: Array<string>
}

/**
 * The audio the server sent, played in real time. Synchronous: the fibers that call it never
 * leave it half updated.
 */
class Playout {
  private entries: Array<Entry> = []
  /** Where the queued audio finishes (samples). */
  private end = 0
  /** How far the decoder has been fed (samples). */
  private heardUntil = 0
  private readonly decoder = new SimSpeech.Decoder()

  /** Queues audio received at `now`; false when it does not fit (dropped). */
  media(now: number, samples: Int16Array): boolean {
    if (samples.length === 0) return true
    const start = Math.max(now, this.end)
    if (this.entries.length >= limits.maxQueued) return false
    if (start + samples.length - now > limits.maxBufferedMs * SAMPLES_PER_MS) return false
    this.entries.push({ _tag: "Audio", start, samples })
    this.end = start + samples.length
    return true
  }

  /** Queues a mark received at `now`; false when the queue is full (the caller echoes it at once). */
  mark(now: number, name: string): boolean {
    if (this.entries.length >= limits.maxQueued) return false
    this.entries.push({ _tag: "Mark", at: Math.max(now, this.end), name })
    return true
  }

  /** When the next entry is due (samples), if any. */
  nextDue(): number | undefined {
    const head = this.entries[0]
    if (head === undefined) return undefined
    return head._tag === "Audio" ? head.start + head.samples.length : head.at
  }

  /** Plays everything due by `now`. */
  advance(now: number, played: Played = { marks: [], heard: [] }): Played {
    let done = 0
    for (const entry of this.entries) {
      if (entry._tag === "Audio") {
        if (entry.start + entry.samples.length > now) break
        this.hear(entry.start, entry.samples, played)
      } else {
        if (entry.at > now) break
        played.marks.push(entry.name)
      }
      done++
    }
    if (done > 0) this.entries = this.entries.slice(done)
    return played
  }

  /** `clear` at `now`: what played so far is heard, the rest dropped, every mark echoed. */
  clear(now: number): Played {
    const played = this.advance(now)
    const head = this.entries[0]
    if (head?._tag === "Audio" && head.start < now) {
      this.hear(head.start, head.samples.subarray(0, now - head.start), played)
    }
    for (const entry of this.entries) if (entry._tag === "Mark") played.marks.push(entry.name)
    this.entries = []
    this.end = Math.min(this.end, now)
    return played
  }

  private hear(start: number, samples: Int16Array, played: Played): void {
    if (start > this.heardUntil) this.decoder.pushSilence(start - this.heardUntil)
    for (const utterance of this.decoder.push(samples)) played.heard.push(utterance.text)
    this.heardUntil = start + samples.length
  }
}

/** What the person is saying and will say, cut into frames. */
class Mouth {
  private lines: Array<Int16Array> = []
  private at = 0

  say(samples: Int16Array): boolean {
    if (samples.length === 0) return true
    if (this.lines.length >= limits.maxLines) return false
    this.lines.push(samples)
    return true
  }

  /** The next frame of speech (a fresh array), or undefined for silence. */
  next(): Int16Array | undefined {
    const line = this.lines[0]
    if (line === undefined) return undefined
    const frame = new Int16Array(FRAME_SAMPLES)
    frame.set(line.subarray(this.at, this.at + FRAME_SAMPLES))
    this.at += FRAME_SAMPLES
    if (this.at >= line.length) {
      this.lines.shift()
      this.at = 0
    }
    return frame
  }
}

const SILENT_PAYLOAD = Buffer.alloc(FRAME_SAMPLES, MuLaw.SILENCE).toString("base64")

/**
 * Runs the stream until the call ends, and answers how: `remote-hangup` when the person hung
 * up, `local-hangup` when the server closed the stream or the carrier hung up. Never fails.
 *
 * @category constructors
 */
export const run = (options: StreamOptions): Effect.Effect<"remote-hangup" | "local-hangup"> =>
  Effect.scoped(
    Effect.gen(function*() {
      const { accountSid, callSid, socket, streamSid } = options
      const lock = yield* Semaphore.make(1)
      let sequence = 0
      /** Sends messages in one go (nothing in between), numbering them. */
      const send = (messages: ReadonlyArray<(sequenceNumber: number) => TwilioMediaStream.InboundMessage>) =>
        lock.withPermits(1)(
          Effect.forEach(
            messages,
            (message) => Effect.suspend(() => socket.send(TwilioMediaStream.encode(message(++sequence)))),
            { discard: true }
          )
        )
      const warned = new Set<string>()
      const warnOnce = (kind: string, message: string) =>
        Effect.suspend(() => {
          if (warned.has(kind)) return Effect.void
          warned.add(kind)
          return Effect.logWarning(`Simulated media stream ${streamSid} of call ${callSid}: ${message}`)
        })

      // The handshake, as Twilio sends it.
      yield* socket.send(TwilioMediaStream.encode({ _tag: "Connected", protocol: "Call", version: "1.0.0" }))
      yield* send([(sequenceNumber) => ({
        _tag: "Start",
        sequenceNumber,
        start: {
          accountSid,
          streamSid,
          callSid,
          tracks: ["inbound"],
          mediaFormat: TwilioMediaStream.mulaw8k,
          customParameters: { ...options.customParameters }
        },
        streamSid
      })])
      const startedAt = yield* Clock.currentTimeMillis
      const position = Effect.map(Clock.currentTimeMillis, (now) => (now - startedAt) * SAMPLES_PER_MS)

      const playout = new Playout()
      const mouth = new Mouth()
      const heard = yield* Queue.sliding<string>(limits.maxHeard)
      const kicks = yield* Queue.sliding<void>(1)
      const closed = yield* Deferred.make<void>()

      const echo = (names: ReadonlyArray<string>) =>
        send(names.map((name) => (sequenceNumber) => ({ _tag: "Mark", sequenceNumber, streamSid, mark: { name } })))
      const deliver = (played: Played) => Effect.andThen(echo(played.marks), Queue.offerAll(heard, played.heard))

      // What the server sends.
      const onMessage = (text: string) =>
        Effect.gen(function*() {
          const decoded = TwilioMediaStream.decodeOutbound(text)
          if (Result.isFailure(decoded)) return yield* warnOnce("invalid", `ignored ${decoded.failure.message}`)
          const message = decoded.success
          if (message._tag === "Unknown") return yield* warnOnce(`event ${message.event}`, `ignored ${message.event}`)
          if (message.streamSid !== streamSid) {
            return yield* warnOnce("streamSid", "ignored a message for another stream")
          }
          const now = yield* position
          switch (message._tag) {
            case "OutboundMedia": {
              const samples = MuLaw.decode(Buffer.from(message.media.payload, "base64"))
              if (!playout.media(now, samples)) yield* warnOnce("full", "playout buffer full, audio dropped")
              return yield* Queue.offer(kicks, undefined)
            }
            case "OutboundMark":
              if (!playout.mark(now, message.mark.name)) return yield* echo([message.mark.name])
              return yield* Queue.offer(kicks, undefined)
            case "Clear":
              yield* deliver(playout.clear(now))
              return yield* Queue.offer(kicks, undefined)
          }
        })
      const reader = yield* Effect.forkScoped(
        Stream.runForEach(socket.incoming, onMessage).pipe(Effect.ensuring(Deferred.succeed(closed, undefined)))
      )

      // Playout: wakes when the next entry is due, or when the queue changed.
      const player = yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
        const now = yield* position
        yield* deliver(playout.advance(now))
        const due = playout.nextDue()
        const changed = Queue.take(kicks)
        if (due === undefined) return yield* changed
        yield* Effect.raceFirst(Effect.sleep(Duration.millis(Math.ceil((due - now) / SAMPLES_PER_MS))), changed)
      })))

      // The person's audio, one frame every 20 ms on the stream's grid.
      const sender = yield* Effect.forkScoped(Effect.gen(function*() {
        for (let chunk = 1;; chunk++) {
          const timestamp = (chunk - 1) * FRAME_MS
          const wait = startedAt + timestamp - (yield* Clock.currentTimeMillis)
          if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
          const frame = mouth.next()
          const payload = frame === undefined ? SILENT_PAYLOAD : Buffer.from(MuLaw.encode(frame)).toString("base64")
          yield* send([(sequenceNumber) => ({
            _tag: "Media",
            sequenceNumber,
            media: { track: "inbound", chunk, timestamp, payload },
            streamSid
          })])
        }
      }))

      const line: Line = {
        heard,
        say: (samples) =>
          Effect.suspend(() => mouth.say(samples) ? Effect.void : warnOnce("mouth", "the person had too much to say"))
      }
      const ended = yield* Effect.raceAll([
        Effect.as(Deferred.await(closed), "closed" as const),
        Effect.as(options.person(line), "person" as const),
        Effect.as(options.hangUp, "carrier" as const)
      ])
      yield* Fiber.interruptAll([sender, player, reader])
      if (ended !== "closed") {
        yield* send([(sequenceNumber) => ({ _tag: "Stop", sequenceNumber, stop: { accountSid, callSid }, streamSid })])
          .pipe(Effect.timeoutOption(Duration.millis(limits.stopTimeoutMs)))
        yield* socket.close
      }
      return ended === "person" ? "remote-hangup" : "local-hangup"
    })
  )
