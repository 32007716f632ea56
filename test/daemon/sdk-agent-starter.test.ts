/**
 * The shape most agents of the reference's public starter repository have (171 of its 405 use
 * `reach_person`; about 385 a task of `Say`s and description-only `Field`s and a hang-up on
 * task-done), run through the replay of the Python SDK on a daemon with the simulated carrier
 * and no language model: the engine's deterministic policy has to carry it to the end, with
 * the person reached, every field filled and the call ended by the agent's hang-up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"
import { Say } from "../support/guava-sdk/Commands.ts"

describe("a starter-style agent (reach_person, then a reminder task), on a daemon", () => {
  it.live("reaches the person, fills every field and ends with the agent's hang-up", () =>
    Effect.gen(function*() {
      const number = "+12025550100"
      const { daemon, key } = yield* Daemon.serveWithOrganization("starter", number)

      const sdk = new Replay.GuavaSdk({ baseUrl: `${daemon.url}/`, apiKey: key, telemetry: false })
      const reached: Array<unknown> = []
      const results: Array<Record<string, unknown>> = []
      const agent = yield* Effect.promise(() =>
        Replay.Agent.create(sdk, {
          name: "Jordan",
          organization: "Bright Smile Dental",
          purpose: "to remind patients of their dental appointments and confirm them",
          hooks: {
            onCallStart: (call) => call.reachPerson(String(call.getVariable("patient_name"))),
            onReachPerson: (call, outcome) => {
              reached.push(outcome)
              if (outcome !== "available") return call.hangup("We could not reach the patient; say goodbye.")
              const name = String(call.getVariable("patient_name"))
              call.setTask("reminder", {
                objective: `Remind ${name} of the appointment and confirm it, or collect a new time.`,
                checklist: [
                  new Say(`Hi ${name}, I'm calling about your appointment ${String(call.getVariable("appointment"))}.`),
                  new Replay.Field({
                    key: "appointment_confirmed",
                    description: "Ask the patient whether they confirm their appointment or need to reschedule.",
                    fieldType: "text"
                  }),
                  new Replay.Field({
                    key: "reschedule_requested",
                    description:
                      "If they need to reschedule, ask for their preferred day and time for a new appointment.",
                    fieldType: "text",
                    required: false
                  })
                ]
              })
            },
            onTaskComplete: {
              reminder: (call) => {
                results.push({
                  appointment_confirmed: call.getField("appointment_confirmed"),
                  reschedule_requested: call.getField("reschedule_requested")
                })
                call.hangup("Thank the patient and wish them a great day.")
              }
            }
          }
        })
      )
      const call = yield* Effect.promise(() =>
        agent.callPhone({
          fromNumber: number,
          toNumber: "+12025550191",
          variables: { patient_name: "Ann Lee", appointment: "tomorrow at 2 PM" }
        })
      )
      yield* Effect.promise(() => call.result(85_000)).pipe(Effect.timeout("90 seconds"))
      yield* Effect.promise(() => sdk.shutdown())

      assert.deepStrictEqual(reached, ["available"])
      // The simulated person's answer to a question about an appointment (docs/AGENTS.md, "The simulated person").
      assert.deepStrictEqual(results, [{
        appointment_confirmed: "next Tuesday at ten a m",
        reschedule_requested: "next Tuesday at ten a m"
      }])
      assert.strictEqual(call.terminationReason, "bot-hangup")
      assert.deepStrictEqual(call.notes, [])
      const types = call.events.map((event) => event.event_type)
      assert.deepStrictEqual(types.filter((type) => type === "task-done").length, 2, JSON.stringify(types))
      assert.strictEqual(types.at(-1), "bot-session-ended")

      const transcript = (yield* Daemon.request(
        `${daemon.url}/v1/conversations/${call.id}/transcript`,
        Daemon.bearer(key)
      )).body as ReadonlyArray<{ speaker: string; text: string }>
      assert.deepStrictEqual(
        transcript.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text).slice(0, 3),
        [
          "Hello, this is Jordan from Bright Smile Dental.",
          "May I speak with Ann Lee?",
          "Hi Ann Lee, I'm calling about your appointment tomorrow at 2 PM."
        ]
      )
    }), { timeout: 120_000 })

  it.live(
    "what the agent asks for in on_call_start, before the call is up, is done once it is: a script, then the hang-up",
    () =>
      Effect.gen(function*() {
        const number = "+12025550100"
        const { daemon, key } = yield* Daemon.serveWithOrganization("notice", number)
        const sdk = new Replay.GuavaSdk({ baseUrl: `${daemon.url}/`, apiKey: key, telemetry: false })
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, {
            name: "Jordan",
            organization: "Bright Smile Dental",
            hooks: {
              onCallStart: (call) => {
                call.readScript("The office is closed on Monday.")
                call.hangup("Say goodbye.")
              }
            }
          })
        )
        const call = yield* Effect.promise(() => agent.callPhone({ fromNumber: number, toNumber: "+12025550190" }))
        yield* Effect.promise(() => call.result(60_000)).pipe(Effect.timeout("70 seconds"))
        yield* Effect.promise(() => sdk.shutdown())
        assert.strictEqual(call.terminationReason, "bot-hangup")
        const transcript = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${call.id}/transcript`,
          Daemon.bearer(key)
        )).body as ReadonlyArray<{ speaker: string; text: string }>
        assert.deepStrictEqual(transcript.map((turn) => turn.text), [
          "Hello, this is Jordan from Bright Smile Dental.",
          "The office is closed on Monday.",
          "Thank you, that is everything I needed. Goodbye."
        ])
      }),
    { timeout: 90_000 }
  )
})
