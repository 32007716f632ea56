/**
 * The OpenAI Realtime API's events as `OpenAiRealtime` reads and writes them (the GA protocol;
 * the module header of `OpenAiRealtime` says how a call uses them): the server's events it reads,
 * as one schema, and the client events it sends, one constructor each. No I/O.
 *
 * @since 0.1.0
 */
import type { SpeechSession } from "@voice-agent/core/ports/SpeechToSpeech"
import type { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import { Schema } from "effect"

const NullableString = Schema.NullOr(Schema.String)
/**
 * The server's events this adapter reads. Other events, and fields it does not use, are ignored.
 * The beta names of the three audio events (`response.audio.delta`, `response.audio.done`,
 * `response.audio_transcript.done`) are read as their GA names.
 *
 * @category schemas
 */
export const ServerEvent = Schema.Union([
  Schema.Struct({
    type: Schema.Literals(["session.created", "session.updated"]),
    /** Read by `silenceMs` alone: a session of another shape must not make the event unreadable. */
    session: Schema.optionalKey(Schema.Unknown)
  }),
  Schema.Struct({
    type: Schema.Literal("error"),
    error: Schema.Struct({
      type: Schema.String,
      code: Schema.optionalKey(NullableString),
      message: Schema.String
    })
  }),
  Schema.Struct({
    type: Schema.Literal("input_audio_buffer.speech_started"),
    item_id: Schema.String,
    audio_start_ms: Schema.Number
  }),
  Schema.Struct({
    type: Schema.Literal("input_audio_buffer.speech_stopped"),
    item_id: Schema.optionalKey(Schema.String),
    audio_end_ms: Schema.optionalKey(Schema.Number)
  }),
  Schema.Struct({
    type: Schema.Literal("conversation.item.input_audio_transcription.completed"),
    item_id: Schema.String,
    transcript: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("response.created"), response: Schema.Struct({ id: Schema.String }) }),
  Schema.Struct({
    type: Schema.Literals(["response.output_audio.delta", "response.audio.delta"]),
    response_id: Schema.String,
    item_id: Schema.String,
    delta: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literals(["response.output_audio.done", "response.audio.done"]),
    item_id: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literals(["response.output_audio_transcript.done", "response.audio_transcript.done"]),
    item_id: Schema.String,
    transcript: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("response.function_call_arguments.done"),
    response_id: Schema.String,
    call_id: Schema.String,
    name: Schema.String,
    arguments: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("response.done"),
    response: Schema.Struct({
      id: Schema.String,
      status: Schema.optionalKey(Schema.String),
      status_details: Schema.optionalKey(Schema.NullOr(Schema.Struct({
        reason: Schema.optionalKey(NullableString),
        error: Schema.optionalKey(Schema.NullOr(Schema.Struct({ code: Schema.optionalKey(NullableString) })))
      }))),
      output: Schema.optionalKey(Schema.Array(Schema.Struct({
        type: Schema.String,
        id: Schema.optionalKey(Schema.String),
        status: Schema.optionalKey(Schema.String),
        call_id: Schema.optionalKey(Schema.String),
        name: Schema.optionalKey(Schema.String),
        arguments: Schema.optionalKey(Schema.String),
        content: Schema.optionalKey(Schema.Array(Schema.Struct({ transcript: Schema.optionalKey(NullableString) })))
      })))
    })
  })
])
/**
 * @category models
 */
export type ServerEvent = typeof ServerEvent.Type

/**
 * A text frame as a server event; none for one that is not JSON or not an event read here.
 *
 * @category decoding
 */
export const decode = Schema.decodeUnknownOption(Schema.fromJsonString(ServerEvent))

/** OpenAI's default `silence_duration_ms` for server VAD. */
const DEFAULT_SILENCE_MS = 500

/**
 * The silence the server VAD waits for before it ends a speech (`turn_detection`'s
 * `silence_duration_ms` in the effective session of `session.updated`); OpenAI's default, 500 ms,
 * when the session does not say.
 *
 * @category decoding
 */
export const silenceMs = (session: unknown): number => {
  const at = (value: unknown, key: string): unknown =>
    typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
  const silence = at(at(at(at(session, "audio"), "input"), "turn_detection"), "silence_duration_ms")
  return typeof silence === "number" && Number.isFinite(silence) && silence >= 0 ? silence : DEFAULT_SILENCE_MS
}

// ---------------------------------------------------------------------------------- errors

/**
 * An `error` event after which the session cannot go on: any type but `invalid_request_error`,
 * or `session_expired`.
 *
 * @category guards
 */
export const isFatal = (error: { readonly type: string; readonly code?: string | null }): boolean =>
  error.type !== "invalid_request_error" || error.code === "session_expired"

/**
 * The reason of an `error` event that ended the setup.
 *
 * @category decoding
 */
export const setupReason = (error: { readonly type: string; readonly code?: string | null }): SpeechError["reason"] => {
  const kind = `${error.type} ${error.code ?? ""}`
  if (/rate_limit/.test(kind)) return "rate-limited"
  if (/api_key|authentication|permission/.test(kind)) return "unauthorized"
  if (error.type === "invalid_request_error") return "rejected"
  return "unavailable"
}

/** ISO-639-1 for the transcription model, from a BCP 47 tag (`en-US` → `en`); a name gives none. */
const isoLanguage = (language: string | undefined): string | undefined => {
  const match = language === undefined ? null : /^([a-z]{2})(?:-|$)/i.exec(language)
  return match === null ? undefined : match[1]!.toLowerCase()
}

// --------------------------------------------------------------------------- client events

/**
 * `session.update`: the session's instructions, voice (the session's, else `settings.voice`),
 * μ-law in and out, server VAD that creates responses but leaves interrupting them to the
 * adapter, input transcription in the session's language when it is a BCP 47 tag, and the tools.
 *
 * @category encoding
 */
export const sessionUpdate = (
  session: SpeechSession,
  settings: { readonly voice: string | undefined; readonly transcriptionModel: string }
) => {
  const language = isoLanguage(session.language)
  const voice = session.voice ?? settings.voice
  return {
    type: "session.update",
    session: {
      type: "realtime",
      output_modalities: ["audio"],
      instructions: session.instructions,
      audio: {
        input: {
          format: { type: "audio/pcmu" },
          transcription: {
            model: settings.transcriptionModel,
            ...(language === undefined ? {} : { language })
          },
          turn_detection: { type: "server_vad", create_response: true, interrupt_response: false }
        },
        output: { format: { type: "audio/pcmu" }, ...(voice === undefined ? {} : { voice }) }
      },
      tools: session.tools.map((tool) => ({
        type: "function",
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters
      })),
      tool_choice: "auto"
    }
  }
}

const openingInstructions = (session: SpeechSession, opening: string): string =>
  `${session.instructions}\n\nThe call has just been answered. Speak first: say exactly this, then wait for the person to answer:\n${opening}`

/**
 * `response.create` with the opening: the session's instructions and the words to say first.
 *
 * @category encoding
 */
export const openingResponse = (session: SpeechSession, opening: string) => ({
  type: "response.create",
  response: { instructions: openingInstructions(session, opening) }
})

/**
 * `response.create`: a response to what has been said (or to tool outputs).
 *
 * @category encoding
 */
export const responseCreate = { type: "response.create" }

/**
 * `response.cancel` of the response still generating.
 *
 * @category encoding
 */
export const responseCancel = (responseId: string) => ({ type: "response.cancel", response_id: responseId })

/**
 * `conversation.item.truncate`: an item cut short at what the person heard.
 *
 * @category encoding
 */
export const itemTruncate = (itemId: string, audioEndMs: number) => ({
  type: "conversation.item.truncate",
  item_id: itemId,
  content_index: 0,
  audio_end_ms: audioEndMs
})

/**
 * `conversation.item.create` of a tool call's output.
 *
 * @category encoding
 */
export const functionCallOutput = (callId: string, output: string) => ({
  type: "conversation.item.create",
  item: { type: "function_call_output", call_id: callId, output }
})

/**
 * `input_audio_buffer.append` of μ-law bytes (base64).
 *
 * @category encoding
 */
export const audioAppend = (mulaw: Uint8Array) => ({
  type: "input_audio_buffer.append",
  audio: Buffer.from(mulaw.buffer, mulaw.byteOffset, mulaw.byteLength).toString("base64")
})
