/**
 * The reference SDK's housekeeping and language-model endpoints (the Python SDK's
 * `guava/client.py`, `guava/telemetry.py`, `guava/helpers/llm.py`). See docs/SDK_HTTP.md.
 *
 * - `check-sdk-deprecation` (GET, and POST as SDK 0.35 sends it), without a key: every SDK
 *   version is `supported`.
 * - `upload-telemetry`, without a key (the SDK sends one only once a client exists): accepted
 *   and discarded.
 * - `llm/generate`, with the key: one prompt through the configured chat model.
 *
 * The SDK's OpenAI-compatible proxy (`openai/v1/*`) is a plain route (handlers/ModelProxy.ts),
 * not part of this description: it passes any OpenAI request through.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authorization } from "./Security.ts"
import { BadGateway, NotImplemented } from "./ServerErrors.ts"

/**
 * Response of `check-sdk-deprecation`: the SDK reads `deprecation_status` ("supported" goes on
 * quietly, "deprecated" warns).
 *
 * @category schemas
 */
export const SdkDeprecation = Schema.Struct({
  deprecation_status: Schema.Literals(["supported", "deprecated"])
}).annotate({ identifier: "SdkDeprecation" })

const deprecationQuery = {
  sdk_name: Schema.optional(Schema.String),
  sdk_version: Schema.optional(Schema.String)
}

/**
 * One telemetry event as the SDK batches them.
 *
 * @category schemas
 */
export const TelemetryEvent = Schema.Struct({
  timestamp_ms: Schema.optional(Schema.Number),
  event_type: Schema.optional(Schema.String),
  data: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "TelemetryEvent" })

/**
 * Body of `upload-telemetry`.
 *
 * @category schemas
 */
export const TelemetryUpload = Schema.Struct({ events: Schema.Array(TelemetryEvent) }).annotate({
  identifier: "TelemetryUpload"
})

/**
 * Response of `upload-telemetry`: how many events were received (and discarded).
 *
 * @category schemas
 */
export const TelemetryReceipt = Schema.Struct({ accepted: Schema.Int }).annotate({ identifier: "TelemetryReceipt" })

/**
 * Body of `llm/generate`: the prompt, and optionally a JSON schema the answer must match.
 *
 * @category schemas
 */
export const GenerateRequest = Schema.Struct({
  prompt: Schema.String,
  json_schema: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)))
}).annotate({ identifier: "GenerateRequest" })

/**
 * Response of `llm/generate`: the model's text (JSON text when a schema was given).
 *
 * @category schemas
 */
export const GenerateResponse = Schema.Struct({ text: Schema.String }).annotate({ identifier: "GenerateResponse" })

// Public operations: documented as needing no key (an explicit empty requirement).
const noKey = { security: [] }

const deprecationPath = "/v1/check-sdk-deprecation"
const telemetryPath = "/v1/upload-telemetry"

/**
 * The paths of the operations that take no key: anyone who reaches the server may call them,
 * so they read smaller bodies (handlers/ErrorBodies).
 *
 * @category models
 */
export const keylessPaths: ReadonlySet<string> = new Set([deprecationPath, telemetryPath])

/**
 * @category models
 */
export class SdkHousekeepingApi extends HttpApiGroup.make("sdk")
  .add(
    HttpApiEndpoint.get("checkDeprecation", deprecationPath, {
      query: deprecationQuery,
      success: SdkDeprecation
    }).annotate(OpenApi.Summary, "Check an SDK version")
      .annotate(OpenApi.Override, noKey),
    HttpApiEndpoint.post("checkDeprecationPost", deprecationPath, {
      query: deprecationQuery,
      success: SdkDeprecation
    }).annotate(OpenApi.Summary, "Check an SDK version (as the SDK sends it)")
      .annotate(OpenApi.Override, noKey),
    HttpApiEndpoint.post("uploadTelemetry", telemetryPath, {
      payload: TelemetryUpload,
      success: TelemetryReceipt.pipe(HttpApiSchema.status(202))
    }).annotate(OpenApi.Summary, "Upload SDK telemetry")
      .annotate(OpenApi.Description, "Accepted and discarded: this server keeps no SDK telemetry.")
      .annotate(OpenApi.Override, noKey)
  )
  .annotateMerge(OpenApi.annotations({
    title: "SDK",
    description: "Housekeeping calls of the reference SDK; no key needed"
  }))
{}

/**
 * @category models
 */
export class LlmApi extends HttpApiGroup.make("llm")
  .add(
    HttpApiEndpoint.post("generate", "/v1/llm/generate", {
      payload: GenerateRequest,
      success: GenerateResponse,
      error: [NotImplemented, BadGateway]
    }).annotate(OpenApi.Summary, "Generate text with the configured language model")
      .annotate(
        OpenApi.Description,
        "Sends `prompt` to the server's chat model (the first `openai-chat` provider of its configuration) and " +
          "answers its text; with `json_schema`, the text is JSON matching it. 501 when no chat model is " +
          "configured, 502 when the model fails."
      )
  )
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Language model", description: "The reference SDK's LLM helpers" }))
{}
