/**
 * The error bodies of the HTTP API: `{"detail": "<sentence>"}` for every status (CONTRACT §5),
 * one class per status so that OpenAPI documents one schema per response code.
 *
 * `Schema.Error` rather than `TaggedError`: the body carries no `_tag` field.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The body of every error but validation errors. One shared schema, so that OpenAPI names it
 * `ErrorResponse` (as API.md does) for every status rather than one `…Encoded` per class.
 *
 * @category schemas
 */
export const ErrorResponse = Schema.Struct({ detail: Schema.String }).annotate({ identifier: "ErrorResponse" })

const detail = ErrorResponse

/**
 * @category errors
 */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(detail, {
  httpApiStatus: 400,
  description: "Bad Request"
}) {}

/**
 * @category errors
 */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(detail, {
  httpApiStatus: 401,
  description: "Missing or invalid credentials"
}) {}

/**
 * @category errors
 */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(detail, {
  httpApiStatus: 403,
  description: "Forbidden"
}) {}

/**
 * @category errors
 */
export class NotFound extends Schema.Error<NotFound>("NotFound")(detail, {
  httpApiStatus: 404,
  description: "Not Found"
}) {}

/**
 * @category errors
 */
export class Conflict extends Schema.Error<Conflict>("Conflict")(detail, {
  httpApiStatus: 409,
  description: "Conflict"
}) {}

/**
 * @category errors
 */
export class InternalServerError extends Schema.Error<InternalServerError>("InternalServerError")(detail, {
  httpApiStatus: 500,
  description: "Internal Server Error"
}) {}
