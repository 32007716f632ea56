/**
 * Transfers that move the call (CONTRACT §8, "Transfer"), end to end on a real daemon with the
 * simulated carrier: the model's `transfer` tool has the agent say its message, then the
 * carrier moves the call; the conversation ends `bot-transfer` with the message last in its
 * transcript, and nothing of ours hangs the moved call up. A transfer the carrier refuses (an
 * unreachable target) keeps the agent on the call: the model hears why and carries on. On
 * Twilio (the local fake), the transfer is the live call's update to `<Dial>` the target.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { createServer } from "node:net"
import * as Daemon from "../support/Daemon.ts"
import * as ChatCompletionsFake from "../support/openai-fake/ChatCompletionsFake.ts"
import * as TwilioFake from "../support/twilio-fake/TwilioFake.ts"

/** A port free now on 127.0.0.1: the public URL must be known before the daemon starts. */
const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
}
interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
}

const moved = "+12025550110"
const refused = "+12025550112"
/** A person who talks (sim carrier's `conversation` range). */
const colleague = "+12025550111"
/** The sim carrier's carrier-failure range: the transfer is refused. */
const unreachable = "+12025550171"
const message = "Transferring you to a colleague now."
const apology = "I could not put you through, sorry. Goodbye."

/**
 * The model: transfers at once (to the colleague, or to the unreachable number for `refused`),
 * and once told the transfer failed, apologizes and ends the call.
 */
const model: ChatCompletionsFake.Script = (request) => {
  const system = String(request.messages[0]?.content ?? "")
  const last = request.messages.at(-1)
  if (last?.role === "tool") {
    return ChatCompletionsFake.answer([
      ChatCompletionsFake.text(apology),
      ChatCompletionsFake.toolCall("end_call", "{}")
    ])
  }
  const to = system.includes(`to ${refused}`) ? unreachable : colleague
  return ChatCompletionsFake.answer([ChatCompletionsFake.toolCall("transfer", JSON.stringify({ to, message }))])
}

/** The daemon's settings for the model (a local OpenAI-compatible fake running `model`). */
const modelEnv = (fake: ChatCompletionsFake.ChatCompletionsFake) => ({
  VOICE_AGENT_PROVIDERS: JSON.stringify({
    llm: { house: { type: "openai-chat", base_url: fake.url, model: "gpt-fake", api_key_env: "HOUSE_LLM_KEY" } }
  }),
  HOUSE_LLM_KEY: fake.apiKey ?? ""
})

/**
 * A campaign calling `numbers` from +12025550100 with an agent on the model, run to the end of
 * every call; answers each number's conversation and transcript.
 */
