/**
 * The reliable envelope's frames (protocol v2): every WebSocket text frame on an agent socket is
 * one of these JSON objects, tagged by `message_type`. Application payloads (events, commands,
 * discovery messages) travel inside `message` frames.
 *
 * | `message_type` | direction | fields |
 * | - | - | - |
 * | `open` | client → server, first frame | `name`, `connection_id`, `is_reopen`, `last_seen_sequence` |
 * | `open-ack` | server → client | `is_reopen`, `last_seen_sequence` |
 * | `message` | both | `sequence` (per direction, from 1), `payload` (an object) |
 * | `ack` | both | `last_seen_sequence` |
 * | `ping` / `pong` | both | `ping_timestamp` (ms); `pong` adds `pong_timestamp` |
 * | `close` | both (this client never sends it) | `reason`, `description` |
 *
 * @since 0.1.0
 */
import type { JsonObject } from "./Json.ts"
import { isObject } from "./Json.ts"

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

export interface OpenFrame {
  readonly message_type: "open"
  readonly name: string
  readonly connection_id: string
  readonly is_reopen: boolean
  readonly last_seen_sequence: number
}

export interface OpenAckFrame {
  readonly message_type: "open-ack"
  readonly is_reopen: boolean
  readonly last_seen_sequence: number
}

export interface MessageFrame {
  readonly message_type: "message"
  readonly sequence: number
  readonly payload: JsonObject
}

export interface AckFrame {
  readonly message_type: "ack"
  readonly last_seen_sequence: number
}

export interface PingFrame {
  readonly message_type: "ping"
  readonly ping_timestamp: number
}

export interface PongFrame {
  readonly message_type: "pong"
  readonly ping_timestamp: number
  readonly pong_timestamp: number
}

export interface CloseFrame {
  readonly message_type: "close"
  readonly reason: CloseReason
  readonly description: string
}

export type ClientFrame = OpenFrame | MessageFrame | AckFrame | PingFrame | PongFrame
export type ServerFrame = OpenAckFrame | MessageFrame | AckFrame | PingFrame | PongFrame | CloseFrame

const isSequence = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/**
 * Reads one server frame from a WebSocket frame's text. Answers a sentence saying what is wrong
 * when the text is not JSON, not an object, or not a known frame with well-typed fields. An
 * unknown close `reason` reads as `unknown`.
 */
export const parseServerFrame = (text: string): ServerFrame | string => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return "the frame is not JSON"
  }
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
