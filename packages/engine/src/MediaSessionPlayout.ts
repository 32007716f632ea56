/**
 * The media session's playout of the agent's audio: `say`, `interrupt` and `sendDtmf` of the
 * agent's call, over the session's wire.
 *
 * The agent's audio goes out in chunks of `chunkMs` (a say's first audio at once, so the person
 * hears the reply start as soon as it exists), each followed by a mark, paced to at most
 * `aheadMs` ahead of playout, and is placed on the call's timeline at its playout time (the
 * carrier plays what it is sent in order). A say ends when the mark after its last chunk comes
 * back (`Played`), or early when it is interrupted (`Interrupted`, with how much was heard).
 * `interrupt` sends `Clear` and truncates the timeline's agent channel at the present, so the
 * `agent` recording keeps only what the person could hear. `sendDtmf` plays the digits as
 * tones (`DtmfTones`): a wire with DTMF events is not assumed.
 *
 * @since 0.1.0
 */
import type { AudioFrame, Playback } from "@voice-agent/core/ports/Agent"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as DtmfTones from "@voice-agent/media/DtmfTones"
import type { OutboundEvent } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Deferred, Duration, Effect, Exit, Stream } from "effect"
import { concat } from "./internal/pcm.ts"

const SAMPLES_PER_MS = CallTimeline.SAMPLES_PER_MS

/**
 * One call's playout.
 *
 * @category models
 */
export interface Playout {
  readonly say: (audio: Stream.Stream<AudioFrame>) => Effect.Effect<Playback>
  readonly interrupt: Effect.Effect<void>
  readonly sendDtmf: (digits: string) => Effect.Effect<void>
  /** The echo of mark `name`: the audio before it played. Synchronous, for the person's side. */
  readonly markedUnsafe: (name: string) => void
  /** Whether the agent's audio sent so far plays past `position` (timeline samples). */
  readonly playingAfter: (position: number) => boolean
  /** Nothing more plays: a `say` in progress ends as interrupted, and later ones at once. */
  readonly finish: Effect.Effect<void>
}

/**
 * A playout sending with `send`, placing on `timeline`, `elapsedMs` being the stream's present.
 *
 * @category constructors
 */
export const make = (options: {
  readonly send: (event: OutboundEvent) => Effect.Effect<void>
  readonly timeline: CallTimeline.CallTimeline
  readonly elapsedMs: Effect.Effect<number>
  readonly chunkMs: number
  readonly aheadMs: number
}): Playout => {
  const { elapsedMs, send, timeline } = options
  // `playoutEnd` is where the carrier will finish what it was sent (in timeline samples); each
  // chunk's mark resolves its waiter.
  let playoutEnd = 0
  let markSeq = 0
  let generation = 0
  let finished = false
  const marks = new Map<string, Deferred.Deferred<void>>()
  const nowPosition = Effect.map(elapsedMs, (ms) => ms * SAMPLES_PER_MS)

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
        const ahead = playoutEnd - now - options.aheadMs * SAMPLES_PER_MS
        if (ahead > 0) yield* Effect.sleep(Duration.millis(ahead / SAMPLES_PER_MS))
        if (generation !== myGeneration) return
        const position = Math.max(playoutEnd, yield* nowPosition)
        CallTimeline.place(timeline, "agent", position, pcm)
        playoutEnd = position + pcm.length
        const name = `m${++markSeq}`
        const played = yield* Deferred.make<void>()
        marks.set(name, played)
        last = played
        yield* send({ _tag: "Media", audio: MuLaw.encode(pcm) })
        yield* send({ _tag: "Mark", name })
      })
      const chunk = options.chunkMs * SAMPLES_PER_MS
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

  const releaseMarks = Effect.gen(function*() {
    for (const waiter of marks.values()) yield* Deferred.succeed(waiter, undefined)
    marks.clear()
  })

  const interrupt = Effect.gen(function*() {
    generation++
    const now = yield* nowPosition
    CallTimeline.truncate(timeline, "agent", Math.max(timeline.cursor, now))
    playoutEnd = Math.min(playoutEnd, now)
    yield* send({ _tag: "Clear" })
    yield* releaseMarks
  })

  return {
    say,
    interrupt,
    sendDtmf: (digits) =>
      say(
        Stream.fromIterable(
          DtmfTones.encode(digits).map((samples): AudioFrame => ({ encoding: "pcm16", samples, timestampMs: 0 }))
        )
      ).pipe(Effect.asVoid),
    markedUnsafe: (name) => {
      const waiter = marks.get(name)
      if (waiter !== undefined) Deferred.doneUnsafe(waiter, Exit.void)
      marks.delete(name)
    },
    playingAfter: (position) => playoutEnd > position,
    finish: Effect.andThen(
      Effect.sync(() => {
        generation++
        finished = true
      }),
      releaseMarks
    )
  }
}
