import { assert, describe, it } from "@effect/vitest"
import type * as Envelope from "@voice-agent/agent-protocol/Envelope"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { Effect, Fiber, Queue, Stream } from "effect"
import * as Channel from "./Channel.ts"

type Json = Record<string, unknown>

/** One connection: what the agent sends it, and what the server wrote on it. */
const connection = Effect.gen(function*() {
  const inbox = yield* Queue.unbounded<string | undefined>()
  const written: Array<Json> = []
  const socket: MediaSocket = {
    read: Effect.map(Queue.take(inbox), (frame) => frame === undefined ? undefined : [frame]),
    incoming: Stream.empty,
    send: (text) => Effect.sync(() => void written.push(JSON.parse(text) as Json)),
    close: Queue.offer(inbox, undefined).pipe(Effect.asVoid)
  }
  return {
    socket,
    written,
    /** A frame from the agent. */
    deliver: (frame: Json) => Queue.offer(inbox, JSON.stringify(frame)),
    /** The TCP connection is gone. */
    drop: Queue.offer(inbox, undefined)
  }
})

const open = (connectionId: string, isReopen: boolean, lastSeen: number): Envelope.Open => ({
  message_type: "open",
  name: "call-connection-1",
  connection_id: connectionId,
  is_reopen: isReopen,
  last_seen_sequence: lastSeen
})

const messages = (written: ReadonlyArray<Json>) =>
  written.filter((frame) => frame["message_type"] === "message").map((frame) => [frame["sequence"], frame["payload"]])

/** Lets the channel's fibers run. */
const settle = Effect.sleep("20 millis")

describe("Channel", () => {
  it.live("a reopen with the same connection_id resumes: open-ack, then what the agent had not seen", () =>
    Effect.gen(function*() {
      const channel = yield* Channel.make("test")
      const first = yield* connection
      const attached = yield* Effect.forkChild(channel.attach(first.socket, open("a", false, 0)))
      yield* settle
      for (const n of [1, 2, 3]) yield* channel.send({ n })
      yield* first.deliver({ message_type: "ack", last_seen_sequence: 1 })
      yield* first.deliver({ message_type: "message", sequence: 1, payload: { c: 1 } })
      yield* first.deliver({ message_type: "message", sequence: 1, payload: { c: 1 } })
      yield* first.drop
      assert.strictEqual(yield* Fiber.join(attached), "dropped")
      yield* channel.send({ n: 4 })

      const second = yield* connection
      yield* Effect.forkChild(channel.attach(second.socket, open("a", true, 2)))
      yield* settle
      assert.deepStrictEqual(second.written[0], { message_type: "open-ack", is_reopen: true, last_seen_sequence: 1 })
      assert.deepStrictEqual(messages(second.written), [[3, { n: 3 }], [4, { n: 4 }]])
      // The agent's duplicate was acknowledged twice and received once.
      assert.deepStrictEqual(
        first.written.filter((frame) => frame["message_type"] === "ack").map((frame) => frame["last_seen_sequence"]),
        [1, 1]
      )
      assert.deepStrictEqual(yield* Queue.takeAll(channel.received), [{ c: 1 }])
    }))

  it.live("a new connection_id takes over with fresh numbering; the old connection is closed", () =>
    Effect.gen(function*() {
      const channel = yield* Channel.make("test")
      const first = yield* connection
      yield* Effect.forkChild(channel.attach(first.socket, open("a", false, 0)))
      yield* settle
      for (const n of [1, 2]) yield* channel.send({ n })
      yield* first.deliver({ message_type: "ack", last_seen_sequence: 1 })
      yield* settle
      const second = yield* connection
      yield* Effect.forkChild(channel.attach(second.socket, open("b", false, 0)))
      yield* settle
      assert.deepStrictEqual(first.written.at(-1), {
        message_type: "close",
        reason: "other",
        description: "Another connection took over"
      })
      assert.deepStrictEqual(second.written[0], { message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 })
      assert.deepStrictEqual(messages(second.written), [[1, { n: 2 }]])
    }))

  it.live("the reopen of a connection the channel does not hold is numbered on from what that agent saw", () =>
    Effect.gen(function*() {
      // A fresh channel (another process served the agent before): what is queued goes out
      // after the agent's last sequence, which the agent would otherwise drop as duplicates.
      const fresh = yield* Channel.make("test")
      yield* fresh.send({ message_type: "listen-started", other_listeners: 0 })
      const reopened = yield* connection
      yield* Effect.forkChild(fresh.attach(reopened.socket, open("a", true, 5)))
      yield* settle
      yield* fresh.send({ n: 2 })
      assert.deepStrictEqual(reopened.written[0], { message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 })
      assert.deepStrictEqual(messages(reopened.written), [
        [6, { message_type: "listen-started", other_listeners: 0 }],
        [7, { n: 2 }]
      ])

      // A superseded connection that comes back: numbered on from what it saw, not from 1.
      const channel = yield* Channel.make("test")
      const a = yield* connection
      yield* Effect.forkChild(channel.attach(a.socket, open("a", false, 0)))
      yield* settle
      for (const n of [1, 2]) yield* channel.send({ n })
      yield* a.deliver({ message_type: "ack", last_seen_sequence: 2 })
      yield* a.drop
      yield* settle
      const b = yield* connection
      yield* Effect.forkChild(channel.attach(b.socket, open("b", false, 0)))
      yield* settle
      yield* channel.send({ n: 3 })
      assert.deepStrictEqual(messages(b.written), [[1, { n: 3 }]])
      const back = yield* connection
      yield* Effect.forkChild(channel.attach(back.socket, open("a", true, 2)))
      yield* settle
      yield* channel.send({ n: 4 })
      assert.deepStrictEqual(messages(back.written), [[3, { n: 3 }], [4, { n: 4 }]])
    }))
})
