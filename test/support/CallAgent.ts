/**
 * A minimal SDK agent for daemon tests of direct calls (`POST /v2/create-outbound`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * A minimal agent on the reference SDK's call socket (`v2/connect-call/{call_id}`, the v2
 * envelope): it opens, sets a one-statement task, acknowledges every message, and answers the
 * event payloads it got once the session ended (`bot-session-ended` or `outbound-call-failed`).
 *
 * @category constructors
 */
export const attachAgent = (url: string, key: string, callId: string) =>
  Effect.callback<ReadonlyArray<Record<string, unknown>>, Error>((resume) => {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v2/connect-call/${callId}`, {
      headers: { authorization: `Bearer ${key}` }
    })
    const send = (frame: object) => socket.send(JSON.stringify(frame))
    const payloads: Array<Record<string, unknown>> = []
    socket.onopen = () =>
      send({
        message_type: "open",
        name: `call-connection-${callId}`,
        connection_id: "0123456789abcdef0123",
        is_reopen: false,
        last_seen_sequence: null
      })
    socket.onmessage = (message) => {
      const frame = JSON.parse(String(message.data))
      if (frame.message_type === "open-ack") {
        send({
          message_type: "message",
          sequence: 1,
          payload: {
            command_type: "set-task",
            task_id: "goodbye",
            objective: "Say goodbye",
            completion_criteria: "",
            action_items: [{ item_type: "say", key: "bye", statement: "Thanks for your time. Goodbye." }]
          }
        })
      } else if (frame.message_type === "message") {
        send({ message_type: "ack", last_seen_sequence: frame.sequence })
        payloads.push(frame.payload)
        if (["bot-session-ended", "outbound-call-failed"].includes(frame.payload.event_type)) {
          socket.close()
          resume(Effect.succeed(payloads))
        }
      } else if (frame.message_type === "ping") {
        send({ message_type: "pong", ping_timestamp: frame.ping_timestamp, pong_timestamp: Date.now() })
      }
    }
    socket.onerror = () => resume(Effect.fail(new Error(`connect-call/${callId} failed`)))
    return Effect.sync(() => socket.close())
  })
