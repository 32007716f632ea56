/**
 * The fields of the task each SDK agent has set on its call, as the last `set-task` gave
 * them. The call sessions write them; the simulated carrier's person reads them, so that on a
 * call an SDK agent drives it answers by field as on a call of an agent definition
 * (docs/REMOTE_AGENTS.md, "the simulated person"). In memory, one entry per live session.
 *
 * @since 0.1.0
 */
import type { FieldItem } from "@voice-agent/core/AgentTask"
import { Context, Effect, Layer } from "effect"

/**
 * @category services
 */
export class SdkAgentTasks extends Context.Service<SdkAgentTasks, {
  readonly set: (callId: string, fields: ReadonlyArray<FieldItem>) => Effect.Effect<void>
  /** The fields now (a plain read: the simulated person looks at each question it hears). */
  readonly fieldsOf: (callId: string) => ReadonlyArray<FieldItem>
  readonly forget: (callId: string) => Effect.Effect<void>
}>()("@voice-agent/sdk-agents/SdkAgentTasks") {}

/**
 * @category layers
 */
export const layer = Layer.sync(SdkAgentTasks, () => {
  const fields = new Map<string, ReadonlyArray<FieldItem>>()
  return SdkAgentTasks.of({
    set: (callId, taskFields) => Effect.sync(() => void fields.set(callId, taskFields)),
    fieldsOf: (callId) => fields.get(callId) ?? [],
    forget: (callId) => Effect.sync(() => void fields.delete(callId))
  })
})
