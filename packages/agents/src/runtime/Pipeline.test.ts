/**
 * A call through the pipeline under the language-model policy, with a scripted model (the
 * checklist walker of test/support), speech in memory and a caller who answers each question
 * once the model's reply is complete: how many model requests a turn costs, and that every
 * check holds whichever way the model answers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { FieldValue, Task } from "@voice-agent/core/AgentTask"
import type { AgentCall, AgentEnd, TransferResult } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { ChatDelta, ChatRequest } from "@voice-agent/core/ports/ChatModel"
import { Providers } from "@voice-agent/core/ports/Providers"
import type { Transcript } from "@voice-agent/core/ports/SpeechToText"
import * as Tracing from "@voice-agent/core/Tracing"
import type { TurnLatencyRecord } from "@voice-agent/core/TurnLatency"
import { Deferred, Effect, Logger, Option, Queue, Stream, Tracer } from "effect"
import * as ChecklistModel from "../../../../test/support/ChecklistModel.ts"
import * as ConversationAgent from "../ConversationAgent.ts"
import * as CallContexts from "../testing/CallContexts.ts"

const task: Task = {
  objective: "Confirm the booking",
  completion_criteria: "Every field is collected",
  action_items: [
    { item_type: "field", key: "full_name", field_type: "text", question: "What name is the booking under?" },
    { item_type: "field", key: "party_size", field_type: "integer", question: "How many people are coming?" },
    { item_type: "field", key: "card_cvv", field_type: "cvv", question: "And the card's security code?" }
  ]
}

interface Request {
  readonly request: ChatRequest
  /** Completes once the answer has been streamed to its end. */
  readonly streamed: Deferred.Deferred<void>
}

/**
 * One call: `answers` are what the caller says to each question (in order, by question);
 * `model` answers each request, by default the checklist walker of `style`.
 */
