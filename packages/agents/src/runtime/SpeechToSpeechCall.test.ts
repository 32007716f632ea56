/**
 * A call held by a speech-to-speech model, with a scripted model standing in for the adapter:
 * the model's `transfer` call is carried out once its speech has played (`afterSpeech`), through
 * the call's `transfer`; moved, the call ends `transfer`; refused, the model hears why as the
 * call's refused result.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AgentCall, AgentEnd, TransferResult } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import { Providers } from "@voice-agent/core/ports/Providers"
import type { SessionEnd, ToolResult } from "@voice-agent/core/ports/SpeechToSpeech"
import { SpeechToSpeech } from "@voice-agent/core/ports/SpeechToSpeech"
import { Effect, Option, Stream } from "effect"
import * as ConversationAgent from "../ConversationAgent.ts"
import * as CallContexts from "../testing/CallContexts.ts"

/**
 * One call whose model transfers to `+12025550188` at once; the adapter's `afterSpeech` run as
 * the Realtime adapter runs it. Answers the call's end, the results the model got, and the
 * transfers asked for.
 */
const runCall = (carrier: TransferResult) =>
  Effect.gen(function*() {
    const results: Array<ToolResult> = []
    const transfers: Array<string> = []
    const model = SpeechToSpeech.of({
      encoding: "mulaw",
      converse: (_, session) =>
        Effect.gen(function*() {
          const made = yield* session.onToolCall({
            id: "call_1",
            name: "transfer",
            arguments: JSON.stringify({ to: "+12025550188" })
          })
          results.push(made)
          const result = made.afterSpeech === undefined ? made : yield* made.afterSpeech
          results.push(result)
          const ended: SessionEnd = result.end === undefined ? { _tag: "HungUp" } : { _tag: "Ended", end: result.end }
          return ended
        })
    })
    const runtime = ConversationAgent.make({
      definitionFor: () =>
        Effect.succeed(Option.some({
          persona: { agent_name: "Sam" },
          task: null,
          instructions: null,
          language: null,
          llm: "realtime",
          stt: null,
          tts: null
        })),
      recordField: () => Effect.void,
      providers: Providers.of({
        llm: (name) => name === "realtime" ? Option.some({ _tag: "SpeechToSpeech", model }) : Option.none(),
        stt: () => Option.none(),
        tts: () => Option.none(),
        names: { llm: ["realtime"], stt: [], tts: [] }
      }),
      stt: { transcribe: () => Stream.empty },
      tts: { synthesize: () => Stream.empty },
      fallback: Agent.of({ encoding: "pcm16", run: () => Effect.die("no fallback") })
    })
    const call: AgentCall = {
      context: CallContexts.outbound,
      input: Stream.never,
      elapsedMs: Effect.succeed(0),
      say: () => Effect.succeed({ _tag: "Played", startMs: 0, endMs: 0 }),
      interrupt: Effect.void,
      sendDtmf: () => Effect.void,
      transfer: (to) => Effect.sync(() => (transfers.push(to), carrier)),
      emitTurn: () => Effect.void,
      emitLatency: () => Effect.void
    }
    const end: AgentEnd = yield* runtime.run(call)
    return { end, results, transfers }
  })

describe("a speech-to-speech model's transfer", () => {
  it.effect("is carried out after its speech; moved, the call ends transfer", () =>
    Effect.gen(function*() {
      const { end, results, transfers } = yield* runCall({ _tag: "Transferred" })
      assert.isDefined(results[0]?.afterSpeech)
      assert.deepStrictEqual(transfers, ["+12025550188"])
      assert.deepStrictEqual(end, { outcome: "transfer", endedBy: "agent", transferTo: "+12025550188" })
    }))

  it.effect("refused: the model gets the refused result with the carrier's reason, and the call goes on", () =>
    Effect.gen(function*() {
      const { end, results } = yield* runCall({ _tag: "Refused", reason: "destination unreachable" })
      assert.deepStrictEqual(results[1], {
        output: "Error: the transfer to +12025550188 failed (destination unreachable). " +
          "The caller is still on the line: tell them, and carry on.",
        refused: true
      })
      assert.notStrictEqual(end.outcome, "transfer")
    }))
})
