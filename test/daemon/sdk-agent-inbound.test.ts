/**
 * `listen_phone` on a real daemon with the simulated carrier, through the replay of the Python
 * SDK 0.35 (test/support/guava-sdk): a simulated inbound call (admin `inbound-calls`,
 * docs/ADMIN.md) to a number an agent listens on is announced (`incoming-call`), claimed, assigned
 * (`assign-call` with its `pstn` call info) and answered; the agent's task collects the
 * simulated person's answers as `action-item-done` and the call ends with `bot-session-ended`.
 * A declined call is still a call that reached the number: the admin API answers 201 with its
 * call id, and it is listed as an inbound conversation never answered (`no-answer`, 0 s, no
 * transcript, no recording), on both storage backends; of two listeners on a number, exactly one
 * is assigned each call, and each gets its turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"
import type { CallInfo } from "../support/guava-sdk/Events.ts"
import { fastTiming } from "../support/guava-sdk/GuavaSocket.ts"

const number = "+12025550100"
/** The caller at 0191 never hangs up (packages/carrier-sim/README.md): the call ends when the agent hangs up. */
const caller = "+12025550191"

const backends = [
  { name: "pglite", env: Effect.succeed({}) as Effect.Effect<Record<string, string>> },
  {
    name: "postgres",
    env: Effect.map(TestDatabase.freshDatabaseUrl("voice_agent_remote_inbound"), (url) => ({ DATABASE_URL: url }))
  }
] as const

/** A daemon, an organization owning `number`, its key, and the URL of its simulated inbound calls. */
const setup = (name: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { adminPost, daemon, key, organizationId } = yield* Daemon.serveWithOrganization(name, number, env)
    const sdk = new Replay.GuavaSdk({
      baseUrl: `${daemon.url}/`,
      apiKey: key,
      telemetry: false,
      // A client close takes effect within half a second (the SDK's receive loop wakes every 10 s).
      timing: { socket: fastTiming({ recvTimeoutMs: 500 }) }
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => sdk.shutdown()))
    const callIn = adminPost(`organizations/${organizationId}/inbound-calls`, {
      from_number: caller,
      to_number: number
    })
    return { daemon, key, sdk, callIn }
  })

const conversations = (url: string, key: string) =>
  Effect.map(
    Daemon.request(`${url}/v1/conversations`, Daemon.bearer(key)),
    (response) => (response.body as { conversations: ReadonlyArray<Record<string, unknown>> }).conversations
  )

