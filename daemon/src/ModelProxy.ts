/**
 * The reference SDK's OpenAI-compatible proxy in the daemon (`openai/v1/*`): requests go to the
 * first `openai-chat` provider of the providers configuration (ProviderConfig,
 * `VOICE_AGENT_PROVIDERS`), in the file's order, with that provider's base URL, key, key header,
 * query parameters and timeout; the same provider `llm/generate` uses. Without one, every
 * request is answered 501.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as OpenAiProxy from "@voice-agent/providers/OpenAiProxy"
import type * as ProviderRegistry from "@voice-agent/providers/ProviderRegistry"
import { Config, ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import * as ProviderConfig from "./ProviderConfig.ts"

type LlmEntry = NonNullable<ProviderRegistry.ProvidersFile["llm"]>[string]
type ChatEntry = Extract<LlmEntry, { readonly type: "openai-chat" }>

/**
 * The provider the proxy uses: the first `openai-chat` entry of `llm`, by name, in the file's
 * order.
 *
 * @category constructors
 */
export const chatProvider = (file: ProviderRegistry.ProvidersFile): Option.Option<readonly [string, ChatEntry]> =>
  Option.fromNullishOr(
    Object.entries(file.llm ?? {}).flatMap(([name, entry]) =>
      entry.type === "openai-chat" ? [[name, entry] as const] : []
    )[0]
  )

const missingKey = (name: string, variable: string) =>
  new Config.ConfigError(
    new ConfigProvider.SourceError({
      message: `VOICE_AGENT_PROVIDERS: llm provider "${name}" takes its key from ${variable}, which is not set`
    })
  )

/**
 * The proxy to the configured chat provider, or one that answers every request 501.
 *
 * @category layers
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const chosen = Option.flatMap(yield* ProviderConfig.read, chatProvider)
  if (Option.isNone(chosen)) return OpenAiProxy.layerNone
  const [name, entry] = chosen.value
  let apiKey: Redacted.Redacted | undefined
  if (entry.api_key_env !== undefined) {
    const value = yield* Config.option(Config.Redacted(entry.api_key_env))
    if (Option.isNone(value) || Redacted.value(value.value).trim() === "") {
      return yield* Effect.fail(missingKey(name, entry.api_key_env))
    }
    apiKey = value.value
  }
  yield* Effect.logDebug(`OpenAI-compatible proxy: llm provider "${name}"`)
  return OpenAiProxy.layer({
    baseUrl: entry.base_url ?? "https://api.openai.com/v1",
    apiKey,
    apiKeyHeader: entry.api_key_header,
    urlParams: entry.url_params,
    timeoutMs: entry.timeout_ms
  }).pipe(Layer.provide(NodeHttpClient.layerUndici))
}))
