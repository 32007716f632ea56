/**
 * The registry of language and speech providers by name, from the providers configuration (the
 * JSON a self-hosted daemon reads from `VOICE_AGENT_PROVIDERS`, docs/PROVIDERS.md): its shape,
 * its checks, and the adapters built from it. An agent definition names providers (`llm`,
 * `stt`, `tts`); `defaults` names the speech providers of definitions that name none and of the
 * scripted agent's calls (absent: simulated speech).
 *
 * Keys are never in the configuration: `api_key_env` names the configuration variable that
 * holds one (read through effect's `Config`), kept `Redacted` and never printed. A failure is a
 * `ProviderConfigError` whose message says which entry and why.
 *
 * @since 0.1.0
 */
import type { LanguageProvider } from "@voice-agent/core/ports/Providers"
import { Providers } from "@voice-agent/core/ports/Providers"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Config, Context, Data, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as DeepgramSpeechToText from "./DeepgramSpeechToText.ts"
import * as OpenAiChat from "./OpenAiChat.ts"
import * as OpenAiRealtime from "./OpenAiRealtime.ts"
import * as OpenAiSpeech from "./OpenAiSpeech.ts"
import * as OpenAiTranscription from "./OpenAiTranscription.ts"

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
}>()("@voice-agent/providers/ProviderRegistry/Defaults") {}

/**
 * A providers configuration that cannot be used: the sentence says which entry and why.
 *
 * @category errors
 */
export class ProviderConfigError extends Data.TaggedError("ProviderConfigError")<{ readonly message: string }> {}

const configError = (message: string) => new ProviderConfigError({ message })

/**
 * Checks a parsed configuration: its shape, and that each default names a provider.
 *
 * @category constructors
 */
export const decode = (json: unknown): Effect.Effect<ProvidersFile, ProviderConfigError> =>
  Effect.gen(function*() {
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
    return file
  })

/**
 * A provider's key, from the configuration variable its `api_key_env` names (none without one);
 * fails when that variable is not set or blank.
 *
 * @category constructors
 */
export const apiKey = (kind: string, name: string, entry: { readonly api_key_env?: string }) =>
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

/**
 * No providers: only the defaults (simulated speech).
 *
 * @category constructors
 */
export const empty: Providers["Service"] = Providers.of({
  llm: () => Option.none(),
  stt: () => Option.none(),
  tts: () => Option.none(),
  names: { llm: [], stt: [], tts: [] }
})

/**
 * The providers of a configuration and the default speech providers' names (none: an empty
 * registry, simulated speech). The adapters are built once; each provider's key is read here.
 *
 * @category constructors
 */
export const context = (file: Option.Option<ProvidersFile>) =>
  Effect.gen(function*() {
    const providers = Option.isNone(file) ? empty : yield* build(file.value)
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

/**
 * @category layers
 */
export const layer = (file: Option.Option<ProvidersFile>) => Layer.effectContext(context(file))

/**
 * The default speech: the providers `defaults` names, else the `SpeechToText` and
 * `TextToSpeech` already in the context (simulated speech, in the daemon).
 *
 * @category layers
 */
export const defaultSpeech: Layer.Layer<
  SpeechToText | TextToSpeech,
  never,
  Providers | Defaults | SpeechToText | TextToSpeech
> = Layer.effectContext(
  Effect.gen(function*() {
    const providers = yield* Providers
    const defaults = yield* Defaults
    const stt = yield* SpeechToText
    const tts = yield* TextToSpeech
    return Context.make(
      SpeechToText,
      Option.getOrElse(Option.flatMap(Option.fromNullishOr(defaults.stt), providers.stt), () => stt)
    ).pipe(
      Context.add(
        TextToSpeech,
        Option.getOrElse(Option.flatMap(Option.fromNullishOr(defaults.tts), providers.tts), () => tts)
      )
    )
  })
)

type LlmEntry = NonNullable<ProvidersFile["llm"]>[string]

/**
 * An `openai-chat` entry of `llm`.
 *
 * @category models
 */
export type ChatEntry = Extract<LlmEntry, { readonly type: "openai-chat" }>

/**
 * The provider the OpenAI-compatible proxy uses: the first `openai-chat` entry of `llm`, by
 * name, in the file's order.
 *
 * @category constructors
 */
export const chatProvider = (file: ProvidersFile): Option.Option<readonly [string, ChatEntry]> =>
  Option.fromNullishOr(
    Object.entries(file.llm ?? {}).flatMap(([name, entry]) =>
      entry.type === "openai-chat" ? [[name, entry] as const] : []
    )[0]
  )
