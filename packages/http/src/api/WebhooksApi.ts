/**
 * Event webhooks of the admin API (docs/WEBHOOKS.md): an organization's endpoints
 * and their deliveries. Same admin authorization as the rest of the admin API (api/AdminApi.ts).
 *
 * Decisions (docs/WEBHOOKS.md):
 * - `url`: any absolute `http` or `https` URL with a host, loopback and private addresses
 *   included (the admin API is trusted); at most 2,048 characters; anything else is a 422.
 * - `events`: a non-empty list of known types (an unknown one is a 422 at its index); absent or
 *   `null` subscribes to every type, present and future. The answers always carry the list of
 *   the types the endpoint receives (every type for the latter), without repeats, in the
 *   documented order of types.
 * - The create answer is exactly `{id, url, events, secret}`; the list and the delivery list
 *   never show a secret. The list is a plain array, oldest first (an organization has few).
 * - Deliveries are listed newest first with the keyset cursors of the public lists (`limit` 1 to
 *   100, default 50; a bad `limit` or `after` is a 400, as the documented API has it for list
 *   endpoints), each with its newest attempts (`attempt_history`, newest first; `attempts` stays
 *   the count).
 * - An unknown organization or endpoint, or one of another organization: 404.
 *
 * @since 0.1.0
 */
import { PageFields } from "@voice-agent/core/Page"
import { AttemptErrorType, attemptsKept, DeliveryStatus, WebhookEventType } from "@voice-agent/core/Webhook"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuthorization } from "./AdminApi.ts"
import { BadRequest, NotFound } from "./HttpErrors.ts"
import { storableBody } from "./Storable.ts"

/**
 * Longest endpoint URL accepted.
 *
 * @category constructors
 */
export const maxUrlLength = 2048

/**
 * True for an absolute `http:` or `https:` URL with a host.
 *
 * @category guards
 */
export const isHttpUrl = (s: string): boolean => {
  const url = URL.parse(s)
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
}

/**
 * @category schemas
 */
export const WebhookUrl = Schema.String.check(
  Schema.isMaxLength(maxUrlLength),
  Schema.makeFilter((s: string) => isHttpUrl(s) || "Expected an absolute http or https URL")
).annotate({
  description: "Where deliveries are POSTed: an absolute http or https URL (loopback and private addresses included)"
})

const EventList = Schema.Array(WebhookEventType).check(Schema.isMinLength(1))

/**
 * Body of `POST /admin/v1/organizations/{org_id}/webhooks`.
 *
 * @category schemas
 */
export const CreateWebhookRequest = Schema.Struct({
  url: WebhookUrl,
  events: Schema.optionalKey(
    Schema.NullOr(EventList).annotate({
      description: "The event types to deliver; absent or null: every type"
    })
  )
}).annotate({ identifier: "CreateWebhookRequest" })

const Events = Schema.Array(WebhookEventType).annotate({
  description: "The event types this endpoint receives, in the documented order. An endpoint registered without " +
    "events receives every type, also the types later releases add"
})

/**
 * The answer to a create: the only place the secret is ever shown.
 *
 * @category schemas
 */
export const CreatedWebhookResource = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Events,
  secret: Schema.String.annotate({
    description: "The Standard Webhooks signing secret (whsec_ + base64 of its bytes); shown only in this response"
  })
}).annotate({ identifier: "CreatedWebhook" })

/**
 * An endpoint as listed (no secret).
 *
 * @category schemas
 */
export const WebhookResource = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Events,
  created_datetime: Schema.String
}).annotate({ identifier: "Webhook" })

/**
 * One attempt of a delivery.
 *
 * @category schemas
 */
export const WebhookAttemptResource = Schema.Struct({
  attempt: Schema.Int.annotate({ description: "The attempt's number, from 1" }),
  attempted_datetime: Schema.String.annotate({ description: "When the request was sent" }),
  duration_ms: Schema.NullOr(Schema.Int).annotate({
    description: "From the request to the answer or the failure; null for a lapsed attempt"
  }),
  response_status: Schema.NullOr(Schema.Int).annotate({
    description: "The HTTP status of the answer; null when none came"
  }),
  error_type: Schema.NullOr(AttemptErrorType).annotate({
    description: "Why the attempt did not deliver (http_status: an answer other than 2xx; lapsed: the worker " +
      "stopped or died before recording a result); null for the attempt that delivered"
  }),
  error: Schema.NullOr(Schema.String).annotate({
    description: "A short message, e.g. HTTP 500 or connect ECONNREFUSED 10.0.0.5:443; null when delivered"
  })
}).annotate({ identifier: "WebhookAttempt" })

