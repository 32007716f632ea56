/**
 * What the simulated carrier's person is told before a call (CONTRACT §7, "the simulated
 * person's answers"): the checklist fields of the agent that runs the call, and the answers in
 * the contact's `data.sim_answers` (string values; anything else there is ignored).
 *
 * @since 0.1.0
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import type { FieldItem } from "@voice-agent/core/AgentTask"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Layer, Option } from "effect"

const answersIn = (value: unknown): { readonly [key: string]: string } => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string")
  )
}

/**
 * @category layers
 */
export const layer = Layer.effect(
  SimCarrier.SimBriefings,
  Effect.gen(function*() {
    const agents = yield* AgentRepository
    const conversations = yield* ConversationRepository
    return SimCarrier.SimBriefings.of({
      briefingFor: (callId) =>
        Effect.gen(function*() {
          const definition = yield* agents.forCall(callId)
          const call = yield* conversations.callContext(callId)
          const fields = Option.match(definition, {
            onNone: (): ReadonlyArray<FieldItem> => [],
            onSome: (found) => found.task.action_items.filter((item) => item.item_type === "field")
          })
          const answers = Option.isSome(call) ? answersIn(call.value.data["sim_answers"]) : {}
          return { fields, answers }
        })
    })
  })
)
