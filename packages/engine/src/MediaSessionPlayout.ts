/**
 * The media session's playout of the agent's audio: `say`, `interrupt` and `sendDtmf` of the
 * agent's call, over the session's wire.
 *
 * The agent's audio goes out in chunks of at most `chunkMs` (a say's first audio at once, so the
 * person hears the reply start as soon as it exists), each followed by a mark, paced to at most
 * `aheadMs` ahead of playout. The pacing is a pump, run synchronously whenever the carrier's
 * clock moves: each mark's echo (which frees its chunk's length), each batch of the person's
 * frames and the session's quiet clock (`pumpUnsafe`), so a chunk goes out on the callback that
 * made room for it, with no timer of its own; a say's fiber only queues chunks, up to `aheadMs`
 * more, and waits to queue the rest once half of those are gone.
 *
 * A chunk is placed on the call's timeline where the carrier played it, known from its mark: the
 * carrier echoes a mark once the audio before it has played, so a chunk ends where its mark came
 * back on the carrier's clock (`markedUnsafe`'s position) and starts its length before, or where
 * the chunk before it ended if the carrier was still playing that one. The recordings, the
 * transcript's offsets and the turns' latency are then on the carrier's timeline, the person's
 * side's too, and a reply never seems to start before the speech it answers ends.
 *
 * A say ends when the mark after its last chunk comes back (`Played`), or early when it is
 * interrupted (`Interrupted`, with how much was heard). The pacing follows the marks too: the
 * audio still unplayed when a mark comes back plays after where that chunk ended, so a carrier
 * that plays later than foreseen is sent no more than `aheadMs` ahead of what it plays.
 * `interrupt` sends `Clear`; the chunks whose marks had not come back are placed as far as the
 * carrier can have played them (from where the last placed chunk ended, until now), the rest and
 * the chunks not sent yet dropped, so the `agent` recording keeps only what the person could
 * hear; `finish` (the call is over) does the same. `sendDtmf` plays the digits as tones
 * (`DtmfTones`): a wire with DTMF events is not assumed.
 *
 * @since 0.1.0
 */
import type { AudioFrame, Playback } from "@voice-agent/core/ports/Agent"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as DtmfTones from "@voice-agent/media/DtmfTones"
import type { OutboundEvent } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Deferred, Effect, Exit, Latch, Stream } from "effect"
import { concat } from "./internal/pcm.ts"

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS

/** A timeline position in whole ms, as the agent's clock (`elapsedMs`) counts. */
const msOf = (position: number) => Math.round(position / SAMPLES_PER_MS)

/**
 * One call's playout.
 *
 * @category models
 */
export interface Playout {
  readonly say: (audio: Stream.Stream<AudioFrame>) => Effect.Effect<Playback>
  readonly interrupt: Effect.Effect<void>
  readonly sendDtmf: (digits: string) => Effect.Effect<void>
  /**
   * The echo of mark `name`, read when the carrier's clock was at `position` (timeline samples):
   * the audio before it played, ending there. Synchronous, for the person's side.
   */
  readonly markedUnsafe: (name: string, position: number) => void
  /** The carrier's clock moved: sends what may go now. Synchronous, for the person's side. */
  readonly pumpUnsafe: () => void
  /** Whether the agent's audio sent so far plays past `position` (timeline samples). */
  readonly playingAfter: (position: number) => boolean
  /** Nothing more plays: a `say` in progress ends as interrupted, and later ones at once. */
  readonly finish: Effect.Effect<void>
}

/**
 * One say: where its audio went on the timeline, as its chunks are placed, and how many of its
 * chunks are queued or unplayed; `allDone` completes when that count reaches 0, for the say that
 * waits for it once it has queued its last chunk (one deferred a say, not one a chunk).
 */
interface Say {
  start: number | undefined
  end: number
  pending: number
  allDone: Deferred.Deferred<void> | undefined
}

/** A chunk of a say: queued to be sent, then sent and unplayed until its mark comes back. */
interface Chunk {
  readonly pcm: Int16Array
  readonly say: Say
  /** Its mark's name, once sent. */
  name: string
  /** The carrier's present when it was sent: it cannot have started playing before. */
  sentAt: number
}

/** The chunk played or was dropped: its say is done once all of its chunks are. */
const chunkDone = (chunk: Chunk) => {
  const say = chunk.say
  if (--say.pending === 0 && say.allDone !== undefined) Deferred.doneUnsafe(say.allDone, Exit.void)
}

/**
 * A playout sending with `send` (synchronously, in order), placing on `timeline`, `present`
 * being the carrier's present (timeline samples).
 *
 * @category constructors
 */
