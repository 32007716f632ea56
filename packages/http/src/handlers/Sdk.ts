/**
 * Handlers of the reference SDK's housekeeping endpoints (deprecation check, telemetry) and of
 * `llm/generate`, which runs the prompt on the configured chat model (core/TextGeneration); a
 * server without one answers 501 with how to configure it.
 *
 * @since 0.1.0
 */
import { Providers } from "@voice-agent/core/ports/Providers"
import * as TextGeneration from "@voice-agent/core/TextGeneration"
import { Effect, Layer, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { BadGateway, NotImplemented } from "../api/ServerErrors.ts"
import { AuthorizationLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

/**
 * The 501 sentence when no chat model is configured (also the OpenAI-compatible proxy's).
 *
 * @category constructors
 */
export const noLanguageModel = "No language model is configured on this server: add an \"openai-chat\" provider " +
  "under \"llm\" in the providers configuration that VOICE_AGENT_PROVIDERS names (docs/SDK_HTTP.md)"

const supported = (query: { readonly sdk_name?: string | undefined; readonly sdk_version?: string | undefined }) =>
  Effect.as(
    Effect.logDebug(`SDK deprecation check: ${query.sdk_name ?? "unnamed SDK"} ${query.sdk_version ?? ""}: supported`),
    { deprecation_status: "supported" as const }
  )

/**
 * @category layers
 */
export const SdkHousekeepingHandlers = HttpApiBuilder.group(
  Api,
  "sdk",
  (handlers) =>
    handlers.handleAll({
      checkDeprecation: ({ query }) => supported(query),
      checkDeprecationPost: ({ query }) => supported(query),
      uploadTelemetry: ({ payload }) =>
        Effect.as(
          Effect.logDebug(`Discarded ${payload.events.length} SDK telemetry event(s)`),
          { accepted: payload.events.length }
        )
    })
).pipe(Layer.provide(FastApiValidationLive))

/**
 * @category layers
 */
export const LlmHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "llm",
  (handlers) =>
    handlers.handle("generate", ({ payload }) =>
      Effect.gen(function*() {
        const providers = yield* Effect.serviceOption(Providers)
        const chosen = Option.flatMap(providers, TextGeneration.defaultChatModel)
        if (Option.isNone(chosen)) return yield* new NotImplemented({ detail: noLanguageModel })
        const { model, name } = chosen.value
        const text = yield* TextGeneration.generate(model, {
          prompt: payload.prompt,
          jsonSchema: payload.json_schema ?? undefined
        }).pipe(
          Effect.mapError((error) =>
            new BadGateway({ detail: `The language model "${name}" failed (${error.reason}): ${error.message}` })
          )
        )
        return { text }
      }))
)

/**
 * @category layers
 */
export const LlmHandlers = LlmHandlersNoDeps.pipe(Layer.provide([AuthorizationLive, FastApiValidationLive]))
