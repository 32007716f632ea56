/**
 * Self-test of the GuavaSocket replay (guava/socket/client.py) and of the strict payload validators
 * (guava/events.py, listen_inbound.py, guavadialer_events.py) against a tiny scripted `ws` server.
 */
import { afterEach, describe, expect, it } from "vitest"
import {
  decodeEventDict,
  decodeGuavadialerMessage,
  decodeListenInboundMessage,
  decodeServerFrame,
  SdkError,
  ValidationError
} from "./Events.ts"
import { fastTiming, GuavaSocket, GuavaSocketClosedError, sdkBackoffMs } from "./GuavaSocket.ts"
import { ScriptedServer, type ServerSocket } from "./ScriptedServer.ts"
import { sleep } from "./Watch.ts"

const headers = {
  Authorization: "Bearer gva-test",
  "x-guava-platform": "Linux",
  "x-guava-runtime": "CPython",
  "x-guava-runtime-version": "3.13.5",
  "x-guava-sdk": "python-sdk",
  "x-guava-sdk-version": "0.35.0"
}

let server: ScriptedServer | undefined
const sockets: Array<GuavaSocket> = []

afterEach(async () => {
  for (const s of sockets.splice(0)) {
    s.pauseReconnect()
    s.killConnection()
  }
  await server?.stop()
  server = undefined
})

const start = async () => {
  server = await ScriptedServer.start()
  return server
}

const socket = (s: ScriptedServer, timing = fastTiming(), name = "call-connection-c1") => {
  const gs = new GuavaSocket({
    name,
    url: s.baseUrl.replace("http://", "ws://") + "v2/connect-call/c1",
    headers,
    timing
  })
  sockets.push(gs)
  return gs
}

/** Answer the client's `open` with an open-ack. */
const ackOpen = async (conn: ServerSocket, lastSeen = 0, index = 0) => {
  const open = await conn.waitFrame("open", index)
  conn.send({ message_type: "open-ack", is_reopen: open["is_reopen"], last_seen_sequence: lastSeen })
  return open
}

describe("GuavaSocket: open and open-ack", () => {
  it("upgrades with the SDK's headers and sends open first, then waits for open-ack", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    expect(conn.path).toBe("/v2/connect-call/c1")
    expect(conn.headers["authorization"]).toBe("Bearer gva-test")
    expect(conn.headers["x-guava-sdk"]).toBe("python-sdk")
    expect(conn.headers["x-guava-sdk-version"]).toBe("0.35.0")
    expect(conn.headers["x-guava-runtime"]).toBe("CPython")
    expect(conn.headers["x-guava-platform"]).toBe("Linux")
    expect(conn.headers["x-guava-runtime-version"]).toBe("3.13.5")
    expect(conn.headers["user-agent"]).toBe("Python/3.13 websockets/15.0.1")
    expect(conn.headers["sec-websocket-extensions"]).toBe("permessage-deflate; client_max_window_bits")

    const open = await conn.waitFrame("open")
    expect(Object.keys(open)).toEqual(["message_type", "name", "connection_id", "is_reopen", "last_seen_sequence"])
    expect(open).toMatchObject({ name: "call-connection-c1", is_reopen: false, last_seen_sequence: 0 })
    expect(open["connection_id"]).toMatch(/^[0-9a-f]{20}$/)
    expect(gs.state).toBe("never-opened")

    conn.send({ message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 })
    await connecting
    expect(gs.is_open()).toBe(true)
    expect(gs.frames[0]?.direction).toBe("out")
    expect(gs.frames[1]).toMatchObject({ direction: "in", frame: { message_type: "open-ack" } })
  })

  it("treats close answering open as permanent, whatever its reason", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await conn.waitFrame("open")
    conn.send({ message_type: "close", reason: "state-lost", description: "no such call" })
    await expect(connecting).rejects.toThrow(GuavaSocketClosedError)
    expect(gs.closeReason).toBe("state-lost")
    await sleep(100)
    expect(s.sockets).toHaveLength(1)
  })

  it("retries an upgrade refused with 401, and a frame other than open-ack, with the same connection_id", async () => {
    const s = await start()
    s.refuseUpgrade = 401
    const gs = socket(s)
    const connecting = gs.connect()
    await gs.watch.waitFor(() => gs.transport.filter((t) => t.type === "upgrade-refused").length >= 2)
    s.refuseUpgrade = undefined
    const conn = await s.waitSocket()
    await conn.waitFrame("open")
    // Not an open-ack: a failed attempt, retried on a new connection.
    conn.send({ message_type: "ping", ping_timestamp: 1 })
    const conn2 = await s.waitSocket(1)
    const open2 = await ackOpen(conn2)
    await connecting
    expect(open2["is_reopen"]).toBe(false)
    expect(open2["connection_id"]).toBe(conn.received[0]?.["connection_id"])
    expect(gs.transport.find((t) => t.type === "upgrade-refused")).toMatchObject({ status: 401, body: "refused" })
  })

  it("gives up after 10 failed attempts (reconnection-failed)", async () => {
    const s = await start()
    s.refuseUpgrade = 403
    const gs = socket(s, fastTiming({ backoffMs: () => 1 }))
    await expect(gs.connect()).rejects.toThrow(/reconnection-failed/)
    expect(gs.transport.filter((t) => t.type === "dialing")).toHaveLength(10)
  })

  it("defaults to the SDK's backoff: ~1 s for attempts 1-3, ~5 s for 4-5, ~10 s after", () => {
    for (let i = 0; i < 50; i++) {
      expect(sdkBackoffMs(1)).toBeGreaterThanOrEqual(500)
      expect(sdkBackoffMs(3)).toBeLessThanOrEqual(1500)
      expect(sdkBackoffMs(4)).toBeGreaterThanOrEqual(3000)
      expect(sdkBackoffMs(5)).toBeLessThanOrEqual(7000)
      expect(sdkBackoffMs(6)).toBeGreaterThanOrEqual(5000)
      expect(sdkBackoffMs(10)).toBeLessThanOrEqual(15_000)
    }
  })
})

