/**
 * One call event → the agent's handlers and the replies the protocol expects. A handler that
 * throws is logged; where the server waits for an answer it still gets one (an apology answer,
 * an empty suggestion) or an `expert-error`, so the conversation goes on.
 */
import type { Call } from "../Call.ts"
import type { ActionCandidate } from "../Commands.ts"
import type { CallEvent } from "../Events.ts"
import type { Hooks } from "../Hooks.ts"
import type { CallState } from "./CallState.ts"

const NO_ANSWER = "I don't have an answer to that question."
const ANSWER_FAILED = "An error occurred and the question could not be answered."
const NO_ESCALATION_AGENT =
  "Nobody is available to take over. Apologize for not being able to help, suggest calling back another time, and hang up the call."
const NO_ESCALATION_HUMAN =
  "Tell the caller no representative is available right now, and ask whether they would like to continue with you or call back another time."

const describe = (error: unknown): string => error instanceof Error ? (error.stack ?? error.message) : String(error)

export const dispatch = async (hooks: Hooks, call: Call, state: CallState, event: CallEvent): Promise<void> => {
  const { logger } = state
  /** Runs a handler; on failure logs it and, with `expertError`, tells the server. */
  const guard = async (name: string, run: () => unknown, expertError?: string): Promise<boolean> => {
    try {
      await run()
      return true
    } catch (error) {
      logger.error(`Call ${call.id}: the ${name} handler failed: ${describe(error)}`)
      if (expertError !== undefined) state.send({ command_type: "expert-error", message: expertError })
      return false
    }
  }

  switch (event.type) {
    case "caller-speech": {
      const handler = hooks.callerSpeech
      if (handler !== undefined) await guard("onCallerSpeech", () => handler(call, event))
      return
    }
    case "agent-speech": {
      const handler = hooks.agentSpeech
      if (handler !== undefined) await guard("onAgentSpeech", () => handler(call, event))
      return
    }
    case "action-item-done":
      state.fields.set(event.key, event.value)
      logger.debug(`Call ${call.id}: field ${event.key} recorded`)
      return
    case "task-done": {
      const { taskId } = event
      const problems: Array<string> = []
      for (const key of state.taskFields.get(taskId) ?? []) {
        const validate = hooks.validate.get(key)
        if (validate === undefined) continue
        const ok = await guard(`onValidate(${key})`, async () => {
          const problem = await validate(call, call.getField(key))
          if (typeof problem === "string" && problem !== "") problems.push(problem)
        }, `The agent's code failed while validating the field '${key}'.`)
        if (!ok) return
      }
      if (problems.length > 0) {
        logger.info(`Call ${call.id}: task ${taskId} retried: ${problems.join(" ")}`)
        state.send({ command_type: "retry-task", reason: problems.join(" ") })
        return
      }
      logger.info(`Call ${call.id}: task ${taskId} completed`)
      const byId = hooks.taskCompleteById.get(taskId)
      const generic = hooks.taskComplete
      const expertError = `The agent's code failed while handling the completion of task '${taskId}'.`
      if (byId !== undefined) await guard(`onTaskComplete(${taskId})`, () => byId(call), expertError)
      else if (generic !== undefined) await guard("onTaskComplete", () => generic(call, taskId), expertError)
      else logger.warn(`Call ${call.id}: no onTaskComplete handler for task ${taskId}`)
      return
    }
    case "agent-question": {
      const handler = hooks.question
      let answer = NO_ANSWER
      if (handler === undefined) {
        logger.warn(`Call ${call.id}: a question came but there is no onQuestion handler`)
      } else {
        const answered = await guard("onQuestion", async () => {
          answer = await handler(call, event.question)
        })
        if (!answered) answer = ANSWER_FAILED
      }
      state.send({ command_type: "answer-question", question_id: event.questionId, answer })
      return
    }
    case "choice-query": {
      const handler = hooks.searchQuery.get(event.fieldKey)
      if (handler === undefined) {
        logger.warn(`Call ${call.id}: a search for field ${event.fieldKey} came but it has no onSearchQuery handler`)
        state.send({
          command_type: "expert-error",
          message: `The agent has no search for the field '${event.fieldKey}'. No results will come.`
        })
        return
      }
      await guard(`onSearchQuery(${event.fieldKey})`, async () => {
        const result = await handler(call, event.query)
        state.send({
          command_type: "choice-query-result",
          field_key: event.fieldKey,
          query_id: event.queryId,
          matched_choices: [...result.matched],
          other_choices: [...(result.other ?? [])]
        })
      }, `The agent's code failed while searching the field '${event.fieldKey}'. No results will come.`)
      return
    }
    case "action-request": {
      const handler = hooks.actionRequest
      let actions: Array<ActionCandidate> = []
      if (handler !== undefined) {
        await guard("onActionRequest", async () => {
          const suggestion = await handler(call, event.intentSummary)
          const list = suggestion === null || suggestion === undefined
            ? []
            : Array.isArray(suggestion)
            ? suggestion as ReadonlyArray<{ key: string; description?: string }>
            : [suggestion as { key: string; description?: string }]
          actions = list.map((action) => ({ key: action.key, description: action.description ?? "" }))
        }, "The agent's code failed while handling the action request.")
      }
      const [single] = actions
      state.send({
        command_type: "action-suggestion",
        intent_id: event.intentId,
        action_key: actions.length === 1 && single !== undefined ? single.key : null,
        action_description: actions.length === 1 && single !== undefined ? single.description : "",
        actions
      })
      return
    }
    case "execute-action": {
      const { actionKey } = event
      const byKey = hooks.actionByKey.get(actionKey)
      const generic = hooks.action
      if (byKey === undefined && generic === undefined) {
        logger.warn(`Call ${call.id}: no onAction handler for action ${actionKey}`)
        return
      }
      logger.info(`Call ${call.id}: executing action ${actionKey}`)
      await guard(`onAction(${actionKey})`, async () => {
        const response = byKey !== undefined ? await byKey(call) : await generic?.(call, actionKey)
        if (typeof response === "string" && response !== "") {
          state.send({
            command_type: "send-instruction",
            instruction: `Result of the action ${actionKey}: ${response}`
          })
        }
      }, `The agent's code failed while executing the action '${actionKey}'.`)
      return
    }
    case "escalate": {
      const handler = hooks.escalate
      if (handler !== undefined) {
        await guard("onEscalate", () => handler(call, event.requestedBy), "The agent's code failed while escalating.")
      } else {
        state.send({
          command_type: "send-instruction",
          instruction: event.requestedBy === "agent" ? NO_ESCALATION_AGENT : NO_ESCALATION_HUMAN
        })
      }
      return
    }
    case "dtmf": {
      const handler = hooks.dtmf
      if (handler !== undefined) await guard("onDtmf", () => handler(call, event))
      return
    }
    case "outbound-call-connected":
      logger.info(`Call ${call.id}: connected`)
      return
    case "outbound-call-failed": {
      logger.warn(`Call ${call.id}: the outbound call failed (${event.errorCode}): ${event.errorReason}`)
      const handler = hooks.outboundFailed
      if (handler !== undefined) await guard("onOutboundFailed", () => handler(call, event))
      return
    }
    case "bot-session-ended": {
      logger.info(`Call ${call.id}: ended (${event.terminationReason}${event.dnc ? ", do not call" : ""})`)
      const handler = hooks.sessionEnd
      if (handler !== undefined) await guard("onSessionEnd", () => handler(call, event))
      return
    }
    case "error":
      logger.error(`Call ${call.id}: the server reports an error: ${event.content}`)
      return
    case "warning":
      logger.warn(`Call ${call.id}: the server warns: ${event.content}`)
      return
  }
}
