/**
 * An SDK agent's call socket that drops mid-call (docs/REMOTE_AGENTS.md, the reference SDK's v2
 * reliable envelope; docs/REMOTE_AGENTS.md "Reconnects"), on a real daemon with the simulated
 * carrier:
 *
 * - the replay of the Python SDK 0.35 (test/support/guava-sdk) loses its TCP connection twice
 *   (no close frame) and reopens with the same `connection_id`: every server message reaches it
 *   once, numbered 1..N with no gap, and the commands it queued while away reach the server once;
 * - an agent that never comes back: the call ends `bot-failure` after the grace
 *   (`VOICE_AGENT_REMOTE_GRACE_MS`), and its late reopen is closed `state-lost`;
 * - a raw envelope client checks the server's resend to the frame: `open-ack` carries the last
 *   sequence the server received, and what the server sent during the outage comes again in
 *   order, from the client's `last_seen_sequence` on; a duplicate command is dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import WebSocket from "ws"
import * as Daemon from "../support/Daemon.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"
import * as Commands from "../support/guava-sdk/Commands.ts"
import { fastTiming, type FrameRecord } from "../support/guava-sdk/GuavaSocket.ts"
import { sleep, Watch } from "../support/guava-sdk/Watch.ts"

const from = "+12025550100"
/** The person at 0191 answers questions and never hangs up: the call ends when the agent does. */
const to = "+12025550191"

/** A daemon with an organization, its key and its number. */
const setup = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { daemon, key } = yield* Daemon.serveWithOrganization("reconnect", from, env)
    return { daemon, key }
  })

const checklist = [
  new Replay.Field({ key: "full_name", fieldType: "text", question: "What is your full name?" }),
  new Replay.Field({ key: "party_size", fieldType: "integer", question: "How many people are coming?" }),
  new Replay.Field({ key: "visit_date", fieldType: "date", question: "What date would you like to visit?" })
]

type Json = Record<string, unknown>
const frameOf = (record: FrameRecord): Json => record.frame as Json
const payloadOf = (record: FrameRecord): Json => frameOf(record)["payload"] as Json
const sequenceOf = (record: FrameRecord): number => frameOf(record)["sequence"] as number
const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i)

/** The conversation as the documented API shows it, once it has ended. */
const endedConversation = (url: string, key: string, callId: string) =>
  Effect.gen(function*() {
    for (;;) {
      const got = yield* Daemon.request(`${url}/v1/conversations/${callId}`, Daemon.bearer(key))
      const body = got.body as { termination_reason?: string | null; duration_sec?: number | null }
      if (got.status === 200 && body.termination_reason != null && body.duration_sec != null) return body
      yield* Effect.sleep("200 millis")
    }
  }).pipe(Effect.timeout("30 seconds"))

/**
 * The replay's call socket is killed twice: once the first field is recorded, as the second
 * question is asked (the agent then queues a `set-variable`, and a `read-script` if
 * `scriptFirst`), and as the task is done (the agent then queues its `read-script`, unless
 * already sent, and its hang-up). Each outage lasts 2.5 s: in the first, the conversation goes
 * on and the server sends events the agent gets only on its reopen.
 */
