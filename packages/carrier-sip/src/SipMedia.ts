/**
 * The media half of the SIP carrier: the engine's media session serving a call whose media is
 * an `RtpSession`. The `Carrier` adapter, once a dialog is up and its RTP session open, calls
 * `serve({ rtp, callId, token })` and the call has its agent, its recordings and its verdict,
 * exactly as a Twilio call has them: the session is the same code, fed the same events, on
 * the same timeline (docs/SIP.md says why this shape and not a session of its own).
 *
 * The session (`MediaSessions`, the engine's `MediaSession.serve` provided by whoever wires
 * the daemon: this package does not depend on the engine) reads and writes one end of an
 * in-memory `MediaSocket` pair through `RtpMediaCodec`; this module pumps the other end:
 *
 * - to the session: `Start` first, with the call's media token (the session's gate checks it,
 *   looks the call up and claims its stream, as for any carrier); then, in `rtp.incoming`'s
 *   order, each `Audio` as `Media` stamped `timestampMs = atMs` (the RTP timestamps mapped to
 *   the call's timeline by the jitter buffer, so the recordings are aligned as with Twilio and
 *   the session's `CarrierClock` reads the trunk's present off them), each `Gap` as `Media` of
 *   μ-law silence in 20 ms frames (the voice activity detector and the answering-machine
 *   detector hear the pause the person made, not audio glued together), each `Dtmf` as `Dtmf`,
 *   each `Played` as the echo of its `Mark`; and `Stop` when the dialog ends (`ended`) or the
 *   RTP session closes;
 * - from the session: `Media` to `rtp.play`, `Mark` to `rtp.mark` (echoed once what was queued
 *   before it has been sent), `Clear` (barge-in) to `rtp.clear`, which drops what is queued
 *   and echoes its marks at once;
 * - the session closing its end (the agent ended the call, or the stream was refused) runs
 *   `hangUp` once: the adapter's BYE.
 *
 * The RTP session's origin (`RtpSession.Options.originMs`) should be the answer, and `serve`
 * called then: the session counts its clock from the `Start` it reads, which this sends first.
 *
 * Bounds: each direction of the pair holds 256 frames; a session slow to read makes the pump
 * wait, and the RTP session's `incoming` (bounded, dropping) absorbs the rest.
 *
 * @since 0.1.0
 */
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { incomingOf } from "@voice-agent/core/ports/MediaSocket"
import type { MediaCodec } from "@voice-agent/media/MediaCodec"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Context, Effect, Fiber, Queue, Stream } from "effect"
import type { Cause } from "effect"
import * as RtpMediaCodec from "./RtpMediaCodec.ts"
import type * as RtpSession from "./RtpSession.ts"

/**
 * Where calls' media sessions run: the engine's `MediaSession.serve(socket, { codec })`, with
 * its services (agent, call events, conversations, recordings, secrets) provided.
 *
 * @category services
 */
export class MediaSessions extends Context.Service<MediaSessions, {
  /** Serves one stream until it ends; never fails. */
  readonly serve: (socket: MediaSocket, codec: MediaCodec) => Effect.Effect<void>
}>()("@voice-agent/carrier-sip/SipMedia/MediaSessions") {}

/**
 * @category models
 */
export interface ServeOptions {
  /** The call's RTP session; `serve` is its `incoming`'s one reader. */
  readonly rtp: RtpSession.RtpSession
  /** Names the stream to the session (its `streamId`): the dialog's Call-ID. */
  readonly callId: string
  /** The call's media token (`PlaceCallRequest.mediaToken`, or an inbound call's). */
  readonly token: string
  /** Completes when the dialog ends (a BYE, or ours): the session hears `Stop`. */
  readonly ended?: Effect.Effect<void> | undefined
  /** Run once when the session closes the stream: the adapter hangs up (BYE). */
  readonly hangUp?: Effect.Effect<void> | undefined
}

/** Frames a direction of the pair holds before its sender waits. */
const capacity = 256

const FRAME_MS = 20
const silence = new Uint8Array(FRAME_MS * 8).fill(MuLaw.SILENCE)

