/**
 * Middleware definitions of the API (implementations live in handlers/Security.ts, so a
 * client derived from the API never imports them).
 *
 * - `Authorization`: `Authorization: Bearer <API key>`; provides the key's organization.
 *   The organization always comes from the key, never from the request.
 * - `OutboundDialing`: campaign, contact and campaign-status endpoints need outbound dialing
 *   enabled for the organization (403 otherwise).
 * - `SmsSending`: send-sms needs SMS registration and no billing issue (403 otherwise).
 *
 * Middleware runs before the request is decoded, which gives the check order of
 * docs/DECISIONS.md: 401, then 403, then 422/400, then 404, then 409.
 *
 * @since 0.1.0
 */
import type { Organization } from "@voice-agent/core/Organization"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Forbidden, Unauthorized } from "./HttpErrors.ts"

/**
 * `Authorization: Bearer <token>`, documented as the scheme's registered, lower-case name
 * (`{type: http, scheme: bearer}`): the reference page (/docs) then asks for a token. Effect's
 * `HttpApiSecurity.bearer` writes `Bearer`, which Scalar does not recognize and offers a
 * username and password for. The header is read case-insensitively either way.
 *
 * @category security
 */
export const bearerToken = HttpApiSecurity.http({ scheme: "bearer" })

/**
 * The organization that owns the request's API key.
 *
 * @category services
 */
export class CurrentOrganization extends Context.Service<CurrentOrganization, Organization>()(
  "@voice-agent/http/api/Security/CurrentOrganization"
) {}

/**
 * @category services
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization, {
  provides: CurrentOrganization
}>()("@voice-agent/http/api/Security/Authorization", {
  security: { bearer: bearerToken },
  error: Unauthorized
}) {}

/**
 * @category services
 */
export class OutboundDialing extends HttpApiMiddleware.Service<OutboundDialing, {
  requires: CurrentOrganization
}>()("@voice-agent/http/api/Security/OutboundDialing", {
  error: Forbidden
}) {}

/**
 * @category services
 */
export class SmsSending extends HttpApiMiddleware.Service<SmsSending, {
  requires: CurrentOrganization
}>()("@voice-agent/http/api/Security/SmsSending", {
  error: Forbidden
}) {}