/**
 * One delivery of one event to one endpoint.
 *
 * @category schemas
 */
export const WebhookDeliveryResource = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String.annotate({ description: "The message id (msg_…), sent as webhook-id on every attempt" }),
  event_type: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Int.annotate({ description: "How many attempts were made (or started)" }),
  attempt_history: Schema.Array(WebhookAttemptResource).annotate({
    description: `The attempts, newest first: the newest ${attemptsKept} of a delivery are kept`
  }),
  last_response_status: Schema.NullOr(Schema.Int).annotate({
    description: "The HTTP status of the last answer; null when none came (timeout, connection failure)"
  }),
  last_error: Schema.NullOr(Schema.String),
  created_datetime: Schema.String,
  last_attempt_datetime: Schema.NullOr(Schema.String),
  next_attempt_datetime: Schema.NullOr(Schema.String).annotate({
    description: "When the next attempt is due while pending; null once delivered or failed"
  }),
  delivered_datetime: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WebhookDelivery" })

/**
 * @category schemas
 */
export const WebhookDeliveryList = Schema.Struct({
  deliveries: Schema.Array(WebhookDeliveryResource),
  ...PageFields
}).annotate({ identifier: "WebhookDeliveryList" })

/**
 * `GET /admin/v1/webhook-deliveries?call_id=`: the deliveries of the events a call caused,
 * each with the endpoint it goes to (the web console's call page shows them).
 *
 * @category schemas
 */
export const CallDeliveryList = Schema.Struct({
  deliveries: Schema.Array(
    Schema.Struct({
      ...WebhookDeliveryResource.fields,
      webhook_id: Schema.String,
      url: Schema.String
    }).annotate({ identifier: "WebhookCallDelivery" })
  )
}).annotate({ identifier: "WebhookCallDeliveryList" })

/**
 * The most deliveries a call's list answers (a call causes three events; each goes to every
 * endpoint that takes it).
 *
 * @category constructors
 */
export const maxCallDeliveries = 100

const orgId = { org_id: Schema.String }
const webhookParams = { org_id: Schema.String, webhook_id: Schema.String }

/**
 * @category models
 */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/admin/v1/organizations/:org_id/webhooks", {
      params: orgId,
      payload: storableBody(CreateWebhookRequest),
      success: CreatedWebhookResource.pipe(HttpApiSchema.status(201)),
      error: NotFound
    }).annotate(OpenApi.Summary, "Register a webhook endpoint"),
    HttpApiEndpoint.get("list", "/admin/v1/organizations/:org_id/webhooks", {
      params: orgId,
      success: Schema.Array(WebhookResource),
      error: NotFound
    }).annotate(OpenApi.Summary, "List webhook endpoints"),
    HttpApiEndpoint.delete("delete", "/admin/v1/organizations/:org_id/webhooks/:webhook_id", {
      params: webhookParams,
      success: HttpApiSchema.NoContent,
      error: NotFound
    }).annotate(OpenApi.Summary, "Delete a webhook endpoint"),
    HttpApiEndpoint.get("deliveries", "/admin/v1/organizations/:org_id/webhooks/:webhook_id/deliveries", {
      params: webhookParams,
      query: { limit: Schema.optional(Schema.String), after: Schema.optional(Schema.String) },
      success: WebhookDeliveryList,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "List a webhook endpoint's deliveries"),
    HttpApiEndpoint.get("callDeliveries", "/admin/v1/webhook-deliveries", {
      query: { call_id: Schema.String },
      success: CallDeliveryList
    })
      .annotate(OpenApi.Summary, "List the deliveries of a call's events")
      .annotate(
        OpenApi.Description,
        "The deliveries, to every endpoint, of the events the call caused (call.started, call.ended, its " +
          `contact's contact.status_changed), oldest event first, at most ${maxCallDeliveries}; an unknown call ` +
          "has none. Call ids are unique across organizations."
      )
  )
  .middleware(AdminAuthorization)
  .annotateMerge(OpenApi.annotations({
    title: "Webhooks",
    description:
      "Event webhooks (Standard Webhooks): endpoints and their deliveries; enabled by VOICE_AGENT_ADMIN_TOKEN"
  }))
{}
