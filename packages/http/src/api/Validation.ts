/**
 * FastAPI-shaped request validation errors (docs/DECISIONS.md, "Requests and errors"): a request
 * whose path, query, headers or body fail their schema answers `422
 * {"detail":[{"loc":["body","name"],"msg":"Field required","type":"missing"}]}`.
 *
 * Effect's default is an empty 400; this middleware (implemented in handlers/Validation.ts)
 * turns every request-decoding failure into the 422 body, and documents it in OpenAPI.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"

/**
 * @category schemas
 */
export const ValidationErrorItem = Schema.Struct({
  loc: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  msg: Schema.String,
  type: Schema.String
}).annotate({ identifier: "ValidationError" })

/**
 * `Schema.Error` (not TaggedError) so the JSON body has no `_tag` field; the body struct
 * carries the identifier, so OpenAPI names it HTTPValidationError (FastAPI's name).
 *
 * @category errors
 */
export class HTTPValidationError extends Schema.Error<HTTPValidationError>("HTTPValidationError")(
  Schema.Struct({ detail: Schema.Array(ValidationErrorItem) }).annotate({ identifier: "HTTPValidationError" }),
  { httpApiStatus: 422, description: "Validation Error" }
) {}

/**
 * @category services
 */
export class FastApiValidation extends HttpApiMiddleware.Service<FastApiValidation>()(
  "@voice-agent/http/api/Validation/FastApiValidation",
  { error: HTTPValidationError }
) {}