describe("GuavaSocket: messages and acks", () => {
  it("numbers its messages from 1, acks every message, drops duplicates but acks them, prunes on ack", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await ackOpen(conn)
    await connecting

    gs.send({ command_type: "set-task", task_id: "t" })
    gs.send({ command_type: "hangup" })
    const m1 = await conn.waitFrame("message", 0)
    const m2 = await conn.waitFrame("message", 1)
    expect(m1).toEqual({ message_type: "message", sequence: 1, payload: { command_type: "set-task", task_id: "t" } })
    expect(m2["sequence"]).toBe(2)
    expect(gs.unacked).toEqual([1, 2])
    conn.send({ message_type: "ack", last_seen_sequence: 1 })
    await gs.watch.waitFor(() => gs.unacked.length === 1)
    expect(gs.unacked).toEqual([2])

    conn.send({ message_type: "message", sequence: 1, payload: { event_type: "caller-speech", utterance: "hi" } })
    expect(await gs.recv()).toEqual({ event_type: "caller-speech", utterance: "hi" })
    expect(await conn.waitFrame("ack", 0)).toEqual({ message_type: "ack", last_seen_sequence: 1 })

    conn.send({ message_type: "message", sequence: 1, payload: { event_type: "caller-speech", utterance: "dup" } })
    expect(await conn.waitFrame("ack", 1)).toEqual({ message_type: "ack", last_seen_sequence: 1 })
    expect(gs.transport.some((t) => t.type === "duplicate" && t.sequence === 1)).toBe(true)

    conn.send({ message_type: "message", sequence: 2, payload: { event_type: "task-done", task_id: "t" } })
    expect(await gs.recv()).toEqual({ event_type: "task-done", task_id: "t" })
    expect(await conn.waitFrame("ack", 2)).toEqual({ message_type: "ack", last_seen_sequence: 2 })
    expect(gs.receivedPayloads()).toHaveLength(3)
  })

  it("answers ping with pong and pings after the receive timeout of silence", async () => {
    const s = await start()
    const gs = socket(s, fastTiming({ recvTimeoutMs: 150 }))
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await ackOpen(conn)
    await connecting
    conn.send({ message_type: "ping", ping_timestamp: 1234 })
    const pong = await conn.waitFrame("pong")
    expect(pong["ping_timestamp"]).toBe(1234)
    expect(typeof pong["pong_timestamp"]).toBe("number")
    const ping = await conn.waitFrame("ping", 0, 2000)
    expect(Object.keys(ping)).toEqual(["message_type", "ping_timestamp"])
  })
})

