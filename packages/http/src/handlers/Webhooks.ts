/**
 * Handlers of the event webhooks of the admin API (api/WebhooksApi.ts): each a few lines over
 * the WebhookRepository port. The organization is always the path's, never the body's.
 *
 * @since 0.1.0
 */
import { InvalidCursor } from "@voice-agent/core/Errors"
import { pageInfo } from "@voice-agent/core/Page"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { isSerialId } from "@voice-agent/core/SerialId"
import { nowMillis, toIso } from "@voice-agent/core/Time"
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEventType } from "@voice-agent/core/Webhook"
import { receivedTypes, WebhookEventTypes } from "@voice-agent/core/Webhook"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { NotFound } from "../api/HttpErrors.ts"
import { maxCallDeliveries } from "../api/WebhooksApi.ts"
import type { WebhookAttemptResource, WebhookDeliveryResource, WebhookResource } from "../api/WebhooksApi.ts"
import { AdminAuthorizationLive } from "./Admin.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseLimit } from "./QueryParams.ts"
import { FastApiValidationLive } from "./Validation.ts"

/** The requested types without repeats, in the documented order; `null` stays every type. */
const normalizeEvents = (
  events: ReadonlyArray<WebhookEventType> | null | undefined
): ReadonlyArray<WebhookEventType> | null => events == null ? null : WebhookEventTypes.filter((t) => events.includes(t))

const toWebhookResource = (endpoint: WebhookEndpoint): typeof WebhookResource.Type => ({
  id: endpoint.id,
  url: endpoint.url,
  events: receivedTypes(endpoint.events),
  created_datetime: toIso(endpoint.createdAt)
})

const isoOrNull = (date: Date | null): string | null => date === null ? null : toIso(date)

const toAttemptResource = (attempt: WebhookAttempt): typeof WebhookAttemptResource.Type => ({
  attempt: attempt.attempt,
  attempted_datetime: toIso(attempt.attemptedAt),
  duration_ms: attempt.durationMs,
  response_status: attempt.responseStatus,
  error_type: attempt.errorType,
  error: attempt.error
})

const toDeliveryResource = (delivery: WebhookDelivery): typeof WebhookDeliveryResource.Type => ({
  id: delivery.id,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  status: delivery.status,
  attempts: delivery.attempts,
  attempt_history: delivery.history.map(toAttemptResource),
  last_response_status: delivery.lastResponseStatus,
  last_error: delivery.lastError,
  created_datetime: toIso(delivery.createdAt),
  last_attempt_datetime: isoOrNull(delivery.lastAttemptAt),
  next_attempt_datetime: isoOrNull(delivery.nextAttemptAt),
  delivered_datetime: isoOrNull(delivery.deliveredAt)
})

const webhookNotFound = (id: string) => new NotFound({ detail: `Webhook ${id} not found` })

/**
 * @category layers
 */
export const WebhooksHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "webhooks",
  Effect.fn(function*(handlers) {
    const organizations = yield* OrganizationRepository
    const webhooks = yield* WebhookRepository
    const cursors = yield* CursorCodec
    return handlers.handleAll({
      create: ({ params, payload }) =>
        Effect.gen(function*() {
          const created = yield* webhooks.createEndpoint({
            organizationId: params.org_id,
            url: payload.url,
            events: normalizeEvents(payload.events),
            now: yield* nowMillis
          })
          const { endpoint } = created
          return { id: endpoint.id, url: endpoint.url, events: receivedTypes(endpoint.events), secret: created.secret }
        }).pipe(mapDomainErrors),
      list: ({ params }) =>
        organizations.get(params.org_id).pipe(
          Effect.andThen(webhooks.listEndpoints(params.org_id)),
          Effect.map((endpoints) => endpoints.map(toWebhookResource)),
          mapDomainErrors
        ),
      delete: ({ params }) =>
        webhooks.deleteEndpoint(params.org_id, params.webhook_id).pipe(
          Effect.catchTag("WebhookEndpointNotFound", () => Effect.fail(webhookNotFound(params.webhook_id)))
        ),
      deliveries: ({ params, query }) =>
        Effect.gen(function*() {
          const limit = yield* parseLimit(query.limit, { min: 1, max: 100, fallback: 50 })
          let after: string | undefined
          if (query.after !== undefined) {
            const position = yield* cursors.decode("webhook-deliveries", params.org_id, query.after)
            if (typeof position.id !== "string" || !isSerialId(position.id)) return yield* new InvalidCursor()
            after = position.id
          }
          const page = yield* webhooks.listDeliveries({
            organizationId: params.org_id,
            endpointId: params.webhook_id,
            after,
            limit
          }).pipe(Effect.catchTag("WebhookEndpointNotFound", () => Effect.fail(webhookNotFound(params.webhook_id))))
          return {
            deliveries: page.deliveries.map(toDeliveryResource),
            ...pageInfo(
              page.deliveries,
              page.hasMore,
              (last) => cursors.encode("webhook-deliveries", params.org_id, { id: last.id })
            )
          }
        }).pipe(mapDomainErrors),
      callDeliveries: ({ query }) =>
        Effect.map(webhooks.listCallDeliveries(query.call_id, maxCallDeliveries), (deliveries) => ({
          deliveries: deliveries.map((delivery) => ({
            ...toDeliveryResource(delivery),
            webhook_id: delivery.endpointId,
            url: delivery.url
          }))
        }))
    })
  })
)

/**
 * The webhook handlers with their middleware; needs the storage ports, the cursor codec and the
 * admin token.
 *
 * @category layers
 */
export const WebhooksHandlers = WebhooksHandlersNoDeps.pipe(
  Layer.provide([AdminAuthorizationLive, FastApiValidationLive])
)
