/**
 * The reference SDK's reliable envelope (v2, "GuavaSocket"), the server's side: the frames, and
 * the pure bookkeeping of one connection's sequences.
 *
 * Frames are JSON text with a `message_type`: the client opens with `open` (`name`,
 * `connection_id`, `is_reopen`, `last_seen_sequence`), the server answers `open-ack`; then
 * `message` frames (`sequence`, `payload`) are numbered per direction from 1 and acknowledged
 * with `ack` (`last_seen_sequence`); `ping`/`pong` keep the connection alive; `close` (`reason`,
 * `description`) ends it for good.
 *
 * `Outbox`: what the server sent and the client has not acknowledged, resent after a reopen
 * (those past the client's `last_seen_sequence`). `Inbox`: the last sequence seen from the client;
 * a duplicate (at or below it) is dropped but acknowledged, as the client does.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Why a connection is closed (the reference's reasons).
 *
 * @category models
 */
export type CloseReason =
  | "authentication-failure"
  | "state-lost"
  | "done"
  | "other"
  | "server-error"
  | "reconnection-failed"
  | "unknown"

const Sequence = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * The client's first frame.
 *
 * @category schemas
 */
export const Open = Schema.Struct({
  message_type: Schema.Literal("open"),
  name: Schema.String,
  connection_id: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128)),
  is_reopen: Schema.Boolean,
  last_seen_sequence: Schema.optionalKey(Schema.NullOr(Sequence))
})

/**
 * @category models
 */
export type Open = typeof Open.Type

/**
 * A frame from the client after `open`.
 *
 * @category schemas
 */
export const ClientFrame = Schema.Union([
  Schema.Struct({
    message_type: Schema.Literal("message"),
    sequence: Sequence,
    payload: Schema.Record(Schema.String, Schema.Unknown)
  }),
  Schema.Struct({ message_type: Schema.Literal("ack"), last_seen_sequence: Sequence }),
  Schema.Struct({ message_type: Schema.Literal("ping"), ping_timestamp: Schema.optionalKey(Schema.Number) }),
  Schema.Struct({
    message_type: Schema.Literal("pong"),
    ping_timestamp: Schema.optionalKey(Schema.Number),
    pong_timestamp: Schema.optionalKey(Schema.Number)
  }),
  Schema.Struct({
    message_type: Schema.Literal("close"),
    reason: Schema.optionalKey(Schema.String),
    description: Schema.optionalKey(Schema.NullOr(Schema.String))
  }),
  Open
])

/**
 * @category models
 */
export type ClientFrame = typeof ClientFrame.Type

/**
 * A payload carried in a `message` frame: an event, a command or a discovery message.
 *
 * @category models
 */
export type Payload = { readonly [key: string]: unknown }

/**
 * Parses a text frame; `undefined` when it is not JSON or not a frame.
 *
 * @category decoding
 */
export const parse = (text: string): ClientFrame | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  const decoded = Schema.decodeUnknownOption(ClientFrame)(json)
  return decoded._tag === "Some" ? decoded.value : undefined
}

/**
 * @category encoding
 */
export const openAck = (isReopen: boolean, lastSeen: number): string =>
  JSON.stringify({ message_type: "open-ack", is_reopen: isReopen, last_seen_sequence: lastSeen })

/**
 * @category encoding
 */
export const message = (sequence: number, payload: Payload): string =>
  JSON.stringify({ message_type: "message", sequence, payload })

/**
 * @category encoding
 */
export const ack = (lastSeen: number): string => JSON.stringify({ message_type: "ack", last_seen_sequence: lastSeen })

/**
 * @category encoding
 */
export const ping = (now: number): string => JSON.stringify({ message_type: "ping", ping_timestamp: now })

/**
 * @category encoding
 */
export const pong = (pingTimestamp: number | undefined, now: number): string =>
  JSON.stringify({ message_type: "pong", ping_timestamp: pingTimestamp ?? now, pong_timestamp: now })

/**
 * @category encoding
 */
export const close = (reason: CloseReason, description: string): string =>
  JSON.stringify({ message_type: "close", reason, description })

/**
 * What the server sent and is not yet acknowledged.
 *
 * @category models
 */
export interface Outbox {
  readonly nextSequence: number
  readonly unacked: ReadonlyArray<{ readonly sequence: number; readonly payload: Payload }>
}

/**
 * @category constructors
 */
export const emptyOutbox: Outbox = { nextSequence: 1, unacked: [] }

/**
 * Numbers `payload`: the next outbox and the frame to send.
 *
 * @category combinators
 */
export const enqueue = (outbox: Outbox, payload: Payload): { readonly outbox: Outbox; readonly frame: string } => ({
  outbox: {
    nextSequence: outbox.nextSequence + 1,
    unacked: [...outbox.unacked, { sequence: outbox.nextSequence, payload }]
  },
  frame: message(outbox.nextSequence, payload)
})

/**
 * Drops what the client acknowledged (everything up to `lastSeen`).
 *
 * @category combinators
 */
export const acknowledge = (outbox: Outbox, lastSeen: number): Outbox => ({
  ...outbox,
  unacked: outbox.unacked.filter((entry) => entry.sequence > lastSeen)
})

/**
 * The same messages numbered from `first` on, in order: for a connection the outbox's numbering
 * was not for (a new client, or the reopen of one that saw other numbers).
 *
 * @category combinators
 */
export const renumber = (outbox: Outbox, first: number): Outbox => ({
  nextSequence: first + outbox.unacked.length,
  unacked: outbox.unacked.map((entry, index) => ({ sequence: first + index, payload: entry.payload }))
})

/**
 * After a reopen: the frames the client has not seen (past its `lastSeen`), in order, and the
 * outbox without what it had seen.
 *
 * @category combinators
 */
export const resend = (
  outbox: Outbox,
  lastSeen: number
): { readonly outbox: Outbox; readonly frames: ReadonlyArray<string> } => {
  const kept = acknowledge(outbox, lastSeen)
  return { outbox: kept, frames: kept.unacked.map((entry) => message(entry.sequence, entry.payload)) }
}

/**
 * Receiving `sequence` after `lastSeen`: whether it is new (a duplicate is dropped), and the
 * last sequence seen after it.
 *
 * @category combinators
 */
export const receive = (lastSeen: number, sequence: number): { readonly fresh: boolean; readonly lastSeen: number } =>
  sequence <= lastSeen ? { fresh: false, lastSeen } : { fresh: true, lastSeen: sequence }