/** Two joined sockets; `closedByServer` says whether the session's end closed them. */
const pair = Effect.gen(function*() {
  const toServer = yield* Queue.bounded<string, Cause.Done>(capacity)
  const toCarrier = yield* Queue.bounded<string, Cause.Done>(capacity)
  const state = { closedByServer: false }
  const close = Effect.all([Queue.end(toServer), Queue.end(toCarrier)], { discard: true })
  const end = (inbox: Queue.Queue<string, Cause.Done>, outbox: Queue.Queue<string, Cause.Done>, server: boolean) => {
    const read = Queue.takeAll(inbox).pipe(Effect.catch(() => Effect.undefined))
    return {
      read,
      incoming: incomingOf(read),
      send: (text) => Effect.asVoid(Queue.offer(outbox, text)),
      close: server ? Effect.andThen(Effect.sync(() => void (state.closedByServer = true)), close) : close
    } satisfies MediaSocket
  }
  return { carrier: end(toCarrier, toServer, false), server: end(toServer, toCarrier, true), state }
})

/**
 * The frames for the session of one event of the RTP session.
 *
 * @category encoding
 */
export const framesOf = (event: RtpSession.Incoming): ReadonlyArray<string> => {
  switch (event._tag) {
    case "Audio":
      return [RtpMediaCodec.encodeInbound({ _tag: "Media", timestampMs: event.atMs, audio: event.audio })]
    case "Gap": {
      const frames: Array<string> = []
      for (let offset = 0; offset < event.durationMs; offset += FRAME_MS) {
        const ms = Math.min(FRAME_MS, event.durationMs - offset)
        frames.push(RtpMediaCodec.encodeInbound({
          _tag: "Media",
          timestampMs: event.atMs + offset,
          audio: ms === FRAME_MS ? silence : silence.subarray(0, Math.round(ms * 8))
        }))
      }
      return frames
    }
    case "Dtmf":
      return [RtpMediaCodec.encodeInbound({ _tag: "Dtmf", digit: event.digit })]
    case "Played":
      return [RtpMediaCodec.encodeInbound({ _tag: "Mark", name: event.name })]
  }
}

/**
 * Serves the call's media until the session ends (module header). Never fails.
 *
 * @category constructors
 */
export const serve = (options: ServeOptions): Effect.Effect<void, never, MediaSessions> =>
  Effect.scoped(Effect.gen(function*() {
    const sessions = yield* MediaSessions
    const { rtp } = options
    const { carrier, server, state } = yield* pair
    let hungUp = false
    const hangUp = Effect.suspend(() => {
      if (hungUp || options.hangUp === undefined) return Effect.void
      hungUp = true
      return options.hangUp
    })

    const session = yield* Effect.forkScoped(sessions.serve(server, RtpMediaCodec.codec))
    yield* carrier.send(RtpMediaCodec.encodeInbound({ _tag: "Start", streamId: options.callId, token: options.token }))

    // The person, until the dialog or the RTP session ends; then `Stop`.
    const person = Stream.runForEach(rtp.incoming, (event) => Effect.forEach(framesOf(event), carrier.send))
    yield* Effect.forkScoped(
      Effect.raceFirst(person, options.ended ?? Effect.never).pipe(
        Effect.andThen(carrier.send(RtpMediaCodec.encodeInbound({ _tag: "Stop" })))
      )
    )

    // The agent, until the session closes its end (then the call is hung up).
    yield* Effect.forkScoped(Effect.gen(function*() {
      for (let batch = yield* carrier.read; batch !== undefined; batch = yield* carrier.read) {
        for (const frame of batch) {
          const event = RtpMediaCodec.decodeOutbound(frame)
          if (event === undefined) continue
          switch (event._tag) {
            case "Media":
              yield* rtp.play(event.audio)
              break
            case "Mark":
              yield* rtp.mark(event.name)
              break
            case "Clear":
              yield* rtp.clear
              break
          }
        }
      }
      if (state.closedByServer) yield* Effect.uninterruptible(hangUp)
    }))

    yield* Fiber.join(session)
    // The session may end right after closing its end, before the reader above has seen it.
    if (state.closedByServer) yield* hangUp
  }))
