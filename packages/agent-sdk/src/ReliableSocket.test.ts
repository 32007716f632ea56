import type { JsonObject } from "@voice-agent/agent-protocol/Json"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ScriptedServer } from "../test/support/ScriptedServer.ts"
import type { Connection, Frame } from "../test/support/ScriptedServer.ts"
import { SendBufferFullError, SocketClosedError } from "./Errors.ts"
import type { ReliableSocketOptions } from "./ReliableSocket.ts"
import { ReliableSocket } from "./ReliableSocket.ts"

let server: ScriptedServer
const sockets: Array<ReliableSocket> = []

beforeEach(async () => {
  server = await ScriptedServer.start()
})

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close()
  await server.close()
})

const open = (options: Partial<ReliableSocketOptions> = {}): ReliableSocket => {
  const socket = new ReliableSocket({
    url: server.wsUrl("v2/connect-call/call-1"),
    name: "call-connection-call-1",
    headers: { authorization: "Bearer test-key" },
    reconnectDelayMs: () => 20,
    ...options
  })
  sockets.push(socket)
  return socket
}

/** Reads `count` payloads from the socket. */
const read = async (socket: ReliableSocket, count: number): Promise<Array<JsonObject>> => {
  const payloads: Array<JsonObject> = []
  if (count === 0) return payloads
  for await (const payload of socket) {
    payloads.push(payload)
    if (payloads.length === count) break
  }
  return payloads
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `holds()` (an acknowledgement read off the wire), polling; fails after 5 s. */
const until = async (holds: () => boolean, what: string): Promise<void> => {
  for (const deadline = Date.now() + 5_000; !holds(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after 5 s`)
  }
}

/** Waits for `open`, answers `open-ack`. */
const accept = async (connection: Connection, lastSeen = 0): Promise<Frame> => {
  const frame = await connection.next("open")
  connection.send({ message_type: "open-ack", is_reopen: frame["is_reopen"], last_seen_sequence: lastSeen })
  return frame
}

describe("ReliableSocket", () => {
  it("opens with open / open-ack, with the headers, then numbers messages from 1", async () => {
    const socket = open()
    socket.send({ n: 1 })
    const connected = socket.connect()
    const connection = await server.nextConnection()
    expect(connection.headers.authorization).toBe("Bearer test-key")
    const frame = await connection.next()
    expect(frame).toEqual({
      message_type: "open",
      name: "call-connection-call-1",
      connection_id: socket.connectionId,
      is_reopen: false,
      last_seen_sequence: 0
    })
    expect(socket.connectionId).toMatch(/^[0-9a-f]{20}$/)
    expect(socket.state).toBe("connecting")
    connection.send({ message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 })
    await connected
    expect(socket.state).toBe("open")
    socket.send({ n: 2 })
    expect(await connection.next("message")).toEqual({ message_type: "message", sequence: 1, payload: { n: 1 } })
    expect(await connection.next("message")).toEqual({ message_type: "message", sequence: 2, payload: { n: 2 } })
    expect(socket.unacknowledged).toBe(2)
    connection.send({ message_type: "ack", last_seen_sequence: 2 })
    await until(() => socket.unacknowledged === 0, "acknowledged")
  })

  it("acknowledges every message and drops duplicates (still acknowledging them)", async () => {
    const socket = open()
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    for (
      const [sequence, payload] of [[1, { a: 1 }], [2, { a: 2 }], [2, { a: 2 }], [1, { a: 1 }], [3, { a: 3 }]] as const
    ) {
      connection.send({ message_type: "message", sequence, payload })
    }
    expect(await read(socket, 3)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }])
    const acks = [1, 2, 3, 4, 5].map(() => connection.next("ack"))
    expect((await Promise.all(acks)).map((ack) => ack["last_seen_sequence"])).toEqual([1, 2, 2, 2, 3])
    expect(socket.lastSeenSequence).toBe(3)
  })

  it("after an abrupt drop, reopens with the same connection id and resends only what the server has not seen", async () => {
    const socket = open()
    void socket.connect()
    const first = await server.nextConnection()
    await accept(first)
    socket.send({ c: 1 })
    socket.send({ c: 2 })
    socket.send({ c: 3 })
    expect((await first.next("message"))["sequence"]).toBe(1)
    expect((await first.next("message"))["sequence"]).toBe(2)
    expect((await first.next("message"))["sequence"]).toBe(3)
    first.send({ message_type: "ack", last_seen_sequence: 1 })
    first.send({ message_type: "message", sequence: 1, payload: { s: 1 } })
    first.send({ message_type: "message", sequence: 2, payload: { s: 2 } })
    expect(await read(socket, 2)).toEqual([{ s: 1 }, { s: 2 }])
    await first.next("ack")
    await first.next("ack")

    first.terminate()
    await sleep(5)
    socket.send({ c: 4 }) // while disconnected: buffered
    const second = await server.nextConnection()
    // The server saw client messages up to 2 (its ack of 2 was lost with the connection).
    const reopen = await accept(second, 2)
    expect(reopen).toEqual({
      message_type: "open",
      name: "call-connection-call-1",
      connection_id: socket.connectionId,
      is_reopen: true,
      last_seen_sequence: 2
    })
    expect(await second.next("message")).toEqual({ message_type: "message", sequence: 3, payload: { c: 3 } })
    expect(await second.next("message")).toEqual({ message_type: "message", sequence: 4, payload: { c: 4 } })
    // The server resends its message 2 (it never saw the ack) and goes on with 3.
    second.send({ message_type: "message", sequence: 2, payload: { s: 2 } })
    second.send({ message_type: "message", sequence: 3, payload: { s: 3 } })
    expect(await read(socket, 1)).toEqual([{ s: 3 }])
    expect(socket.unacknowledged).toBe(2)
    second.send({ message_type: "ack", last_seen_sequence: 4 })
    await until(() => socket.unacknowledged === 0, "acknowledged")
    expect(socket.state).toBe("open")
    // Nothing was sent twice on the second connection.
    expect(second.received.filter((frame) => frame["message_type"] === "message").map((frame) => frame["sequence"]))
      .toEqual([3, 4])
  })

  it("queues what is sent before the first open-ack and sends it in order after", async () => {
    const socket = open()
    socket.send({ k: "a" })
    socket.send({ k: "b" })
    void socket.connect()
    socket.send({ k: "c" })
    const connection = await server.nextConnection()
    await accept(connection)
    const payloads = await Promise.all([1, 2, 3].map(() => connection.next("message")))
    expect(payloads.map((frame) => [frame["sequence"], frame["payload"]])).toEqual([[1, { k: "a" }], [2, { k: "b" }], [
      3,
      { k: "c" }
    ]])
  })

  it("treats a server close as permanent: no reconnect, the reader ends, sending throws", async () => {
    const socket = open()
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    connection.send({ message_type: "message", sequence: 1, payload: { last: true } })
    connection.send({ message_type: "close", reason: "state-lost", description: "gone" })
    expect(await read(socket, 5)).toEqual([{ last: true }])
    expect(await socket.closed).toEqual({ reason: "state-lost", description: "gone" })
    expect(socket.state).toBe("closed")
    expect(() => socket.send({ x: 1 })).toThrow(SocketClosedError)
    await sleep(100)
    expect(server.waitingConnections).toBe(0)
  })

  it("fails to connect when the server answers open with close", async () => {
    const socket = open()
    const connected = socket.connect()
    const connection = await server.nextConnection()
    await connection.next("open")
    connection.send({ message_type: "close", reason: "authentication-failure", description: "bad key" })
    await expect(connected).rejects.toThrow(SocketClosedError)
    await expect(connected).rejects.toMatchObject({ reason: "authentication-failure" })
    await sleep(60)
    expect(server.waitingConnections).toBe(0)
  })

  it("pings after a silence and answers pings with pongs", async () => {
    const socket = open({ pingAfterMs: 50, deadAfterMs: 10_000 })
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    const ping = await connection.next("ping", 1_000)
    expect(typeof ping["ping_timestamp"]).toBe("number")
    connection.send({ message_type: "ping", ping_timestamp: 1234 })
    const pong = await connection.next("pong")
    expect(pong["ping_timestamp"]).toBe(1234)
    expect(typeof pong["pong_timestamp"]).toBe("number")
  })

  it("reopens a connection that stays silent too long", async () => {
    const socket = open({ pingAfterMs: 30, deadAfterMs: 90 })
    void socket.connect()
    const first = await server.nextConnection()
    await accept(first)
    const second = await server.nextConnection(2_000)
    expect((await accept(second))["is_reopen"]).toBe(true)
  })

  it("retries refused upgrades, then closes for good after maxFailures", async () => {
    await server.close()
    server = await ScriptedServer.start({ refuseUpgrades: 2 })
    const socket = open()
    const connected = socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    await connected

    const unreachable = new ReliableSocket({
      url: "ws://127.0.0.1:9/never",
      name: "listen-inbound",
      reconnectDelayMs: () => 5,
      maxFailures: 3
    })
    await expect(unreachable.connect()).rejects.toMatchObject({ reason: "reconnection-failed" })
  })

  it("closes for good on a protocol violation after the open-ack", async () => {
    const socket = open()
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    connection.sendText("not json")
    expect((await socket.closed).reason).toBe("server-error")
  })

  it("bounds the send buffer: a send beyond it throws and queues nothing", async () => {
    const socket = open({ maxBufferedMessages: 2 })
    socket.send({ n: 1 })
    socket.send({ n: 2 })
    expect(() => socket.send({ n: 3 })).toThrow(SendBufferFullError)
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    await connection.next("message")
    await connection.next("message")
    connection.send({ message_type: "ack", last_seen_sequence: 2 })
    await until(() => socket.unacknowledged === 0, "acknowledged")
    expect(socket.send({ n: 3 })).toBe(3)
  })

  it("close() ends the socket for good without a close frame", async () => {
    const socket = open()
    void socket.connect()
    const connection = await server.nextConnection()
    await accept(connection)
    socket.close()
    await connection.closed
    expect(connection.received.map((frame) => frame["message_type"])).toEqual(["open"])
    expect((await socket.closed).reason).toBe("done")
  })
})