describe("GuavaSocket: reconnection", () => {
  it("reconnects after killConnection with is_reopen and the same connection_id, resending only what the server lacks", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    const open1 = await ackOpen(conn)
    await connecting

    // Server → client: messages 1 and 2 delivered.
    conn.send({ message_type: "message", sequence: 1, payload: { event_type: "caller-speech", utterance: "a" } })
    conn.send({ message_type: "message", sequence: 2, payload: { event_type: "caller-speech", utterance: "b" } })
    await conn.waitFrame("ack", 1)
    // Client → server: three messages, only the first acked.
    for (const n of [1, 2, 3]) gs.send({ command_type: "send-instruction", instruction: `i${n}` })
    await conn.waitFrame("message", 2)
    conn.send({ message_type: "ack", last_seen_sequence: 1 })
    await gs.watch.waitFor(() => gs.unacked.length === 2)

    gs.killConnection()
    // Sent while disconnected: buffered, goes out with the resends.
    await gs.watch.waitFor(() => gs.transport.some((t) => t.type === "ws-closed"))
    gs.send({ command_type: "send-instruction", instruction: "i4" })

    const conn2 = await s.waitSocket(1)
    const open2 = await conn2.waitFrame("open")
    expect(open2).toMatchObject({ is_reopen: true, last_seen_sequence: 2, connection_id: open1["connection_id"] })
    // The server had seen 2 of ours.
    conn2.send({ message_type: "open-ack", is_reopen: true, last_seen_sequence: 2 })
    const resent = await conn2.waitFrame("message", 1)
    expect(conn2.framesOf("message").map((m) => m["sequence"])).toEqual([3, 4])
    expect(resent["payload"]).toEqual({ command_type: "send-instruction", instruction: "i4" })
    expect(gs.frames.filter((f) => f.retransmission).map((f) => (f.frame as { sequence: number }).sequence)).toEqual([
      3,
      4
    ])

    // Server resends its message 2 (duplicate) and a new 3: only 3 is delivered, both acked.
    conn2.send({ message_type: "message", sequence: 2, payload: { event_type: "caller-speech", utterance: "b" } })
    conn2.send({ message_type: "message", sequence: 3, payload: { event_type: "caller-speech", utterance: "c" } })
    expect(await gs.recv()).toEqual({ event_type: "caller-speech", utterance: "a" })
    expect(await gs.recv()).toEqual({ event_type: "caller-speech", utterance: "b" })
    expect(await gs.recv()).toEqual({ event_type: "caller-speech", utterance: "c" })
    await conn2.waitFrame("ack", 1)
    expect(conn2.framesOf("ack").map((a) => a["last_seen_sequence"])).toEqual([2, 3])
    expect(gs.connectionCount).toBe(2)
  })

  it("never returns while reconnecting is paused (disappear), and resumes when released", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    await ackOpen(await s.waitSocket())
    await connecting
    gs.disappear()
    await sleep(300)
    expect(s.sockets).toHaveLength(1)
    expect(gs.state).toBe("open")
    gs.resumeReconnect()
    const conn2 = await s.waitSocket(1)
    const open = await ackOpen(conn2, 0)
    expect(open["is_reopen"]).toBe(true)
  })
})

