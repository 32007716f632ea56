/**
 * One logical connection of an SDK agent over the reference SDK's reliable envelope
 * (agent-protocol/Envelope), as the server keeps it: it outlives the WebSocket connections that
 * carry it. A connection that drops leaves the channel buffering what is sent; the agent's
 * reopen with the same `connection_id` gets `open-ack` with the last sequence the server saw
 * and every message it had not acknowledged, in order, with no loss and no duplicate. A new
 * `connection_id` takes the channel over with fresh numbering (what the old one had not
 * acknowledged is sent again under it). A reopen of a `connection_id` the channel does not
 * hold (taken over since, or opened on another process) takes it over too, numbered on from the
 * last sequence that client saw: it would drop anything at or below as a duplicate.
 *
 * The server answers `ping` with `pong` and never pings first (the client does after 10 s of
 * silence). A frame that is not JSON or not a frame is ignored and logged.
 *
 * @since 0.1.0
 */
import * as Envelope from "@voice-agent/agent-protocol/Envelope"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { Clock, Effect, Queue, Semaphore } from "effect"

/**
 * @category models
 */
export interface Channel {
  /** Sends a payload now, or when the agent is next connected. */
  readonly send: (payload: Envelope.Payload) => Effect.Effect<void>
  /** What the agent sent, in order, each once. */
  readonly received: Queue.Dequeue<Envelope.Payload>
  /**
   * Serves one WebSocket connection whose `open` has been read, until it closes. Answers
   * whether it ended because the agent went away (rather than a `close` or a takeover).
   */
  readonly attach: (socket: MediaSocket, open: Envelope.Open) => Effect.Effect<"dropped" | "closed">
  /** Sends `close` on the current connection and closes it. */
  readonly close: (reason: Envelope.CloseReason, description: string) => Effect.Effect<void>
  /** Whether a connection is attached now. */
  readonly connected: Effect.Effect<boolean>
}

/** Messages buffered for an agent that is away; past this, the oldest are dropped (logged). */
const MAX_BUFFERED = 10_000

/**
 * Sends `close` on a connection that has no channel (or never will) and closes it.
 *
 * @category constructors
 */
export const refuse = (socket: MediaSocket, reason: Envelope.CloseReason, description: string) =>
  Effect.andThen(socket.send(Envelope.close(reason, description)), socket.close)

/**
 * @category constructors
 */
export const make = (label: string): Effect.Effect<Channel> =>
  Effect.gen(function*() {
    const received = yield* Queue.bounded<Envelope.Payload>(1_024)
    const lock = yield* Semaphore.make(1)
    let outbox = Envelope.emptyOutbox
    let lastSeen = 0
    let connectionId: string | undefined
    let current: MediaSocket | undefined
    let generation = 0

    const send = (payload: Envelope.Payload) =>
      lock.withPermit(Effect.suspend(() => {
        const next = Envelope.enqueue(outbox, payload)
        const full = next.outbox.unacked.length > MAX_BUFFERED
        outbox = full ? { ...next.outbox, unacked: next.outbox.unacked.slice(1) } : next.outbox
        const dropped = full
          ? Effect.logWarning(`${label}: ${MAX_BUFFERED} messages unacknowledged; the oldest is dropped`)
          : Effect.void
        return Effect.andThen(dropped, current === undefined ? Effect.void : current.send(next.frame))
      }))

    const close = (reason: Envelope.CloseReason, description: string) =>
      lock.withPermit(Effect.suspend(() => {
        const socket = current
        current = undefined
        generation++
        return socket === undefined
          ? Effect.void
          : Effect.andThen(socket.send(Envelope.close(reason, description)), socket.close)
      }))

    const attach = (socket: MediaSocket, open: Envelope.Open) =>
      Effect.gen(function*() {
        const mine = yield* lock.withPermit(Effect.gen(function*() {
          const previous = current
          const resumed = open.is_reopen && open.connection_id === connectionId
          if (!resumed) {
            // A connection this channel does not hold. A new client: its numbering starts
            // afresh, and so does ours for what it has not seen. The reopen of one whose state
            // is not here (superseded by a takeover, or served by another process): ours goes on
            // after the last sequence it saw, since it drops anything at or below as a duplicate.
            const foreign = connectionId !== undefined && open.connection_id !== connectionId
            const peerSeen = open.is_reopen ? open.last_seen_sequence ?? 0 : 0
            if (foreign || peerSeen > 0) outbox = Envelope.renumber(outbox, peerSeen + 1)
            if (foreign) lastSeen = 0
            connectionId = open.connection_id
          }
          current = socket
          generation++
          if (previous !== undefined && previous !== socket) {
            yield* previous.send(Envelope.close("other", "Another connection took over")).pipe(
              Effect.andThen(previous.close)
            )
          }
          yield* socket.send(Envelope.openAck(resumed, lastSeen))
          const peerSeen = open.last_seen_sequence ?? 0
          const resent = Envelope.resend(outbox, resumed ? peerSeen : 0)
          outbox = resent.outbox
          for (const frame of resent.frames) yield* socket.send(frame)
          return generation
        }))
        const ended = yield* serve(socket, mine)
        yield* lock.withPermit(Effect.sync(() => {
          if (generation === mine) current = undefined
        }))
        return ended
      })

    const serve = (socket: MediaSocket, mine: number) =>
      Effect.gen(function*() {
        for (;;) {
          const frames = yield* socket.read
          if (frames === undefined) return generation === mine ? "dropped" as const : "closed" as const
          for (const text of frames) {
            const frame = Envelope.parse(text)
            if (frame === undefined) {
              yield* Effect.logWarning(`${label}: an unreadable frame from the agent was ignored`)
              continue
            }
            switch (frame.message_type) {
              case "message": {
                const seen = Envelope.receive(lastSeen, frame.sequence)
                lastSeen = seen.lastSeen
                yield* socket.send(Envelope.ack(lastSeen))
                if (seen.fresh) yield* Queue.offer(received, frame.payload)
                break
              }
              case "ack":
                yield* lock.withPermit(Effect.sync(() => {
                  outbox = Envelope.acknowledge(outbox, frame.last_seen_sequence)
                }))
                break
              case "ping":
                yield* socket.send(Envelope.pong(frame.ping_timestamp, yield* Clock.currentTimeMillis))
                break
              case "pong":
              case "open":
                break
              case "close":
                yield* socket.close
                return "closed" as const
            }
          }
        }
      })

    return {
      send,
      received,
      attach,
      close,
      connected: Effect.sync(() => current !== undefined)
    } satisfies Channel
  })
