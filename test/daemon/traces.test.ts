/**
 * Traces of a real `voice-agent serve` (docs/OPERATIONS.md), sent over OTLP/HTTP as JSON to a
 * receiver of the test's own on the loopback (a `node:http` server that keeps what it is
 * posted). Four calls on the simulated carrier at once: a campaign call with the scripted agent,
 * a campaign call with an agent definition (a pipeline on a local Deepgram, a local
 * OpenAI-compatible model and local OpenAI speech), a direct call (`POST /v2/create-outbound`,
 * driven by an SDK agent) and an inbound call. After the daemon's shutdown (which flushes the
 * exporter), each call is one trace: its `call` span (the dial, the ring, the answer and the
 * end), its media session under it with the recordings, the greeting and each turn with its
 * recognition, model and speech (the turns' latency as the latency endpoint serves it), every
 * span carrying the call's id; a server span for a request with its method, route and status;
 * the JSON log lines written in a call's span carry its trace and span ids. Without the OTLP
 * variables, no log line has a trace id: nothing is made.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { attachAgent } from "../support/CallAgent.ts"
import * as ChecklistModel from "../support/ChecklistModel.ts"
import * as Daemon from "../support/Daemon.ts"
import * as DeepgramFake from "../support/deepgram-fake/DeepgramFake.ts"
import * as AudioFake from "../support/openai-fake/AudioFake.ts"
import * as ChatCompletionsFake from "../support/openai-fake/ChatCompletionsFake.ts"

interface Value {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly doubleValue?: number
  readonly boolValue?: boolean
  readonly arrayValue?: { readonly values: ReadonlyArray<Value> }
}
interface Attribute {
  readonly key: string
  readonly value: Value
}
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<Attribute>
  readonly events?: ReadonlyArray<{ readonly name: string }>
  readonly links?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
}
interface Export {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<Attribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

const valueOf = (value: Value): unknown =>
  value.arrayValue !== undefined
    ? value.arrayValue.values.map(valueOf)
    : value.intValue !== undefined
    ? Number(value.intValue)
    : value.stringValue ?? value.doubleValue ?? value.boolValue

const attribute = (attributes: ReadonlyArray<Attribute> | undefined, key: string): unknown => {
  const found = attributes?.find((a) => a.key === key)
  return found === undefined ? undefined : valueOf(found.value)
}

/** A receiver: answers 200 to every POST and keeps each body with its path and content type. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly posts: Array<{ path: string; type: string; body: string }> }>(
    (resume) => {
      const posts: Array<{ path: string; type: string; body: string }> = []
      const server = http.createServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => (body += chunk))
        request.on("end", () => {
          posts.push({ path: request.url ?? "", type: request.headers["content-type"] ?? "", body })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, posts, server }))
      })
    }
  ),
  (r) => Effect.sync(() => (r as unknown as { server: http.Server }).server.close())
)

const task = {
  objective: "Confirm the booking",
  completion_criteria: "Every field is collected",
  action_items: [
    { item_type: "field", key: "full_name", field_type: "text", question: "What name is the booking under?" },
    { item_type: "field", key: "party_size", field_type: "integer", question: "How many people are coming?" }
  ]
}

const numbers = {
  ours: "+12025550100",
  scripted: "+12025550101",
  withAgent: "+12025550102",
  direct: "+12025550123",
  caller: "+13035550123"
}

describe("traces over OTLP", () => {
  it.live(
    "one trace per call: dial, answer, media, recordings, turns and their steps; each request's route",
    () =>
      Effect.gen(function*() {
        const otlp = yield* receiver
        const deepgram = yield* DeepgramFake.make({ apiKey: "dg-test-key-0123456789" })
        const audio = yield* AudioFake.make()
        const model = yield* ChatCompletionsFake.make({ script: ChecklistModel.script("one-response") })
        const { adminPost, daemon, key, organizationId } = yield* Daemon.serveWithOrganization("traces", numbers.ours, {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "voice-agent-test",
          LOG_FORMAT: "json",
          VOICE_AGENT_PROVIDERS: JSON.stringify({
            stt: { dg: { type: "deepgram", base_url: deepgram.url, api_key_env: "DG_KEY" } },
            llm: { house: { type: "openai-chat", base_url: model.url, model: "gpt-fake", api_key_env: "LLM_KEY" } },
            tts: { speech: { type: "openai-speech", base_url: audio.url, model: "tts-1", api_key_env: "TTS_KEY" } }
          }),
          DG_KEY: "dg-test-key-0123456789",
          LLM_KEY: model.apiKey ?? "",
          TTS_KEY: audio.apiKey ?? ""
        })
        const agent = yield* Daemon.request(
          `${daemon.url}/v2/agents`,
          Daemon.postJson(key, {
            name: "booking",
            persona: { agent_name: "Sam" },
            task,
            stt: "dg",
            llm: "house",
            tts: "speech"
          })
        )
        assert.strictEqual(agent.status, 201, JSON.stringify(agent.body))
        const agentId = (agent.body as { id: string }).id

        // The four calls, at once.
        const scripted = yield* Daemon.campaignWithContacts(daemon.url, key, "traces", [
          { phone_number: numbers.scripted }
        ])
        yield* Daemon.campaignWithContacts(daemon.url, key, "traces-agent", [
          { phone_number: numbers.withAgent, data: { sim_answers: { full_name: "Jane Q Public" } } }
        ], { agentId })
        const placed = yield* Daemon.request(
          `${daemon.url}/v2/create-outbound?from_number=${encodeURIComponent(numbers.ours)}&to_number=${
            encodeURIComponent(numbers.direct)
          }`,
          { method: "POST", headers: { authorization: `Bearer ${key}` } }
        )
        assert.strictEqual(placed.status, 200, JSON.stringify(placed.body))
        const directId = (placed.body as { call_id: string }).call_id
        const sdkAgent = yield* Effect.forkChild(attachAgent(daemon.url, key, directId))
        const called = yield* adminPost(`organizations/${organizationId}/inbound-calls`, {
          from_number: numbers.caller,
          to_number: numbers.ours
        })
        assert.strictEqual(called.status, 201, JSON.stringify(called.body))
        const inboundId = (called.body as { call_id: string }).call_id

        const idOf = (line: string) => /all (\S+) to/.exec(line)![1]!
        const scriptedId = idOf(yield* daemon.waitFor(/Call \S+ to \+12025550101 ended/))
        const agentCallId = idOf(yield* daemon.waitFor(/Call \S+ to \+12025550102 ended/))
        yield* daemon.waitFor(new RegExp(`Direct call ${directId} to \\${numbers.direct} ended`))
        yield* daemon.waitFor(new RegExp(`Inbound call ${inboundId} ended`))
        yield* Fiber.join(sdkAgent)
        const latency = (yield* Daemon.request(
          `${daemon.url}/v1/conversations/${agentCallId}/latency`,
          Daemon.bearer(key)
        )).body as { turns: ReadonlyArray<{ voice_to_voice_ms: number }> }
        assert.strictEqual(
          (yield* Daemon.request(`${daemon.url}/v2/campaigns/${scripted}`, Daemon.bearer(key))).status,
          200
        )
        assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)

        assert.isAbove(otlp.posts.length, 0, "nothing was exported")
        const exports = otlp.posts.map((post) => {
          assert.strictEqual(post.path, "/v1/traces")
          assert.include(post.type, "application/json")
          return JSON.parse(post.body) as Export
        })
        const services = new Set(
          exports.flatMap((e) => e.resourceSpans.map((r) => attribute(r.resource.attributes, "service.name")))
        )
        assert.deepStrictEqual([...services], ["voice-agent-test"])
        const spans = exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
        const all = spans.map((span) => span.name)

        /** The call's trace: its `call` span, the root, and every span of it carrying the call id. */
        const traceOf = (callId: string, kind: string) => {
          const roots = spans.filter((span) =>
            span.name === "call" && attribute(span.attributes, "voice_agent.call_id") === callId
          )
          assert.strictEqual(roots.length, 1, `the call spans of ${callId} among ${all.join(", ")}`)
          const root = roots[0]!
          assert.isUndefined(root.parentSpanId)
          assert.strictEqual(attribute(root.attributes, "voice_agent.call.kind"), kind)
          const trace = spans.filter((span) => span.traceId === root.traceId)
          const without = trace.filter((span) => attribute(span.attributes, "voice_agent.call_id") !== callId)
          assert.deepStrictEqual(without.map((span) => span.name), [], `spans of call ${callId} without its id`)
          const under = (parent: Span, name?: string) =>
            trace.filter((span) => span.parentSpanId === parent.spanId && (name === undefined || span.name === name))
          const one = (parent: Span, name: string) => {
            const found = under(parent, name)
            assert.strictEqual(found.length, 1, `${name} under ${parent.name} of call ${callId}`)
            return found[0]!
          }
          const media = one(root, "call.media")
          const recording = one(media, "call.recording")
          assert.isAbove(attribute(recording.attributes, "voice_agent.recording.bytes") as number, 0)
          assert.isAbove(attribute(recording.attributes, "voice_agent.recording.seconds") as number, 0)
          assert.deepStrictEqual(attribute(recording.attributes, "voice_agent.recording.channels"), ["agent", "remote"])
          const events = new Set(root.events?.map((event) => event.name))
          assert.isTrue(events.has("call.answered"), `call.answered of ${callId} among ${[...events].join(", ")}`)
          return { root, media, under, one, events }
        }

        // Outbound calls: dialed, rung, answered and ended, on the call's span.
        for (const [callId, kind] of [[scriptedId, "campaign"], [agentCallId, "campaign"], [directId, "direct"]]) {
          const call = traceOf(callId!, kind!)
          const dial = call.one(call.root, "call.dial")
          for (const event of ["call.ringing", "call.ended"]) assert.isTrue(call.events.has(event), event)
          // The simulated carrier's side of the call: a trace of its own, linked to the dial.
          const carrier = spans.filter((span) =>
            span.name === "carrier-sim.call" && attribute(span.attributes, "voice_agent.call_id") === callId
          )
          assert.deepStrictEqual(carrier.map((span) => span.links?.map((link) => link.spanId)), [[dial.spanId]])
        }

        // The scripted agent: its greeting, the person's answer, the agent's thanks.
        const plain = traceOf(scriptedId, "campaign")
        plain.one(plain.one(plain.media, "greeting"), "tts")
        const answered = plain.one(plain.media, "turn")
        for (const name of ["stt", "tts", "playout"]) assert.isAbove(plain.under(answered, name).length, 0, name)

        // The agent definition: each reply a turn, with its recognition, model and speech by their
        // providers, and the latency the endpoint serves.
        const converse = traceOf(agentCallId, "campaign")
        const greeting = converse.one(converse.media, "greeting")
        assert.isAbove(converse.under(greeting, "tts").length, 0)
        const turns = converse.under(converse.media, "turn")
        assert.isAtLeast(turns.length, 2, all.join(", "))
        assert.deepStrictEqual(turns.map((turn) => attribute(turn.attributes, "voice_agent.turn.index")), [1, 2])
        for (const turn of turns) {
          for (const [name, provider] of [["stt", "dg"], ["llm", "house"], ["tts", "speech"]]) {
            const steps = converse.under(turn, name)
            assert.isAbove(
              steps.length,
              0,
              `${name} in turn ${String(attribute(turn.attributes, "voice_agent.turn.index"))}`
            )
            for (const step of steps) assert.strictEqual(attribute(step.attributes, "voice_agent.provider"), provider)
          }
          const [llm] = converse.under(turn, "llm")
          assert.isNumber(attribute(llm!.attributes, "voice_agent.llm.first_token_ms"))
          const [tts] = converse.under(turn, "tts")
          assert.isNumber(attribute(tts!.attributes, "voice_agent.tts.first_byte_ms"))
          assert.isAbove(converse.under(turn, "playout").length, 0)
        }
        assert.deepStrictEqual(
          turns.map((turn) => attribute(turn.attributes, "voice_agent.turn.voice_to_voice_ms")),
          latency.turns.map((turn) => turn.voice_to_voice_ms)
        )

        // The direct call's trace starts from the request that placed it (a link to its trace).
        const direct = traceOf(directId, "direct")
        const request = spans.find((span) =>
          span.kind === 2 && attribute(span.attributes, "http.route") === "/v2/create-outbound"
        )
        assert.isDefined(request, "no server span for POST /v2/create-outbound")
        assert.deepStrictEqual(direct.root.links?.map((link) => link.traceId), [request.traceId])
        const placing = spans.find((span) => span.name === "DirectCalls.place" && span.traceId === request.traceId)
        assert.strictEqual(attribute(placing?.attributes, "voice_agent.call_id"), directId)

        // The inbound call: answered on arrival.
        traceOf(inboundId, "inbound")

        // Log lines written inside a call's span carry its trace and span ids.
        const root = traceOf(scriptedId, "campaign").root
        for (const pattern of [/Call \S+ to \+12025550101 ended/, /Media stream of call/]) {
          const line = daemon.stdout.find((l) => pattern.test(l) && l.includes(scriptedId))
          assert.isDefined(line, `no log line ${pattern}`)
          const logged = JSON.parse(line) as { trace_id?: string; span_id?: string }
          assert.strictEqual(logged.trace_id, root.traceId, line)
          assert.isTrue(spans.some((span) => span.spanId === logged.span_id), line)
        }

        // The request: a server span (kind 2) with its method, route pattern and status.
        const read = spans.find((span) =>
          span.kind === 2 && attribute(span.attributes, "http.route") === "/v2/campaigns/:campaign_code"
        )
        assert.isDefined(read, `no server span for GET /v2/campaigns/:campaign_code`)
        assert.strictEqual(attribute(read.attributes, "http.request.method"), "GET")
        assert.strictEqual(attribute(read.attributes, "http.response.status_code"), 200)
      }).pipe(Effect.scoped),
    { timeout: 150_000 }
  )

  it.live(
    "without the OTLP variables nothing is made: no log line of a call has a trace id",
    () =>
      Effect.gen(function*() {
        const { daemon, key } = yield* Daemon.serveWithOrganization("untraced", numbers.ours, { LOG_FORMAT: "json" })
        yield* Daemon.campaignWithContacts(daemon.url, key, "untraced", [{ phone_number: numbers.scripted }])
        yield* daemon.waitFor(/Call \S+ to \+12025550101 ended/)
        const lines = daemon.stdout.filter((line) => line.startsWith("{"))
        assert.isTrue(lines.some((line) => line.includes("Media stream of call")))
        assert.deepStrictEqual(lines.filter((line) => line.includes("trace_id")), [])
      }).pipe(Effect.scoped),
    { timeout: 90_000 }
  )
})