const callThrough = (api: Daemon.RunningDaemon, key: string, numbers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const created = yield* Daemon.request(
      `${api.url}/v2/agents`,
      Daemon.postJson(key, {
        name: "desk",
        persona: { agent_name: "Sam" },
        task: {
          objective: "Put the caller through to a colleague",
          action_items: [{ item_type: "say", key: "intro", statement: "A colleague will take your call." }]
        },
        llm: "house"
      })
    )
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    const campaign = yield* Daemon.request(
      `${api.url}/v2/campaigns`,
      Daemon.postJson(key, {
        name: "transfers",
        origin_phone_numbers: ["+12025550100"],
        start_date: new Date().toISOString().slice(0, 10),
        calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
        timezone: "UTC",
        max_concurrency: 10
      })
    )
    assert.strictEqual(campaign.status, 201, JSON.stringify(campaign.body))
    const code = (campaign.body as { campaign_code: string }).campaign_code
    const attached = yield* Daemon.request(`${api.url}/v2/campaigns/${code}/agent`, {
      ...Daemon.postJson(key, { agent_id: (created.body as { id: string }).id }),
      method: "PUT"
    })
    assert.strictEqual(attached.status, 200, JSON.stringify(attached.body))
    const uploaded = yield* Daemon.request(
      `${api.url}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
      Daemon.postJson(key, { contacts: numbers.map((phone_number) => ({ phone_number })) })
    )
    assert.strictEqual(uploaded.status, 200, JSON.stringify(uploaded.body))
    for (const number of numbers) {
      yield* api.waitFor(new RegExp(`to \\${number} ended:`)).pipe(
        Effect.timeout("90 seconds"),
        Effect.tapError(() => Effect.sync(() => console.log(api.stdout.join("\n"))))
      )
    }

    const list = (yield* Daemon.request(`${api.url}/v1/conversations`, Daemon.bearer(key))).body as {
      conversations: ReadonlyArray<Conversation>
    }
    const transcriptOf = (number: string) =>
      Effect.gen(function*() {
        const conversation = list.conversations.find((c) => c.to_number === number)
        assert.isDefined(conversation, `a conversation to ${number}`)
        const transcript = yield* Daemon.request(
          `${api.url}/v1/conversations/${conversation.call_id}/transcript`,
          Daemon.bearer(key)
        )
        return { conversation, turns: transcript.body as ReadonlyArray<Turn> }
      })
    return yield* Effect.forEach(numbers, transcriptOf)
  })

describe("transfers, on a daemon", () => {
  it.live(
    "the simulated carrier: moved, bot-transfer, the message last, no hang-up; refused, the model carries on",
    () =>
      Effect.gen(function*() {
        const fake = yield* ChatCompletionsFake.make({ script: model })
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], modelEnv(fake))
        const key = Option.getOrThrow(api.apiKey)
        const [transferred, stayed] = yield* callThrough(api, key, [moved, refused])
        assert.isDefined(transferred)
        assert.isDefined(stayed)
        assert.strictEqual(transferred.conversation.termination_reason, "bot-transfer")
        assert.strictEqual(transferred.turns.at(-1)?.speaker, "AGENT")
        assert.strictEqual(transferred.turns.at(-1)?.text, message)
        assert.isTrue(
          api.stdout.some((line) => line.includes(`${transferred.conversation.call_id}: transferred to ${colleague}`))
        )
        assert.isFalse(
          api.stdout.some((line) => line.includes(`Hanging up call ${transferred.conversation.call_id}`)),
          api.stdout.join("\n")
        )

        assert.strictEqual(stayed.conversation.termination_reason, "bot-hangup")
        const said = stayed.turns.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text)
        assert.includeMembers(said, [message, "I could not put you through, sorry.", "Goodbye."])
        assert.isBelow(said.indexOf(message), said.indexOf("Goodbye."))
        // The model heard why, as its transfer call's result.
        const told = fake.requests.some((r) =>
          (r.body as { messages: ReadonlyArray<{ role: string; content?: unknown }> }).messages.some((m) =>
            m.role === "tool" && String(m.content).includes(`the transfer to ${unreachable} failed`)
          )
        )
        assert.isTrue(told)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "Twilio (the fake): the live call updated to <Dial> the target, never hung up; bot-transfer",
    () =>
      Effect.gen(function*() {
        const fake = yield* ChatCompletionsFake.make({ script: model })
        const twilio = yield* TwilioFake.make({ numbers: [{ phoneNumber: "+12025550100" }], timings: { ringMs: 300 } })
        const port = yield* freePort
        const api = yield* Daemon.serve(["--port", String(port), "--data-dir", ":memory:"], {
          ...modelEnv(fake),
          VOICE_AGENT_CARRIER: "twilio",
          TWILIO_ACCOUNT_SID: twilio.accountSid,
          TWILIO_AUTH_TOKEN: twilio.authToken,
          TWILIO_API_BASE: twilio.url,
          VOICE_AGENT_PUBLIC_URL: `http://127.0.0.1:${port}`
        })
        const [transferred] = yield* callThrough(api, Option.getOrThrow(api.apiKey), [moved])
        assert.isDefined(transferred)
        assert.strictEqual(transferred.conversation.termination_reason, "bot-transfer")
        assert.strictEqual(transferred.turns.at(-1)?.text, message)

        const sid = twilio.calls().find((call) => call.to === moved)?.sid
        assert.isDefined(sid)
        const updates = twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/Calls/${sid}.json`))
        // One update of the call, to <Dial> the colleague; no `Status=completed` (a hang-up) for it.
        assert.deepStrictEqual(updates.map((r) => [...r.form]), [[
          ["Twiml", `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>${colleague}</Dial></Response>`]
        ]])
        // Twilio stopped the stream and bridged the person to the colleague; the call completes
        // when they hang up, still with no hang-up of ours.
        const call = yield* twilio.awaitCallDone(sid).pipe(Effect.timeout("30 seconds"))
        assert.deepStrictEqual(call.dialed, [colleague])
        assert.strictEqual(call.stream?.endedBy, "redirected")
        assert.strictEqual(call.status, "completed")
        assert.lengthOf(
          twilio.requests.filter((r) => r.path.endsWith(`/Calls/${sid}.json`) && r.form.has("Status")),
          0
        )
      }).pipe(Effect.scoped),
    180_000
  )
})