export const make = (options: {
  readonly send: (event: OutboundEvent) => void
  readonly timeline: CallTimeline.CallTimeline
  readonly present: () => number
  readonly chunkMs: number
  readonly aheadMs: number
}): Playout => {
  const { present, send, timeline } = options
  const chunk = options.chunkMs * SAMPLES_PER_MS
  const ahead = options.aheadMs * SAMPLES_PER_MS
  // `playoutEnd`: where the carrier will finish what it was sent, as foreseen when sending (for
  // pacing and barge-in); `placedEnd`: where the audio placed from the marks ends.
  let playoutEnd = 0
  let placedEnd = 0
  let markSeq = 0
  let generation = 0
  let finished = false
  const unplayed: Array<Chunk> = []
  // The chunks not sent yet, in order (says that overlap queue one after the other), and their
  // length.
  const queue: Array<Chunk> = []
  let queuedSamples = 0
  // Open while the say may queue more: closed at `aheadMs` queued, opened again at half.
  const room = Latch.makeUnsafe(true)

  const placeAt = (chunk: Chunk, start: number, samples: Int16Array) => {
    CallTimeline.place(timeline, "agent", start, samples)
    placedEnd = start + samples.length
    chunk.say.start ??= start
    chunk.say.end = placedEnd
  }

  /** The chunks sent and not echoed, placed as far as the carrier can have played them by `until`. */
  const settleUnplayed = (until: number) => {
    let played = true
    for (const entry of unplayed) {
      const start = Math.max(placedEnd, entry.sentAt)
      const length = played ? Math.min(entry.pcm.length, Math.max(0, until - start)) : 0
      if (length > 0) placeAt(entry, start, entry.pcm.subarray(0, length))
      if (length < entry.pcm.length) played = false
      chunkDone(entry)
    }
    unplayed.length = 0
  }

  /** Sends the queued chunks that may go now: at most `aheadMs` ahead of what the person hears. */
  const pumpUnsafe = () => {
    while (queue.length > 0) {
      const next = queue[0]!
      const sentAt = present()
      if (playoutEnd - sentAt > ahead) break
      queue.shift()
      queuedSamples -= next.pcm.length
      playoutEnd = Math.max(playoutEnd, sentAt) + next.pcm.length
      next.name = `m${++markSeq}`
      next.sentAt = sentAt
      unplayed.push(next)
      send({ _tag: "Media", audio: MuLaw.encode(next.pcm) })
      send({ _tag: "Mark", name: next.name })
    }
    if (queuedSamples * 2 <= ahead) room.openUnsafe()
  }

  const say = (audio: Stream.Stream<AudioFrame>): Effect.Effect<Playback> =>
    Effect.gen(function*() {
      const myGeneration = generation
      const thisSay: Say = { start: undefined, end: 0, pending: 0, allDone: undefined }
      const interrupted = () => {
        const nowMs = msOf(present())
        const startMs = thisSay.start === undefined ? nowMs : msOf(thisSay.start)
        return { _tag: "Interrupted", startMs, playedMs: Math.max(0, nowMs - startMs) } as const
      }
      if (finished) return interrupted()
      let queuedAny = false
      let pending: Array<Int16Array> = []
      let pendingSamples = 0
      /** Queues what is pending in chunks of at most `chunkMs` (a mark places its chunk: none is long). */
      const flush = () => {
        if (pendingSamples === 0 || generation !== myGeneration) return
        const pcm = concat(pending)
        pending = []
        pendingSamples = 0
        for (let at = 0; at < pcm.length; at += chunk) {
          const part = pcm.subarray(at, at + chunk)
          queue.push({ pcm: part, say: thisSay, name: "", sentAt: 0 })
          thisSay.pending++
          queuedSamples += part.length
          queuedAny = true
        }
        pumpUnsafe()
        if (queuedSamples >= ahead) room.closeUnsafe()
      }
      yield* Stream.runForEachArray(audio, (frames) =>
        Effect.suspend(() => {
          for (const frame of frames) {
            if (generation !== myGeneration) return Effect.void
            const pcm = frame.encoding === "pcm16" ? frame.samples : MuLaw.decode(frame.bytes)
            pending.push(pcm)
            pendingSamples += pcm.length
            // The first audio of a say goes out at once: the person hears the reply start
            // as soon as it exists; the rest goes in chunks.
            if (pendingSamples >= chunk || !queuedAny) flush()
          }
          return room.await
        }))
      flush()
      if (!queuedAny && generation === myGeneration) {
        const nowMs = msOf(present()) // nothing to play: played at once
        return { _tag: "Played", startMs: nowMs, endMs: nowMs } as const
      }
      if (thisSay.pending > 0) {
        thisSay.allDone = Deferred.makeUnsafe<void>()
        yield* Deferred.await(thisSay.allDone)
      }
      if (generation !== myGeneration || thisSay.start === undefined) return interrupted()
      return { _tag: "Played", startMs: msOf(thisSay.start), endMs: msOf(thisSay.end) } as const
    })

  const stop = Effect.sync(() => {
    generation++
    const now = present()
    settleUnplayed(now)
    for (const entry of queue) chunkDone(entry)
    queue.length = 0
    queuedSamples = 0
    room.openUnsafe()
    playoutEnd = Math.min(playoutEnd, now)
  })

  return {
    say,
    interrupt: Effect.andThen(stop, Effect.sync(() => send({ _tag: "Clear" }))),
    sendDtmf: (digits) =>
      say(
        Stream.fromIterable(
          DtmfTones.encode(digits).map((samples): AudioFrame => ({ encoding: "pcm16", samples, timestampMs: 0 }))
        )
      ).pipe(Effect.asVoid),
    markedUnsafe: (name, position) => {
      const echoed = unplayed.findIndex((entry) => entry.name === name)
      if (echoed < 0) return // cleared, or not ours
      // Marks come back in order: a chunk before this one whose echo is missing played too.
      const done = unplayed.splice(0, echoed + 1)
      let length = 0
      for (const entry of done) length += entry.pcm.length
      let start = Math.max(placedEnd, position - length)
      for (const entry of done) {
        placeAt(entry, start, entry.pcm)
        start = placedEnd
        chunkDone(entry)
      }
      // What is still unplayed follows where this ended: a carrier playing later than foreseen
      // (its buffer ran dry while the session was slow) moves the pacing with it, so it is never
      // sent more than `aheadMs` ahead of what it plays.
      let unplayedSamples = 0
      for (const entry of unplayed) unplayedSamples += entry.pcm.length
      playoutEnd = Math.max(playoutEnd, placedEnd + unplayedSamples)
      pumpUnsafe()
    },
    pumpUnsafe,
    playingAfter: (position) => playoutEnd > position,
    finish: Effect.andThen(stop, Effect.sync(() => void (finished = true)))
  }
}