const runCall = (options: {
  readonly style: ChecklistModel.Style
  readonly answers: { readonly [question: string]: ReadonlyArray<string> }
  readonly model?: (request: ChatRequest) => ChecklistModel.Answer
  /** Traced: the call's media session as its span, every span kept here. */
  readonly spans?: Array<Tracer.NativeSpan>
  /** The carrier's answer to each transfer (default: refused). */
  readonly transfer?: (to: string) => TransferResult
}) =>
  Effect.gen(function*() {
    const requests: Array<Request> = []
    const transcripts = yield* Queue.unbounded<Transcript>()
    const synthesized: Array<string> = []
    const recorded = new Map<string, FieldValue>()
    const turns: Array<{ readonly speaker: string; readonly text: string }> = []
    const logged: Array<string> = []
    const latencies: Array<TurnLatencyRecord> = []
    /** Each transfer asked for, with what had been said by then. */
    const transfers: Array<{ readonly to: string; readonly saidBefore: ReadonlyArray<string> }> = []
    const model = options.model ?? ((request: ChatRequest) => ChecklistModel.answer(request.messages, options.style))
    const left = new Map(Object.entries(options.answers).map(([question, said]) => [question, [...said]]))

    // The caller answers a question once the reply that asked it has streamed to its end (so the
    // answer never cuts the reply short, whatever the scheduling).
    const answer = (text: string) =>
      Effect.gen(function*() {
        const question = [...left.keys()].find((candidate) => text.includes(candidate))
        const said = question === undefined ? undefined : left.get(question)?.shift()
        if (said === undefined) return
        const asking = requests.at(-1)
        if (asking !== undefined) yield* Deferred.await(asking.streamed)
        yield* Queue.offer(transcripts, { text: said, startMs: 0, endMs: 0, final: true })
      })

    const chat = {
      stream: (request: ChatRequest) =>
        Stream.unwrap(Effect.gen(function*() {
          const streamed = yield* Deferred.make<void>()
          requests.push({ request, streamed })
          const answered = model(request)
          const deltas: Array<ChatDelta> = [
            ...(answered.text === undefined ? [] : answered.text.split(/(?<= )/).map((text) => ({
              _tag: "Text" as const,
              text
            }))),
            ...answered.calls.map((call, i) => ({
              _tag: "ToolCall" as const,
              call: { id: `call_${requests.length}_${i}`, ...call }
            })),
            { _tag: "Finished" as const, reason: answered.calls.length > 0 ? "tool_calls" : "stop" }
          ]
          return Stream.fromIterable(deltas).pipe(Stream.ensuring(Deferred.succeed(streamed, undefined)))
        }))
    }
    const runtime = ConversationAgent.make({
      definitionFor: () =>
        Effect.succeed(Option.some({
          persona: { agent_name: "Sam" },
          task,
          instructions: null,
          language: null,
          llm: "model",
          stt: null,
          tts: null
        })),
      recordField: (_, key, value) => Effect.sync(() => recorded.set(key, value)),
      providers: Providers.of({
        llm: (name) => name === "model" ? Option.some({ _tag: "Chat", model: chat }) : Option.none(),
        stt: () => Option.none(),
        tts: () => Option.none(),
        names: { llm: ["model"], stt: [], tts: [] }
      }),
      stt: { transcribe: () => Stream.fromQueue(transcripts) },
      tts: {
        synthesize: (text) =>
          Stream.fromEffect(Effect.sync(() => {
            synthesized.push(text)
            return new Int16Array(160)
          }))
      },
      fallback: Agent.of({ encoding: "pcm16", run: () => Effect.die("no fallback") }),
      settings: { silenceMs: 600_000 }
    })
    const call: AgentCall = {
      context: CallContexts.outbound,
      input: Stream.never,
      elapsedMs: Effect.succeed(0),
      say: (audio) =>
        Effect.gen(function*() {
          yield* Stream.runDrain(audio)
          return { _tag: "Played" as const, startMs: 0, endMs: 0 }
        }),
      interrupt: Effect.void,
      sendDtmf: () => Effect.void,
      transfer: (to) =>
        Effect.sync(() => {
          transfers.push({ to, saidBefore: turns.filter((t) => t.speaker === "AGENT").map((t) => t.text) })
          return options.transfer?.(to) ?? { _tag: "Refused", reason: "no carrier in this test" }
        }),
      emitTurn: (turn) =>
        Effect.gen(function*() {
          turns.push(turn)
          if (turn.speaker === "AGENT") yield* Effect.forkDetach(answer(turn.text))
        }),
      emitLatency: (turn) => Effect.sync(() => void latencies.push(turn))
    }
    const capture = Logger.layer([
      Logger.make(({ message }) => void logged.push((Array.isArray(message) ? message : [message]).join(" ")))
    ])
    const spans = options.spans
    const end: AgentEnd = yield* runtime.run(call).pipe(
      Effect.provide(capture),
      (run) =>
        spans === undefined ? run : run.pipe(
          Tracing.forCall("call.media", call.context.callId),
          Effect.withTracer(Tracer.make({
            span: (options) => {
              const span = new Tracer.NativeSpan(options)
              spans.push(span)
              return span
            }
          }))
        )
    )
    return {
      end,
      requests: requests.map((r) => r.request),
      recorded,
      turns,
      synthesized,
      logged,
      latencies,
      transfers
    }
  })

const answers = {
  "What name is the booking under?": ["Jane Q Public"],
  "How many people are coming?": ["four"],
  "And the card's security code?": ["8 3 9"]
}

const lastRole = (request: ChatRequest) => request.messages.at(-1)?.role

