/**
 * What a language model is told about the conversation: a system prompt built from the state
 * (persona, objective and completion criteria, the checklist with each item's status and the
 * values collected so far, instructions, variables, language, the date) and the turns so far as
 * chat messages. Rebuilt from the state at every `Generate`, so the model always sees the
 * checklist as it stands; within one `Generate`, the tool exchanges of its earlier rounds
 * (`Exchange`) are put back where they happened among the turns.
 *
 * The model is told to say its next line in the same response as its tool calls (a field's
 * value recorded, then "Thank you" and the next question), so a turn costs one request; it is
 * asked again only when a call is refused or it said nothing.
 *
 * Sensitive values never reach the prompt: a sensitive field's value shows as `[redacted]`,
 * wherever it appears: in the checklist, in the turns (the caller's answer, once collected) and
 * in the tool calls of an exchange. A speech-to-speech model gets the same system prompt as its
 * instructions. Pure.
 *
 * @since 0.1.0
 */
import type { FieldItem, FieldValue } from "@voice-agent/core/AgentTask"
import { isSensitive } from "@voice-agent/core/AgentTask"
import * as CalendarDate from "@voice-agent/core/CalendarDate"
import type { ChatMessage } from "@voice-agent/core/ports/ChatModel"
import type { ItemState, State } from "./Dialogue.ts"
import { Redacted, scrub } from "./Dialogue.ts"

const valueText = (field: FieldItem, value: FieldValue): string => {
  if (isSensitive(field)) return Redacted
  if (typeof value === "object") return CalendarDate.format(value)
  return JSON.stringify(value)
}

const itemLine = (entry: ItemState): string => {
  const item = entry.item
  switch (item.item_type) {
    case "say":
      return `- [${
        entry.status === "done" ? "done" : "to say"
      }] say (key "${item.key}"), word for word: "${item.statement}"`
    case "todo":
      return `- [${entry.status === "done" ? "done" : "to do"}] to do (key "${item.key}"): ${item.description}`
    case "field": {
      const status = entry.status === "done" && entry.value !== undefined
        ? `collected: ${valueText(item, entry.value)}`
        : entry.status === "skipped"
        ? "skipped"
        : "to collect"
      const parts = [
        `- [${status}] field "${item.key}" (${item.field_type}${item.required === false ? ", optional" : ""})`,
        item.description === undefined ? undefined : `: ${item.description}`,
        item.question === undefined ? undefined : `. Ask: "${item.question}"`,
        item.choices === undefined || item.choices.length === 0
          ? undefined
          : `. Choices: ${item.choices.map((choice) => `"${choice}"`).join(", ")}`
      ]
      return parts.filter((part) => part !== undefined).join("")
    }
  }
}

const variableLines = (state: State): ReadonlyArray<string> =>
  Object.entries(state.variables)
    .filter(([key, value]) => key !== "sim_answers" && value !== null && typeof value !== "object")
    .map(([key, value]) => `- ${key}: ${String(value)}`)

/**
 * The system prompt.
 *
 * @category constructors
 */
export const systemPrompt = (state: State): string => {
  const persona = state.persona
  const who = [
    persona.agent_name ? `Your name is ${persona.agent_name}.` : undefined,
    persona.organization_name ? `You speak for ${persona.organization_name}.` : undefined,
    persona.agent_purpose ? `Your purpose: ${persona.agent_purpose}` : undefined
  ].filter((line) => line !== undefined)
  const call = state.call
  const sections: Array<string> = [
    [
      "You are a voice agent on a telephone call. What you write is spoken aloud: short, plain",
      "sentences, no lists, no markdown, no emoji, numbers and dates written as they are said.",
      "Ask one question at a time and wait for the answer.",
      ...who
    ].join(" ")
  ]
  if (call !== undefined) {
    sections.push(
      `The call: ${call.direction}, from ${call.from} to ${call.to}. Today is ${CalendarDate.format(call.today)}.`
    )
  }
  if (state.task !== undefined) {
    const task = state.task
    sections.push(
      [
        `Your task: ${task.objective}`,
        task.completion_criteria ? `It is complete when: ${task.completion_criteria}` : undefined,
        "The checklist, in order:",
        ...state.items.map(itemLine),
        "Call record_field as soon as the caller gives a field's value (the value as they said it).",
        "When every required field is collected and every statement said, call complete_task,",
        "say goodbye, and call end_call. If the caller wants to stop, say goodbye and call end_call.",
        "Say your next line in the same response as your tool calls (thank the caller and ask the next",
        "question): do not wait for the tools' results. If a call is refused, you are told why at once:",
        "then put it right (ask again for a value that was refused)."
      ].filter((line) => line !== undefined).join("\n")
    )
  } else {
    sections.push("Help the caller; when the conversation is over, say goodbye and call end_call.")
  }
  const variables = variableLines(state)
  if (variables.length > 0) sections.push(["What you know about the person:", ...variables].join("\n"))
  if (state.instructions.length > 0) sections.push(["Instructions:", ...state.instructions].join("\n"))
  if (state.dtmf !== "") sections.push(`The caller has keyed the digits ${state.dtmf} on their keypad.`)
  if (state.silences > 0) sections.push("The caller has not answered for a while: check whether they are still there.")
  sections.push(`Speak ${state.language}.`)
  return sections.join("\n\n")
}

/**
 * A round of tool calls within one `Generate` and their results (the assistant message with
 * the calls, then a `tool` message for each), after the first `afterTurns` turns of the state:
 * what the model said in that round is already among the turns, so the assistant message holds
 * only the calls.
 *
 * @category models
 */
export interface Exchange {
  readonly afterTurns: number
  readonly messages: ReadonlyArray<ChatMessage>
}

const scrubbed = (state: State, message: ChatMessage): ChatMessage =>
  message.role === "assistant" && message.toolCalls !== undefined
    ? {
      ...message,
      toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: scrub(state, call.arguments) }))
    }
    : message

/**
 * The conversation as chat messages: the system prompt, then the turns (the agent's as
 * `assistant`, the caller's as `user`), with the `exchanges` of the current `Generate` in their
 * places. A conversation that does not start with the caller gets a `user` line saying the call
 * has been answered, since chat models expect one.
 *
 * @category constructors
 */
export const messages = (state: State, exchanges: ReadonlyArray<Exchange> = []): ReadonlyArray<ChatMessage> => {
  const out: Array<ChatMessage> = []
  const pending = [...exchanges]
  const exchangesUpTo = (turns: number) => {
    while (pending.length > 0 && pending[0]!.afterTurns <= turns) {
      for (const message of pending.shift()!.messages) out.push(scrubbed(state, message))
    }
  }
  for (const [i, turn] of state.turns.entries()) {
    exchangesUpTo(i)
    const text = scrub(state, turn.text)
    out.push(turn.speaker === "AGENT" ? { role: "assistant", content: text } : { role: "user", content: text })
  }
  exchangesUpTo(Number.POSITIVE_INFINITY)
  if (out.length === 0 || out[0]!.role !== "user") {
    out.unshift({ role: "user", content: "(The call has been answered.)" })
  }
  return [{ role: "system", content: systemPrompt(state) }, ...out]
}
