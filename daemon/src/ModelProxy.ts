/**
 * The reference SDK's OpenAI-compatible proxy in the daemon (`openai/v1/*`): requests go to the
 * first `openai-chat` provider of the providers configuration (ProviderRegistry.chatProvider,
 * `VOICE_AGENT_PROVIDERS`), in the file's order, with that provider's base URL, key, key header,
 * query parameters and timeout; the same provider `llm/generate` uses. Without one, every
 * request is answered 501.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as OpenAiProxy from "@voice-agent/providers/OpenAiProxy"
import * as ProviderRegistry from "@voice-agent/providers/ProviderRegistry"
import { Effect, Layer, Option } from "effect"
import * as ProviderConfig from "./ProviderConfig.ts"

/**
 * The proxy to the configured chat provider, or one that answers every request 501.
 *
 * @category layers
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const chosen = Option.flatMap(yield* ProviderConfig.read, ProviderRegistry.chatProvider)
  if (Option.isNone(chosen)) return OpenAiProxy.layerNone
  const [name, entry] = chosen.value
  const apiKey = yield* ProviderConfig.asConfigError(ProviderRegistry.apiKey("llm", name, entry))
  yield* Effect.logDebug(`OpenAI-compatible proxy: llm provider "${name}"`)
  return OpenAiProxy.layer({
    baseUrl: entry.base_url ?? "https://api.openai.com/v1",
    apiKey,
    apiKeyHeader: entry.api_key_header,
    urlParams: entry.url_params,
    timeoutMs: entry.timeout_ms
  }).pipe(Layer.provide(NodeHttpClient.layerUndici))
}))
