/**
 * The error bodies of the HTTP API: `{"detail": "<sentence>"}` for every status (docs/DECISIONS.md,
 * "Requests and errors"), one class per status so that OpenAPI documents one schema per response
 * code.
 *
 * `Schema.Error` rather than `TaggedError`: the body carries no `_tag` field. Each is also
 * `Respondable`, so that an error an endpoint does not declare still answers its own status and
 * body (HttpApi answers an undeclared error with a bare 500 otherwise).
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"

/**
 * The body of every error but validation errors. One shared schema, so that OpenAPI names it
 * `ErrorResponse` (as the documented API does) for every status rather than one `…Encoded` per
 * class.
 *
 * @category schemas
 */
export const ErrorResponse = Schema.Struct({ detail: Schema.String }).annotate({ identifier: "ErrorResponse" })

const detail = ErrorResponse

/**
 * The answer of an error of this API: its status and `{detail}` body.
 *
 * @category encoding
 */
export const respond = (
  status: number,
  error: { readonly detail: string }
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.succeed(HttpServerResponse.jsonUnsafe({ detail: error.detail }, { status }))

/**
 * @category errors
 */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(detail, {
  httpApiStatus: 400,
  description: "Bad Request"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(400, this)
  }
}

/**
 * @category errors
 */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(detail, {
  httpApiStatus: 401,
  description: "Missing or invalid credentials"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(401, this)
  }
}

/**
 * @category errors
 */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(detail, {
  httpApiStatus: 403,
  description: "Forbidden"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(403, this)
  }
}

/**
 * @category errors
 */
export class NotFound extends Schema.Error<NotFound>("NotFound")(detail, {
  httpApiStatus: 404,
  description: "Not Found"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(404, this)
  }
}

/**
 * @category errors
 */
export class Conflict extends Schema.Error<Conflict>("Conflict")(detail, {
  httpApiStatus: 409,
  description: "Conflict"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(409, this)
  }
}

/**
 * @category errors
 */
export class InternalServerError extends Schema.Error<InternalServerError>("InternalServerError")(detail, {
  httpApiStatus: 500,
  description: "Internal Server Error"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(500, this)
  }
}
