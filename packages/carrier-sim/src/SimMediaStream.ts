/**
 * The simulated carrier's end of one Twilio Media Stream (a bidirectional `<Connect><Stream>`):
 * the client that Twilio is, over a `MediaSocket`, for the person (or machine) on an answered
 * call. It speaks Twilio's side of the wire exactly (`@voice-agent/media/TwilioMediaStream`,
 * twilio.com/docs/voice/media-streams/websocket-messages):
 *
 * - Handshake: `connected`, then `start` (`sequenceNumber` 1; the stream's `MZ…` id, the call's
 *   `CA…` id, `tracks: ["inbound"]`, μ-law 8000 Hz mono, and the custom parameters, where the
 *   media token travels).
 * - Then one inbound `media` frame every 20 ms, paced by `Clock` (so `TestClock` drives it) on
 *   a fixed grid from the stream's start, each sent once it has been captured (at its end, as a
 *   carrier can send only what was said): 160 μ-law bytes in base64, `chunk` counting from 1,
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
import { Clock, Deferred, Duration, Effect, Fiber, Queue, Result, Scope, Semaphore } from "effect"

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
  clear(now: number, played: Played = { marks: [], heard: [] }): Played {
    this.advance(now, played)
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

  /**
   * Writes the next frame of speech, μ-law encoded, to `codes` (a line's last frame padded
   * with silence); false when the person is silent (`codes` untouched).
   */
  next(codes: Uint8Array): boolean {
    const line = this.lines[0]
    if (line === undefined) return false
    for (let i = 0, n = this.at; i < FRAME_SAMPLES; i++, n++) {
      codes[i] = MuLaw.encodeSample(n < line.length ? line[n]! : 0)
    }
    this.at += FRAME_SAMPLES
    if (this.at >= line.length) {
      this.lines.shift()
      this.at = 0
    }
    return true
  }
}

const SILENT_PAYLOAD = Buffer.alloc(FRAME_SAMPLES, MuLaw.SILENCE).toString("base64")

/**
 * Runs the stream until the call ends, and answers how: `remote-hangup` when the person hung
 * up, `local-hangup` when the server closed the stream or the carrier hung up. Never fails.
 *
 * Per frame the work is synchronous, with effects only at the edges: the sender wakes once per
 * frame (a `Clock` sleep to its grid slot) and hands the socket one text; the reader takes each
 * batch of frames the socket received together in one step; the player sleeps until the next
 * entry of the playout queue is due and is woken early only when the queue's head changes
 * (it ran dry or was cleared), not per message.
 *
 * @category constructors
 */
