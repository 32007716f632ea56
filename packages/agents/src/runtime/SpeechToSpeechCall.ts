/**
 * A call's conversation held by a speech-to-speech model: the model hears and speaks (in its own
 * encoding), given the prompt and tools the dialogue's state makes; its tool calls go through
 * `Dialogue.step` under the language-model policy, so fields are recorded and checked as in a
 * pipeline; a refused call is reported `refused`, so the model is asked to put it right at once
 * (otherwise a response that spoke needs no other). A transfer is the call's
 * (`AgentCall.transfer`), once the speech received has played: moved, the session ends
 * `transfer`; refused, the model hears it as its call's result and goes on. The model failing
 * ends the call as the agent's failure.
 *
 * @since 0.1.0
 */
import type { AgentCall, AgentEnd } from "@voice-agent/core/ports/Agent"
import type { ToolResult } from "@voice-agent/core/ports/SpeechToSpeech"
import { Effect, Ref } from "effect"
import type { Dependencies, Settings } from "../ConversationAgent.ts"
import type * as DeterministicPolicy from "../dialogue/DeterministicPolicy.ts"
import * as Dialogue from "../dialogue/Dialogue.ts"
import * as ModelPolicy from "../dialogue/ModelPolicy.ts"
import * as ModelPrompt from "../dialogue/ModelPrompt.ts"
import { agentFailure, callStarted, initialState } from "./CallDialogue.ts"
import type { SpeechToSpeechPlan } from "./CallPlan.ts"

/**
 * Runs a call with a speech-to-speech model (module header).
 *
 * @category constructors
 */
export const run = (
  call: AgentCall,
  plan: SpeechToSpeechPlan,
  settings: Settings,
  extractor: DeterministicPolicy.Extractor,
  dependencies: Dependencies
) =>
  Effect.gen(function*() {
    const policy = ModelPolicy.make({ extractor, silenceMs: settings.silenceMs })
    const started = Dialogue.step(initialState(plan.definition), yield* callStarted(call.context), policy)
    const current = yield* Ref.make(started.state)
    const opening = started.actions.flatMap((action) => action._tag === "Say" ? [action.text] : [])
    const resultOf = (stepped: Dialogue.Step, output: string, refused: boolean): ToolResult => {
      const end = stepped.state.ended
      return end === undefined
        ? { output, refused }
        : { output, end: { outcome: end.outcome, endedBy: end.endedBy, transferTo: end.transferTo } }
    }
    /** The transfer, once its message has played: the carrier's answer goes to the dialogue. */
    const transfer = (to: string) =>
      Effect.gen(function*() {
        const result = yield* call.transfer(to)
        const stepped = Dialogue.step(
          yield* Ref.get(current),
          result._tag === "Transferred" ? { _tag: "Transferred" } : { _tag: "TransferRefused", reason: result.reason },
          policy
        )
        yield* Ref.set(current, stepped.state)
        const told = stepped.actions.find((action) => action._tag === "ToolResult")
        return resultOf(stepped, told?.output ?? "Transferred.", told?.refused === true)
      })
    const ended = yield* plan.model.converse(call, {
      instructions: ModelPrompt.systemPrompt(started.state),
      voice: plan.definition.persona.voice ?? undefined,
      language: plan.definition.language ?? undefined,
      tools: ModelPolicy.tools(started.state),
      ...(opening.length === 0 ? {} : { opening: opening.join(" ") }),
      onToolCall: (toolCall) =>
        Effect.gen(function*() {
          const stepped = Dialogue.step(yield* Ref.get(current), { _tag: "ModelToolCall", ...toolCall }, policy)
          yield* Ref.set(current, stepped.state)
          let output = "Done."
          let refused = false
          for (const action of stepped.actions) {
            if (action._tag === "RecordField") {
              yield* dependencies.recordField(call.context.conversationId, action.key, action.value)
            }
            if (action._tag === "ToolResult") {
              output = action.output
              refused = action.refused === true
            }
          }
          const transferring = stepped.state.transferring
          if (transferring !== undefined) {
            return { output: "Transferring.", afterSpeech: transfer(transferring.to) }
          }
          return resultOf(stepped, output, refused)
        })
    }).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logError(`Call ${call.context.callId}: the speech-to-speech model failed: ${error.message}`),
          undefined
        )
      )
    )
    if (ended === undefined) return agentFailure
    if (ended._tag === "Ended") return ended.end
    const state = yield* Ref.get(current)
    return { outcome: state.completed ? "completed" : "cut-short", endedBy: "remote" } satisfies AgentEnd
  })
