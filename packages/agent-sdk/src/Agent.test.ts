import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { Peer, ScriptedServer } from "../test/support/ScriptedServer.ts"
import type { HttpReply, HttpRequest } from "../test/support/ScriptedServer.ts"
import { Agent } from "./Agent.ts"
import type { AgentOptions } from "./Agent.ts"
import type { CallInfo } from "./CallInfo.ts"
import type { CallOutcome } from "./CallOutcome.ts"
import { Field, Say } from "./Checklist.ts"
import { ApiError, SocketClosedError } from "./Errors.ts"
import { silentLogger } from "./Logger.ts"

let server: ScriptedServer

beforeEach(async () => {
  server = await ScriptedServer.start()
})

afterEach(async () => {
  await server.close()
})

const makeAgent = (options: AgentOptions = {}): Agent =>
  new Agent({
    name: "Riley",
    organization: "Acme Dental",
    purpose: "to confirm appointments",
    baseUrl: server.baseUrl,
    apiKey: "va-test-key",
    logger: silentLogger,
    socket: { reconnectDelayMs: () => 10 },
    ...options
  })

const route = (routes: Record<string, HttpReply>) => (request: HttpRequest): HttpReply =>
  routes[`${request.method} ${request.url.pathname}`] ?? { status: 404, json: { detail: "Not Found" } }