describe("GuavaSocket: close and protocol violations", () => {
  it("treats a close mid-session as permanent: recv and send fail, no reconnect", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await ackOpen(conn)
    await connecting
    const pending = gs.recv()
    conn.send({ message_type: "close", reason: "done", description: "call over" })
    await expect(pending).rejects.toThrow(GuavaSocketClosedError)
    await gs.waitClosed()
    expect(gs.closeReason).toBe("done")
    expect(() => gs.send({ command_type: "x" })).toThrow(GuavaSocketClosedError)
    await expect(gs.recv()).rejects.toThrow(/Reason: done. Description: call over/)
    expect(await conn.waitClosed()).toBe(1000)
    await sleep(100)
    expect(s.sockets).toHaveLength(1)
  })

  it("loses payloads still unread when the socket closes (recv checks the state first)", async () => {
    const s = await start()
    const gs = socket(s)
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await ackOpen(conn)
    await connecting
    conn.send({
      message_type: "message",
      sequence: 1,
      payload: { event_type: "bot-session-ended", termination_reason: "user-hangup" }
    })
    conn.send({ message_type: "close", reason: "done", description: "bye" })
    await gs.waitClosed()
    await expect(gs.recv()).rejects.toThrow(GuavaSocketClosedError)
    expect(gs.transport.some((t) => t.type === "dropped-unread")).toBe(true)
    // It was acked all the same.
    expect(await conn.waitFrame("ack")).toEqual({ message_type: "ack", last_seen_sequence: 1 })
  })

  it("kills itself on a second open-ack, on invalid JSON and on a non-object payload", async () => {
    const violations: ReadonlyArray<unknown> = [
      { message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 },
      "{not json",
      { message_type: "message", sequence: 1, payload: [1, 2] }
    ]
    for (const violation of violations) {
      const s = await start()
      const gs = socket(s)
      const connecting = gs.connect()
      const conn = await s.waitSocket()
      await ackOpen(conn)
      await connecting
      conn.send(violation)
      await gs.waitClosed()
      expect(gs.failure).toBeInstanceOf(ValidationError)
      expect(gs.closeReason).toBe("unknown")
      await sleep(50)
      expect(s.sockets).toHaveLength(1)
      await s.stop()
    }
    server = undefined
  })

  it("client close() takes effect at the next wake-up (a ping after the idle timeout), then closes with 1000", async () => {
    const s = await start()
    const gs = socket(s, fastTiming({ recvTimeoutMs: 200 }))
    const connecting = gs.connect()
    const conn = await s.waitSocket()
    await ackOpen(conn)
    await connecting
    const t0 = Date.now()
    await gs.close()
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150)
    expect(conn.framesOf("ping")).toHaveLength(1)
    expect(conn.framesOf("close")).toHaveLength(0)
    expect(await conn.waitClosed()).toBe(1000)
    expect(gs.closeReason).toBe("done")
  })
})