const twoOutages = (scriptFirst: boolean) =>
  Effect.gen(function*() {
    const { daemon, key } = yield* setup()
    const script = "Thank you, I have noted that."
    const sdk = new Replay.GuavaSdk({
      baseUrl: `${daemon.url}/`,
      apiKey: key,
      telemetry: false,
      timing: { socket: fastTiming({ recvTimeoutMs: 500 }) }
    })
    const agent = yield* Effect.promise(() =>
      Replay.Agent.create(sdk, {
        name: "Ava",
        organization: "Acme Dental",
        hooks: {
          onCallStart: (call) => call.setTask("intake", { objective: "Book a visit.", checklist }),
          onTaskComplete: {
            // The second outage: the connection dies as the task is done, and the hang-up
            // is queued while the agent is away.
            intake: (call) => {
              const socket = call.socket!
              socket.pauseReconnect()
              socket.killConnection()
              if (!scriptFirst) call.readScript(script)
              call.hangup("Thank them.")
              setTimeout(() => socket.resumeReconnect(), 2_500)
            }
          }
        }
      })
    )
    const call = yield* Effect.promise(() => agent.callPhone({ fromNumber: from, toNumber: to }))

    // The first outage: while the person answers the questions, after the first field.
    yield* Effect.promise(() => call.waitForEvent("action-item-done", 30_000))
    const socket = call.socket!
    socket.pauseReconnect()
    socket.killConnection()
    call.setVariable("outage", 1)
    if (scriptFirst) call.readScript(script)
    yield* Effect.promise(() => sleep(2_500))
    socket.resumeReconnect()

    yield* Effect.promise(() => call.result(60_000))
    assert.strictEqual(call.terminationReason, "bot-hangup")
    assert.deepStrictEqual(call.notes, [])
    assert.deepStrictEqual(call.logged, [])
    assert.strictEqual(call.getField("full_name"), "Alex Morgan")
    assert.strictEqual(call.getField("party_size"), 42)
    assert.deepStrictEqual(call.getField("visit_date"), { year: 2027, month: 3, day: 3 })
    const types = call.events.map((event) => event.event_type)
    assert.strictEqual(types.filter((type) => type === "task-done").length, 1, JSON.stringify(types))
    assert.strictEqual(types.filter((type) => type === "action-item-done").length, 3, JSON.stringify(types))

    // Three TCP connections (two reconnects, no failed attempt), one logical connection.
    const transport = socket.transport.map((entry) => entry.type)
    assert.strictEqual(transport.filter((type) => type === "killed").length, 2)
    assert.strictEqual(socket.connectionCount, 3, JSON.stringify(transport))
    assert.notInclude(transport, "attempt-failed")
    const opens = socket.framesOf("out", "open").map(frameOf)
    assert.deepStrictEqual(opens.map((open) => [open["connection_id"], open["is_reopen"]]), [
      [socket.connectionId, false],
      [socket.connectionId, true],
      [socket.connectionId, true]
    ])
    const acks = socket.framesOf("in", "open-ack")
    assert.deepStrictEqual(acks.map((ack) => frameOf(ack)["is_reopen"]), [false, true, true])

    // The server's messages: sequences 1..N, each on the wire once, over the three
    // connections (none lost in the outages, none resent that the agent had seen), and each
    // delivered to the application once.
    const incoming = socket.framesOf("in", "message")
    const sequences = incoming.map(sequenceOf)
    assert.deepStrictEqual(sequences, range(1, sequences.length))
    assert.notInclude(transport, "gap")
    assert.notInclude(transport, "duplicate")
    assert.strictEqual(call.events.length + call.ignored.length, sequences.length)
    assert.deepStrictEqual(
      call.events.map((event) => event.event_type),
      incoming.map((f) => payloadOf(f)["event_type"])
    )
    // The server sent events while the agent was away the first time: they came at once after
    // the reopen's open-ack. (None the second time: the task is done, the conversation waits.)
    const resent = incoming.filter((f) => f.connection === 2 && f.at <= acks[1]!.at + 50)
    assert.isAtLeast(resent.length, 1, "nothing sent during the first outage")
    for (const connection of [2, 3]) {
      // A reopen says what the agent saw; the server goes on from the next one.
      const reopen = frameOf(socket.framesOf("out", "open").find((f) => f.connection === connection)!)
      const seenBefore = incoming.filter((f) => f.connection < connection).map(sequenceOf)
      assert.strictEqual(reopen["last_seen_sequence"], Math.max(0, ...seenBefore))
      const first = incoming.find((f) => f.connection === connection)
      if (first !== undefined) assert.strictEqual(sequenceOf(first), Math.max(0, ...seenBefore) + 1)
    }

    // The agent's commands: numbered 1..M; those queued while away went out only after the
    // reopen, as resends of what the server lacked (its open-ack's last_seen_sequence), and
    // the server acknowledged all M.
    const outgoing = socket.framesOf("out", "message")
    const sentSequences = [...new Set(outgoing.map(sequenceOf))].sort((a, b) => a - b)
    assert.deepStrictEqual(sentSequences, range(1, socket.lastSentSequence))
    const commands = new Map(outgoing.map((f) => [sequenceOf(f), payloadOf(f)]))
    const commandTypes = sentSequences.map((sequence) => commands.get(sequence)!["command_type"])
    assert.deepStrictEqual(commandTypes, [
      "set-persona",
      "registered-hooks",
      "set-task",
      "set-variable",
      "read-script",
      "send-instruction"
    ])
    for (const connection of [2, 3]) {
      const ack = frameOf(acks[connection - 1]!)
      const sentBefore = outgoing.filter((f) => f.connection < connection).map(sequenceOf)
      const ackedBefore = socket.framesOf("in", "ack").filter((f) => f.connection < connection)
        .map((f) => frameOf(f)["last_seen_sequence"] as number)
      const serverSaw = ack["last_seen_sequence"] as number
      assert.isAtLeast(serverSaw, Math.max(0, ...ackedBefore))
      assert.isAtMost(serverSaw, Math.max(0, ...sentBefore))
      const resent = outgoing.filter((f) => f.connection === connection && f.retransmission).map(sequenceOf)
      // Resent: everything past what the server saw, including what was queued during the outage.
      assert.deepStrictEqual(resent, range(serverSaw + 1, serverSaw + resent.length))
      for (const sequence of sentBefore) if (sequence > serverSaw) assert.include(resent, sequence)
    }
    const duringOutage = (type: string) =>
      outgoing.filter((f) => payloadOf(f)["command_type"] === type).map((f) => [f.connection, f.retransmission])
    assert.deepStrictEqual(duringOutage("set-variable"), [[2, true]])
    assert.deepStrictEqual(duringOutage("read-script"), [[scriptFirst ? 2 : 3, true]])
    assert.deepStrictEqual(duringOutage("send-instruction"), [[3, true]])
    const lastAck = socket.framesOf("in", "ack").at(-1)!
    assert.strictEqual(frameOf(lastAck)["last_seen_sequence"], socket.lastSentSequence)

    // Each took effect once: the script was said once, the hang-up ended the call.
    const said = call.events.filter((event) => event.event_type === "agent-speech" && event.utterance === script)
    assert.strictEqual(said.length, 1, JSON.stringify(call.events))
    const conversation = yield* endedConversation(daemon.url, key, call.id)
    assert.strictEqual(conversation.termination_reason, "bot-hangup")
    const transcript = (yield* Daemon.request(
      `${daemon.url}/v1/conversations/${call.id}/transcript`,
      Daemon.bearer(key)
    )).body as ReadonlyArray<{ speaker: string; text: string }>
    assert.strictEqual(transcript.filter((turn) => turn.text === script).length, 1, JSON.stringify(transcript))
    const fields = (yield* Daemon.request(
      `${daemon.url}/v1/conversations/${call.id}/fields`,
      Daemon.bearer(key)
    )).body as { fields: Record<string, unknown> }
    assert.deepStrictEqual(Object.keys(fields.fields).sort(), ["full_name", "party_size", "visit_date"])
    yield* Effect.promise(() => sdk.shutdown())
  })

