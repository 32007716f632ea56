/**
 * Agents that converse, end to end on a real daemon with the simulated carrier: an agent
 * definition attached to a campaign runs each answered call; the simulated person, briefed
 * with the contact's `sim_answers`, answers its questions in simulated speech over the real
 * media WebSocket; the collected values come back typed from
 * `GET /v1/conversations/{call_id}/fields`, beside the transcript and the recordings.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as ChecklistModel from "../support/ChecklistModel.ts"
import { fieldsToCollect } from "../support/ChecklistPrompt.ts"
import * as Daemon from "../support/Daemon.ts"
import * as DeepgramFake from "../support/deepgram-fake/DeepgramFake.ts"
import * as AudioFake from "../support/openai-fake/AudioFake.ts"
import * as ChatCompletionsFake from "../support/openai-fake/ChatCompletionsFake.ts"
import * as RealtimeFake from "../support/openai-fake/RealtimeFake.ts"
import * as SpeechBoundaries from "../support/SpeechBoundaries.ts"

interface Conversation {
  readonly call_id: string
  readonly to_number: string
  readonly termination_reason: string | null
}
interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offset_ms: number
}

const task = {
  objective: "Confirm the booking",
  completion_criteria: "Every field is collected",
  action_items: [
    { item_type: "say", key: "intro", statement: "I am calling about your table booking." },
    { item_type: "field", key: "full_name", field_type: "text", question: "What name is the booking under?" },
    { item_type: "field", key: "party_size", field_type: "integer", question: "How many people are coming?" },
    { item_type: "field", key: "visit_date", field_type: "date", question: "On which date will you visit?" },
    {
      item_type: "field",
      key: "seating",
      field_type: "multiple_choice",
      question: "Where would you like to sit?",
      choices: ["terrace", "inside"]
    },
    { item_type: "field", key: "member_id", field_type: "digit_sequence", question: "What is your member number?" },
    { item_type: "todo", key: "note", description: "Note any allergies mentioned" }
  ]
}

/** Waits for the daemon to log the end of the call to `number`; prints its log if it does not. */
const callEnded = (api: Daemon.RunningDaemon, number: string) =>
  api.waitFor(new RegExp(`to \\${number} ended:`)).pipe(
    Effect.timeout("90 seconds"),
    Effect.tapError(() => Effect.sync(() => console.log(api.stdout.join("\n"))))
  )

interface Latency {
  readonly turns: ReadonlyArray<
    {
      readonly user_stopped_ms: number
      readonly agent_started_ms: number
      readonly voice_to_voice_ms: number
      readonly stages: Record<string, number>
    }
  >
  readonly summary: { readonly count: number }
}

/**
 * A call's turn latency, checked against its recordings (CONTRACT §8: both on the call's
 * timeline): each reply's `agent_started_ms` within 40 ms of where sound starts on the `agent`
 * channel, each `user_stopped_ms` within 40 ms of where it ends on the `remote` channel, and no
 * reply starting before the speech it answers ends, in the figures or in the recordings.
 */
const latencyAgreesWithRecordings = (url: string, key: string, callId: string) =>
  Effect.gen(function*() {
    const latency = (yield* Daemon.request(`${url}/v1/conversations/${callId}/latency`, Daemon.bearer(key)))
      .body as Latency
    const agent = SpeechBoundaries.stretches(yield* SpeechBoundaries.channel(url, key, callId, "agent"))
    const remote = SpeechBoundaries.stretches(yield* SpeechBoundaries.channel(url, key, callId, "remote"))
    for (const turn of latency.turns) {
      const heard = SpeechBoundaries.nearest(remote, "endMs", turn.user_stopped_ms)
      const reply = SpeechBoundaries.nearest(agent, "startMs", turn.agent_started_ms)
      const seen = JSON.stringify({ turn, heard, reply })
      assert.isDefined(heard, seen)
      assert.isDefined(reply, seen)
      assert.closeTo(heard.endMs, turn.user_stopped_ms, 40, `the person's speech ends where the figure says: ${seen}`)
      assert.closeTo(reply.startMs, turn.agent_started_ms, 40, `the reply starts where the figure says: ${seen}`)
      assert.isAtLeast(reply.startMs, heard.endMs, `the reply starts after the speech it answers: ${seen}`)
      assert.isAtLeast(turn.agent_started_ms, turn.user_stopped_ms, seen)
      assert.strictEqual(turn.voice_to_voice_ms, turn.agent_started_ms - turn.user_stopped_ms, seen)
    }
    return latency
  })

