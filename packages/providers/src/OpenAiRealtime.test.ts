/**
 * The OpenAI Realtime adapter against the local fake (test/support/openai-fake/RealtimeFake),
 * which really hears the simulated speech it is sent and speaks its script's replies, over a
 * hand-built AgentCall: the session it configures, the person's speech as HUMAN turns, the
 * model's μ-law played byte for byte and reported as AGENT turns, tool calls and their outputs,
 * the end of the call by a tool, hang-up, barge-in (interrupt, cancel, truncate), each reply's
 * turn latency, one response per turn, and each error class.
 */
import * as NodeWS from "@effect/platform-node/NodeWS"
import { assert, describe, it } from "@effect/vitest"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import type { AgentCall, AgentEnd, CallInput, Playback } from "@voice-agent/core/ports/Agent"
import type { ToolCall } from "@voice-agent/core/ports/ChatModel"
import type { SessionEnd, SpeechSession, ToolResult } from "@voice-agent/core/ports/SpeechToSpeech"
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import type { TurnLatencyRecord } from "@voice-agent/core/TurnLatency"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Clock, Deferred, Effect, Fiber, Queue, Redacted, Stream } from "effect"
import type { Cause, Scope } from "effect"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import * as RealtimeFake from "../../../test/support/openai-fake/RealtimeFake.ts"
import * as OpenAiRealtime from "./OpenAiRealtime.ts"

const KEY = "sk-realtime-secret-5e1d07c4a9"
const FRAME = 160

type Part = { readonly say: string } | { readonly silenceMs: number }

/** The parts as μ-law 20 ms frames from `fromMs`. */
const frames = (parts: ReadonlyArray<Part>, fromMs = 0): Array<CallInput> => {
  const pieces = parts.map((part) =>
    "say" in part ? MuLaw.encode(SimVoice.speak(part.say)) : new Uint8Array(part.silenceMs * 8).fill(MuLaw.SILENCE)
  )
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0)
  const signal = new Uint8Array(Math.ceil(total / FRAME) * FRAME).fill(MuLaw.SILENCE)
  let at = 0
  for (const piece of pieces) {
    signal.set(piece, at)
    at += piece.length
  }
  const out: Array<CallInput> = []
  for (let i = 0; i < signal.length; i += FRAME) {
    out.push({
      _tag: "Audio",
      frame: { encoding: "mulaw", bytes: signal.subarray(i, i + FRAME), timestampMs: fromMs + i / 8 }
    })
  }
  return out
}

const bytesOf = (inputs: ReadonlyArray<CallInput>): Uint8Array =>
  Buffer.concat(
    inputs.flatMap((input) => input._tag === "Audio" && input.frame.encoding === "mulaw" ? [input.frame.bytes] : [])
  )

interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offsetMs: number
}

interface Said {
  readonly frames: Array<Uint8Array>
  result: Playback | undefined
}

/**
 * A hand-built call: input from a queue, `say` collecting the frames (then played at once, or
 * with `hold`, until interrupted: `playedMs` heard), `interrupt` counted, turns collected.
 */