describe("an SDK agent's call socket that drops, on a daemon", () => {
  it.live(
    "the replay of the Python SDK is killed twice mid-call and resumes: no message lost or duplicated",
    () => twoOutages(false),
    { timeout: 120_000 }
  )

  // A script the agent queues while a question plays is said after it; the answer the person
  // gives over it counts (DeterministicPolicy).
  it.live(
    "the same, with the script queued during the first outage (behind the second question)",
    () => twoOutages(true),
    { timeout: 120_000 }
  )

  it.live(
    "an agent that never comes back: the call ends bot-failure after the grace, a late reopen gets state-lost",
    () =>
      Effect.gen(function*() {
        const graceMs = 1_500
        const { daemon, key } = yield* setup({ VOICE_AGENT_REMOTE_GRACE_MS: String(graceMs) })
        const sdk = new Replay.GuavaSdk({
          baseUrl: `${daemon.url}/`,
          apiKey: key,
          telemetry: false,
          timing: { socket: fastTiming({ recvTimeoutMs: 500 }) }
        })
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, {
            name: "Ava",
            organization: "Acme Dental",
            hooks: {
              onCallStart: (call) => call.setTask("intake", { objective: "Book a visit.", checklist }),
              onTaskComplete: { intake: (call) => call.hangup("Thank them.") }
            }
          })
        )
        const call = yield* Effect.promise(() => agent.callPhone({ fromNumber: from, toNumber: to }))
        yield* Effect.promise(() => call.waitForEvent("action-item-done", 30_000))
        const socket = call.socket!
        const gone = Date.now()
        socket.disappear()

        const conversation = yield* endedConversation(daemon.url, key, call.id)
        const ended = Date.now()
        assert.strictEqual(conversation.termination_reason, "bot-failure")
        assert.isAtLeast(ended - gone, graceMs)
        // The call did not wait for the silence timeout or the person: it ended soon after the grace.
        assert.isBelow(ended - gone, graceMs + 5_000)
        const fields = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${call.id}/fields`,
          Daemon.bearer(key)
        )).body as { fields: Record<string, unknown> }
        assert.strictEqual(fields.fields["full_name"], "Alex Morgan")

        // The agent comes back too late: its reopen is answered with close state-lost, for good.
        socket.resumeReconnect()
        const failure = yield* Effect.promise(() =>
          call.result(30_000).then(() => undefined, (error: unknown) => error)
        )
        assert.instanceOf(failure, Error)
        assert.strictEqual(socket.closeReason, "state-lost")
        const lastOpen = frameOf(socket.framesOf("out", "open").at(-1)!)
        assert.strictEqual(lastOpen["connection_id"], socket.connectionId)
        assert.strictEqual(lastOpen["is_reopen"], true)
        const closes = socket.framesOf("in", "close").map(frameOf)
        assert.deepStrictEqual(closes.map((close) => close["reason"]), ["state-lost"])
        assert.notInclude(call.events.map((event) => event.event_type), "bot-session-ended")
        yield* Effect.promise(() => sdk.shutdown())
      }),
    { timeout: 120_000 }
  )
})

/** A bare envelope client over `ws`: every frame it receives, in order, by connection. */
class RawClient {
  readonly received: Array<{ readonly connection: number; readonly at: number; readonly frame: Json }> = []
  readonly watch = new Watch()
  connection = 0
  private ws: WebSocket | undefined
  private readonly url: string
  private readonly key: string

  constructor(url: string, key: string) {
    this.url = url
    this.key = key
  }

  connect(): Promise<number> {
    const connection = ++this.connection
    const ws = new WebSocket(this.url, { headers: { authorization: `Bearer ${this.key}` } })
    this.ws = ws
    ws.on("message", (data: Buffer) => {
      this.received.push({ connection, at: Date.now(), frame: JSON.parse(data.toString("utf8")) as Json })
      this.watch.notify()
    })
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(connection))
      ws.once("error", reject)
    })
  }

  send(frame: Json): void {
    this.ws!.send(JSON.stringify(frame))
  }

  /** Drops the TCP connection with no close frame. */
  kill(): void {
    this.ws!.terminate()
  }

  close(): void {
    this.ws!.close(1000)
  }

  /** The first frame received (at or after index `after`) that `matches`. */
  waitFor(
    matches: (frame: Json) => boolean,
    what: string,
    after = 0
  ): Promise<{ readonly connection: number; readonly at: number; readonly frame: Json }> {
    return this.watch.waitFor(() => this.received.slice(after).find((r) => matches(r.frame)), 30_000, what)
  }

  messages(connection: number): Array<{ readonly at: number; readonly sequence: number; readonly payload: Json }> {
    return this.received.filter((r) => r.connection === connection && r.frame["message_type"] === "message")
      .map((r) => ({ at: r.at, sequence: r.frame["sequence"] as number, payload: r.frame["payload"] as Json }))
  }
}

describe("the server's resend after a reopen, to the frame (a raw envelope client)", () => {
  it.live(
    "open-ack carries what the server received; what it sent in the outage comes again, in order",
    () =>
      Effect.gen(function*() {
        const { daemon, key } = yield* setup()
        const created = yield* Daemon.request(
          `${daemon.url}/v2/create-outbound?from_number=${encodeURIComponent(from)}&to_number=${
            encodeURIComponent(to)
          }`,
          { method: "POST", headers: { authorization: `Bearer ${key}` } }
        )
        assert.strictEqual(created.status, 200, JSON.stringify(created.body))
        const callId = (created.body as { call_id: string }).call_id
        const client = new RawClient(`${daemon.url.replace(/^http/, "ws")}/v2/connect-call/${callId}`, key)
        const connectionId = "0123456789abcdef0123"
        const script = "Thank you, I have noted all of that."
        const message = (sequence: number, payload: object) => ({ message_type: "message", sequence, payload })
        const ackUpTo = (sequence: number) => client.send({ message_type: "ack", last_seen_sequence: sequence })
        const serverAck = (sequence: number) => (frame: Json) =>
          frame["message_type"] === "ack" && frame["last_seen_sequence"] === sequence
        const event = (type: string) => (frame: Json) => (frame["payload"] as Json | undefined)?.["event_type"] === type
        const wait = (matches: (frame: Json) => boolean, what: string, after = 0) =>
          Effect.promise(() => client.waitFor(matches, what, after))
        const open = (isReopen: boolean, lastSeen: number) =>
          Effect.gen(function*() {
            yield* Effect.promise(() => client.connect())
            const before = client.received.length
            client.send({
              message_type: "open",
              name: `call-connection-${callId}`,
              connection_id: connectionId,
              is_reopen: isReopen,
              last_seen_sequence: lastSeen
            })
            const ack = yield* wait((f) => f["message_type"] === "open-ack", "open-ack", before)
            yield* Effect.sleep("300 millis") // for the resend to arrive
            return { before, ack }
          })
        /** Messages received on the connection that arrived with its open-ack (the resend). */
        const resentOn = (connection: number, openAckAt: number) =>
          client.messages(connection).filter((m) => m.at <= openAckAt + 50)

        // Connection 1: the SDK's attach commands and a task, all acknowledged.
        const first = yield* open(false, 0)
        assert.deepStrictEqual(first.ack.frame, { message_type: "open-ack", is_reopen: false, last_seen_sequence: 0 })
        client.send(message(1, Commands.setPersona({ agentName: "Ava", organizationName: "Acme Dental" })))
        client.send(message(2, Commands.registeredHooks({ hasOnQuestion: false, hasOnIntent: false })))
        client.send(message(
          3,
          Commands.setTask({
            taskId: "intake",
            objective: "Book a visit.",
            completionCriteria: "",
            actionItems: Commands.serializeChecklist(checklist.slice(0, 2), "agent").actionItems
          })
        ))
        // The first question is said; a command follows (the server acknowledges it), then the
        // connection dies, the last message received left unacknowledged.
        yield* wait(
          (f) => event("agent-speech")(f) && String((f["payload"] as Json)["utterance"]).includes("full name"),
          "the first question"
        )
        client.send(message(4, Commands.setVariable("step", "first question")))
        yield* wait(serverAck(4), "the server's ack of 4")
        const onFirst = client.messages(1)
        const seen1 = onFirst.at(-1)!.sequence
        assert.deepStrictEqual(onFirst.map((m) => m.sequence), range(1, seen1))
        ackUpTo(seen1 - 1)
        yield* Effect.promise(() => sleep(100))
        client.kill()

        // Away long enough for the person to answer and the agent to ask the next question; the
        // reopen claims one message fewer than it saw (as if the last was lost in transit).
        yield* Effect.promise(() => sleep(3_000))
        const second = yield* open(true, seen1 - 1)
        assert.deepStrictEqual(second.ack.frame, { message_type: "open-ack", is_reopen: true, last_seen_sequence: 4 })
        const burst2 = resentOn(2, second.ack.at)
        assert.deepStrictEqual(burst2.map((m) => m.sequence), range(seen1, seen1 + burst2.length - 1))
        assert.deepStrictEqual(burst2[0]!.payload, onFirst.at(-1)!.payload)
        // (The person answered; the agent may have gone on to the next question.)
        const outage1 = burst2.slice(1).map((m) => m.payload).filter((e) => e["event_type"] !== "agent-speech")
        assert.deepStrictEqual(
          outage1.slice(0, 2).map((e) => [e["event_type"], e["key"] ?? e["utterance"]]),
          [["caller-speech", "Alex Morgan"], ["action-item-done", "full_name"]],
          JSON.stringify(burst2)
        )
        // Connection 2: the task is done; the agent sends a script (acknowledged), and the
        // connection dies again, everything received acknowledged.
        const done = yield* wait(event("task-done"), "task-done", second.before)
        client.send(message(5, Commands.readScript(script)))
        yield* wait(serverAck(5), "the server's ack of 5", second.before)
        ackUpTo(done.frame["sequence"] as number)
        yield* Effect.promise(() => sleep(100))
        const seen2 = client.messages(2).at(-1)!.sequence
        assert.strictEqual(seen2, done.frame["sequence"])
        client.kill()

        // Away while the script is said. The reopen resends the script's message: a duplicate
        // the server drops (and acknowledges); then the hang-up.
        yield* Effect.promise(() => sleep(3_000))
        const third = yield* open(true, seen2)
        assert.deepStrictEqual(third.ack.frame, { message_type: "open-ack", is_reopen: true, last_seen_sequence: 5 })
        const burst3 = resentOn(3, third.ack.at)
        assert.deepStrictEqual(burst3.map((m) => m.sequence), range(seen2 + 1, seen2 + burst3.length))
        assert.deepStrictEqual(burst3.map((m) => m.payload), [
          { event_type: "agent-speech", utterance: script, interrupted: false }
        ])
        client.send(message(5, Commands.readScript(script)))
        yield* wait(serverAck(5), "the ack of the duplicate", third.before)
        client.send(message(6, Commands.sendInstruction(Commands.hangupInstruction("Thank them."))))
        const end = yield* wait(event("bot-session-ended"), "bot-session-ended", third.before)
        ackUpTo(end.frame["sequence"] as number)
        assert.deepStrictEqual(end.frame["payload"], {
          event_type: "bot-session-ended",
          termination_reason: "bot-hangup",
          dnc: false
        })
        client.close()

        // Over the three connections: 1..N, the only repeat the one the reopen said it lacked.
        const onSecond = client.messages(2)
        const onThird = client.messages(3)
        assert.deepStrictEqual(onSecond.map((m) => m.sequence), range(seen1, seen2))
        assert.deepStrictEqual(onThird.map((m) => m.sequence), range(seen2 + 1, end.frame["sequence"] as number))
        const events = [...onFirst, ...onSecond.slice(1), ...onThird].map((m) => m.payload)
        const fields = events.filter((e) => e["event_type"] === "action-item-done").map((e) => [e["key"], e["payload"]])
        assert.deepStrictEqual(fields, [["full_name", "Alex Morgan"], ["party_size", 42]])
        // The script, sent twice under one sequence, was said once.
        const said = events.filter((e) => e["event_type"] === "agent-speech" && e["utterance"] === script)
        assert.strictEqual(said.length, 1, JSON.stringify(events))
        const conversation = yield* endedConversation(daemon.url, key, callId)
        assert.strictEqual(conversation.termination_reason, "bot-hangup")
        const transcript = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${callId}/transcript`,
          Daemon.bearer(key)
        )).body as ReadonlyArray<{ speaker: string; text: string }>
        assert.strictEqual(transcript.filter((turn) => turn.text === script).length, 1, JSON.stringify(transcript))
      }),
    { timeout: 120_000 }
  )
})
