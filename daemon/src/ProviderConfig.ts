/**
 * The providers configuration of a self-hosted daemon (providers/ProviderRegistry): a JSON file
 * named by `VOICE_AGENT_PROVIDERS` (or the JSON itself in that variable, when it starts with
 * `{`), with the Node HTTP client and WebSocket the adapters use.
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
 * the file can be committed and shared. Azure OpenAI: `"api_key_header": "api-key"` and
 * `"url_params": {"api-version": "..."}` on an `openai-chat` entry whose `base_url` is the
 * deployment's URL. A file that cannot be read or parsed, an unknown `type`, a missing variable
 * or a default naming no provider stops `serve` with a sentence that says which.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeWS from "@effect/platform-node/NodeWS"
import type { Providers } from "@voice-agent/core/ports/Providers"
import * as ProviderRegistry from "@voice-agent/providers/ProviderRegistry"
import { Config, ConfigProvider, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"

export { Defaults } from "@voice-agent/providers/ProviderRegistry"

const configError = (message: string) =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message: `VOICE_AGENT_PROVIDERS: ${message}` }))

/**
 * A providers configuration failure as the daemon reports it: a `ConfigError` whose sentence
 * starts with `VOICE_AGENT_PROVIDERS:`.
 *
 * @category constructors
 */
export const asConfigError = <A, R>(
  effect: Effect.Effect<A, ProviderRegistry.ProviderConfigError | Config.ConfigError, R>
): Effect.Effect<A, Config.ConfigError, R> =>
  Effect.mapError(
    effect,
    (error) => error instanceof ProviderRegistry.ProviderConfigError ? configError(error.message) : error
  )

/**
 * Reads and checks the configuration: none when `VOICE_AGENT_PROVIDERS` is not set.
 *
 * @category constructors
 */
export const read: Effect.Effect<Option.Option<ProviderRegistry.ProvidersFile>, Config.ConfigError> = Effect.gen(
  function*() {
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
    return Option.some(yield* asConfigError(ProviderRegistry.decode(json)))
  }
)

/**
 * The configured providers and the default speech providers' names (none configured: an empty
 * registry, simulated speech).
 *
 * @category layers
 */
export const layer: Layer.Layer<ProviderRegistry.Defaults | Providers, Config.ConfigError> = Layer.effectContext(
  asConfigError(Effect.flatMap(read, ProviderRegistry.context))
).pipe(Layer.provide([NodeHttpClient.layerUndici, NodeWS.layerWebSocketConstructor]))