const makeCall = (options: { readonly hold?: boolean; readonly playedMs?: number } = {}) =>
  Effect.gen(function*() {
    const input = yield* Queue.unbounded<CallInput, Cause.Done>()
    const said: Array<Said> = []
    const turns: Array<Turn> = []
    const latencies: Array<TurnLatencyRecord> = []
    const log: Array<string> = []
    const listeners = new Set<() => void>()
    const changed = () => {
      for (const listener of listeners) listener()
    }
    let interrupts = 0
    let gate = yield* Deferred.make<void>()
    const startedAt = yield* Clock.currentTimeMillis
    const elapsedMs = Effect.map(Clock.currentTimeMillis, (now) => now - startedAt)
    const call: AgentCall = {
      context: {
        callId: "call-1",
        conversationId: "conversation-1",
        direction: "outbound",
        from: "+12025550100",
        to: "+12025550123",
        campaignId: null,
        contactId: null,
        data: {},
        answeredBy: "human"
      },
      input: Stream.fromQueue(input),
      elapsedMs,
      say: (audio) =>
        Effect.gen(function*() {
          const record: Said = { frames: [], result: undefined }
          said.push(record)
          log.push("say")
          changed()
          const startMs = yield* elapsedMs
          const generation = interrupts
          const heard = gate
          yield* Stream.runForEach(audio, (frame) =>
            Effect.sync(() => {
              assert.strictEqual(frame.encoding, "mulaw")
              if (frame.encoding === "mulaw" && interrupts === generation) record.frames.push(frame.bytes)
              changed()
            }))
          if (options.hold === true && interrupts === generation) yield* Deferred.await(heard)
          const bytes = record.frames.reduce((sum, frame) => sum + frame.length, 0)
          record.result = interrupts === generation
            ? { _tag: "Played", startMs, endMs: startMs + bytes / 8 }
            : { _tag: "Interrupted", startMs, playedMs: options.playedMs ?? 0 }
          log.push(record.result._tag)
          changed()
          return record.result
        }),
      interrupt: Effect.gen(function*() {
        interrupts++
        log.push("interrupt")
        yield* Deferred.succeed(gate, undefined)
        gate = yield* Deferred.make<void>()
        changed()
      }),
      sendDtmf: () => Effect.void,
      transfer: () => Effect.die("no transfer in this test"),
      emitTurn: (turn) =>
        Effect.sync(() => {
          turns.push(turn)
          changed()
        }),
      emitLatency: (turn) =>
        Effect.sync(() => {
          latencies.push(turn)
          changed()
        })
    }
    const waitFor = <A>(look: () => A | undefined): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        const check = () => {
          const found = look()
          if (found === undefined) return
          listeners.delete(check)
          resume(Effect.succeed(found))
        }
        listeners.add(check)
        check()
        return Effect.sync(() => listeners.delete(check))
      })
    return {
      call,
      said,
      turns,
      latencies,
      log,
      interrupts: () => interrupts,
      speak: (inputs: ReadonlyArray<CallInput>) => Queue.offerAll(input, inputs),
      /** One frame every 20 ms, as a carrier sends them. */
      speakLive: (inputs: ReadonlyArray<CallInput>) =>
        Effect.forEach(inputs, (one) => Effect.andThen(Queue.offer(input, one), Effect.sleep("20 millis")), {
          discard: true
        }),
      hangUp: Queue.end(input),
      waitFor
    }
  })

const session = (more: Partial<SpeechSession> = {}): SpeechSession => ({
  instructions: "You book tables at Chez Fake. Be brief.",
  voice: "marin",
  language: "en-US",
  tools: [{
    name: "record_party_size",
    description: "Records how many people the table is for",
    parameters: { type: "object", properties: { size: { type: "integer" } }, required: ["size"] }
  }],
  onToolCall: () => Effect.succeed({ output: "ok" }),
  ...more
})

const config = (fake: RealtimeFake.RealtimeFake, more: Partial<OpenAiRealtime.OpenAiRealtimeConfig> = {}) => ({
  apiKey: Redacted.make(KEY),
  model: "gpt-realtime",
  baseUrl: fake.url,
  ...more
})

const converse = (settings: OpenAiRealtime.OpenAiRealtimeConfig, call: AgentCall, speech: SpeechSession) =>
  OpenAiRealtime.make(settings).pipe(
    Effect.flatMap((model) => model.converse(call, speech)),
    Effect.provide(NodeWS.layerWebSocketConstructor)
  )

const fake = (options: RealtimeFake.Options = {}): Effect.Effect<RealtimeFake.RealtimeFake, never, Scope.Scope> =>
  RealtimeFake.make({ apiKey: KEY, ...options })

const failure = (settings: OpenAiRealtime.OpenAiRealtimeConfig, call: AgentCall) =>
  converse(settings, call, session()).pipe(
    Effect.flip,
    Effect.tap((error) =>
      Effect.sync(() => {
        assert.instanceOf(error, SpeechError)
        assert.notInclude(error.message, KEY)
        assert.notInclude(JSON.stringify(error), KEY)
        assert.notInclude(String(error), KEY)
      })
    )
  )

const first = <A>(items: ReadonlyArray<A>): A => {
  assert.isAtLeast(items.length, 1)
  return items[0]!
}

const ofType = (events: ReadonlyArray<RealtimeFake.Json>, type: string) => events.filter((event) => event.type === type)

/** How many responses answered each of the person's speeches (the opening's under "none"). */
const responsesPerTurn = (connection: RealtimeFake.Connection): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const response of connection.responses) {
    const turn = response.userItemId ?? "none"
    counts[turn] = (counts[turn] ?? 0) + 1
  }
  return counts
}

