/**
 * Port to a language model that chats and calls tools, streamed: the OpenAI-compatible chat
 * completions protocol (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio) is
 * the one adapter; the conversation runtime's language-model policy is the one user. Text
 * arrives as it is generated, so the runtime can speak a reply sentence by sentence; a tool
 * call arrives once complete (its arguments are the model's JSON text, checked by the caller).
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Stream } from "effect"

/**
 * A tool call the model made.
 *
 * @category models
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  /** The arguments as the model wrote them: JSON text, not yet checked. */
  readonly arguments: string
}

/**
 * @category models
 */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string | null; readonly toolCalls?: ReadonlyArray<ToolCall> }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string }

/**
 * A tool the model may call; `parameters` is a JSON Schema object.
 *
 * @category models
 */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: { readonly [key: string]: unknown }
}

/**
 * @category models
 */
export interface ChatRequest {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly temperature?: number | undefined
  readonly maxTokens?: number | undefined
}

/**
 * What the model streams: text as it comes, each tool call once complete, then why it stopped
 * (`stop`, `tool_calls`, `length`, `content_filter`, or the server's own word).
 *
 * @category models
 */
export type ChatDelta =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "ToolCall"; readonly call: ToolCall }
  | { readonly _tag: "Finished"; readonly reason: string }

/**
 * Why a chat request failed. `retryable` says whether the same request may succeed later.
 *
 * @category errors
 */
export class ChatError extends Schema.TaggedError<ChatError>()("ChatError", {
  reason: Schema.Literals(["unauthorized", "rejected", "rate-limited", "unavailable", "timeout"]),
  message: Schema.String
}) {
  get isRetryable(): boolean {
    return this.reason === "rate-limited" || this.reason === "unavailable" || this.reason === "timeout"
  }
}

/**
 * @category services
 */
export class ChatModel extends Context.Service<ChatModel, {
  /** Streams the model's answer to `request`; fails if the connection drops before the end. */
  readonly stream: (request: ChatRequest) => Stream.Stream<ChatDelta, ChatError>
}>()("@voice-agent/core/ports/ChatModel") {}
