/**
 * Storage port of event webhooks (docs/WEBHOOKS.md): an organization's endpoints, the events
 * written for it, and the durable delivery queue that several daemons work from at once.
 *
 * Delivery is at least once: a delivery is claimed by one worker at a time (the claim holds
 * until `now + leaseMs`, and a worker that dies leaves a claim that lapses and falls due
 * again), and its result is recorded only by the claim that made the attempt. A receiver sees
 * the same message twice only when a worker died (or stalled past its lease) after the POST
 * and before recording it; the `webhook-id` lets it tell.
 *
 * Instants are epoch milliseconds from the caller's `Clock`, as for the dialer.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option, Scope, Stream } from "effect"
import type { OrganizationNotFound } from "../Errors.ts"
import type {
  AttemptErrorType,
  OutgoingEvent,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointNotFound,
  WebhookEventType
} from "../Webhook.ts"

/**
 * A new endpoint and its signing secret in text form (`whsec_…`), which nothing shows again.
 *
 * @category models
 */
export interface CreatedEndpoint {
  readonly endpoint: WebhookEndpoint
  readonly secret: string
}

/**
 * A delivery the caller has claimed: everything needed to make the attempt.
 *
 * @category models
 */
export interface DueDelivery {
  readonly deliveryId: string
  /** The number of this attempt (1 for the first); the claim's token for `recordAttempt`. */
  readonly attempt: number
  readonly endpointId: string
  readonly url: string
  /** The signing key's bytes. */
  readonly secret: Uint8Array
  /** The message id (`msg_…`). */
  readonly eventId: string
  readonly eventType: WebhookEventType
  /** When the event happened (the body's `timestamp`). */
  readonly eventCreatedAt: number
  readonly data: unknown
}

/**
 * How an attempt went: a 2xx answer, or not (another status, a timeout, a connection failure:
 * its type and a short message), with when to try again (`null`: never, the delivery has
 * failed).
 *
 * @category models
 */
export type AttemptResult =
  | { readonly _tag: "Delivered"; readonly responseStatus: number }
  | {
    readonly _tag: "Failed"
    readonly responseStatus: number | null
    readonly errorType: AttemptErrorType
    readonly error: string
    readonly retryAt: number | null
  }

/**
 * What one pass of the retention prune removed.
 *
 * @category models
 */
export interface Pruned {
  readonly events: number
  readonly deliveries: number
}

/**
 * A page of an endpoint's deliveries, newest first.
 *
 * @category models
 */
export interface DeliveryPage {
  readonly deliveries: ReadonlyArray<WebhookDelivery>
  readonly hasMore: boolean
}

/**
 * A delivery of an event a call caused, with the endpoint it goes to.
 *
 * @category models
 */
export interface CallDelivery extends WebhookDelivery {
  readonly endpointId: string
  readonly url: string
}

/**
 * @category services
 */
export class WebhookRepository extends Context.Service<WebhookRepository, {
  /** Registers an endpoint of the organization with a new random secret. */
  readonly createEndpoint: (input: {
    readonly organizationId: string
    readonly url: string
    readonly events: ReadonlyArray<WebhookEventType> | null
    readonly now: number
  }) => Effect.Effect<CreatedEndpoint, OrganizationNotFound>
  /** The organization's endpoints, oldest first. */
  readonly listEndpoints: (organizationId: string) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /** The endpoint, if the organization has it. */
  readonly getEndpoint: (organizationId: string, endpointId: string) => Effect.Effect<Option.Option<WebhookEndpoint>>
  /** Deletes the endpoint and its deliveries (pending ones are never attempted again). */
  readonly deleteEndpoint: (organizationId: string, endpointId: string) => Effect.Effect<void, WebhookEndpointNotFound>
  /** A page of the endpoint's deliveries, newest first, after the delivery id `after` (keyset). */
  readonly listDeliveries: (query: {
    readonly organizationId: string
    readonly endpointId: string
    readonly after?: string | undefined
    readonly limit: number
  }) => Effect.Effect<DeliveryPage, WebhookEndpointNotFound>
  /**
   * The deliveries of the events the call `callId` caused (its `call.started` and `call.ended`,
   * its contact's `contact.status_changed` while it ran), oldest event first, at most `limit`;
   * none for an unknown call. Call ids are unique across organizations.
   */
  readonly listCallDeliveries: (callId: string, limit: number) => Effect.Effect<ReadonlyArray<CallDelivery>>
  /**
   * Writes the events and, in the same statement, one pending delivery, due at `now`, per
   * endpoint of each event's organization subscribed to its type; an event no endpoint wants is
   * not written at all. Answers how many deliveries it created. Run inside a transaction of the
   * same SQL client, the events commit or roll back with the change they report. The workers
   * are woken when the deliveries commit.
   */
  readonly enqueue: (events: ReadonlyArray<OutgoingEvent>, now: number) => Effect.Effect<number>
  /**
   * Claims up to `limit` due deliveries, oldest due first, each until `now + leaseMs` (skipping
   * those another worker is claiming right now), and counts their attempt as started. A
   * delivery whose previous claim recorded nothing (its worker stopped or died) gets that
   * attempt written as `lapsed`.
   */
  readonly claimDue: (input: {
    readonly now: number
    readonly leaseMs: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<DueDelivery>>
  /**
   * Records the attempt (made from `startedAt` to `now`) and its result on the delivery, in one
   * statement, if that attempt's claim still holds the delivery (else nothing changes and the
   * answer is false: the claim lapsed and another attempt started). Keeps the delivery's newest
   * `attemptsKept` attempts.
   */
  readonly recordAttempt: (input: {
    readonly deliveryId: string
    readonly attempt: number
    readonly startedAt: number
    readonly now: number
    readonly result: AttemptResult
  }) => Effect.Effect<boolean>
  /**
   * Deletes up to `limit` events that happened before `before`, oldest first, with their
   * deliveries and attempts; an event with a pending delivery is kept. Safe to run from several
   * processes at once (each skips the events another is deleting).
   */
  readonly prune: (input: { readonly before: number; readonly limit: number }) => Effect.Effect<Pruned>
  /** When the earliest pending delivery falls due (an in-flight one: when its claim lapses). */
  readonly nextDueAt: Effect.Effect<number | null>
  /** One element per wake-up (deliveries were enqueued somewhere) received while the scope is open. */
  readonly wakeups: Effect.Effect<Stream.Stream<void>, never, Scope.Scope>
}>()("@voice-agent/core/ports/WebhookRepository") {}
