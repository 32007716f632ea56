/**
 * What every way of running a call shares about its dialogue: the starting state of a
 * definition, the `CallStarted` event of a call (today's date read from the `Clock`, in UTC), and
 * the end of a call whose agent failed.
 *
 * @since 0.1.0
 */
import type { AgentEnd, CallContext } from "@voice-agent/core/ports/Agent"
import { Clock, Effect } from "effect"
import type { CallDefinition } from "../ConversationAgent.ts"
import * as Dialogue from "../dialogue/Dialogue.ts"

/**
 * A call that ends because its agent failed (`bot-failure`).
 *
 * @category constructors
 */
export const agentFailure: AgentEnd = { outcome: "agent-failure", endedBy: "agent" }

/**
 * The dialogue's starting state of a definition, with the contact's data as variables.
 *
 * @category constructors
 */
export const initialState = (definition: CallDefinition): Dialogue.State =>
  Dialogue.make({
    persona: definition.persona,
    task: definition.task ?? undefined,
    instructions: definition.instructions === null || definition.instructions.trim() === ""
      ? []
      : [definition.instructions],
    language: definition.language ?? undefined
  })

const today = Effect.map(Clock.currentTimeMillis, (now) => {
  const date = new Date(now)
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
})

/**
 * The event that starts a call's dialogue.
 *
 * @category constructors
 */
export const callStarted = (context: CallContext) =>
  Effect.map(today, (day): Dialogue.Event => ({
    _tag: "CallStarted",
    direction: context.direction,
    from: context.from,
    to: context.to,
    variables: context.data,
    answeredBy: context.answeredBy,
    today: day
  }))
