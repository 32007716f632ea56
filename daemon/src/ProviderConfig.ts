/**
 * The language and speech providers of a self-hosted daemon, by name, from a JSON file named
 * by `VOICE_AGENT_PROVIDERS` (or the JSON itself in that variable, when it starts with `{`).
 * An agent definition names them (`llm`, `stt`, `tts`); `defaults` names the speech providers
 * of definitions that name none and of the scripted agent's calls (absent: simulated speech,
 * which only the simulated carrier understands).
 *
 * ```json
 * {
 *   "llm": {
 *     "local": { "type": "openai-chat", "base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1" },
 *     "gpt": { "type": "openai-chat", "model": "gpt-4o-mini", "api_key_env": "OPENAI_API_KEY" },
 *     "realtime": { "type": "openai-realtime", "model": "gpt-realtime", "api_key_env": "OPENAI_API_KEY" }
 *   },
 *   "stt": {
 *     "whisper": { "type": "openai-transcription", "base_url": "http://127.0.0.1:8000/v1", "model": "Systran/faster-whisper-small" },
 *     "deepgram": { "type": "deepgram", "model": "nova-3", "api_key_env": "DEEPGRAM_API_KEY" }
 *   },
 *   "tts": {
 *     "kokoro": { "type": "openai-speech", "base_url": "http://127.0.0.1:8880/v1", "model": "kokoro", "voice": "af_heart" }
 *   },
 *   "defaults": { "stt": "whisper", "tts": "kokoro" }
 * }
 * ```
 *
 * Keys are never in the file: `api_key_env` names the environment variable that holds one, so
 * the file can be committed and shared; the key is read once, kept `Redacted`, and never
 * printed. Azure OpenAI: `"api_key_header": "api-key"` and `"url_params": {"api-version":
 * "..."}` on an `openai-chat` entry whose `base_url` is the deployment's URL. A file that cannot
 * be read or parsed, an unknown `type`, a missing variable or a default naming no provider
 * stops `serve` with a sentence that says which.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeWS from "@effect/platform-node/NodeWS"
import type { LanguageProvider } from "@voice-agent/core/ports/Providers"
import { Providers } from "@voice-agent/core/ports/Providers"
import type { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as DeepgramSpeechToText from "@voice-agent/providers/DeepgramSpeechToText"
import * as OpenAiChat from "@voice-agent/providers/OpenAiChat"
import * as OpenAiRealtime from "@voice-agent/providers/OpenAiRealtime"
import * as OpenAiSpeech from "@voice-agent/providers/OpenAiSpeech"
import * as OpenAiTranscription from "@voice-agent/providers/OpenAiTranscription"
import { Config, ConfigProvider, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as fs from "node:fs"

const Common = {
  base_url: Schema.optionalKey(Schema.String),
  model: Schema.optionalKey(Schema.String),
  api_key_env: Schema.optionalKey(Schema.String),
  timeout_ms: Schema.optionalKey(Schema.Number)
}

const LlmEntry = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("openai-chat"),
    ...Common,
    api_key_header: Schema.optionalKey(Schema.Literals(["authorization", "api-key"])),
    url_params: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  }),
  Schema.Struct({
    type: Schema.Literal("openai-realtime"),
    ...Common,
    voice: Schema.optionalKey(Schema.String),
    transcription_model: Schema.optionalKey(Schema.String)
  })
])

const SttEntry = Schema.Union([
  Schema.Struct({ type: Schema.Literal("openai-transcription"), ...Common }),
  Schema.Struct({ type: Schema.Literal("deepgram"), ...Common, language: Schema.optionalKey(Schema.String) })
])

const TtsEntry = Schema.Struct({
  type: Schema.Literal("openai-speech"),
  ...Common,
  voice: Schema.optionalKey(Schema.String),
  speed: Schema.optionalKey(Schema.Number)
})

/**
 * The file's shape.
 *
 * @category schemas
 */
export const ProvidersFile = Schema.Struct({
  llm: Schema.optionalKey(Schema.Record(Schema.String, LlmEntry)),
  stt: Schema.optionalKey(Schema.Record(Schema.String, SttEntry)),
  tts: Schema.optionalKey(Schema.Record(Schema.String, TtsEntry)),
  defaults: Schema.optionalKey(Schema.Struct({
    stt: Schema.optionalKey(Schema.String),
    tts: Schema.optionalKey(Schema.String)
  }))
})

/**
 * @category models
 */
export type ProvidersFile = typeof ProvidersFile.Type

/**
 * The default speech providers' names (absent: simulated speech).
 *
 * @category services
 */
export class Defaults extends Context.Service<Defaults, {
  readonly stt: string | undefined
  readonly tts: string | undefined
}>()("voice-agent/daemon/ProviderConfig/Defaults") {}

const configError = (message: string) =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message: `VOICE_AGENT_PROVIDERS: ${message}` }))

/**
 * Reads and checks the configuration: none when `VOICE_AGENT_PROVIDERS` is not set.
 *
 * @category constructors
 */
