/**
 * The stand-in for a language model in the tests and benchmarks: a model that walks the checklist
 * the agent's prompt shows (`ChecklistPrompt`), as a model following that prompt would. It asks
 * the first field still to collect; when the caller answers it, records the answer with
 * `record_field`; once nothing is left, says goodbye with `complete_task` and `end_call`. When a
 * call was refused (a tool message that is an error), it apologises and asks again.
 *
 * Two ways of answering a turn that records a field:
 * - `"one-response"` (what the prompt asks for): the next line ("Thank you." and the next
 *   question, or the goodbye) and the tool calls in one response, text first, as OpenAI streams
 *   them: one model request a turn;
 * - `"tool-call-first"` (a model that does not follow that part of the prompt): the tool call
 *   alone, then the next line once it hears the tool's result: two requests a turn.
 */
import { fieldsToCollect } from "./ChecklistPrompt.ts"
import * as ChatCompletionsFake from "./openai-fake/ChatCompletionsFake.ts"

/**
 * @category models
 */
export type Style = "one-response" | "tool-call-first"

/**
 * A message as the model reads it (a core `ChatMessage` or a wire message both fit).
 *
 * @category models
 */
export interface Message {
  readonly role: string
  readonly content?: string | ReadonlyArray<unknown> | null | undefined
}

/**
 * What the model answers: text, then tool calls.
 *
 * @category models
 */
export interface Answer {
  readonly text: string | undefined
  readonly calls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>
}

/**
 * @category constants
 */
export const goodbye = "Thank you, that is all I needed. Goodbye."

const finish = [{ name: "complete_task", arguments: "{}" }, { name: "end_call", arguments: "{}" }]

/**
 * The model's answer to `messages` (the first is the system prompt).
 *
 * @category constructors
 */
export const answer = (messages: ReadonlyArray<Message>, style: Style): Answer => {
  const system = String(messages[0]?.content ?? "")
  const pending = fieldsToCollect(system)
  const next = pending[0]
  const last = messages.at(-1)
  const asked = [...messages].reverse().find((m) => m.role === "assistant" && typeof m.content === "string")
  if (last?.role === "tool") {
    // It hears back: the results of its calls since the last assistant text or caller's turn.
    const results = [...messages].reverse()
    const refused = results.slice(0, results.findIndex((m) => m.role !== "tool")).some((m) =>
      String(m.content).startsWith("Error")
    )
    if (refused && next !== undefined) return { text: `Sorry. ${next.question}`, calls: [] }
    if (next !== undefined) return { text: `Thank you. ${next.question}`, calls: [] }
    return { text: goodbye, calls: finish }
  }
  if (last?.role === "user" && next !== undefined && String(asked?.content).includes(next.question)) {
    const record = { name: "record_field", arguments: JSON.stringify({ key: next.key, value: last.content }) }
    if (style === "tool-call-first") return { text: undefined, calls: [record] }
    const following = pending[1]
    return following === undefined
      ? { text: goodbye, calls: [record, ...finish] }
      : { text: `Thank you. ${following.question}`, calls: [record] }
  }
  if (next !== undefined) return { text: next.question, calls: [] }
  return { text: goodbye, calls: finish }
}

/**
 * The answer as the chat completions fake streams it.
 *
 * @category constructors
 */
export const reply = (model: Answer): ChatCompletionsFake.Reply =>
  ChatCompletionsFake.answer([
    ...(model.text === undefined ? [] : [ChatCompletionsFake.text(model.text)]),
    ...model.calls.map((call) => ChatCompletionsFake.toolCall(call.name, call.arguments))
  ])

/**
 * A script for the chat completions fake.
 *
 * @category constructors
 */
export const script = (style: Style): ChatCompletionsFake.Script => (request) => reply(answer(request.messages, style))