/** Where the speech of `text` ends when it starts at `fromMs` (its last sound the fake's VAD hears). */
const speechEnd = (text: string, fromMs: number): number => {
  const heard = MuLaw.decode(MuLaw.encode(SimVoice.speak(text)))
  let last = heard.length - 1
  while (last >= 0 && Math.abs(heard[last]!) < 32) last--
  return fromMs + (last + 1) / 8
}

/** A port nothing listens on. */
const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const ASK = "I would like a table for two"
const LONG = "Let me tell you about every one of our tables, starting with the terrace."

/** Answers ASK with a long reply that stays generating, and "wait" with an apology. */
const bargeInScript: RealtimeFake.Script = (turn) => {
  const heard = turn.conversation.findLast((entry) => entry.kind === "user")
  if (heard?.kind !== "user") return undefined
  if (heard.text === ASK) return { say: LONG, hold: true }
  if (heard.text === "wait") return { say: "Sorry, go ahead." }
  return undefined
}
const asking = frames([{ silenceMs: 500 }, { say: ASK }, { silenceMs: 700 }])

describe("OpenAiRealtime", () => {
  describe("converse", () => {
    it.live("configures the session: μ-law both ways, server VAD, transcription, tools, instructions, voice", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => ofType(connection.sent, "session.updated")[0])
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })

        const handshake = first(server.handshakes)
        assert.deepStrictEqual(handshake, {
          path: "/v1/realtime",
          model: "gpt-realtime",
          authorization: `Bearer ${KEY}`,
          status: 101
        })
        const update = first(ofType(connection.received, "session.update"))
        assert.deepStrictEqual(update.session, {
          type: "realtime",
          output_modalities: ["audio"],
          instructions: "You book tables at Chez Fake. Be brief.",
          audio: {
            input: {
              format: { type: "audio/pcmu" },
              transcription: { model: "gpt-4o-mini-transcribe", language: "en" },
              turn_detection: { type: "server_vad", create_response: true, interrupt_response: false }
            },
            output: { format: { type: "audio/pcmu" }, voice: "marin" }
          },
          tools: [{
            type: "function",
            name: "record_party_size",
            description: "Records how many people the table is for",
            parameters: { type: "object", properties: { size: { type: "integer" } }, required: ["size"] }
          }],
          tool_choice: "auto"
        })
        // The fake accepted it: no error event, and the effective session speaks μ-law.
        assert.deepStrictEqual(ofType(connection.sent, "error"), [])
        const audio = connection.session.audio as { input: { format: unknown }; output: { format: unknown } }
        assert.deepStrictEqual(audio.input.format, { type: "audio/pcmu" })
        assert.deepStrictEqual(audio.output.format, { type: "audio/pcmu" })
        // session.created, then session.update, before anything else was sent.
        assert.strictEqual(connection.sent[0]!.type, "session.created")
        assert.strictEqual(connection.received[0]!.type, "session.update")
        yield* server.waitFor(() => connection.closed || undefined)
      }))

    it.live("says the opening first: a response.create asking for it, played and reported", () =>
      Effect.gen(function*() {
        const opening = "Hello, this is Chez Fake calling about your booking."
        const server = yield* fake({
          script: (turn) =>
            turn.trigger === "response.create" && turn.instructions?.includes(opening) ? { say: opening } : undefined
        })
        const harness = yield* makeCall()
        const running = yield* converse(config(server), harness.call, session({ opening })).pipe(Effect.forkChild)
        const turn = yield* harness.waitFor(() => harness.turns.find((turn) => turn.speaker === "AGENT"))
        assert.strictEqual(turn.text, opening)
        const connection = first(server.connections)
        const create = first(ofType(connection.received, "response.create"))
        assert.include((create.response as { instructions: string }).instructions, "You book tables at Chez Fake.")
        assert.deepStrictEqual(Buffer.concat(first(harness.said).frames), Buffer.from(first(connection.spoken).audio))
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("the person's speech is a HUMAN turn; the reply's μ-law is played untouched and is an AGENT turn", () =>
      Effect.gen(function*() {
        const reply = "Of course. For what time?"
        const server = yield* fake({ script: (turn) => turn.heard === ASK ? { say: reply } : undefined })
        const harness = yield* makeCall()
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        yield* harness.waitFor(() => harness.turns.length >= 2 || undefined)
        const connection = first(server.connections)
        // The carrier's bytes reached the model untouched, in order.
        assert.deepStrictEqual(Buffer.from(connection.appended()), Buffer.from(bytesOf(asking)))
        // The model's bytes reached the carrier untouched, in 20 ms frames, through one say.
        assert.strictEqual(harness.said.length, 1)
        const played = first(harness.said)
        assert.deepStrictEqual(Buffer.concat(played.frames), Buffer.from(first(connection.spoken).audio))
        assert.isTrue(played.frames.slice(0, -1).every((frame) => frame.length === FRAME))
        // The person's turn starts where the server heard it (500 ms, less its 300 ms of padding).
        const [human, agent] = harness.turns
        assert.deepStrictEqual(human, { speaker: "HUMAN", text: ASK, offsetMs: 200 })
        assert.strictEqual(agent!.speaker, "AGENT")
        assert.strictEqual(agent!.text, reply)
        assert.strictEqual(agent!.offsetMs, (played.result as Extract<Playback, { _tag: "Played" }>).startMs)
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("a function call goes to onToolCall, its output back as a function_call_output, then response.create (20 ms latency)", () =>
      Effect.gen(function*() {
        const server = yield* fake({
          latencyMs: 20,
          script: (turn) => {
            if (turn.heard === ASK) return { calls: [{ name: "record_party_size", arguments: { size: 2 } }] }
            const output = turn.conversation.at(-1)
            if (turn.trigger === "response.create" && output?.kind === "function_call_output") {
              return { say: `Noted: ${output.output}.` }
            }
            return undefined
          }
        })
        const harness = yield* makeCall()
        const calls: Array<ToolCall> = []
        const running = yield* converse(
          config(server),
          harness.call,
          session({
            onToolCall: (call) =>
              Effect.sync(() => {
                calls.push(call)
                return { output: "two people" }
              })
          })
        ).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        const turn = yield* harness.waitFor(() => harness.turns.find((turn) => turn.speaker === "AGENT"))
        assert.strictEqual(turn.text, "Noted: two people.")

        const connection = first(server.connections)
        const made = first(connection.conversation.filter((entry) => entry.kind === "function_call"))
        assert.deepStrictEqual(calls, [{ id: made.callId, name: "record_party_size", arguments: "{\"size\":2}" }])
        const sent = connection.received.filter((event) => event.type !== "input_audio_buffer.append")
        const at = sent.findIndex((event) => event.type === "conversation.item.create")
        assert.deepStrictEqual(sent[at], {
          type: "conversation.item.create",
          item: { type: "function_call_output", call_id: made.callId, output: "two people" }
        })
        assert.deepStrictEqual(sent[at + 1], { type: "response.create" })
        assert.deepStrictEqual(ofType(connection.sent, "error"), [])
        // The first response had nothing to say: the turn took two, and its reply is the second's.
        assert.deepStrictEqual(Object.values(responsesPerTurn(connection)), [2])
        const latency = yield* harness.waitFor(() => harness.latencies[0])
        assert.strictEqual(latency.agentStartedMs, first(harness.said).result!.startMs)
        assert.deepStrictEqual(Object.keys(latency.stages).sort(), ["engine_ms", "llm_first_token_ms"])
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("a response that speaks with its calls is the turn: no other response after the outputs", () =>
      Effect.gen(function*() {
        const reply = "Two people, noted. Anything else?"
        const server = yield* fake({
          script: (turn) =>
            turn.heard === ASK
              ? { say: reply, calls: [{ name: "record_party_size", arguments: { size: 2 } }] }
              : turn.trigger === "response.create"
              ? { say: "Said again." }
              : undefined
        })
        const harness = yield* makeCall()
        const running = yield* converse(
          config(server),
          harness.call,
          session({ onToolCall: () => Effect.succeed({ output: "Recorded." }) })
        ).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => ofType(connection.received, "conversation.item.create")[0])
        const turn = yield* harness.waitFor(() => harness.turns.find((turn) => turn.speaker === "AGENT"))
        assert.strictEqual(turn.text, reply)
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
        yield* server.waitFor(() => connection.closed || undefined)
        // Everything the adapter sent arrived before the socket closed: no response.create.
        assert.deepStrictEqual(ofType(connection.received, "response.create"), [])
        assert.strictEqual(connection.spoken.length, 1)
      }))

    it.live(
      "each reply to the person has its turn latency (the opening none), and a turn that records a field is one response",
      () =>
        Effect.gen(function*() {
          const opening = "Hello from Chez Fake."
          const noted = "Two people, noted. What time?"
          const goodbye = "See you at eight."
          const server = yield* fake({
            script: (turn) => {
              if (turn.trigger === "response.create") {
                return turn.instructions?.includes(opening) === true ? { say: opening } : { say: "Said again." }
              }
              if (turn.heard === ASK) {
                return { say: noted, calls: [{ name: "record_party_size", arguments: { size: 2 } }] }
              }
              return turn.heard === "at eight" ? { say: goodbye } : undefined
            }
          })
          const harness = yield* makeCall()
          const running = yield* converse(
            config(server),
            harness.call,
            session({ opening, onToolCall: () => Effect.succeed({ output: "Recorded." }) })
          ).pipe(Effect.forkChild)
          yield* harness.waitFor(() => harness.said[0]?.result)
          // The person speaks in real time, as on a call: 300 ms of quiet, the speech, 700 ms.
          const firstTurn = frames([{ silenceMs: 300 }, { say: ASK }, { silenceMs: 700 }])
          const secondFrom = bytesOf(firstTurn).length / 8
          yield* harness.speakLive(firstTurn)
          yield* harness.waitFor(() => harness.said[1]?.result)
          yield* harness.speakLive(frames([{ say: "at eight" }, { silenceMs: 700 }], secondFrom))
          yield* harness.waitFor(() => harness.latencies.length === 2 || undefined)

          assert.deepStrictEqual(harness.turns.filter((turn) => turn.speaker === "AGENT").map((turn) => turn.text), [
            opening,
            noted,
            goodbye
          ])
          // One entry per reply, none for the opening: the speech's end where it is in the audio
          // sent, the reply's start where it played, the model's stage and the engine's.
          const ends = [speechEnd(ASK, 300), speechEnd("at eight", secondFrom)]
          harness.latencies.forEach((latency, i) => {
            const reply = harness.said[i + 1]!.result!
            assert.closeTo(latency.userStoppedMs, ends[i]!, 1)
            assert.strictEqual(latency.agentStartedMs, reply.startMs)
            assert.isAtMost(latency.userStoppedMs, latency.agentStartedMs)
            assert.deepStrictEqual(Object.keys(latency.stages).sort(), ["engine_ms", "llm_first_token_ms"])
            // The model's part holds the server VAD's 500 ms of silence after the speech.
            const voiceToVoice = latency.agentStartedMs - latency.userStoppedMs
            assert.isAtLeast(latency.stages.llm_first_token_ms!, 450, JSON.stringify(latency))
            assert.isAtMost(latency.stages.llm_first_token_ms!, voiceToVoice + 1, JSON.stringify(latency))
            assert.closeTo(latency.stages.llm_first_token_ms! + latency.stages.engine_ms!, voiceToVoice, 1)
          })
          // One response per turn: the one the server's VAD started, whose speech and field were
          // the turn; the adapter asked for none but the opening.
          const connection = first(server.connections)
          assert.deepStrictEqual(
            ofType(connection.received, "conversation.item.create").map((event) =>
              (event.item as { output: string }).output
            ),
            ["Recorded."]
          )
          assert.deepStrictEqual(Object.values(responsesPerTurn(connection)), [1, 1, 1])
          assert.strictEqual(ofType(connection.received, "response.create").length, 1)
          assert.deepStrictEqual(connection.spoken.map((spoken) => spoken.text), [opening, noted, goodbye])
          yield* harness.hangUp
          assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
        }),
      20_000
    )

    it.live("a refused call: the calls after it are not run, and the model is asked again at once", () =>
      Effect.gen(function*() {
        const server = yield* fake({
          script: (turn) => {
            if (turn.heard === ASK) {
              return {
                say: "Noted.",
                calls: [
                  { name: "record_party_size", arguments: { size: "a few" } },
                  { name: "record_party_size", arguments: { size: 2 } }
                ]
              }
            }
            const output = turn.conversation.at(-1)
            if (turn.trigger === "response.create" && output?.kind === "function_call_output") {
              return { say: "Sorry, how many people?" }
            }
            return undefined
          }
        })
        const harness = yield* makeCall()
        const calls: Array<ToolCall> = []
        const running = yield* converse(
          config(server),
          harness.call,
          session({
            onToolCall: (call) =>
              Effect.sync(() => {
                calls.push(call)
                return { output: "Error: not a number. Ask again.", refused: true }
              })
          })
        ).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        yield* harness.waitFor(() => harness.said.length === 2 || undefined)
        const connection = first(server.connections)
        assert.deepStrictEqual(calls.map((call) => call.arguments), ["{\"size\":\"a few\"}"])
        const outputs = ofType(connection.received, "conversation.item.create").map((event) =>
          (event.item as { output: string }).output
        )
        assert.deepStrictEqual(outputs, [
          "Error: not a number. Ask again.",
          "Error: not carried out, since a call before it in your response was refused."
        ])
        assert.strictEqual(ofType(connection.received, "response.create").length, 1)
        assert.deepStrictEqual(Object.values(responsesPerTurn(connection)), [2])
        assert.strictEqual(connection.spoken[1]?.text, "Sorry, how many people?")
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("a tool result with end ends the session once the queued audio has played", () =>
      Effect.gen(function*() {
        const goodbye = "Thank you, goodbye!"
        const server = yield* fake({
          script: (turn) =>
            turn.heard === ASK ? { say: goodbye, calls: [{ name: "end_call", arguments: {} }] } : undefined
        })
        const harness = yield* makeCall()
        const end: AgentEnd = { outcome: "completed", endedBy: "agent" }
        const results: Array<ToolResult> = [{ output: "", end }]
        const result = yield* converse(
          config(server),
          harness.call,
          session({ onToolCall: () => Effect.sync(() => results.shift()!) })
        ).pipe(
          Effect.tap(() => Effect.sync(() => harness.log.push("ended"))),
          Effect.raceFirst(harness.speak(asking).pipe(Effect.andThen(Effect.never)))
        )
        assert.deepStrictEqual(result, { _tag: "Ended", end } satisfies SessionEnd)
        assert.deepStrictEqual(harness.log, ["say", "Played", "ended"])
        const connection = first(server.connections)
        assert.deepStrictEqual(Buffer.concat(first(harness.said).frames), Buffer.from(first(connection.spoken).audio))
        assert.deepStrictEqual(ofType(connection.received, "conversation.item.create"), [])
        yield* server.waitFor(() => connection.closed || undefined)
      }))

    it.live("a tool result with afterSpeech (a transfer) runs once the queued audio has played; its result stands", () =>
      Effect.gen(function*() {
        const server = yield* fake({
          script: (turn) => {
            if (turn.heard === ASK) return { say: "One moment.", calls: [{ name: "transfer", arguments: {} }] }
            const output = turn.conversation.at(-1)
            if (turn.trigger === "response.create" && output?.kind === "function_call_output") {
              return { say: "Sorry, I could not put you through." }
            }
            return undefined
          }
        })
        const harness = yield* makeCall()
        const running = yield* converse(
          config(server),
          harness.call,
          session({
            onToolCall: () =>
              Effect.succeed({
                output: "Transferring.",
                afterSpeech: Effect.sync(() => {
                  harness.log.push("transfer")
                  return { output: "Error: the transfer failed (busy).", refused: true }
                })
              })
          })
        ).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        yield* harness.waitFor(() => harness.said.length === 2 || undefined)
        // The message played before the transfer was asked for.
        assert.deepStrictEqual(harness.log.slice(0, 3), ["say", "Played", "transfer"])
        const connection = first(server.connections)
        const outputs = ofType(connection.received, "conversation.item.create").map((event) =>
          (event.item as { output: string }).output
        )
        assert.deepStrictEqual(outputs, ["Error: the transfer failed (busy)."])
        assert.strictEqual(ofType(connection.received, "response.create").length, 1)
        assert.strictEqual(connection.spoken[1]?.text, "Sorry, I could not put you through.")
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("the person hanging up ends the session HungUp and closes the socket", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        yield* harness.speak(frames([{ silenceMs: 200 }]))
        yield* harness.hangUp
        assert.deepStrictEqual(yield* converse(config(server), harness.call, session()), { _tag: "HungUp" })
        const connection = first(server.connections)
        yield* server.waitFor(() => connection.closed || undefined)
        assert.strictEqual(connection.appended().length, 200 * 8)
      }))

    it.live("a gap in the frames is sent as silence, so the turns stay on the call's clock", () =>
      Effect.gen(function*() {
        const server = yield* fake({ script: () => undefined })
        const harness = yield* makeCall()
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        // 400 ms of frames never came (from 1000 to 1400): the turn still starts at 1900 - 300.
        yield* harness.speak([
          ...frames([{ silenceMs: 1000 }], 0),
          ...frames([{ silenceMs: 500 }, { say: ASK }, { silenceMs: 700 }], 1400)
        ])
        const turn = yield* harness.waitFor(() => harness.turns[0])
        assert.deepStrictEqual(turn, { speaker: "HUMAN", text: ASK, offsetMs: 1600 })
        assert.strictEqual(first(server.connections).appended().length, bytesOf(asking).length + 1400 * 8)
        yield* harness.hangUp
        yield* Fiber.join(running)
      }))

    it.live("barge-in: the person speaks over the reply: interrupt, response.cancel, truncate at what was heard", () =>
      Effect.gen(function*() {
        const server = yield* fake({ script: bargeInScript })
        const harness = yield* makeCall({ hold: true, playedMs: 1250 })
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        const connection = yield* server.waitFor(() => server.connections[0])
        const spoken = yield* server.waitFor(() => connection.spoken[0])
        // The reply is playing (all its audio received) and still generating.
        yield* harness.waitFor(() =>
          Buffer.concat(harness.said[0]?.frames ?? []).length === spoken.audio.length || undefined
        )
        // The person speaks over it; the silence that ends their turn comes in real time, after
        // the cancel.
        const at = bytesOf(asking).length / 8
        yield* harness.speak(frames([{ say: "wait" }], at))
        const cancel = yield* server.waitFor(() => ofType(connection.received, "response.cancel")[0])
        assert.deepStrictEqual(cancel, { type: "response.cancel", response_id: spoken.responseId })
        const truncate = yield* server.waitFor(() => ofType(connection.received, "conversation.item.truncate")[0])
        assert.deepStrictEqual(truncate, {
          type: "conversation.item.truncate",
          item_id: spoken.itemId,
          content_index: 0,
          audio_end_ms: 1250
        })
        assert.strictEqual(harness.interrupts(), 1)
        yield* server.waitFor(() => ofType(connection.sent, "conversation.item.truncated")[0])
        const done = ofType(connection.sent, "response.done")[0]!.response as { status: string }
        assert.strictEqual(done.status, "cancelled")
        // What the person heard of it is reported: the first words, in proportion.
        const agent = yield* harness.waitFor(() => harness.turns.find((turn) => turn.speaker === "AGENT"))
        assert.isTrue(LONG.startsWith(agent.text))
        assert.isBelow(agent.text.length, LONG.length)
        assert.isAbove(agent.text.length, 0)
        // The person's turn ends; the server answers it.
        yield* harness.speak(frames([{ silenceMs: 700 }], at + 1000))
        yield* harness.waitFor(() => harness.said.length === 2 || undefined)
        assert.strictEqual(first(connection.spoken.slice(1)).text, "Sorry, go ahead.")
        assert.deepStrictEqual(ofType(connection.sent, "error"), [])
        assert.deepStrictEqual(ofType(connection.received, "response.create"), [])
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("a turn that ends before the cancel lands is answered once the cancelled response is done", () =>
      Effect.gen(function*() {
        const server = yield* fake({ script: bargeInScript })
        const harness = yield* makeCall({ hold: true, playedMs: 400 })
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        const connection = yield* server.waitFor(() => server.connections[0])
        const spoken = yield* server.waitFor(() => connection.spoken[0])
        yield* harness.waitFor(() =>
          Buffer.concat(harness.said[0]?.frames ?? []).length === spoken.audio.length || undefined
        )
        // The whole turn at once, faster than real time: the server ends it while its response
        // is still active, and cannot answer it.
        yield* harness.speak(frames([{ say: "wait" }, { silenceMs: 700 }], bytesOf(asking).length / 8))
        yield* harness.waitFor(() => harness.said.length === 2 || undefined)
        const refused = first(ofType(connection.sent, "error")).error as { code: string }
        assert.strictEqual(refused.code, "conversation_already_has_active_response")
        const sent = connection.received.filter((event) => event.type !== "input_audio_buffer.append")
        assert.deepStrictEqual(sent.slice(-3).map((event) => event.type), [
          "response.cancel",
          "conversation.item.truncate",
          "response.create"
        ])
        assert.strictEqual(first(connection.spoken.slice(1)).text, "Sorry, go ahead.")
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))

    it.live("an error event that is not fatal is logged, and the call goes on", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const running = yield* converse(config(server), harness.call, session()).pipe(Effect.forkChild)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => ofType(connection.sent, "session.updated")[0])
        yield* server.sendError({ type: "invalid_request_error", code: "invalid_value", message: "Not that." })
        yield* harness.speak(frames([{ silenceMs: 100 }]))
        yield* server.waitFor(() => ofType(connection.received, "input_audio_buffer.append")[0])
        yield* harness.hangUp
        assert.deepStrictEqual(yield* Fiber.join(running), { _tag: "HungUp" })
      }))
  })

  describe("errors", () => {
    it.live("a refused key is unauthorized (401), and the key is in no message", () =>
      Effect.gen(function*() {
        const server = yield* fake({ apiKey: "sk-some-other-key" })
        const harness = yield* makeCall()
        const error = yield* failure(config(server), harness.call)
        assert.strictEqual(error.reason, "unauthorized")
        assert.include(error.message, "401")
      }))

    it.live("handshake statuses: 403 unauthorized, 429 rate-limited, 400 rejected, 503 unavailable", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const expected = [[403, "unauthorized"], [429, "rate-limited"], [400, "rejected"], [
          503,
          "unavailable"
        ]] as const
        for (const [status, reason] of expected) {
          yield* server.refuse(status)
          const error = yield* failure(config(server), harness.call)
          assert.strictEqual(error.reason, reason, `HTTP ${status}`)
          assert.include(error.message, String(status))
        }
      }))

    it.live("a session.update the server refuses is rejected", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const error = yield* converse(
          config(server),
          harness.call,
          session({ tools: [{ name: "", description: "nameless", parameters: {} }] })
        ).pipe(Effect.flip)
        assert.strictEqual(error.reason, "rejected")
        assert.include(error.message, "invalid_value")
        assert.deepStrictEqual(ofType(first(server.connections).received, "input_audio_buffer.append"), [])
      }))

    it.live("a refused connection is unavailable", () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        const harness = yield* makeCall()
        const error = yield* failure(
          { apiKey: Redacted.make(KEY), model: "gpt-realtime", baseUrl: `ws://127.0.0.1:${port}/v1` },
          harness.call
        )
        assert.strictEqual(error.reason, "unavailable")
      }))

    it.live("no session.created within timeoutMs is a timeout", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        yield* server.withholdSessionCreated(true)
        const harness = yield* makeCall()
        const error = yield* failure(config(server, { timeoutMs: 300 }), harness.call)
        assert.strictEqual(error.reason, "timeout")
        assert.include(error.message, "session.created")
      }))

    it.live("the connection dropping mid-call fails the session at once with unavailable", () =>
      Effect.gen(function*() {
        const server = yield* fake({ script: (turn) => turn.heard === ASK ? { say: "Sure.", hold: true } : undefined })
        const harness = yield* makeCall({ hold: true })
        const running = yield* failure(config(server), harness.call).pipe(Effect.forkChild)
        yield* harness.speak(asking)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => connection.spoken[0])
        yield* server.drop
        const error = yield* Fiber.join(running)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "1006")
      }))

    it.live("a fatal error event fails the session with unavailable", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const running = yield* failure(config(server), harness.call).pipe(Effect.forkChild)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => ofType(connection.sent, "session.updated")[0])
        yield* server.sendError({
          type: "invalid_request_error",
          code: "session_expired",
          message: "Your session hit the maximum duration of 60 minutes."
        })
        const error = yield* Fiber.join(running)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "session_expired")
        yield* server.waitFor(() => connection.closed || undefined)
      }))

    it.live("a server_error event is fatal too", () =>
      Effect.gen(function*() {
        const server = yield* fake()
        const harness = yield* makeCall()
        const running = yield* failure(config(server), harness.call).pipe(Effect.forkChild)
        const connection = yield* server.waitFor(() => server.connections[0])
        yield* server.waitFor(() => ofType(connection.sent, "session.updated")[0])
        yield* server.sendError({ type: "server_error", code: null, message: "The server had an error." }, {
          close: true
        })
        const error = yield* Fiber.join(running)
        assert.strictEqual(error.reason, "unavailable")
        assert.include(error.message, "server_error")
      }))
  })
})
