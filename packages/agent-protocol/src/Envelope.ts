/**
 * The reliable envelope of the SDK-agent protocol v2 (the reference's "GuavaSocket"): one module
 * for both sides, the agent SDK (client) and the engine's SDK-agent server. Every WebSocket text
 * frame on an SDK agent's socket is one of these JSON objects, tagged by `message_type`.
 * Application payloads (events, commands, discovery messages) travel inside `message` frames.
 *
 * | `message_type` | direction | fields |
 * | - | - | - |
 * | `open` | client → server, first frame | `name`, `connection_id`, `is_reopen`, `last_seen_sequence` |
 * | `open-ack` | server → client | `is_reopen`, `last_seen_sequence` |
 * | `message` | both | `sequence` (per direction, from 1), `payload` (an object) |
 * | `ack` | both | `last_seen_sequence` |
 * | `ping` / `pong` | both | `ping_timestamp` (ms); `pong` adds `pong_timestamp` |
 * | `close` | both (the SDK never sends it) | `reason`, `description` |
 *
 * `Outbox`: what the server sent and the client has not acknowledged, resent after a reopen
 * (those past the client's `last_seen_sequence`). A duplicate (at or below the last sequence
 * seen) is dropped but acknowledged, on both sides (`receive`).
 *
 * No dependency: the agent SDK, which stands alone, imports it too.
 *
 * @since 0.1.0
 */
import type { JsonObject } from "./Json.ts"
import { isObject } from "./Json.ts"

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

const closeReasons: ReadonlySet<string> = new Set<CloseReason>([
  "authentication-failure",
  "state-lost",
  "done",
  "other",
  "server-error",
  "reconnection-failed",
  "unknown"
])

/**
 * A payload carried in a `message` frame: an event, a command or a discovery message.
 *
 * @category models
 */
export type Payload = { readonly [key: string]: unknown }

/**
 * The client's first frame (the server accepts a missing or null `last_seen_sequence`).
 *
 * @category models
 */
export interface Open {
  readonly message_type: "open"
  readonly name: string
  readonly connection_id: string
  readonly is_reopen: boolean
  readonly last_seen_sequence?: number | null
}

/**
 * @category models
 */
export interface OpenAck {
  readonly message_type: "open-ack"
  readonly is_reopen: boolean
  readonly last_seen_sequence: number
}

/**
 * @category models
 */
export interface Message {
  readonly message_type: "message"
  readonly sequence: number
  readonly payload: JsonObject
}

/**
 * @category models
 */
export interface Ack {
  readonly message_type: "ack"
  readonly last_seen_sequence: number
}

/**
 * @category models
 */
export interface Ping {
  readonly message_type: "ping"
  readonly ping_timestamp?: number
}

/**
 * @category models
 */
export interface Pong {
  readonly message_type: "pong"
  readonly ping_timestamp?: number
  readonly pong_timestamp?: number
}

/**
 * A `close` as a client may send it (the server reads its fields loosely).
 *
 * @category models
 */
export interface ClientClose {
  readonly message_type: "close"
  readonly reason?: string
  readonly description?: string | null
}

/**
 * A `close` as the server sends it (the SDK reads an unknown reason as `unknown`).
 *
 * @category models
 */
export interface Close {
  readonly message_type: "close"
  readonly reason: CloseReason
  readonly description: string
}

/**
 * A frame from the client.
 *
 * @category models
 */
export type ClientFrame = Open | Message | Ack | Ping | Pong | ClientClose

/**
 * A frame from the server, as the SDK reads it (timestamps always present).
 *
 * @category models
 */
export type ServerFrame =
  | OpenAck
  | Message
  | Ack
  | (Ping & { readonly ping_timestamp: number })
  | (Pong & { readonly ping_timestamp: number; readonly pong_timestamp: number })
  | Close

const isSequence = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

const json = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** Present and a number (undefined when absent; `false` when present and not a number). */
const optionalNumber = (frame: Record<string, unknown>, key: string): number | undefined | false =>
  !(key in frame) ? undefined : typeof frame[key] === "number" ? frame[key] : false

/** The frame with only the keys that are present (a missing optional key stays missing). */
const present = (frame: { readonly [key: string]: unknown }): ClientFrame =>
  Object.fromEntries(Object.entries(frame).filter(([, value]) => value !== undefined)) as unknown as ClientFrame