describe("Pipeline under the language-model policy", () => {
  it.live("a model that says its next line with its tool calls: one request a turn", () =>
    Effect.gen(function*() {
      const call = yield* runCall({ style: "one-response", answers })
      assert.strictEqual(call.end.outcome, "completed")
      assert.deepStrictEqual(Object.fromEntries(call.recorded), {
        full_name: "Jane Q Public",
        party_size: 4,
        card_cvv: "839"
      })
      // After the greeting, the first question, then one request for each of the three answers.
      assert.strictEqual(call.requests.length, 4)
      assert.deepStrictEqual(call.requests.map(lastRole), ["assistant", "user", "user", "user"])
      // The next question was said with the record, before any other request.
      assert.includeMembers(call.synthesized, ["Thank you.", "How many people are coming?", "Goodbye."])
      // The security code reaches neither a prompt nor a log once collected.
      for (const request of call.requests.slice(0, 3)) assert.notInclude(JSON.stringify(request), "839")
      assert.isTrue(call.logged.some((line) => line.includes("card_cvv recorded (sensitive, not logged)")))
      assert.isFalse(call.logged.some((line) => line.includes("839") || line.includes("8 3 9")))
      // One turn latency per reply to an answer (the greeting is not one), every step measured.
      assert.strictEqual(call.latencies.length, 3)
      for (const turn of call.latencies) {
        assert.deepStrictEqual(Object.keys(turn.stages).sort(), [
          "engine_ms",
          "llm_first_token_ms",
          "stt_ms",
          "tts_first_byte_ms"
        ])
      }
    }))

  it.live("a model that makes its tool call alone still gets the result and says its line (two requests)", () =>
    Effect.gen(function*() {
      const call = yield* runCall({ style: "tool-call-first", answers })
      assert.strictEqual(call.end.outcome, "completed")
      assert.deepStrictEqual(Object.fromEntries(call.recorded), {
        full_name: "Jane Q Public",
        party_size: 4,
        card_cvv: "839"
      })
      assert.deepStrictEqual(call.requests.map(lastRole), ["assistant", "user", "tool", "user", "tool", "user", "tool"])
      // The call goes back where it was made, with its result; the sensitive value redacted.
      const second = call.requests[2]!.messages
      const made = second.at(-2)
      assert.strictEqual(made?.role, "assistant")
      assert.deepStrictEqual(made?.role === "assistant" ? made.toolCalls?.map((c) => c.name) : [], ["record_field"])
      assert.deepStrictEqual(second.at(-1), {
        role: "tool",
        toolCallId: made?.role === "assistant" ? made.toolCalls![0]!.id : "",
        content: "Recorded full_name."
      })
      const last = JSON.stringify(call.requests.at(-1))
      assert.include(last, "[redacted]")
      assert.notInclude(last, "839")
      assert.notInclude(last, "8 3 9")
    }))

  it.live("a refused value: the calls after it are not carried out, the model hears why at once and asks again", () =>
    Effect.gen(function*() {
      const call = yield* runCall({
        style: "one-response",
        answers: { ...answers, "And the card's security code?": ["lots", "8 3 9"] }
      })
      assert.strictEqual(call.end.outcome, "completed")
      assert.strictEqual(call.recorded.get("card_cvv"), "839")
      // The name and the party size (one request each), "lots" (refused: two), the code (one).
      assert.deepStrictEqual(call.requests.map(lastRole), ["assistant", "user", "user", "user", "tool", "user"])
      // Its goodbye, the record, complete_task and end_call came in one response: the record was
      // refused, so the task was not completed nor the call ended.
      assert.deepStrictEqual(
        call.requests[4]!.messages.filter((message) => message.role === "tool").map((m) => m.content),
        [
          "Error: that is not a valid cvv for \"card_cvv\". Ask again.",
          "Error: not carried out, since a call before it in your response was refused.",
          "Error: not carried out, since a call before it in your response was refused."
        ]
      )
      const asked = call.synthesized.filter((text) => text === "And the card's security code?")
      assert.strictEqual(asked.length, 2)
    }))

  it.live("a required field is never skipped: complete_task is refused, and end_call with it is not carried out", () =>
    Effect.gen(function*() {
      let tried = false
      const call = yield* runCall({
        style: "one-response",
        answers,
        // After the name, a model that says goodbye and tries to close the task at once.
        model: (request) => {
          const planned = ChecklistModel.answer(request.messages, "one-response")
          if (tried || !planned.calls.some((c) => c.name === "record_field" && c.arguments.includes("full_name"))) {
            return planned
          }
          tried = true
          return {
            text: "Goodbye.",
            calls: [...planned.calls, { name: "complete_task", arguments: "{}" }, { name: "end_call", arguments: "{}" }]
          }
        }
      })
      assert.isTrue(tried)
      assert.strictEqual(call.end.outcome, "completed")
      assert.deepStrictEqual([...call.recorded.keys()], ["full_name", "party_size", "card_cvv"])
      const heard = call.requests.find((request) =>
        request.messages.some((m) => m.role === "tool" && m.content.startsWith("Error: still missing"))
      )
      assert.isDefined(heard)
      assert.include(JSON.stringify(heard), "still missing required fields: party_size, card_cvv.")
    }))

  it.live("traced: the greeting and each reply are spans of the call, with recognition, model and speech", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.NativeSpan> = []
      const call = yield* runCall({ style: "one-response", answers, spans })
      assert.strictEqual(call.end.outcome, "completed")
      const media = spans.find((span) => span.name === "call.media")!
      const under = (parent: Tracer.AnySpan) => spans.filter((span) => Option.getOrUndefined(span.parent) === parent)
      const names = (parent: Tracer.AnySpan) => new Set(under(parent).map((span) => span.name))
      const greeting = under(media).filter((span) => span.name === "greeting")
      assert.strictEqual(greeting.length, 1)
      assert.deepStrictEqual([...names(greeting[0]!)].sort(), ["llm", "playout", "tts"])
      // One turn per reply, in order, each with its steps and the latency recorded for it.
      const turns = under(media).filter((span) => span.name === "turn")
      assert.deepStrictEqual(turns.map((turn) => turn.attributes.get("voice_agent.turn.index")), [1, 2, 3])
      assert.strictEqual(call.latencies.length, 3)
      turns.forEach((turn, i) => {
        assert.deepStrictEqual([...names(turn)].sort(), ["llm", "playout", "stt", "tts"])
        const latency = call.latencies[i]!
        assert.strictEqual(turn.attributes.get("voice_agent.turn.user_stopped_ms"), latency.userStoppedMs)
        assert.strictEqual(turn.attributes.get("voice_agent.turn.agent_started_ms"), latency.agentStartedMs)
        assert.strictEqual(
          turn.attributes.get("voice_agent.turn.llm_first_token_ms"),
          latency.stages.llm_first_token_ms
        )
        for (const llm of under(turn).filter((span) => span.name === "llm")) {
          assert.strictEqual(llm.attributes.get("voice_agent.provider"), "model")
          assert.isNumber(llm.attributes.get("voice_agent.llm.first_token_ms"))
          assert.deepStrictEqual(llm.events.map(([name]) => name), ["first_token"])
        }
        for (const tts of under(turn).filter((span) => span.name === "tts")) {
          assert.strictEqual(tts.attributes.get("voice_agent.provider"), "default")
          assert.isNumber(tts.attributes.get("voice_agent.tts.first_byte_ms"))
        }
      })
      // Every span is of the call, and ended (the turns with the conversation).
      for (const span of spans) {
        assert.strictEqual(span.attributes.get(Tracing.callIdAttribute), "call-1", span.name)
        assert.strictEqual(span.status._tag, "Ended", span.name)
      }
    }))

  const transferTo = (to: string, message: string) => ({
    name: "transfer",
    arguments: JSON.stringify({ to, message })
  })

  it.live("transfer: the message is heard first, then the carrier is asked; moved, the call ends transfer", () =>
    Effect.gen(function*() {
      const call = yield* runCall({
        style: "one-response",
        answers: {},
        model: () => ({ text: undefined, calls: [transferTo("+12025550188", "Transferring you now.")] }),
        transfer: () => ({ _tag: "Transferred" })
      })
      assert.deepStrictEqual(call.end, { outcome: "transfer", endedBy: "agent", transferTo: "+12025550188" })
      assert.strictEqual(call.transfers.length, 1)
      assert.strictEqual(call.transfers[0]?.to, "+12025550188")
      assert.strictEqual(call.transfers[0]?.saidBefore.at(-1), "Transferring you now.")
      assert.strictEqual(call.requests.length, 1)
    }))

  it.live("a transfer the carrier refused: the model hears why as its call's result and goes on", () =>
    Effect.gen(function*() {
      const call = yield* runCall({
        style: "one-response",
        answers: {},
        model: (request) =>
          request.messages.at(-1)?.role === "tool"
            ? {
              text: "I'm sorry, I could not put you through. Goodbye.",
              calls: [{ name: "end_call", arguments: "{}" }]
            }
            : { text: undefined, calls: [transferTo("+12025550188", "Transferring you now.")] },
        transfer: () => ({ _tag: "Refused", reason: "Twilio refused updateCall (HTTP 400, code 21220)" })
      })
      assert.strictEqual(call.transfers.length, 1)
      assert.notStrictEqual(call.end.outcome, "transfer")
      assert.strictEqual(call.end.endedBy, "agent")
      const told = call.requests[1]?.messages.at(-1)
      assert.strictEqual(told?.role, "tool")
      assert.include(told?.role === "tool" ? told.content : "", "the transfer to +12025550188 failed")
      const agentSaid = call.turns.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text)
      assert.deepStrictEqual(agentSaid.slice(-3), [
        "Transferring you now.",
        "I'm sorry, I could not put you through.",
        "Goodbye."
      ])
    }))
})
