/**
 * Self-test of the Agent API replay (guava/agent.py, call.py, client.py, telemetry.py) and of the
 * legacy serve_campaign path, against the scripted server: the HTTP calls as httpx sends them,
 * the sockets' names and paths, the discovery handshakes, and the starter examples' flows.
 */
import { afterEach, describe, expect, it } from "vitest"
import { Agent, type AgentHooks } from "./Agent.ts"
import { GuavaSdk } from "./Client.ts"
import { Field, Say } from "./Commands.ts"
import { SdkError, ValidationError } from "./Events.ts"
import { fastTiming } from "./GuavaSocket.ts"
import { CallController, serveCampaign } from "./Legacy.ts"
import { type Peer, ScriptedServer } from "./ScriptedServer.ts"

let server: ScriptedServer | undefined
const sdks: Array<GuavaSdk> = []

afterEach(async () => {
  for (const sdk of sdks.splice(0)) await sdk.shutdown()
  await server?.stop()
  server = undefined
})

const setup = async (options: { telemetry?: boolean; telemetryIntervalMs?: number } = {}) => {
  const s = await ScriptedServer.start()
  server = s
  s.autoPeer = true
  s.routes.push((r) => {
    if (r.path.startsWith("/v1/check-sdk-deprecation")) {
      return { status: 200, body: { deprecation_status: "supported" } }
    }
    if (r.path.startsWith("/v2/create-outbound")) return { status: 200, body: { call_id: "call-1" } }
    if (r.path === "/v1/campaigns/gcp-polls") return { status: 200, body: { id: 42, name: "Polls" } }
    if (r.path === "/v1/upload-telemetry") return { status: 202, body: { accepted: 1 } }
    return undefined
  })
  const sdk = new GuavaSdk({
    baseUrl: s.baseUrl,
    apiKey: "gva-test-key",
    telemetry: options.telemetry ?? false,
    timing: {
      socket: fastTiming({ recvTimeoutMs: 150 }),
      controllerInitTimeoutMs: 200,
      campaignPollMs: 100,
      telemetryIntervalMs: options.telemetryIntervalMs ?? 10_000
    }
  })
  sdks.push(sdk)
  return { s, sdk }
}

/** A starter-example agent: a Field/Say/str checklist, on_task_complete + get_field + hangup. */
const intakeHooks = (): AgentHooks => ({
  onCallStart: (call) =>
    call.setTask("intake", {
      objective: "Collect the caller's date of birth.",
      checklist: [
        new Say("Thanks for calling Bright Smile Dental.", "greet"),
        new Field({ key: "dob", fieldType: "date", description: "Date of birth" }),
        "Tell them the office will follow up."
      ]
    }),
  onTaskComplete: {
    intake: (call) => {
      const dob = call.getField("dob") as { year: number }
      call.hangup(`Confirm the year ${dob.year} and say goodbye.`)
    }
  }
})

