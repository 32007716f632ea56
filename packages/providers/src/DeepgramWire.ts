/**
 * Deepgram's streaming protocol as `DeepgramSpeechToText` speaks it (its module header says how a
 * stream uses it): the listen URL with its query parameters, the control messages sent, and the
 * messages read back. No I/O.
 *
 * @since 0.1.0
 */
import type { TranscribeOptions } from "@voice-agent/core/ports/SpeechToText"
import { Schema } from "effect"
import type { DeepgramConfig } from "./DeepgramSpeechToText.ts"

/**
 * The audio's sample rate: 16-bit mono PCM at 8 kHz, the call's.
 *
 * @category constructors
 */
export const SAMPLE_RATE = 8000

const DEFAULT_BASE_URL = "wss://api.deepgram.com"
const DEFAULT_MODEL = "nova-3"

/**
 * Keeps a stream open while no audio is sent (Deepgram closes one silent for 10 s).
 *
 * @category encoding
 */
export const keepAlive = JSON.stringify({ type: "KeepAlive" })

/**
 * Ends the stream: Deepgram sends its last results and closes.
 *
 * @category encoding
 */
export const closeStream = JSON.stringify({ type: "CloseStream" })

/**
 * The listen URL for a stream (the key is not part of it).
 *
 * @category constructors
 */
export const listenUrl = (config: DeepgramConfig, options: TranscribeOptions = {}): string => {
  const base = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/^http/, "ws").replace(/\/+$/, "")
  const url = new URL(`${base}/v1/listen`)
  const query = url.searchParams
  const model = config.model ?? DEFAULT_MODEL
  query.set("encoding", "linear16")
  query.set("sample_rate", String(SAMPLE_RATE))
  query.set("channels", "1")
  query.set("model", model)
  const language = options.language ?? config.language
  if (language !== undefined && language !== "") query.set("language", language)
  query.set("interim_results", String(options.interimResults === true))
  query.set("punctuate", "true")
  query.set("smart_format", "true")
  const endpointing = config.endpointingMs ?? 300
  query.set("endpointing", endpointing === false ? "false" : String(Math.round(endpointing)))
  query.set("vad_events", String(config.vadEvents === true))
  const parameter = config.keywordsParameter ?? (model.startsWith("nova-3") ? "keyterm" : "keywords")
  for (const keyword of options.keywords ?? []) {
    const trimmed = keyword.trim()
    if (trimmed !== "") query.append(parameter, trimmed)
  }
  return url.toString()
}

const Word = Schema.Struct({ start: Schema.Finite, end: Schema.Finite })

const Results = Schema.Struct({
  type: Schema.Literal("Results"),
  start: Schema.Finite,
  duration: Schema.Finite,
  is_final: Schema.optionalKey(Schema.Boolean),
  channel: Schema.Struct({
    alternatives: Schema.Array(Schema.Struct({
      transcript: Schema.String,
      words: Schema.optionalKey(Schema.Array(Word))
    }))
  })
})

const ErrorMessage = Schema.Struct({
  type: Schema.Literal("Error"),
  description: Schema.optionalKey(Schema.String),
  message: Schema.optionalKey(Schema.String),
  variant: Schema.optionalKey(Schema.String)
})

const OtherMessage = Schema.Struct({ type: Schema.String })

/**
 * A text message from Deepgram: `Results`, `Error`, or another type (ignored by the adapter);
 * none for one that is not JSON with a `type`.
 *
 * @category decoding
 */
export const decodeMessage = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Union([Results, ErrorMessage, OtherMessage]))
)