describe("listen_phone (a replay of guava-sdk 0.35), on a daemon", () => {
  it.live(
    "an inbound call is announced, claimed, assigned and answered; the task's fields arrive, then bot-session-ended",
    () =>
      Effect.gen(function*() {
        const { callIn, daemon, key, sdk } = yield* setup("inbound-answer")
        const received: Array<CallInfo> = []
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, {
            name: "Ava",
            organization: "Bistro Nine",
            hooks: {
              onCallReceived: (info) => {
                received.push(info)
                return "accept"
              },
              onCallStart: (call) =>
                call.setTask("booking", {
                  checklist: [
                    new Replay.Field({ key: "full_name", fieldType: "text", question: "Under which name?" }),
                    new Replay.Field({ key: "guests", fieldType: "integer", question: "How many guests?" })
                  ]
                }),
              onTaskComplete: { booking: (call) => call.hangup("Thank them.") }
            }
          })
        )
        const listener = agent.listenPhone(number)
        assert.strictEqual(yield* Effect.promise(() => listener.waitStarted()), 0)

        const created = yield* callIn
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const callId = (created.body as { call_id: string }).call_id
        const call = yield* Effect.promise(() => listener.waitForCall(0))
        assert.strictEqual(call.id, callId)
        yield* Effect.promise(() => call.result(60_000))

        assert.deepStrictEqual(listener.messages.map((m) => m.message_type), [
          "listen-started",
          "incoming-call",
          "assign-call"
        ])
        assert.deepStrictEqual(listener.claimed, [callId])
        assert.deepStrictEqual(listener.answered, [callId])
        assert.deepStrictEqual(received, [{
          call_type: "pstn",
          from_number: caller,
          to_number: number,
          caller_id: null
        }])
        assert.strictEqual(call.terminationReason, "bot-hangup")
        assert.isFalse(call.dnc)
        assert.deepStrictEqual(call.notes, [])
        assert.deepStrictEqual(Object.fromEntries(call.fields), { full_name: "Alex Morgan", guests: 42 })
        const types = call.events.map((event) => event.event_type)
        assert.isTrue(types.lastIndexOf("action-item-done") < types.indexOf("task-done"), JSON.stringify(types))
        assert.deepStrictEqual(
          call.sentCommands().map((command) => command["command_type"]),
          ["set-persona", "registered-hooks", "set-task", "send-instruction"]
        )

        // The documented API: an inbound conversation, ended by the agent, with the fields.
        yield* daemon.waitFor(new RegExp(`Inbound call ${callId} ended:`)).pipe(Effect.timeout("20 seconds"))
        const [conversation, ...others] = yield* conversations(daemon.url, key)
        assert.deepStrictEqual(others, [])
        assert.strictEqual(conversation?.["call_id"], callId)
        assert.strictEqual(conversation?.["direction"], "inbound")
        assert.strictEqual(conversation?.["from_number"], caller)
        assert.strictEqual(conversation?.["termination_reason"], "bot-hangup")
        const fields = yield* Daemon.request(`${daemon.url}/v1/conversations/${callId}/fields`, Daemon.bearer(key))
        assert.deepStrictEqual(fields.body, { fields: { full_name: "Alex Morgan", guests: 42 } })
        yield* Effect.promise(() => listener.stop())
        assert.isUndefined(listener.error)
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  for (const backend of backends) {
    it.live(
      `${backend.name}: a declined call is recorded, never answered; of two listeners exactly one is assigned each call, in turn`,
      () =>
        Effect.gen(function*() {
          const { callIn, daemon, key, sdk } = yield* setup("inbound-decline", yield* backend.env)
          const agent = yield* Effect.promise(() =>
            Replay.Agent.create(sdk, { hooks: { onCallReceived: () => "decline" } })
          )
          const first = agent.listenPhone(number)
          assert.strictEqual(yield* Effect.promise(() => first.waitStarted()), 0)

          // Declined: nobody answers the simulated call, but it reached the number: 201 with its
          // call id, and an inbound conversation that ended unanswered.
          const declined = yield* callIn
          assert.strictEqual(declined.status, 201, JSON.stringify(declined.body))
          const declinedId = (declined.body as { call_id: string }).call_id
          assert.deepStrictEqual(first.declined, [declinedId])
          assert.deepStrictEqual(first.claimed, first.declined)
          const [record, ...others] = yield* conversations(daemon.url, key)
          assert.deepStrictEqual(others, [])
          assert.deepStrictEqual(
            { ...record, id: undefined, ts: undefined },
            {
              id: undefined,
              ts: undefined,
              call_id: declinedId,
              direction: "inbound",
              from_number: caller,
              to_number: number,
              duration_sec: 0,
              campaign_id: null,
              termination_reason: "no-answer"
            }
          )
          assert.deepStrictEqual(yield* Daemon.callTraces(daemon.url, key, declinedId), {
            transcript: [],
            recordings: [404, 404, 404]
          })
          const logged = `Inbound call ${declinedId} from ${caller} to ${number} declined`
          assert.isTrue(daemon.stdout.some((line) => line.includes(logged)), daemon.stdout.join("\n"))

          // A second listener: both hear of every call and both claim it, but only one is assigned it.
          const second = agent.listenPhone(number)
          assert.strictEqual(yield* Effect.promise(() => second.waitStarted()), 1)
          const rounds = 4
          for (let i = 0; i < rounds; i++) {
            assert.strictEqual((yield* callIn).status, 201)
          }
          const listed = yield* conversations(daemon.url, key)
          assert.strictEqual(listed.length, rounds + 1)
          assert.deepStrictEqual(
            listed.map((c) => [c["termination_reason"], c["duration_sec"]]),
            listed.map(() => ["no-answer", 0])
          )
          const assignedTo = (listener: Replay.InboundListener) =>
            listener.messages.flatMap((m) => m.message_type === "assign-call" ? [m.call_id] : [])
          assert.deepStrictEqual(assignedTo(first), first.declined)
          assert.deepStrictEqual(assignedTo(second), second.declined)
          const [one, two] = [first.declined.slice(1), second.declined]
          assert.strictEqual(one.length + two.length, rounds)
          assert.isEmpty(one.filter((id) => two.includes(id)), "a call assigned twice")
          assert.isAtLeast(one.length, 1, "the first listener never got a call")
          assert.isAtLeast(two.length, 1, "the second listener never got a call")
          assert.strictEqual(second.claimed.length, rounds)
          assert.strictEqual(first.claimed.length, rounds + 1)

          // And with both accepting, exactly one of them takes the call.
          const accepting = yield* Effect.promise(() =>
            Replay.Agent.create(sdk, {
              hooks: {
                onCallStart: (call) => call.setTask("bye", { checklist: [new Replay.Say("Sorry, we are closed.")] }),
                onTaskComplete: { bye: (call) => call.hangup() },
                onCallReceived: () => "accept"
              }
            })
          )
          yield* Effect.promise(() => Promise.all([first.stop(), second.stop()]))
          const listeners = [accepting.listenPhone(number), accepting.listenPhone(number)]
          yield* Effect.promise(() => Promise.all(listeners.map((listener) => listener.waitStarted())))
          const answered = yield* callIn
          assert.strictEqual(answered.status, 201, JSON.stringify(answered.body))
          const callId = (answered.body as { call_id: string }).call_id
          assert.deepStrictEqual(listeners.map((l) => l.answered.length).sort((a, b) => a - b), [0, 1])
          const call = accepting.calls[0]!
          assert.strictEqual(call.id, callId)
          yield* Effect.promise(() => call.result(30_000))
          assert.strictEqual(call.terminationReason, "bot-hangup")
          assert.strictEqual(accepting.calls.length, 1)
        }).pipe(Effect.scoped),
      { timeout: 90_000 }
    )
  }
})