describe("call_phone", () => {
  it("runs the starter flow: create-outbound, attach order, fields, task completion, hangup, session end", async () => {
    const { s, sdk } = await setup()
    const agent = await Agent.create(sdk, { name: "Ava", organization: "Bright Smile Dental", hooks: intakeHooks() })

    const deprecation = s.http[0]
    expect(deprecation?.method).toBe("POST")
    expect(deprecation?.path).toBe("/v1/check-sdk-deprecation?sdk_name=python-sdk&sdk_version=0.35.0")
    expect(deprecation?.headers["authorization"]).toBeUndefined()
    expect(deprecation?.headers["user-agent"]).toBe("python-httpx/0.28.1")
    expect(deprecation?.headers["content-length"]).toBe("0")
    expect(sdk.deprecationStatus).toBe("supported")

    const call = await agent.callPhone({
      fromNumber: "+15550100",
      toNumber: "+15550199",
      variables: { patient_name: "Ann" }
    })
    const create = s.http[1]
    expect(create?.method).toBe("POST")
    expect(create?.path).toBe("/v2/create-outbound?from_number=%2B15550100&to_number=%2B15550199")
    expect(create?.headers["authorization"]).toBe("Bearer gva-test-key")
    expect(create?.headers["x-guava-sdk"]).toBe("python-sdk")

    const peer = await s.waitPeer("call-connection-call-1")
    expect(peer.socket?.path).toBe("/v2/connect-call/call-1")
    await peer.watch.waitFor(() => peer.payloads.length >= 4)
    expect(peer.payloads.map((p) => p["command_type"])).toEqual([
      "set-persona",
      "registered-hooks",
      "set-variable",
      "set-task"
    ])
    expect(peer.payloads[0]).toEqual({
      command_type: "set-persona",
      agent_name: "Ava",
      organization_name: "Bright Smile Dental",
      agent_purpose: null,
      voice: null
    })
    expect(peer.payloads[2]).toEqual({ command_type: "set-variable", key: "patient_name", value: "Ann" })
    expect(peer.payloads[3]).toMatchObject({
      task_id: "intake",
      completion_criteria: "",
      action_items: [
        { item_type: "say", statement: "Thanks for calling Bright Smile Dental.", key: "greet" },
        { item_type: "field", key: "dob", field_type: "date", sensitive: false, is_search_field: false },
        { item_type: "todo", description: "Tell them the office will follow up." }
      ]
    })

    peer.send({ event_type: "caller-speech", utterance: "Hi" })
    peer.send({ event_type: "action-item-done", key: "dob", payload: { year: 1990, month: 4, day: 2 } })
    peer.send({ event_type: "task-done", task_id: "intake" })
    const hangup = await peer.waitPayload((p) => p["command_type"] === "send-instruction")
    expect(hangup["instruction"]).toBe(
      "Start ending the conversation. Here are your final instructions: Confirm the year 1990 and say goodbye. " +
        "Once you've completed the final instructions, naturally end the conversation and hang up the call."
    )
    peer.send({ event_type: "bot-session-ended", termination_reason: "bot-hangup" })
    await call.result()
    expect(call.terminationReason).toBe("bot-hangup")
    expect(call.dnc).toBe(false)
    expect(call.fields.get("dob")).toEqual({ year: 1990, month: 4, day: 2 })
    expect(call.events.map((e) => e.event_type)).toEqual([
      "caller-speech",
      "action-item-done",
      "task-done",
      "bot-session-ended"
    ])
    // The SDK closes its socket itself (a ping when the receive timeout fires, then a close 1000).
    expect(await peer.socket?.waitClosed()).toBe(1000)
  })

  it("dies of a payload the SDK cannot validate, after acking it", async () => {
    const { s, sdk } = await setup()
    const agent = await Agent.create(sdk, {})
    const call = await agent.callPhone({ fromNumber: "+15550100", toNumber: "+15550199" })
    const peer = await s.waitPeer("call-connection-call-1")
    peer.send({ event_type: "bot-session-ended", termination_reason: "completed" })
    await expect(call.result()).rejects.toThrow(ValidationError)
    expect(call.error).toBeInstanceOf(ValidationError)
    expect(String(call.error)).toMatch(/BotSessionEnded/)
    expect(peer.socket?.framesOf("ack")).toHaveLength(1)
    expect(await peer.socket?.waitClosed()).toBe(1000)
  })

  it("rejects before attaching when create-outbound fails or the numbers are not E.164", async () => {
    const { s, sdk } = await setup()
    const agent = await Agent.create(sdk, {})
    s.routes.unshift((
      r
    ) => (r.path.includes("to_number=%2B1999") ? { status: 402, body: { detail: "no" } } : undefined))
    await expect(agent.callPhone({ fromNumber: "+15550100", toNumber: "+1999" })).rejects.toThrow(/HTTP 402/)
    await expect(agent.callPhone({ fromNumber: "15550100", toNumber: "+15550199" })).rejects.toThrow(SdkError)
    // The POST went out before the local validation failed, as in the SDK.
    expect(s.http.filter((h) => h.path.startsWith("/v2/create-outbound"))).toHaveLength(2)
  })
})

