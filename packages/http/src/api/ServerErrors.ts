/**
 * The error answers of endpoints that depend on a service this server may lack or that sits
 * upstream of it (the reference SDK's endpoints): `{"detail": "<sentence>"}` like every other
 * error (HttpErrors.ts), with 501 when the service is not configured here and 502 when the
 * upstream service failed.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpServerRespondable } from "effect/http"
import { ErrorResponse, respond } from "./HttpErrors.ts"

/**
 * The server has no such service configured (no language model, no outbound calling): the
 * sentence says how to configure one.
 *
 * @category errors
 */
export class NotImplemented extends Schema.Error<NotImplemented>("NotImplemented")(ErrorResponse, {
  httpApiStatus: 501,
  description: "Not configured on this server"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(501, this)
  }
}

/**
 * The service this server relies on (a language model provider) failed.
 *
 * @category errors
 */
export class BadGateway extends Schema.Error<BadGateway>("BadGateway")(ErrorResponse, {
  httpApiStatus: 502,
  description: "The upstream service failed"
}) {
  [HttpServerRespondable.symbol]() {
    return respond(502, this)
  }
}