const persona = {
  command_type: "set-persona",
  agent_name: "Riley",
  organization_name: "Acme Dental",
  agent_purpose: "to confirm appointments",
  voice: null
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("Agent.callPhone", () => {
  it("places the call, attaches in order (persona, hooks, variables, onCallStart), survives a reconnect, and resolves with the outcome", async () => {
    server.onHttp(route({ "POST /v2/create-outbound": { status: 200, json: { call_id: "call-42" } } }))
    const agent = makeAgent()
      .onCallStart(async (call) => {
        await sleep(5)
        call.setTask("confirm", {
          objective: "Confirm tomorrow's cleaning",
          checklist: [
            new Say("Hi, this is Riley from Acme Dental.", "hello"),
            new Field({ key: "ok", fieldType: "multiple_choice", choices: ["yes", "no"] })
          ]
        })
      })
      .onTaskComplete("confirm", (call) => call.hangup(`They answered ${call.getText("ok") ?? "nothing"}.`))
      .onQuestion(() => "We open at nine.")
    const outcome = agent.callPhone({ from: "+15550100", to: "+15550123", variables: { name: "Ada", visits: 3 } })

    const first = await server.nextConnection()
    const [request] = server.requests
    expect(request?.url.searchParams.get("from_number")).toBe("+15550100")
    expect(request?.url.searchParams.get("to_number")).toBe("+15550123")
    expect(request?.headers.authorization).toBe("Bearer va-test-key")
    expect(request?.headers["x-guava-sdk"]).toBe("voice-agent-typescript")
    expect(first.url.pathname).toBe("/v2/connect-call/call-42")
    expect(first.headers.authorization).toBe("Bearer va-test-key")

    const peer = new Peer(first)
    expect(await peer.accept()).toMatchObject({ name: "call-connection-call-42", is_reopen: false })
    const attach = await peer.receiveMany(5)
    expect(attach).toEqual([
      persona,
      {
        command_type: "registered-hooks",
        has_on_question: true,
        has_on_intent: false,
        has_on_action_requested: false,
        has_on_escalate: false,
        accept_dtmf_for_numbers: true
      },
      { command_type: "set-variable", key: "name", value: "Ada" },
      { command_type: "set-variable", key: "visits", value: 3 },
      expect.objectContaining({ command_type: "set-task", task_id: "confirm", completion_criteria: "" })
    ])

    // The connection drops; the client reopens it and nothing is lost or repeated.
    peer.send({ event_type: "action-item-done", key: "ok", payload: "yes" })
    await first.next("ack")
    first.terminate()
    const second = await server.nextConnection()
    const reopened = new Peer(second)
    expect(await reopened.accept(5)).toMatchObject({
      name: "call-connection-call-42",
      is_reopen: true,
      last_seen_sequence: 1
    })
    // Numbering goes on across the reopen.
    second.send({ message_type: "message", sequence: 2, payload: { event_type: "task-done", task_id: "confirm" } })
    const hangup = await second.next("message")
    expect(hangup).toMatchObject({
      sequence: 6,
      payload: { command_type: "send-instruction", instruction: expect.stringContaining("They answered yes.") }
    })
    second.send({
      message_type: "message",
      sequence: 3,
      payload: { event_type: "bot-session-ended", termination_reason: "bot-hangup", dnc: false }
    })

    expect(await outcome).toEqual({
      status: "ended",
      callId: "call-42",
      terminationReason: "bot-hangup",
      dnc: false,
      fields: { ok: "yes" }
    })
    await second.closed
    expect(second.received.filter((frame) => frame["message_type"] === "message")).toHaveLength(1)
  })

  it("resolves with a failed outcome on outbound-call-failed and runs onOutboundFailed", async () => {
    server.onHttp(route({ "POST /v2/create-outbound": { status: 200, json: { call_id: "call-7" } } }))
    const failures: Array<string> = []
    const agent = makeAgent().onOutboundFailed((call, event) => void failures.push(`${call.id} ${event.errorReason}`))
    const outcome = agent.callPhone({ from: "+15550100", to: "+15550123" })
    const peer = new Peer(await server.nextConnection())
    await peer.accept()
    peer.send({ event_type: "outbound-call-failed", error_code: 486, error_reason: "busy" })
    expect(await outcome).toEqual({
      status: "failed",
      callId: "call-7",
      errorCode: 486,
      errorReason: "busy",
      fields: {}
    })
    expect(failures).toEqual(["call-7 busy"])
  })

  it("reachPerson / onReachPerson: the availability recorded reaches the handler", async () => {
    server.onHttp(route({ "POST /v2/create-outbound": { status: 200, json: { call_id: "call-9" } } }))
    const seen: Array<string | undefined> = []
    const agent = makeAgent()
      .onCallStart((call) => call.reachPerson("Ada Lovelace"))
      .onReachPerson((call, availability) => {
        seen.push(availability)
        call.hangup()
      })
    const outcome = agent.callPhone({ from: "+15550100", to: "+15550123" })
    const peer = new Peer(await server.nextConnection())
    await peer.accept()
    const attach = await peer.receiveMany(4)
    expect(attach.slice(2).map((payload) => payload["command_type"])).toEqual(["set-variable", "set-task"])
    peer.send({ event_type: "action-item-done", key: "contact_availability", payload: "available" })
    peer.send({ event_type: "task-done", task_id: "reach_person" })
    expect(await peer.receive()).toMatchObject({ command_type: "send-instruction" })
    peer.send({ event_type: "bot-session-ended", termination_reason: "bot-hangup", dnc: false })
    expect(await outcome).toMatchObject({ status: "ended", fields: { contact_availability: "available" } })
    expect(seen).toEqual(["available"])
  })

  it("rejects with ApiError when the call cannot be placed", async () => {
    server.onHttp(() => ({ status: 403, json: { detail: "Outbound dialing is not enabled" } }))
    await expect(makeAgent().callPhone({ from: "+15550100", to: "+15550123" })).rejects.toThrow(ApiError)
  })
})

describe("Agent.listenPhone", () => {
  it("claims incoming calls, answers or declines by onCallReceived, attaches, and stops on abort after the call ends", async () => {
    const received: Array<CallInfo> = []
    const outcomes: Array<CallOutcome> = []
    const controller = new AbortController()
    const agent = makeAgent()
      .onCallReceived((info) => {
        received.push(info)
        return info.callType === "pstn" && info.fromNumber === "+15550111" ? "accept" : "decline"
      })
      .onCallStart((call) => call.setTask("greet", { checklist: [`Greet the caller from ${call.info.callType}`] }))
    const started: Array<number> = []
    const listening = agent.listenPhone("+15550100", {
      signal: controller.signal,
      onCallEnd: (o) => outcomes.push(o),
      onListening: (others) => started.push(others)
    })

    const connection = await server.nextConnection()
    expect(connection.url.pathname).toBe("/v2/listen-inbound")
    expect(connection.url.searchParams.get("phone_number")).toBe("+15550100")
    const listener = new Peer(connection)
    expect(await listener.accept()).toMatchObject({ name: "listen-inbound", is_reopen: false })
    expect(started).toEqual([])
    listener.send({ message_type: "listen-started", other_listeners: 0 })

    listener.send({ message_type: "incoming-call", call_id: "in-1" })
    expect(await listener.receive()).toEqual({ message_type: "claim-call", call_id: "in-1" })
    expect(started).toEqual([0])
    listener.send({
      message_type: "assign-call",
      call_id: "in-1",
      call_info: { call_type: "pstn", from_number: "+15550111", to_number: "+15550100" }
    })
    expect(await listener.receive()).toEqual({ message_type: "answer-call", call_id: "in-1" })

    const callConnection = await server.nextConnection()
    expect(callConnection.url.pathname).toBe("/v2/connect-call/in-1")
    const call = new Peer(callConnection)
    expect(await call.accept()).toMatchObject({ name: "call-connection-in-1" })
    expect((await call.receiveMany(3)).map((payload) => payload["command_type"])).toEqual([
      "set-persona",
      "registered-hooks",
      "set-task"
    ])

    listener.send({ message_type: "incoming-call", call_id: "in-2" })
    expect(await listener.receive()).toEqual({ message_type: "claim-call", call_id: "in-2" })
    listener.send({
      message_type: "assign-call",
      call_id: "in-2",
      call_info: { call_type: "pstn", from_number: null, to_number: "+15550100" }
    })
    expect(await listener.receive()).toEqual({ message_type: "decline-call", call_id: "in-2" })
    expect(received).toEqual([
      { callType: "pstn", fromNumber: "+15550111", toNumber: "+15550100" },
      { callType: "pstn", fromNumber: null, toNumber: "+15550100" }
    ])

    controller.abort()
    await connection.closed
    let stopped = false
    void listening.then(() => {
      stopped = true
    })
    await sleep(30)
    expect(stopped).toBe(false) // the call in progress goes on
    call.send({ event_type: "bot-session-ended", termination_reason: "user-hangup" })
    await listening
    expect(outcomes).toEqual([{
      status: "ended",
      callId: "in-1",
      terminationReason: "user-hangup",
      dnc: false,
      fields: {}
    }])
  })

  it("rejects with SocketClosedError when the server closes the listener", async () => {
    const listening = makeAgent().listenPhone("+15550100")
    const connection = await server.nextConnection()
    await new Peer(connection).accept()
    connection.send({ message_type: "close", reason: "authentication-failure", description: "not your number" })
    await expect(listening).rejects.toThrow(SocketClosedError)
  })
})

describe("Agent.attachCampaign", () => {
  it("reads the campaign, serves it, answers controller-ready, attaches with the contact's data as variables", async () => {
    server.onHttp(route({ "GET /v1/campaigns/gcmp-abc": { status: 200, json: { id: "camp-1", name: "Spring" } } }))
    const controller = new AbortController()
    const agent = makeAgent().onCallStart((call) =>
      call.setTask("remind", { objective: `Remind ${JSON.stringify(call.getVariable("first_name"))} of the visit` })
    )
    const serving = agent.attachCampaign("gcmp-abc", {
      signal: controller.signal,
      onListening: () => {
        throw new Error("a failing onListening is logged, and serving goes on")
      }
    })

    const connection = await server.nextConnection()
    expect(connection.url.pathname).toBe("/v1/serve-campaign/camp-1")
    const dialer = new Peer(connection)
    expect(await dialer.accept()).toMatchObject({ name: "serve-campaign" })
    dialer.send({ message_type: "listen-started", other_listeners: 1 })
    dialer.send({
      message_type: "initiate-and-assign-call",
      call_id: "cc-1",
      contact_data: { phone_number: "+15550123", data: { first_name: "Ada" } }
    })
    expect(await dialer.receive()).toEqual({ message_type: "controller-ready", call_id: "cc-1" })

    const callConnection = await server.nextConnection()
    expect(callConnection.url.pathname).toBe("/v2/connect-campaign-call/cc-1")
    const call = new Peer(callConnection)
    expect(await call.accept()).toMatchObject({ name: "call-connection-cc-1" })
    const attach = await call.receiveMany(4)
    expect(attach.slice(2)).toEqual([
      { command_type: "set-variable", key: "first_name", value: "Ada" },
      {
        command_type: "set-task",
        task_id: "remind",
        objective: "Remind \"Ada\" of the visit",
        completion_criteria: "",
        action_items: []
      }
    ])

    dialer.send({ message_type: "initiate-and-assign-call", call_id: "cc-2", contact_data: { phone_number: "555" } })
    expect(await dialer.receive()).toEqual({ message_type: "init-controller-failed", call_id: "cc-2" })

    call.send({ event_type: "bot-session-ended", termination_reason: "voicemail", dnc: false })
    await callConnection.closed
    controller.abort()
    await serving
  })
})