describe("listen_phone", () => {
  it("claims, is assigned, answers and attaches to connect-call; declines when told to", async () => {
    const { s, sdk } = await setup()
    let decline = false
    const agent = await Agent.create(sdk, {
      hooks: {
        onCallReceived: () => (decline ? "decline" : "accept"),
        onCallStart: (call) => call.setTask("greet", { objective: "Greet them." })
      }
    })
    const listener = agent.listenPhone("+15550100")
    const peer = await s.waitPeer("listen-inbound")
    expect(peer.socket?.path).toBe("/v2/listen-inbound?phone_number=%2B15550100")
    peer.send({ message_type: "listen-started", other_listeners: 0 })
    expect(await listener.waitStarted()).toBe(0)

    peer.send({ message_type: "incoming-call", call_id: "in-1" })
    expect(await peer.waitPayload((p) => p["message_type"] === "claim-call")).toEqual({
      message_type: "claim-call",
      call_id: "in-1"
    })
    peer.send({
      message_type: "assign-call",
      call_id: "in-1",
      call_info: { call_type: "pstn", from_number: null, to_number: "+15550100" }
    })
    expect(await peer.waitPayload((p) => p["message_type"] === "answer-call")).toEqual({
      message_type: "answer-call",
      call_id: "in-1"
    })
    const call = await listener.waitForCall()
    expect(call.callInfo).toEqual({ call_type: "pstn", from_number: null, to_number: "+15550100", caller_id: null })
    const callPeer = await s.waitPeer("call-connection-in-1")
    expect(callPeer.socket?.path).toBe("/v2/connect-call/in-1")
    await callPeer.waitPayload((p) => p["command_type"] === "set-task")

    decline = true
    peer.send({ message_type: "incoming-call", call_id: "in-2" })
    peer.send({
      message_type: "assign-call",
      call_id: "in-2",
      call_info: { call_type: "pstn", from_number: "+15550142", to_number: "+15550100" }
    })
    expect(await peer.waitPayload((p) => p["message_type"] === "decline-call")).toEqual({
      message_type: "decline-call",
      call_id: "in-2"
    })
    expect(listener.declined).toEqual(["in-2"])
    callPeer.send({ event_type: "bot-session-ended", termination_reason: "user-hangup" })
    await call.result()
  })

  it("dies of a warning on the discovery socket", async () => {
    const { s, sdk } = await setup()
    const agent = await Agent.create(sdk, {})
    const listener = agent.listenPhone("+15550100")
    const peer = await s.waitPeer("listen-inbound")
    peer.send({ message_type: "warning", content: "slow down" })
    await listener.waitDone()
    expect(listener.error).toBeInstanceOf(ValidationError)
  })
})

describe("attach_campaign", () => {
  it("looks the campaign up, serves it, sends controller-ready at once and passes contact data as variables", async () => {
    const { s, sdk } = await setup()
    const agent = await Agent.create(sdk, {
      hooks: { onCallStart: (call) => call.reachPerson(String(call.getVariable("first_name"))) }
    })
    const attachment = agent.attachCampaign("gcp-polls")
    const peer = await s.waitPeer("serve-campaign")
    expect(peer.socket?.path).toBe("/v1/serve-campaign/42")
    expect(s.http.find((h) => h.path === "/v1/campaigns/gcp-polls")?.headers["authorization"]).toBe(
      "Bearer gva-test-key"
    )
    peer.send({ message_type: "listen-started", other_listeners: 0 })
    await attachment.waitReady()
    peer.send({
      message_type: "initiate-and-assign-call",
      call_id: "cc-1",
      contact_data: { phone_number: "+15550123", data: { first_name: "Ann" } }
    })
    expect(await peer.waitPayload((p) => p["message_type"] === "controller-ready")).toEqual({
      message_type: "controller-ready",
      call_id: "cc-1"
    })
    const callPeer = await s.waitPeer("call-connection-cc-1")
    expect(callPeer.socket?.path).toBe("/v2/connect-campaign-call/cc-1")
    await callPeer.watch.waitFor(() => callPeer.payloads.length >= 5)
    expect(callPeer.payloads.slice(2, 4)).toEqual([
      { command_type: "set-variable", key: "first_name", value: "Ann" },
      { command_type: "set-variable", key: "_voicemail_handler", value: "reach_person" }
    ])
    expect(callPeer.payloads[4]).toMatchObject({ command_type: "set-task", task_id: "reach_person" })
    const call = await attachment.waitForCall()
    expect(call.callInfo).toMatchObject({ from_number: null, to_number: "+15550123" })

    // data: null → controller-ready is sent, then the call thread dies before connecting.
    peer.send({
      message_type: "initiate-and-assign-call",
      call_id: "cc-2",
      contact_data: { phone_number: "+15550124", data: null }
    })
    const dispatch = await attachment.waitForDispatch(1)
    await attachment.watch.waitFor(() => dispatch.error !== undefined)
    expect(dispatch.controllerReadySent).toBe(true)
    expect(String(dispatch.error)).toMatch(/AttributeError/)

    // A truthy non-dict contact_data kills the whole listener.
    peer.send({ message_type: "initiate-and-assign-call", call_id: "cc-3", contact_data: "+15550125" })
    await attachment.waitDone()
    expect(String(attachment.error)).toMatch(/AttributeError: 'str' object has no attribute 'get'/)
  })
})

