/**
 * What a language model is told about the conversation: a system prompt built from the state
 * (persona, objective and completion criteria, the checklist with each item's status and the
 * values collected so far, instructions, variables, language, the date) and the turns so far as
 * chat messages. Rebuilt from the state at every `Generate`, so the model always sees the
 * checklist as it stands, and no earlier tool exchange needs to be replayed.
 *
 * Sensitive values never reach the prompt: a sensitive field's value shows as `[redacted]`,
 * and the turns are the conversation's own, already redacted. A speech-to-speech model gets
 * the same system prompt as its instructions. Pure.
 *
 * @since 0.1.0
 */
import type { FieldItem, FieldValue } from "@voice-agent/core/AgentTask"
import { isSensitive } from "@voice-agent/core/AgentTask"
import * as CalendarDate from "@voice-agent/core/CalendarDate"
import type { ChatMessage } from "@voice-agent/core/ports/ChatModel"
import type { ItemState, State } from "./Dialogue.ts"
import { Redacted } from "./Dialogue.ts"

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
        "say goodbye, and call end_call. If the caller wants to stop, say goodbye and call end_call."
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
 * The conversation as chat messages: the system prompt, then the turns (the agent's as
 * `assistant`, the caller's as `user`). A conversation with no turn yet gets a `user` line
 * saying the call has been answered, since chat models expect one.
 *
 * @category constructors
 */
export const messages = (state: State): ReadonlyArray<ChatMessage> => {
  const turns: Array<ChatMessage> = state.turns.map((turn) =>
    turn.speaker === "AGENT"
      ? { role: "assistant", content: turn.text }
      : { role: "user", content: turn.text }
  )
  if (turns.length === 0 || turns[0]!.role === "assistant") {
    turns.unshift({ role: "user", content: "(The call has been answered.)" })
  }
  return [{ role: "system", content: systemPrompt(state) }, ...turns]
}
