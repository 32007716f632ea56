/**
 * Port to the OpenAI-compatible server behind the reference SDK's `openai/v1/*` proxy (the SDK's
 * helpers build an OpenAI client on `<base>/openai/v1` with the engine's API key): one request
 * passed on to the configured chat provider's API root with the provider's own key, and its
 * answer passed back as it streams. The daemon implements it over the configuration's chat
 * provider (`@voice-agent/providers/OpenAiProxy`); a server without one answers
 * `LanguageModelNotConfigured`.
 *
 * Keys stay inside the implementation: the request carries none (the caller has authenticated
 * the organization with the engine's key and dropped it), the answer carries none.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import type { Effect, Stream } from "effect"
import type { LanguageModelNotConfigured } from "../Errors.ts"

/**
 * A request to pass on. `path` is below the API root (`/chat/completions`, `/responses`, …),
 * `search` the query string without `?` (possibly empty); `headers` are those worth passing on
 * (content type, accept, `openai-beta`, …), lower-case, without credentials.
 *
 * @category models
 */
export interface ProxyRequest {
  readonly method: string
  readonly path: string
  readonly search: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | undefined
}

/**
 * The provider's answer: its status, the headers worth passing back (lower-case; no
 * connection-level ones) and its body as it arrives (an event stream stays a stream).
 *
 * @category models
 */
export interface ProxyResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Stream.Stream<Uint8Array, ModelProxyError>
}

/**
 * The provider could not be reached, or did not answer in time (before its headers; a body may
 * stream for as long as the provider keeps it open).
 *
 * @category errors
 */
export class ModelProxyError extends Schema.TaggedError<ModelProxyError>()("ModelProxyError", {
  reason: Schema.Literals(["unreachable", "timeout"]),
  message: Schema.String
}) {}

/**
 * @category services
 */
export class ModelProxy extends Context.Service<ModelProxy, {
  /** Passes `request` on and answers the provider's answer, whatever its status. */
  readonly forward: (
    request: ProxyRequest
  ) => Effect.Effect<ProxyResponse, ModelProxyError | LanguageModelNotConfigured>
}>()("@voice-agent/core/ports/ModelProxy") {}
