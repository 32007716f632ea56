/**
 * SDK agents on a real daemon with the simulated carrier (docs/REMOTE_AGENTS.md, the reference SDK's
 * agent protocol): an agent written with packages/agent-sdk places a call with
 * `v2/create-outbound`, drives it over its call socket (persona, a task of typed fields, a
 * hang-up when the task is done) and gets the simulated person's answers as the SDK's
 * `action-item-done` events, then the end as `bot-session-ended`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, Field } from "@voice-agent/agent-sdk"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as Dtmf from "../support/Dtmf.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

describe("SDK agents, on a daemon", () => {
  it.live("an agent-sdk agent places a call, collects typed fields and hangs up", () =>
    Effect.gen(function*() {
      const number = "+12025550100"
      const { daemon, key } = yield* Daemon.serveWithOrganization("remote", number)

      const agent = new Agent({
        name: "Grace",
        organization: "Acme Dental",
        baseUrl: `${daemon.url}/`,
        apiKey: key,
        logger: silent
      })
        .onCallStart((call) =>
          call.setTask("intake", {
            objective: "Collect the caller's name and party size",
            checklist: [
              new Field({ key: "name", fieldType: "text", question: "What is your name?" }),
              new Field({ key: "guests", fieldType: "integer", question: "How many guests are coming?" })
            ]
          })
        )
        .onTaskComplete((call) => call.hangup("Thank them for their time."))
      // The person at 0190 never hangs up: the call ends because the agent hangs up.
      const outcome = yield* Effect.promise(() => agent.callPhone({ from: number, to: "+12025550190" })).pipe(
        Effect.timeout("90 seconds")
      )
      assert.strictEqual(outcome.status, "ended", JSON.stringify(outcome))
      if (outcome.status !== "ended") return
      assert.strictEqual(outcome.terminationReason, "bot-hangup")
      assert.isFalse(outcome.dnc)
      assert.deepStrictEqual(outcome.fields, { name: "Alex Morgan", guests: 42 })

      // The same call, as the documented API records it.
      const fields = (yield* Daemon.request(
        `${daemon.url}/v1/conversations/${outcome.callId}/fields`,
        Daemon.bearer(key)
      )).body as { fields: Record<string, unknown> }
      assert.deepStrictEqual(fields.fields, { name: "Alex Morgan", guests: 42 })
      const transcript = (yield* Daemon.request(
        `${daemon.url}/v1/conversations/${outcome.callId}/transcript`,
        Daemon.bearer(key)
      )).body as ReadonlyArray<{ speaker: string; text: string }>
      assert.include(transcript[0]!.text, "Grace from Acme Dental", JSON.stringify(transcript))
    }), { timeout: 120_000 })
})

describe("the Python SDK's wire (a replay of guava-sdk 0.35), on a daemon", () => {
  it.live(
    "call_phone with a task and hangup: typed fields as action-item-done, then bot-session-ended",
    () =>
      Effect.gen(function*() {
        const number = "+12025550100"
        const { daemon, key } = yield* Daemon.serveWithOrganization("python", number)

        const sdk = new Replay.GuavaSdk({ baseUrl: `${daemon.url}/`, apiKey: key, telemetry: false })
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, {
            name: "Ava",
            organization: "Acme Dental",
            hooks: {
              onCallStart: (call) => {
                // Keys for the person (an IVR would act on them), played in band: the recording has them.
                call.sendDtmf("12")
                call.setTask("intake", {
                  checklist: [
                    new Replay.Field({ key: "full_name", fieldType: "text", question: "What is your full name?" }),
                    new Replay.Field({ key: "party_size", fieldType: "integer", question: "How many people?" })
                  ]
                })
              },
              onTaskComplete: { intake: (call) => call.hangup("Thank them.") }
            }
          })
        )
        const call = yield* Effect.promise(() =>
          agent.callPhone({ fromNumber: number, toNumber: "+12025550191", variables: { contact: "Ann" } })
        )
        yield* Effect.promise(() => call.result()).pipe(Effect.timeout("90 seconds"))
        assert.strictEqual(call.terminationReason, "bot-hangup")
        assert.deepStrictEqual(call.notes, [])
        assert.strictEqual(call.getField("full_name"), "Alex Morgan")
        assert.strictEqual(call.getField("party_size"), 42)
        const types = call.events.map((event) => event.event_type)
        assert.isTrue(types.lastIndexOf("action-item-done") < types.indexOf("task-done"), JSON.stringify(types))
        // The attach order of the SDK reached the server: persona, hooks, the variable, the task.
        const sent = call.sentCommands().map((command) => command["command_type"])
        assert.deepStrictEqual(sent.slice(0, 5), [
          "set-persona",
          "registered-hooks",
          "set-variable",
          "send-agent-dtmf",
          "set-task"
        ])
        const agentChannel = yield* Effect.promise(async () => {
          const response = await fetch(
            `${daemon.url}/v1/conversations/${call.id}/channels/agent/recording`,
            Daemon.bearer(key)
          )
          return new Uint8Array(await response.arrayBuffer())
        })
        assert.strictEqual(Dtmf.keysInWav(agentChannel), "12")
        yield* Effect.promise(() => sdk.shutdown())
      }),
    { timeout: 120_000 }
  )
})
