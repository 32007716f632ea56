/**
 * Campaign calls served by SDK agents on a real daemon with the simulated carrier, through
 * the replay of the Python SDK 0.35 (test/support/guava-sdk): a campaign created and filled
 * through the documented HTTP API is served by `attach_campaign` (the Agent API) and by the
 * legacy `serve_campaign` (a `CallController`). Each contact is offered as
 * `initiate-and-assign-call`, the agent gets its `data` (as variables, or as the controller's
 * data), the simulated person's answers arrive as `action-item-done`, `bot-session-ended` ends
 * the call and the contact is `COMPLETED`. A controller that fails to initialize
 * (`init-controller-failed`) releases the contact with no attempt used.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Daemon from "../support/Daemon.ts"
import * as Replay from "../support/guava-sdk/Agent.ts"
import { fastTiming } from "../support/guava-sdk/GuavaSocket.ts"

const origin = "+12025550100"

interface Contact {
  readonly id: string
  readonly phone_number: string
  readonly status: string
  readonly data: Record<string, unknown>
}

/**
 * A daemon, an organization owning `origin`, a campaign calling at any time (two calls at a
 * time, one attempt per contact), and the SDK process of its agent.
 */
const setup = (name: string) =>
  Effect.gen(function*() {
    const { daemon, key } = yield* Daemon.serveWithOrganization(name, origin)
    const created = yield* Daemon.request(
      `${daemon.url}/v2/campaigns`,
      Daemon.postJson(key, {
        name,
        origin_phone_numbers: [origin],
        start_date: new Date().toISOString().slice(0, 10),
        calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
        timezone: "UTC",
        max_concurrency: 2
      })
    )
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    const campaign = created.body as { id: string; campaign_code: string }
    const sdk = new Replay.GuavaSdk({
      baseUrl: `${daemon.url}/`,
      apiKey: key,
      telemetry: false,
      // A client close takes effect within half a second (the SDK's receive loop wakes every 10 s).
      timing: { socket: fastTiming({ recvTimeoutMs: 500 }) }
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => sdk.shutdown()))
    const upload = (contacts: ReadonlyArray<{ readonly phone_number: string; readonly data?: unknown }>) =>
      Effect.gen(function*() {
        const uploaded = yield* Daemon.request(
          `${daemon.url}/v2/campaigns/${campaign.campaign_code}/contacts?accepted_terms_of_service=true`,
          Daemon.postJson(key, { contacts })
        )
        assert.strictEqual(uploaded.status, 200, JSON.stringify(uploaded.body))
      })
    const contacts = Effect.map(
      Daemon.request(`${daemon.url}/v2/contacts?campaign_code=${campaign.campaign_code}`, Daemon.bearer(key)),
      (response) => (response.body as { contacts: ReadonlyArray<Contact> }).contacts
    )
    const get = (path: string) => Effect.map(Daemon.request(`${daemon.url}${path}`, Daemon.bearer(key)), (r) => r.body)
    /** The dialer's end of the call to `number`, as it logs it. */
    const ended = (number: string) =>
      daemon.waitFor(new RegExp(`to \\${number} ended:`)).pipe(Effect.timeout("20 seconds"))
    return { daemon, sdk, campaign, upload, contacts, get, ended }
  })

/** A task of two fields whose completion hangs up. */
const booking: Replay.AgentHooks = {
  onCallStart: (call) =>
    call.setTask("booking", {
      checklist: [
        new Replay.Field({ key: "full_name", fieldType: "text", question: "Under which name is the booking?" }),
        new Replay.Field({ key: "guests", fieldType: "integer", question: "How many guests are coming?" })
      ]
    }),
  onTaskComplete: { booking: (call) => call.hangup("Thank them.") }
}

/** The people at 0190-0199 never hang up (packages/carrier-sim/README.md): each call ends when the agent hangs up. */
const jane = "+12025550192"
const ada = "+12025550193"

