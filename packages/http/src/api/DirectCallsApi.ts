/**
 * `POST /v2/create-outbound` (docs/SDK_HTTP.md, the reference SDK's `Client.create_outbound`): one
 * outbound call outside any campaign. The numbers travel in the query string, as the SDK sends
 * them; the answer is the call's id, which the SDK's agent then attaches to over
 * `v2/connect-call/{call_id}`. See docs/SDK_HTTP.md.
 *
 * Such a call is a *direct call* (docs/VOCABULARY.md: `DirectCalls` in core, engine, daemon and
 * here); the group keeps its wire names, the path and the OpenAPI group `outboundCalls` (the
 * operation id `outboundCalls.createOutbound`, the title "Outbound calls").
 *
 * @since 0.1.0
 */
import { E164 } from "@voice-agent/core/PhoneNumber"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { BadRequest, Forbidden } from "./HttpErrors.ts"
import type { CurrentOrganization } from "./Security.ts"
import { Authorization } from "./Security.ts"
import { NotImplemented } from "./ServerErrors.ts"

/**
 * Response of `POST /v2/create-outbound`.
 *
 * @category schemas
 */
export const CreateOutboundResponse = Schema.Struct({ call_id: Schema.String }).annotate({
  identifier: "CreateOutboundResponse"
})

/**
 * Placing a call needs outbound dialing enabled and no billing issue (403 otherwise), checked
 * before the request is read (the check order of docs/DECISIONS.md, "Requests and errors"); the
 * campaign dialer skips such organizations the same way.
 *
 * @category services
 */
export class OutboundCalling extends HttpApiMiddleware.Service<OutboundCalling, {
  requires: CurrentOrganization
}>()("@voice-agent/http/api/DirectCallsApi/OutboundCalling", {
  error: Forbidden
}) {}

/**
 * @category models
 */
export class DirectCallsApi extends HttpApiGroup.make("outboundCalls")
  .add(
    HttpApiEndpoint.post("createOutbound", "/v2/create-outbound", {
      query: { from_number: E164, to_number: E164 },
      success: CreateOutboundResponse,
      error: [BadRequest, NotImplemented]
    }).annotate(OpenApi.Summary, "Place an outbound call")
      .annotate(
        OpenApi.Description,
        "Calls `to_number` from `from_number` (one of the organization's numbers), outside any campaign, and " +
          "answers the call's id once the carrier has the call. The call is listed as an outbound conversation " +
          "without campaign; an agent attaches to it over the WebSocket `v2/connect-call/{call_id}`. A call the " +
          "carrier refuses ends at once as `failed`. 400: `from_number` not owned by the organization, or " +
          "`to_number` on its Do-Not-Call list. 403: outbound dialing not enabled, or a billing issue. 422: a " +
          "number missing or not E.164."
      )
  )
  .middleware(OutboundCalling)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({
    title: "Outbound calls",
    description: "Calls outside any campaign, as the reference SDK places them"
  }))
{}
