/**
 * What the simulated carrier's person is told before a call (docs/AGENTS.md, "The
 * simulated person"): the checklist fields of the agent that runs the call (its definition's,
 * or the task an SDK agent set last, `SdkAgentTasks`), and the answers in the contact's
 * `data.sim_answers` (string values; anything else there is ignored).
 *
 * @since 0.1.0
 */
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import type * as AgentTask from "@voice-agent/core/AgentTask"
import type { FieldItem } from "@voice-agent/core/AgentTask"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { SdkAgentTasks } from "@voice-agent/sdk-agents/SdkAgentTasks"
import { Effect, Layer, Option } from "effect"

const isField = (item: AgentTask.ActionItem): item is FieldItem => item.item_type === "field"

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
    const sdkAgentTasks = yield* Effect.serviceOption(SdkAgentTasks)
    return SimCarrier.SimBriefings.of({
      briefingFor: (callId) =>
        Effect.gen(function*() {
          const definition = yield* agents.forCall(callId)
          const call = yield* conversations.callContext(callId)
          const answers = Option.isSome(call) ? answersIn(call.value.data["sim_answers"]) : {}
          if (Option.isSome(definition)) {
            return { fields: definition.value.task.action_items.filter(isField), answers }
          }
          // A call an SDK agent drives: its task changes as the call goes, so the person
          // looks at the fields of the task set last each time it is asked something.
          return Option.match(sdkAgentTasks, {
            onNone: () => ({ fields: [], answers }),
            onSome: (tasks) => ({
              get fields() {
                return tasks.fieldsOf(callId)
              },
              answers
            })
          })
        })
    })
  })
)