describe("Events: strict validation as the SDK's pydantic models", () => {
  it("rejects outbound-call-failed with a non-integer error_code, and reports the lax coercion of '503'", () => {
    expect(() => decodeEventDict({ event_type: "outbound-call-failed", error_code: "busy", error_reason: "x" }))
      .toThrow(/OutboundCallFailed[\s\S]*error_code[\s\S]*int_parsing/)
    expect(() => decodeEventDict({ event_type: "outbound-call-failed", error_code: 486.5, error_reason: "x" }))
      .toThrow(ValidationError)
    const notes: Array<string> = []
    expect(decodeEventDict({ event_type: "outbound-call-failed", error_code: "503", error_reason: "busy" }, notes))
      .toEqual({ sequence: null, event_type: "outbound-call-failed", error_code: 503, error_reason: "busy" })
    expect(notes).toEqual(["OutboundCallFailed: outbound-call-failed.error_code: str \"503\" coerced to int"])
  })

  it("requires termination_reason from the literal set and defaults dnc to false", () => {
    expect(() => decodeEventDict({ event_type: "bot-session-ended", termination_reason: "completed" }))
      .toThrow(/BotSessionEnded[\s\S]*'user-hangup', 'bot-hangup', 'bot-failure', 'bot-transfer' or 'voicemail'/)
    expect(() => decodeEventDict({ event_type: "bot-session-ended" })).toThrow(/termination_reason[\s\S]*missing/)
    expect(() => decodeEventDict({ event_type: "bot-session-ended", termination_reason: "voicemail", dnc: null }))
      .toThrow(ValidationError)
    expect(decodeEventDict({ event_type: "bot-session-ended", termination_reason: "voicemail", sequence: 4 }))
      .toEqual({ sequence: 4, event_type: "bot-session-ended", termination_reason: "voicemail", dnc: false })
  })

  it("crashes without event_type, ignores unknown event types, checks literals and E.164", () => {
    expect(() => decodeEventDict({ content: "x" })).toThrow(/AssertionError/)
    expect(decodeEventDict({ event_type: "something-new", x: 1 })).toBeNull()
    expect(decodeEventDict({ event_type: 7 })).toBeNull()
    expect(() => decodeEventDict({ event_type: ["dtmf"] })).toThrow(/TypeError: unhashable type: 'list'/)
    expect(() => decodeEventDict({ event_type: "dtmf", digit: "a" })).toThrow(/DTMFPressedEvent/)
    expect(() => decodeEventDict({ event_type: "escalate", requested_by: "bot" })).toThrow(/EscalateEvent/)
    expect(() => decodeEventDict({ event_type: "inbound-call", caller_number: "5551234567" })).toThrow(/pattern/)
    expect(() => decodeEventDict({ event_type: "action-item-done", key: "k" })).toThrow(/payload[\s\S]*missing/)
    expect(decodeEventDict({ event_type: "action-item-done", key: "k", payload: null })).toMatchObject({
      payload: null
    })
    expect(() => decodeEventDict({ event_type: "task-done", task_id: 5 })).toThrow(/string_type/)
  })

  it("discovery sockets accept only their own messages: a warning kills the listener", () => {
    expect(() => decodeListenInboundMessage({ message_type: "warning", content: "slow down" })).toThrow(ValidationError)
    expect(() => decodeGuavadialerMessage({ message_type: "warning", content: "x" })).toThrow(ValidationError)
    expect(() => decodeGuavadialerMessage({ message_type: "initiate-and-assign-call", call_id: "c" }))
      .toThrow(/contact_data[\s\S]*missing/)
    expect(decodeGuavadialerMessage({ message_type: "initiate-and-assign-call", call_id: "c", contact_data: null }))
      .toEqual({ message_type: "initiate-and-assign-call", call_id: "c", contact_data: null })
  })

  it("validates call_info by its call_type tag (required) with E.164 numbers", () => {
    const assign = (callInfo: unknown) =>
      decodeListenInboundMessage({ message_type: "assign-call", call_id: "c1", call_info: callInfo })
    expect(() => assign({ from_number: null, to_number: "+15550100" })).toThrow(/union_tag_not_found/)
    expect(() => assign({ call_type: "pstn", to_number: "+15550100" })).toThrow(/from_number[\s\S]*missing/)
    expect(() => assign({ call_type: "pstn", from_number: "15550199", to_number: "+15550100" })).toThrow(/pattern/)
    expect(() => assign({ call_type: "pots" })).toThrow(/union_tag_invalid/)
    expect(assign({ call_type: "pstn", from_number: null, to_number: "+15550100" })).toEqual({
      message_type: "assign-call",
      call_id: "c1",
      call_info: { call_type: "pstn", from_number: null, to_number: "+15550100", caller_id: null }
    })
    expect(assign({ call_type: "sip", from_aor: "sip:a@b" })).toMatchObject({
      call_info: { call_type: "sip", sip_code: null, sip_headers: {} }
    })
    expect(() => assign({ call_type: "sip", from_aor: "sip:a@b", sip_headers: { x: 1 } })).toThrow(ValidationError)
  })

  it("validates envelope frames: sequence is an int, payload an object, close reasons a literal", () => {
    expect(decodeServerFrame("{\"message_type\":\"message\",\"sequence\":1,\"payload\":{}}")).toMatchObject({
      message_type: "message"
    })
    expect(() => decodeServerFrame("{\"message_type\":\"message\",\"sequence\":1.5,\"payload\":{}}")).toThrow(
      ValidationError
    )
    expect(() => decodeServerFrame("{\"message_type\":\"close\",\"reason\":\"bye\",\"description\":\"x\"}")).toThrow(
      ValidationError
    )
    expect(() => decodeServerFrame("[]")).toThrow(ValidationError)
    expect(new SdkError("X", "y").pythonType).toBe("X")
  })
})