describe("attach_campaign (a replay of guava-sdk 0.35), on a daemon", () => {
  it.live(
    "each contact's data arrive as variables, its fields as action-item-done, then bot-session-ended; COMPLETED",
    () =>
      Effect.gen(function*() {
        const { campaign, contacts, ended, get, sdk, upload } = yield* setup("attach")
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, { name: "Sam", organization: "Bistro Nine", hooks: booking })
        )
        const attachment = agent.attachCampaign(campaign.campaign_code)
        yield* Effect.promise(() => attachment.waitReady())
        assert.deepStrictEqual(attachment.campaign, { id: campaign.id, name: "attach" })

        const data: Record<string, Record<string, unknown>> = {
          [jane]: { name: "Jane", visits: 3, tags: { vip: true } },
          [ada]: { name: "Ada" }
        }
        yield* upload([{ phone_number: jane, data: data[jane] }, { phone_number: ada, data: data[ada] }])
        const calls = yield* Effect.promise(() =>
          Promise.all([attachment.waitForCall(0, 20_000), attachment.waitForCall(1, 20_000)])
        )
        yield* Effect.promise(() => Promise.all(calls.map((call) => call.result(60_000))))

        for (const call of calls) {
          const number = call.callInfo.call_type === "pstn" ? call.callInfo.to_number : ""
          assert.deepStrictEqual(Object.fromEntries(call.variables), data[number], number)
          assert.deepStrictEqual(Object.fromEntries(call.fields), { full_name: "Alex Morgan", guests: 42 }, number)
          assert.strictEqual(call.terminationReason, "bot-hangup")
          assert.deepStrictEqual(call.notes, [])
          const types = call.events.map((event) => event.event_type)
          assert.isTrue(types.lastIndexOf("action-item-done") < types.indexOf("task-done"), JSON.stringify(types))
          const variables = Object.keys(data[number]!).map(() => "set-variable")
          assert.deepStrictEqual(
            call.sentCommands().map((command) => command["command_type"]),
            ["set-persona", "registered-hooks", ...variables, "set-task", "send-instruction"]
          )
        }
        assert.deepStrictEqual(
          attachment.dispatches.map((d) => d.controllerReadySent && d.error === undefined),
          [true, true]
        )

        // The documented API: both contacts completed, each call's fields recorded.
        yield* ended(jane)
        yield* ended(ada)
        const statuses = Object.fromEntries((yield* contacts).map((c) => [c.phone_number, c.status]))
        assert.deepStrictEqual(statuses, { [jane]: "COMPLETED", [ada]: "COMPLETED" })
        for (const call of calls) {
          const conversation = yield* get(`/v1/conversations/${call.id}`)
          assert.strictEqual((conversation as { termination_reason: string }).termination_reason, "bot-hangup")
          assert.deepStrictEqual(yield* get(`/v1/conversations/${call.id}/fields`), {
            fields: Object.fromEntries(call.fields)
          })
        }
        yield* Effect.promise(() => attachment.stop())
        assert.isUndefined(attachment.error)
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  // CONTRACT §8, "Transfer": the carrier moves the call; a refused transfer is told as a warning.
  it.live(
    "transfer-call: moved, bot-transfer; refused (an unreachable target), a warning and the call goes on",
    () =>
      Effect.gen(function*() {
        const { campaign, get, sdk, upload } = yield* setup("transfers")
        const targets: Record<string, string> = { [jane]: "+12025550111", [ada]: "+12025550171" }
        const agent = yield* Effect.promise(() =>
          Replay.Agent.create(sdk, {
            hooks: {
              ...booking,
              onTaskComplete: {
                booking: (call) =>
                  call.transfer(targets[call.callInfo.call_type === "pstn" ? call.callInfo.to_number : ""]!)
              }
            }
          })
        )
        const attachment = agent.attachCampaign(campaign.campaign_code)
        yield* Effect.promise(() => attachment.waitReady())
        yield* upload([{ phone_number: jane }, { phone_number: ada }])
        const calls = yield* Effect.promise(() =>
          Promise.all([attachment.waitForCall(0, 20_000), attachment.waitForCall(1, 20_000)])
        )
        yield* Effect.promise(() => Promise.all(calls.map((call) => call.result(60_000))))
        const byNumber = new Map(
          calls.map((call) => [call.callInfo.call_type === "pstn" ? call.callInfo.to_number : "", call])
        )
        const moved = byNumber.get(jane)!
        assert.strictEqual(moved.terminationReason, "bot-transfer")
        assert.deepStrictEqual(moved.logged, [])
        // Refused: the SDK hears why as a `warning` (the protocol has no event for it), and the
        // call goes on until the agent, idle, is ended by the engine (not a transfer).
        const refused = byNumber.get(ada)!
        assert.deepStrictEqual(refused.logged, [{
          where: "server warning",
          error: "transfer-call to +12025550171 failed: destination +12025550171 is unreachable; the call goes on"
        }])
        assert.notStrictEqual(refused.terminationReason, "bot-transfer")
        const said = (yield* get(`/v1/conversations/${refused.id}/transcript`)) as ReadonlyArray<{ text: string }>
        assert.include(said.map((turn) => turn.text), "I'm sorry, I could not transfer your call.")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  // The person is briefed with the fields of the task the agent set (SdkAgentTasks), docs/REMOTE_AGENTS.md.
  it.live(
    "the contact's data.sim_answers brief the simulated person on an SDK agent's call",
    () =>
      Effect.gen(function*() {
        const { campaign, sdk, upload } = yield* setup("briefed")
        const agent = yield* Effect.promise(() => Replay.Agent.create(sdk, { hooks: booking }))
        const attachment = agent.attachCampaign(campaign.campaign_code)
        yield* Effect.promise(() => attachment.waitReady())
        yield* upload([{ phone_number: jane, data: { sim_answers: { full_name: "Jane Q Public", guests: "seven" } } }])
        const call = yield* Effect.promise(() => attachment.waitForCall(0, 20_000))
        yield* Effect.promise(() => call.result(60_000))
        assert.deepStrictEqual(Object.fromEntries(call.fields), { full_name: "Jane Q Public", guests: 7 })
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )
})

/** A legacy controller: persona and a task in its constructor, a hang-up when the task is done. */
class Booking extends Replay.CallController {
  constructor(data: unknown) {
    super(data)
    this.setPersona({ agentName: "Sam", organizationName: "Bistro Nine" })
    this.setTask(
      "Take the booking",
      [
        new Replay.Field({ key: "full_name", fieldType: "text", question: "Under which name is the booking?" }),
        new Replay.Field({ key: "guests", fieldType: "integer", question: "How many guests are coming?" })
      ],
      "",
      () => this.hangup()
    )
  }
}

describe("the legacy serve_campaign (CallController), on a daemon", () => {
  it.live(
    "the controller is built from the contact's data and collects its fields; the listener ends with the campaign",
    () =>
      Effect.gen(function*() {
        const { campaign, contacts, ended, get, sdk, upload } = yield* setup("legacy")
        const client = yield* Effect.promise(() => sdk.client())
        const found = (yield* Effect.promise(() => client.getCampaignByCode(campaign.campaign_code))) as { id: string }
        const built: Array<unknown> = []
        const listener = Replay.serveCampaign(client, {
          campaign: found,
          controller: (data) => {
            built.push(data)
            return new Booking(data)
          }
        })
        yield* Effect.promise(() => listener.waitReady())
        yield* upload([{ phone_number: jane, data: { name: "Jane" } }])
        const controller = yield* Effect.promise(() => listener.waitForController(0, 20_000))
        yield* Effect.promise(() => controller.result(60_000))

        assert.deepStrictEqual(built, [{ name: "Jane" }])
        assert.deepStrictEqual(Object.fromEntries(controller.fieldValues), { full_name: "Alex Morgan", guests: 42 })
        assert.deepStrictEqual(controller.logged, [])
        assert.deepStrictEqual(controller.notes, [])
        const last = controller.events.at(-1)
        assert.deepStrictEqual(last?.event_type === "bot-session-ended" && last.termination_reason, "bot-hangup")
        // The legacy attach order: hooks first, then what the constructor queued; no variables.
        assert.deepStrictEqual(
          controller.sentCommands().map((command) => command["command_type"]),
          ["registered-hooks", "set-persona", "set-task", "send-instruction"]
        )
        assert.deepStrictEqual(listener.initFailures, [])

        yield* ended(jane)
        assert.deepStrictEqual((yield* contacts).map((c) => c.status), ["COMPLETED"])
        assert.deepStrictEqual(yield* get(`/v1/conversations/${controller.callId}/fields`), {
          fields: { full_name: "Alex Morgan", guests: 42 }
        })
        // Nothing left to call: the SDK's poll of has-callable-contacts closes the listener.
        yield* Effect.promise(() => listener.waitDone(15_000))
        assert.isAtLeast(listener.polls, 1)
        assert.isUndefined(listener.error)
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )

  it.live(
    "a controller that fails to initialize (init-controller-failed) releases the contact with no attempt used",
    () =>
      Effect.gen(function*() {
        const { campaign, contacts, daemon, get, sdk, upload } = yield* setup("failing")
        const client = yield* Effect.promise(() => sdk.client())
        const listener = Replay.serveCampaign(client, {
          campaign: { id: campaign.id },
          controller: () => {
            throw new Error("the booking system is down")
          }
        })
        yield* Effect.promise(() => listener.waitReady())
        yield* upload([{ phone_number: jane }])
        yield* Effect.promise(() => listener.watch.waitFor(() => listener.initFailures[0], 20_000, "a failure"))
        yield* daemon.waitFor(/not called: the SDK agent declined call/).pipe(Effect.timeout("5 seconds"))
        yield* Effect.promise(() => listener.stop())

        // No call placed, no attempt used: still TRYING, due again after a back-off, never exhausted.
        const [contact] = yield* contacts
        assert.strictEqual(contact?.status, "TRYING")
        const eligibility =
          (yield* get(`/v2/campaigns/${campaign.campaign_code}/contacts/${contact?.id}/eligibility`)) as {
            callable: boolean
            next_eligible_at: string | null
            blocked_by: ReadonlyArray<string>
          }
        assert.deepStrictEqual(eligibility.blocked_by, ["retry_delay"], JSON.stringify(eligibility))
        assert.isNotNull(eligibility.next_eligible_at)
        assert.deepStrictEqual(((yield* get("/v1/conversations")) as { conversations: unknown }).conversations, [])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