export const run = (options: StreamOptions): Effect.Effect<"remote-hangup" | "local-hangup"> =>
  Effect.scoped(
    Effect.gen(function*() {
      const { accountSid, callSid, socket, streamSid } = options
      const clock = yield* Clock.Clock
      const scope = yield* Scope.Scope
      // Sends are numbered as they go out. Under the lock a send that the socket makes wait (a
      // full buffer; MemoryMedia's queue) keeps the others, of other fibers, behind it, so the
      // wire order is the numbering order whatever the socket does with waiting writers.
      const lock = yield* Semaphore.make(1)
      let sequence = 0
      const sendOne = (message: (sequenceNumber: number) => TwilioMediaStream.InboundMessage) =>
        Effect.suspend(() => socket.send(TwilioMediaStream.encode(message(++sequence))))
      /** Sends messages in one go (nothing in between), numbering them. */
      const send = (messages: ReadonlyArray<(sequenceNumber: number) => TwilioMediaStream.InboundMessage>) =>
        lock.withPermit(
          messages.length === 1 ? sendOne(messages[0]!) : Effect.forEach(messages, sendOne, { discard: true })
        )
      const warned = new Set<string>()
      /** The warnings not yet logged of this stream (each kind logged once), to log with `logWarnings`. */
      const warnings: Array<string> = []
      const warnOnce = (kind: string, message: string): void => {
        if (warned.has(kind)) return
        warned.add(kind)
        warnings.push(`Simulated media stream ${streamSid} of call ${callSid}: ${message}`)
      }
      const logWarnings = Effect.suspend(() =>
        Effect.forEach(warnings.splice(0), (warning) => Effect.logWarning(warning), { discard: true })
      )

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
      const startedAt = clock.currentTimeMillisUnsafe()
      /** Now, in samples since the stream's start. */
      const position = () => (clock.currentTimeMillisUnsafe() - startedAt) * SAMPLES_PER_MS

      const playout = new Playout()
      const mouth = new Mouth()
      const heard = yield* Queue.sliding<string>(limits.maxHeard)
      const closed = yield* Deferred.make<void>()

      const echo = (names: ReadonlyArray<string>) =>
        send(names.map((name) => (sequenceNumber) => ({ _tag: "Mark", sequenceNumber, streamSid, mark: { name } })))
      /** Echoes the marks played, then hands the person what they heard. */
      const deliver = (played: Played): Effect.Effect<void> =>
        played.marks.length > 0
          ? Effect.andThen(echo(played.marks), Queue.offerAll(heard, played.heard))
          : Effect.sync(() => void Queue.offerAllUnsafe(heard, played.heard))

      // Playout: a player fiber sleeps until the queue's next entry is due, plays what is due,
      // and stops when the queue is empty. Entries are due in the order they are queued, so only
      // a new head can be due sooner than the player wakes (the queue was empty, or cleared):
      // then the reader starts a new player, and the one it replaces stops when it wakes.
      let generation = 0
      /** When the running player next plays (samples); `Infinity` when none is running. */
      let wakeAt = Infinity
      let player: Fiber.Fiber<void> | undefined
      const play = (mine: number) =>
        Effect.gen(function*() {
          while (mine === generation) {
            const now = position()
            const played = playout.advance(now)
            if (played.marks.length > 0 || played.heard.length > 0) {
              wakeAt = now // plays again as soon as this is delivered
              yield* deliver(played)
              continue
            }
            const due = playout.nextDue()
            if (due === undefined) {
              wakeAt = Infinity
              return
            }
            wakeAt = due
            yield* clock.sleep(Duration.millis(Math.ceil((due - now) / SAMPLES_PER_MS)))
          }
        })
      const schedule = Effect.suspend(() => {
        const due = playout.nextDue()
        if (due === undefined || due >= wakeAt) return Effect.void
        wakeAt = due
        return Effect.map(Effect.forkIn(play(++generation), scope), (fiber) => void (player = fiber))
      })

      // What the server sends: each batch the socket received together is handled in one
      // synchronous step, then its echoes are sent and the player is woken if it must be.
      const receive = (text: string, now: number, played: Played): void => {
        const decoded = TwilioMediaStream.decodeOutbound(text)
        if (Result.isFailure(decoded)) return warnOnce("invalid", `ignored ${decoded.failure.message}`)
        const message = decoded.success
        if (message._tag === "Unknown") return warnOnce(`event ${message.event}`, `ignored ${message.event}`)
        if (message.streamSid !== streamSid) return warnOnce("streamSid", "ignored a message for another stream")
        switch (message._tag) {
          case "OutboundMedia": {
            const samples = MuLaw.decode(Buffer.from(message.media.payload, "base64"))
            if (!playout.media(now, samples)) warnOnce("full", "playout buffer full, audio dropped")
            return
          }
          case "OutboundMark":
            if (!playout.mark(now, message.mark.name)) played.marks.push(message.mark.name)
            return
          case "Clear":
            playout.clear(now, played)
            return
        }
      }
      const reader = yield* Effect.forkScoped(
        Effect.gen(function*() {
          while (true) {
            const texts = yield* socket.read
            if (texts === undefined) return
            const now = position()
            const played: Played = { marks: [], heard: [] }
            for (const text of texts) receive(text, now, played)
            if (played.marks.length > 0 || played.heard.length > 0) yield* deliver(played)
            yield* schedule
            if (warnings.length > 0) yield* logWarnings
          }
        }).pipe(Effect.ensuring(Deferred.succeed(closed, undefined)))
      )

      // The person's audio, one frame every 20 ms on the stream's grid; a late frame goes at
      // once, and the ones after it too until the sender is back on the grid.
      const codes = Buffer.alloc(FRAME_SAMPLES)
      /** What the person says from now for a frame's length. */
      const capture = () => mouth.next(codes) ? codes.toString("base64") : SILENT_PAYLOAD
      const sender = yield* Effect.forkScoped(Effect.gen(function*() {
        // Each frame is captured from its start and sent at its end.
        let payload = capture()
        for (let chunk = 1;; chunk++) {
          const timestamp = (chunk - 1) * FRAME_MS
          const wait = startedAt + timestamp + FRAME_MS - clock.currentTimeMillisUnsafe()
          if (wait > 0) yield* clock.sleep(Duration.millis(wait))
          const captured = payload
          payload = capture()
          yield* send([(sequenceNumber) => ({
            _tag: "Media",
            sequenceNumber,
            media: { track: "inbound", chunk, timestamp, payload: captured },
            streamSid
          })])
        }
      }))

      const line: Line = {
        heard,
        say: (samples) =>
          Effect.suspend(() => {
            if (!mouth.say(samples)) warnOnce("mouth", "the person had too much to say")
            return logWarnings
          })
      }
      const ended = yield* Effect.raceAll([
        Effect.as(Deferred.await(closed), "closed" as const),
        Effect.as(options.person(line), "person" as const),
        Effect.as(options.hangUp, "carrier" as const)
      ])
      generation++ // a player still sleeping stops when it wakes
      yield* Fiber.interruptAll(player === undefined ? [sender, reader] : [sender, reader, player])
      if (ended !== "closed") {
        yield* send([(sequenceNumber) => ({ _tag: "Stop", sequenceNumber, stop: { accountSid, callSid }, streamSid })])
          .pipe(Effect.timeoutOption(Duration.millis(limits.stopTimeoutMs)))
        yield* socket.close
      }
      return ended === "person" ? "remote-hangup" : "local-hangup"
    })
  )