export const read: Effect.Effect<Option.Option<ProvidersFile>, Config.ConfigError> = Effect.gen(function*() {
  const setting = yield* Config.option(Config.String("VOICE_AGENT_PROVIDERS"))
  if (Option.isNone(setting) || setting.value.trim() === "") return Option.none()
  const value = setting.value.trim()
  const text = value.startsWith("{")
    ? value
    : yield* Effect.try({
      try: () => fs.readFileSync(value, "utf8"),
      catch: (error) => configError(`cannot read ${value}: ${(error as Error).message}`)
    })
  const json = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => configError(`not JSON: ${(error as Error).message}`)
  })
  const file = yield* Schema.decodeUnknownEffect(ProvidersFile)(json).pipe(
    Effect.mapError((error) => configError(error.message))
  )
  for (const kind of ["stt", "tts"] as const) {
    const name = file.defaults?.[kind]
    if (name !== undefined && file[kind]?.[name] === undefined) {
      return yield* Effect.fail(
        configError(`defaults.${kind} names "${name}", which is not among the ${kind} providers`)
      )
    }
  }
  return Option.some(file)
})

const apiKey = (kind: string, name: string, entry: { readonly api_key_env?: string }) =>
  Effect.gen(function*() {
    if (entry.api_key_env === undefined) return undefined
    const value = yield* Config.option(Config.Redacted(entry.api_key_env))
    if (Option.isNone(value) || Redacted.value(value.value).trim() === "") {
      return yield* Effect.fail(
        configError(`${kind} provider "${name}" takes its key from ${entry.api_key_env}, which is not set`)
      )
    }
    return value.value
  })

const required = <A>(kind: string, name: string, what: string, value: A | undefined) =>
  value === undefined
    ? Effect.fail(configError(`${kind} provider "${name}" needs "${what}"`))
    : Effect.succeed(value)

/** The adapters, built once; each provider's key is read here. */
const build = (file: ProvidersFile) =>
  Effect.gen(function*() {
    const llm = new Map<string, LanguageProvider>()
    const stt = new Map<string, SpeechToText["Service"]>()
    const tts = new Map<string, TextToSpeech["Service"]>()
    for (const [name, entry] of Object.entries(file.llm ?? {})) {
      const key = yield* apiKey("llm", name, entry)
      const model = yield* required("llm", name, "model", entry.model)
      if (entry.type === "openai-chat") {
        const chat = yield* OpenAiChat.make({
          baseUrl: entry.base_url ?? "https://api.openai.com/v1",
          apiKey: key,
          model,
          timeoutMs: entry.timeout_ms,
          apiKeyHeader: entry.api_key_header,
          urlParams: entry.url_params
        })
        llm.set(name, { _tag: "Chat", model: chat })
      } else {
        const realtimeKey = yield* required("llm", name, "api_key_env", key)
        const realtime = yield* OpenAiRealtime.make({
          apiKey: realtimeKey,
          model,
          baseUrl: entry.base_url,
          voice: entry.voice,
          transcriptionModel: entry.transcription_model,
          timeoutMs: entry.timeout_ms
        })
        llm.set(name, { _tag: "SpeechToSpeech", model: realtime })
      }
    }
    for (const [name, entry] of Object.entries(file.stt ?? {})) {
      const key = yield* apiKey("stt", name, entry)
      if (entry.type === "openai-transcription") {
        stt.set(
          name,
          yield* OpenAiTranscription.make({
            baseUrl: entry.base_url,
            apiKey: key,
            model: entry.model,
            timeoutMs: entry.timeout_ms
          })
        )
      } else {
        stt.set(
          name,
          yield* DeepgramSpeechToText.make({
            apiKey: yield* required("stt", name, "api_key_env", key),
            ...(entry.base_url === undefined ? {} : { baseUrl: entry.base_url }),
            ...(entry.model === undefined ? {} : { model: entry.model }),
            ...(entry.language === undefined ? {} : { language: entry.language }),
            ...(entry.timeout_ms === undefined ? {} : { timeoutMs: entry.timeout_ms })
          })
        )
      }
    }
    for (const [name, entry] of Object.entries(file.tts ?? {})) {
      tts.set(
        name,
        yield* OpenAiSpeech.make({
          baseUrl: entry.base_url,
          apiKey: yield* apiKey("tts", name, entry),
          model: entry.model,
          voice: entry.voice,
          speed: entry.speed,
          timeoutMs: entry.timeout_ms
        })
      )
    }
    return Providers.of({
      llm: (name) => Option.fromNullishOr(llm.get(name)),
      stt: (name) => Option.fromNullishOr(stt.get(name)),
      tts: (name) => Option.fromNullishOr(tts.get(name)),
      names: { llm: [...llm.keys()], stt: [...stt.keys()], tts: [...tts.keys()] }
    })
  })

/**
 * The configured providers and the default speech providers' names (none configured: an empty
 * registry, simulated speech).
 *
 * @category layers
 */
export const layer: Layer.Layer<Providers | Defaults, Config.ConfigError> = Layer.effectContext(
  Effect.gen(function*() {
    const file = yield* read
    const providers = Option.isNone(file)
      ? Providers.of({
        llm: () => Option.none(),
        stt: () => Option.none(),
        tts: () => Option.none(),
        names: { llm: [], stt: [], tts: [] }
      })
      : yield* build(file.value)
    if (Option.isSome(file)) {
      const { names } = providers
      yield* Effect.logInfo(
        `Providers: llm [${names.llm.join(", ")}], stt [${names.stt.join(", ")}], tts [${names.tts.join(", ")}]`
      )
    }
    const defaults = Option.isNone(file) ? undefined : file.value.defaults
    return Context.make(Providers, providers).pipe(
      Context.add(Defaults, Defaults.of({ stt: defaults?.stt, tts: defaults?.tts }))
    )
  })
).pipe(Layer.provide([NodeHttpClient.layerUndici, NodeWS.layerWebSocketConstructor]))