/** A campaign with `agentId` attached before any contact is uploaded; answers its code. */
const campaignWithAgent = (
  url: string,
  key: string,
  agentId: string,
  contacts: ReadonlyArray<{ readonly phone_number: string; readonly data?: Record<string, unknown> }>
) =>
  Effect.gen(function*() {
    const created = yield* Daemon.request(
      `${url}/v2/campaigns`,
      Daemon.postJson(key, {
        name: `agents-${agentId}`,
        origin_phone_numbers: ["+12025550100"],
        start_date: new Date().toISOString().slice(0, 10),
        calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
        timezone: "UTC",
        max_concurrency: 10
      })
    )
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    const code = (created.body as { campaign_code: string }).campaign_code
    const attached = yield* Daemon.request(`${url}/v2/campaigns/${code}/agent`, {
      ...Daemon.postJson(key, { agent_id: agentId }),
      method: "PUT"
    })
    assert.strictEqual(attached.status, 200, JSON.stringify(attached.body))
    const uploaded = yield* Daemon.request(
      `${url}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
      Daemon.postJson(key, { contacts })
    )
    assert.strictEqual(uploaded.status, 200, JSON.stringify(uploaded.body))
    return code
  })

/** The conversations, contacts' statuses, fields and transcripts of the calls to `numbers`. */
const results = (url: string, key: string, code: string, numbers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const list = (yield* Daemon.request(`${url}/v1/conversations`, Daemon.bearer(key))).body as {
      conversations: ReadonlyArray<Conversation>
    }
    const contacts = (yield* Daemon.request(`${url}/v2/contacts?campaign_code=${code}`, Daemon.bearer(key))).body as {
      contacts: ReadonlyArray<{ phone_number: string; status: string }>
    }
    const out = new Map<
      string,
      {
        readonly conversation: Conversation
        readonly status: string | undefined
        readonly fields: Record<string, unknown>
        readonly turns: ReadonlyArray<Turn>
      }
    >()
    for (const number of numbers) {
      const conversation = list.conversations.find((c) => c.to_number === number)
      assert.isDefined(conversation, `a conversation to ${number}`)
      const fields = yield* Daemon.request(
        `${url}/v1/conversations/${conversation.call_id}/fields`,
        Daemon.bearer(key)
      )
      assert.strictEqual(fields.status, 200, JSON.stringify(fields.body))
      const transcript = yield* Daemon.request(
        `${url}/v1/conversations/${conversation.call_id}/transcript`,
        Daemon.bearer(key)
      )
      out.set(number, {
        conversation,
        status: contacts.contacts.find((c) => c.phone_number === number)?.status,
        fields: (fields.body as { fields: Record<string, unknown> }).fields,
        turns: transcript.body as ReadonlyArray<Turn>
      })
    }
    return out
  })

describe("agents that converse, on a daemon", () => {
  it.live(
    "a campaign's agent definition collects typed fields under the deterministic policy",
    () =>
      Effect.gen(function*() {
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"])
        const key = Option.getOrThrow(api.apiKey)
        const created = yield* Daemon.request(
          `${api.url}/v2/agents`,
          Daemon.postJson(key, {
            name: "booking",
            persona: { agent_name: "Sam", organization_name: "Bistro Nine" },
            task
          })
        )
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const agentId = (created.body as { id: string }).id
        const briefed = "+12025550102"
        const defaults = "+12025550103"
        const code = yield* campaignWithAgent(api.url, key, agentId, [
          {
            phone_number: briefed,
            data: { name: "Jane", sim_answers: { full_name: "Jane Q Public", party_size: "seven", seating: "inside" } }
          },
          { phone_number: defaults, data: { name: "Ada" } }
        ])
        for (const number of [briefed, defaults]) {
          yield* callEnded(api, number)
        }
        const calls = yield* results(api.url, key, code, [briefed, defaults])

        const jane = calls.get(briefed)!
        assert.deepStrictEqual(jane.fields, {
          full_name: "Jane Q Public",
          party_size: 7,
          visit_date: { year: 2027, month: 3, day: 3 },
          seating: "inside",
          member_id: "1234"
        })
        assert.strictEqual(jane.status, "COMPLETED")
        // The person heard the questions and answered over the audio path.
        const human = jane.turns.filter((turn) => turn.speaker === "HUMAN").map((turn) => turn.text)
        assert.includeMembers(human, ["Jane Q Public", "seven", "inside"])
        const agent = jane.turns.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text)
        assert.include(agent.join(" "), "I am calling about your table booking.")
        assert.include(agent.join(" "), "Sam from Bistro Nine")
        // Each answer has its reply's turn latency with the steps that ran (no model under this
        // policy), where the recordings have the speech and the reply.
        const latency = yield* latencyAgreesWithRecordings(api.url, key, jane.conversation.call_id)
        assert.isAtLeast(latency.turns.length, 3, JSON.stringify(latency))
        assert.strictEqual(latency.summary.count, latency.turns.length)
        for (const turn of latency.turns) {
          assert.deepStrictEqual(Object.keys(turn.stages).sort(), ["engine_ms", "stt_ms", "tts_first_byte_ms"])
        }

        const ada = calls.get(defaults)!
        assert.deepStrictEqual(ada.fields, {
          full_name: "Alex Morgan",
          party_size: 42,
          visit_date: { year: 2027, month: 3, day: 3 },
          seating: "terrace",
          member_id: "1234"
        })
        assert.strictEqual(ada.status, "COMPLETED")
        for (const call of [jane, ada]) {
          const recording = yield* Effect.promise(() =>
            fetch(`${api.url}/v1/conversations/${call.conversation.call_id}/recording`, Daemon.bearer(key))
          )
          assert.strictEqual(recording.status, 200)
          assert.strictEqual(recording.headers.get("content-type"), "audio/wav")
          yield* Effect.promise(() => recording.arrayBuffer())
        }
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "under the language-model policy against a local OpenAI-compatible model, and a model that drops the call",
    () =>
      Effect.gen(function*() {
        const failing = "+12025550104"
        const toolCallFirst = "+12025550107"
        // A model that walks the checklist the prompt shows: asks the first field to collect,
        // records the caller's answer to it and says its next line in the same response, and
        // ends the call when nothing is left. For one contact, a model that makes its tool call
        // alone and says its line once it has the result (a second request).
        const oneResponse = ChecklistModel.script("one-response")
        const firstTheCall = ChecklistModel.script("tool-call-first")
        const model: ChatCompletionsFake.Script = (request, n) => {
          const system = String(request.messages[0]?.content ?? "")
          if (system.includes(`to ${failing}`)) return ChatCompletionsFake.drop()
          return system.includes(`to ${toolCallFirst}`) ? firstTheCall(request, n) : oneResponse(request, n)
        }
        const fake = yield* ChatCompletionsFake.make({ script: model, latency: { firstChunkMs: 50 } })
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_PROVIDERS: JSON.stringify({
            llm: { house: { type: "openai-chat", base_url: fake.url, model: "gpt-fake", api_key_env: "HOUSE_LLM_KEY" } }
          }),
          HOUSE_LLM_KEY: fake.apiKey ?? ""
        })
        const key = Option.getOrThrow(api.apiKey)
        const created = yield* Daemon.request(
          `${api.url}/v2/agents`,
          Daemon.postJson(key, { name: "booking-llm", persona: { agent_name: "Sam" }, task, llm: "house" })
        )
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const unknown = yield* Daemon.request(
          `${api.url}/v2/agents`,
          Daemon.postJson(key, { name: "booking-x", persona: {}, task, llm: "nope" })
        )
        assert.strictEqual(unknown.status, 400, JSON.stringify(unknown.body))
        const talking = "+12025550105"
        const jane = { sim_answers: { full_name: "Jane Q Public", seating: "inside" } }
        const code = yield* campaignWithAgent(api.url, key, (created.body as { id: string }).id, [
          { phone_number: talking, data: jane },
          { phone_number: failing },
          { phone_number: toolCallFirst, data: jane }
        ])
        for (const number of [talking, failing, toolCallFirst]) {
          yield* callEnded(api, number)
        }
        const calls = yield* results(api.url, key, code, [talking, failing, toolCallFirst])
        for (const number of [talking, toolCallFirst]) {
          const call = calls.get(number)!
          assert.deepStrictEqual(call.fields, {
            full_name: "Jane Q Public",
            party_size: 42,
            visit_date: { year: 2027, month: 3, day: 3 },
            seating: "inside",
            member_id: "1234"
          })
          assert.strictEqual(call.status, "COMPLETED")
          assert.strictEqual(call.conversation.termination_reason, "bot-hangup")
          const agent = call.turns.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text)
          assert.include(agent, "What name is the booking under?")
          assert.includeMembers(agent, ["Thank you, that is all I needed.", "Goodbye."])
        }
        // The model's replies: each turn's figures agree with the recordings, the model's step among them.
        const talked = yield* latencyAgreesWithRecordings(api.url, key, calls.get(talking)!.conversation.call_id)
        assert.isAtLeast(talked.turns.length, 4, JSON.stringify(talked))
        assert.isTrue(
          talked.turns.every((turn) => turn.stages["llm_first_token_ms"] !== undefined),
          JSON.stringify(talked)
        )
        // One request a turn when the model says its line with its calls; a second one after
        // each record_field when it makes the call alone.
        const afterResults = (number: string) =>
          fake.requests.filter((r) => {
            const messages = (r.body as { messages: ReadonlyArray<{ role: string; content?: unknown }> }).messages
            return String(messages[0]?.content).includes(`to ${number}`) && messages.at(-1)?.role === "tool"
          }).length
        assert.strictEqual(afterResults(talking), 0)
        assert.strictEqual(afterResults(toolCallFirst), 5)
        // Every request carried the tools and the key, and the model saw the answers as user turns.
        assert.isTrue(fake.requests.every((r) => r.headers.authorization === `Bearer ${fake.apiKey}`))
        const bodies = fake.requests.map((r) => r.body as { tools?: ReadonlyArray<unknown> })
        assert.isTrue(bodies.every((body) => (body.tools?.length ?? 0) === 4))

        const dropped = calls.get(failing)!
        assert.strictEqual(dropped.conversation.termination_reason, "bot-failure")
        assert.deepStrictEqual(dropped.fields, {})
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "under a speech-to-speech model (a local OpenAI Realtime server), μ-law end to end",
    () =>
      Effect.gen(function*() {
        // A model that asks the checklist's questions in order (from its instructions), records
        // each answer with record_field, and ends the call when none is left.
        const model: RealtimeFake.Script = (turn) => {
          const instructions = typeof turn.session["instructions"] === "string" ? turn.session["instructions"] : ""
          const fields = fieldsToCollect(instructions)
          const recorded = turn.conversation.filter((entry) => entry.kind === "function_call").length
          if (turn.trigger === "response.create") {
            return turn.instructions === undefined || recorded > 0
              ? undefined
              : { say: fields[0]?.question ?? "Hello?" }
          }
          const current = fields[recorded]
          if (current === undefined) return undefined
          const record = { name: "record_field", arguments: { key: current.key, value: turn.heard } }
          const next = fields[recorded + 1]
          return next === undefined
            ? {
              say: "Thank you. Goodbye.",
              calls: [record, { name: "complete_task", arguments: {} }, { name: "end_call", arguments: {} }]
            }
            : { say: next.question, calls: [record] }
        }
        const fake = yield* RealtimeFake.make({ script: model })
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_PROVIDERS: JSON.stringify({
            llm: {
              voice: { type: "openai-realtime", base_url: fake.url, model: "gpt-realtime", api_key_env: "RT_KEY" }
            }
          }),
          RT_KEY: fake.apiKey
        })
        const key = Option.getOrThrow(api.apiKey)
        const created = yield* Daemon.request(
          `${api.url}/v2/agents`,
          Daemon.postJson(key, {
            name: "booking-realtime",
            persona: { agent_name: "Sam" },
            task: {
              objective: "Confirm the booking",
              action_items: task.action_items.filter((item) => item.key === "full_name" || item.key === "party_size")
            },
            llm: "voice"
          })
        )
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        const number = "+12025550106"
        const code = yield* campaignWithAgent(api.url, key, (created.body as { id: string }).id, [
          { phone_number: number, data: { sim_answers: { full_name: "Jane Q Public" } } }
        ])
        yield* callEnded(api, number)
        const call = (yield* results(api.url, key, code, [number])).get(number)!
        assert.deepStrictEqual(call.fields, { full_name: "Jane Q Public", party_size: 42 })
        assert.strictEqual(call.status, "COMPLETED")
        assert.strictEqual(call.conversation.termination_reason, "bot-hangup")
        const human = call.turns.filter((turn) => turn.speaker === "HUMAN").map((turn) => turn.text)
        assert.includeMembers(human, ["Jane Q Public", "forty two"])
        // The session asked the model for μ-law (the call passes it through untouched).
        const connection = fake.connections[0]!
        const session = connection.session as { audio?: { input?: { format?: unknown } } }
        assert.deepStrictEqual(session.audio?.input?.format, { type: "audio/pcmu" })
        // One response per turn: the model said its next line with each record_field, so the
        // adapter asked for no response after the outputs (the opening's is the only one).
        const perTurn = new Map<string | undefined, number>()
        for (const response of connection.responses) {
          perTurn.set(response.userItemId, (perTurn.get(response.userItemId) ?? 0) + 1)
        }
        assert.deepStrictEqual([...perTurn.values()], [1, 1, 1], JSON.stringify(connection.responses))
        assert.strictEqual(connection.received.filter((event) => event.type === "response.create").length, 1)
        // Each reply to the person (the two answers; the opening is not one) has its turn
        // latency with the speech-to-speech steps: the model's and the engine's, no stt or tts.
        // The server's VAD waits 500 ms of silence before it answers: the reply plainly starts
        // after the speech it answers.
        // Both ends agree with the recordings (within 40 ms): each answer ends on the `remote`
        // channel where its entry says, and each reply starts on the `agent` channel where its
        // entry says.
        const latency = yield* latencyAgreesWithRecordings(api.url, key, call.conversation.call_id)
        assert.strictEqual(latency.turns.length, 2, JSON.stringify(latency))
        assert.strictEqual(latency.summary.count, 2)
        const answers = call.turns.filter((turn) => turn.speaker === "HUMAN")
        latency.turns.forEach((turn, i) => {
          assert.isBelow(turn.user_stopped_ms, turn.agent_started_ms, JSON.stringify(turn))
          assert.isAbove(turn.user_stopped_ms, answers[i]!.offset_ms, JSON.stringify({ turn, answers }))
          assert.deepStrictEqual(Object.keys(turn.stages).sort(), ["engine_ms", "llm_first_token_ms"])
          assert.isAtLeast(turn.stages.llm_first_token_ms!, 400, JSON.stringify(turn))
        })
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "a speech provider dropping its connection mid-call ends the call bot-failure (Deepgram, OpenAI speech)",
    () =>
      Effect.gen(function*() {
        const deepgram = yield* DeepgramFake.make({ apiKey: "dg-test-key-0123456789", dropAfterResults: 1 })
        const audio = yield* AudioFake.make()
        // The greeting is spoken; the next line's audio is cut off mid-answer.
        audio.fail("speech", AudioFake.slow(0), AudioFake.drop(4_000))
        const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
          VOICE_AGENT_PROVIDERS: JSON.stringify({
            stt: { dg: { type: "deepgram", base_url: deepgram.url, api_key_env: "DG_KEY" } },
            tts: { speech: { type: "openai-speech", base_url: audio.url, model: "tts-1", api_key_env: "TTS_KEY" } }
          }),
          DG_KEY: "dg-test-key-0123456789",
          TTS_KEY: audio.apiKey ?? ""
        })
        const key = Option.getOrThrow(api.apiKey)
        const calls: Array<{ readonly number: string; readonly code: string }> = []
        for (
          const [name, providers, number] of [
            ["listens-with-deepgram", { stt: "dg" }, "+12025550107"],
            ["speaks-with-openai", { tts: "speech" }, "+12025550108"]
          ] as const
        ) {
          const created = yield* Daemon.request(
            `${api.url}/v2/agents`,
            Daemon.postJson(key, { name, persona: { agent_name: "Sam" }, task, ...providers })
          )
          assert.strictEqual(created.status, 201, JSON.stringify(created.body))
          const code = yield* campaignWithAgent(api.url, key, (created.body as { id: string }).id, [
            { phone_number: number }
          ])
          calls.push({ number, code })
        }
        for (const { code, number } of calls) {
          yield* callEnded(api, number)
          const call = (yield* results(api.url, key, code, [number])).get(number)!
          assert.strictEqual(call.conversation.termination_reason, "bot-failure", number)
        }
        // Each failed mid-call, after it had worked: the recognizer after a result, the speech
        // after the greeting.
        const failures = api.stdout.filter((line) => / failed: /.test(line))
        assert.isTrue(failures.some((line) => line.includes("speech-to-text failed")), failures.join("\n"))
        assert.isTrue(failures.some((line) => line.includes("text-to-speech failed")), failures.join("\n"))
        assert.isAtLeast(deepgram.connections[0]?.results ?? 0, 1)
        assert.strictEqual(deepgram.connections[0]?.end, "dropped")
        assert.isAtLeast(audio.speeches.length, 2)
      }).pipe(Effect.scoped),
    180_000
  )
})
