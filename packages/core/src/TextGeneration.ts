/**
 * One prompt in, one text out, on a configured chat model: the reference SDK's
 * `POST /v1/llm/generate` (`{prompt, json_schema?}` → `{text}`), which its helpers (intent
 * recognition, date parsing) call with a JSON schema and parse the text as JSON.
 *
 * Which model: the first chat provider (`Providers`, `_tag: "Chat"`) in the configuration's
 * order; speech-to-speech providers are skipped.
 *
 * A JSON schema constrains the answer through a tool, since the chat port has no response
 * format: the model is given one tool, {@link answerTool}, whose parameters are the schema (an
 * object schema as it is; any other wrapped as the property `value` of an object), and is told
 * to answer by calling it. The text is the call's arguments (unwrapped). A model that answers in
 * text anyway gets its text back, without a surrounding Markdown code fence.
 *
 * @since 0.1.0
 */
import { Effect, Option, Schema, Stream } from "effect"
import type { ChatDelta, ChatError, ChatModel, ChatRequest } from "./ports/ChatModel.ts"
import type { Providers } from "./ports/Providers.ts"

/**
 * @category models
 */
export interface GenerateRequest {
  readonly prompt: string
  /** A JSON schema the answer must match (the answer is then JSON text). */
  readonly jsonSchema?: { readonly [key: string]: unknown } | undefined
}

/**
 * The name of the tool that carries a schema-constrained answer.
 *
 * @category constructors
 */
export const answerTool = "respond"

/**
 * The configured chat model {@link generate} uses: the first `Chat` provider by configured name
 * order, or none.
 *
 * @category constructors
 */
export const defaultChatModel = (
  providers: Providers["Service"]
): Option.Option<{ readonly name: string; readonly model: ChatModel["Service"] }> => {
  for (const name of providers.names.llm) {
    const provider = providers.llm(name)
    if (Option.isSome(provider) && provider.value._tag === "Chat") {
      return Option.some({ name, model: provider.value.model })
    }
  }
  return Option.none()
}

const isObjectSchema = (schema: { readonly [key: string]: unknown }): boolean => schema["type"] === "object"

/**
 * The chat request for `request`.
 *
 * @category encoding
 */
export const chatRequest = (request: GenerateRequest): ChatRequest => {
  const schema = request.jsonSchema
  if (schema === undefined) return { messages: [{ role: "user", content: request.prompt }] }
  const parameters = isObjectSchema(schema)
    ? schema
    : { type: "object", properties: { value: schema }, required: ["value"] }
  return {
    messages: [
      {
        role: "system",
        content: `Answer by calling the function ${answerTool} exactly once, with arguments that match its ` +
          "JSON schema. Do not answer in text."
      },
      { role: "user", content: request.prompt }
    ],
    tools: [{ name: answerTool, description: "Give the answer, in the required structure.", parameters }]
  }
}

const decodeWrapped = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ value: Schema.Unknown })))

const fence = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/

/**
 * The answer's text from the model's deltas: with a schema, the arguments of the first call of
 * {@link answerTool} (unwrapped from `value` when the schema was wrapped); otherwise, or when the
 * model made no such call, its text (without a surrounding code fence when a schema was asked).
 *
 * @category decoding
 */
export const answerText = (request: GenerateRequest, deltas: ReadonlyArray<ChatDelta>): string => {
  const text = deltas.flatMap((delta) => (delta._tag === "Text" ? [delta.text] : [])).join("")
  const schema = request.jsonSchema
  if (schema === undefined) return text
  const call = deltas.find((delta) => delta._tag === "ToolCall" && delta.call.name === answerTool)
  if (call === undefined || call._tag !== "ToolCall") return fence.exec(text.trim())?.[1] ?? text.trim()
  const args = call.call.arguments
  if (isObjectSchema(schema)) return args
  return Option.match(decodeWrapped(args), {
    onNone: () => args,
    onSome: (wrapped) => (wrapped.value === undefined ? args : JSON.stringify(wrapped.value))
  })
}

/**
 * Asks `model` for the answer to `request`.
 *
 * @category constructors
 */
export const generate = (model: ChatModel["Service"], request: GenerateRequest): Effect.Effect<string, ChatError> =>
  Effect.map(Stream.runCollect(model.stream(chatRequest(request))), (deltas) => answerText(request, deltas))