const clientFrame = (frame: Record<string, unknown>): ClientFrame | undefined => {
  switch (frame["message_type"]) {
    case "message": {
      const { sequence, payload } = frame
      return isSequence(sequence) && isObject(payload)
        ? { message_type: "message", sequence, payload: payload as JsonObject }
        : undefined
    }
    case "ack":
      return isSequence(frame["last_seen_sequence"])
        ? { message_type: "ack", last_seen_sequence: frame["last_seen_sequence"] }
        : undefined
    case "ping": {
      const ping = optionalNumber(frame, "ping_timestamp")
      return ping === false ? undefined : present({ message_type: "ping", ping_timestamp: ping })
    }
    case "pong": {
      const ping = optionalNumber(frame, "ping_timestamp")
      const pong = optionalNumber(frame, "pong_timestamp")
      return ping === false || pong === false
        ? undefined
        : present({ message_type: "pong", ping_timestamp: ping, pong_timestamp: pong })
    }
    case "close": {
      const { reason, description } = frame
      if ("reason" in frame && typeof reason !== "string") return undefined
      if ("description" in frame && description !== null && typeof description !== "string") return undefined
      return present({
        message_type: "close",
        reason,
        description
      })
    }
    case "open": {
      const { name, connection_id, is_reopen, last_seen_sequence } = frame
      if (typeof name !== "string" || typeof is_reopen !== "boolean") return undefined
      if (typeof connection_id !== "string" || connection_id.length < 1 || connection_id.length > 128) return undefined
      if ("last_seen_sequence" in frame && last_seen_sequence !== null && !isSequence(last_seen_sequence)) {
        return undefined
      }
      return present({
        message_type: "open",
        name,
        connection_id,
        is_reopen,
        last_seen_sequence
      })
    }
    default:
      return undefined
  }
}

/**
 * The server's reading of a client's text frame; `undefined` when it is not JSON or not a frame.
 * Only the frame's known fields are kept.
 *
 * @category decoding
 */
export const parse = (text: string): ClientFrame | undefined => {
  const parsed = json(text)
  return parsed !== undefined && isObject(parsed.value) ? clientFrame(parsed.value) : undefined
}

/**
 * The SDK's reading of a server's text frame. Answers a sentence saying what is wrong when the
 * text is not JSON, not an object, or not a known frame with well-typed fields. An unknown close
 * `reason` reads as `unknown`.
 *
 * @category decoding
 */
export const parseServerFrame = (text: string): ServerFrame | string => {
  const parsed = json(text)
  if (parsed === undefined) return "the frame is not JSON"
  const value = parsed.value
  if (!isObject(value)) return "the frame is not a JSON object"
  switch (value["message_type"]) {
    case "open-ack": {
      const { is_reopen, last_seen_sequence } = value
      if (typeof is_reopen !== "boolean" || !isSequence(last_seen_sequence)) {
        return "open-ack needs is_reopen (boolean) and last_seen_sequence (integer)"
      }
      return { message_type: "open-ack", is_reopen, last_seen_sequence }
    }
    case "message": {
      const { sequence, payload } = value
      if (!isSequence(sequence) || sequence === 0) return "message needs a positive integer sequence"
      if (!isObject(payload)) return "message needs an object payload"
      return { message_type: "message", sequence, payload: payload as JsonObject }
    }
    case "ack": {
      const { last_seen_sequence } = value
      if (!isSequence(last_seen_sequence)) return "ack needs last_seen_sequence (integer)"
      return { message_type: "ack", last_seen_sequence }
    }
    case "ping": {
      const { ping_timestamp } = value
      if (typeof ping_timestamp !== "number") return "ping needs ping_timestamp (number)"
      return { message_type: "ping", ping_timestamp }
    }
    case "pong": {
      const { ping_timestamp, pong_timestamp } = value
      if (typeof ping_timestamp !== "number" || typeof pong_timestamp !== "number") {
        return "pong needs ping_timestamp and pong_timestamp (numbers)"
      }
      return { message_type: "pong", ping_timestamp, pong_timestamp }
    }
    case "close": {
      const { reason, description } = value
      return {
        message_type: "close",
        reason: typeof reason === "string" && closeReasons.has(reason) ? reason as CloseReason : "unknown",
        description: typeof description === "string" ? description : ""
      }
    }
    default:
      return `unknown message_type ${JSON.stringify(value["message_type"])}`
  }
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