describe("legacy serve_campaign (client.py)", () => {
  class Poll extends CallController {
    constructor(data: unknown) {
      super(data)
      this.setPersona({ agentName: "Jordan" })
      this.setTask("Run the poll.", [new Field({ key: "top_issue" })])
    }
  }

  it("names the call socket campaign-call-{id}, fails slow controllers and stops when nothing is callable", async () => {
    const { s, sdk } = await setup()
    let callable = true
    s.routes.unshift((r) =>
      r.path === "/v1/campaigns/42/has-callable-contacts"
        ? { status: 200, body: { has_callable_contacts: callable } }
        : undefined
    )
    const client = await sdk.client()
    const served = serveCampaign(client, {
      campaign: { id: 42, name: "Polls" },
      controller: async (data) => {
        if ((data as { slow?: boolean } | null)?.slow === true) await new Promise((r) => setTimeout(r, 1000))
        return new Poll(data)
      }
    })
    const peer: Peer = await s.waitPeer("serve-campaign")
    peer.send({ message_type: "listen-started", other_listeners: 1 })
    await served.waitReady()

    peer.send({
      message_type: "initiate-and-assign-call",
      call_id: "slow",
      contact_data: { phone_number: "+1555", data: { slow: true } }
    })
    expect(await peer.waitPayload((p) => p["message_type"] === "init-controller-failed")).toEqual({
      message_type: "init-controller-failed",
      call_id: "slow"
    })

    peer.send({ message_type: "initiate-and-assign-call", call_id: "fast", contact_data: null })
    await peer.waitPayload((p) => p["message_type"] === "controller-ready")
    const callPeer = await s.waitPeer("campaign-call-fast")
    expect(callPeer.socket?.path).toBe("/v2/connect-campaign-call/fast")
    await callPeer.watch.waitFor(() => callPeer.payloads.length >= 3)
    expect(callPeer.payloads.map((p) => p["command_type"])).toEqual(["registered-hooks", "set-persona", "set-task"])
    expect(callPeer.payloads[2]?.["task_id"]).toMatch(/^[0-9a-f]{6}$/)
    callPeer.send({ event_type: "bot-session-ended", termination_reason: "user-hangup" })
    const controller = await served.waitForController()
    await controller.result()

    expect(served.polls).toBeGreaterThan(0)
    callable = false
    await served.waitDone()
    expect(served.error).toBeUndefined()
  })
})

describe("telemetry", () => {
  it("uploads method-call events with the client's headers every interval", async () => {
    const { s, sdk } = await setup({ telemetry: true, telemetryIntervalMs: 100 })
    await Agent.create(sdk, { hooks: { onCallStart: () => {} } })
    const upload = await s.watch.waitFor(() => s.http.find((h) => h.path === "/v1/upload-telemetry"), 3000)
    expect(upload.method).toBe("POST")
    expect(upload.headers["authorization"]).toBe("Bearer gva-test-key")
    expect(upload.headers["content-type"]).toBe("application/json")
    const body = JSON.parse(upload.body) as { events: Array<{ event_type: string; data: { function_name: string } }> }
    expect(body.events.slice(0, 4).map((e) => [e.event_type, e.data.function_name])).toEqual([
      ["method-call", "Agent.__init__"],
      ["method-call", "Client.__init__"],
      ["method-call", "Client.get_http_url"],
      ["method-call", "Agent.on_call_start"]
    ])
    expect(Object.keys(body.events[0] ?? {})).toEqual(["timestamp_ms", "event_type", "data"])
  })
})
