/**
 * Event webhooks (docs/WEBHOOKS.md), pure: the event types, what each event's
 * `data` holds, the message body, the signing secret's text form, and the retry schedule.
 *
 * Owns: the shapes a receiver sees and the arithmetic of retries. Does not own signing (HMAC:
 * engine/WebhookSignature), storage or delivery (the `WebhookRepository` port, the engine's
 * worker), nor the clock (instants are epoch milliseconds passed in).
 *
 * Decisions:
 * - `data` names the resources it carries, in the shapes the API answers with: `call.started`
 *   and `call.ended` carry `conversation` (the Conversation resource) and `contact_id`;
 *   `contact.status_changed` carries `contact` (the Contact resource, its new status),
 *   `previous_status` and `campaign_id`; `message.received` carries `message` (the
 *   InboundMessage resource).
 * - The body's `timestamp` is when the event happened (ISO 8601); the `webhook-timestamp`
 *   header is when the attempt was sent (Standard Webhooks), so a receiver's replay window
 *   holds for retries hours later.
 * - Retries follow the Standard Webhooks / Svix schedule by default: after the first attempt
 *   fails, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the delivery has failed for good
 *   (8 attempts over about 27 hours). The schedule is a setting.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Result, Schema } from "effect"
import type { ContactData } from "./Contact.ts"
import type { ContactStatus } from "./ContactState.ts"
import type { ConversationRecord } from "./Conversation.ts"
import { toConversation } from "./Conversation.ts"
import type { MessageRecord } from "./Message.ts"
import { toInboundMessage } from "./Message.ts"
import { WebhookRepository } from "./ports/WebhookRepository.ts"
import { fromMillis, toIso } from "./Time.ts"

/**
 * Every event type, in the order the documentation lists them.
 *
 * @category models
 */
export const WebhookEventTypes = ["call.started", "call.ended", "contact.status_changed", "message.received"] as const

/**
 * @category schemas
 */
export const WebhookEventType = Schema.Literals(WebhookEventTypes).annotate({ identifier: "WebhookEventType" })

/**
 * @category models
 */
export type WebhookEventType = typeof WebhookEventType.Type

/**
 * The types an endpoint receives: those it subscribed to, or every type for an endpoint that
 * named none (stored as `null`, so it also receives the types a later release adds).
 *
 * @category constructors
 */
export const receivedTypes = (events: ReadonlyArray<WebhookEventType> | null): ReadonlyArray<WebhookEventType> =>
  events ?? WebhookEventTypes

/**
 * What a delivery has come to: `pending` (due now, later, or in flight), `delivered` (an
 * attempt got a 2xx answer) or `failed` (every attempt of the schedule failed).
 *
 * @category schemas
 */
export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed"]).annotate({
  identifier: "WebhookDeliveryStatus"
})

/**
 * @category models
 */
export type DeliveryStatus = typeof DeliveryStatus.Type

/**
 * Every reason an attempt did not deliver, in the documentation's order: the receiver answered
 * with a status other than 2xx (`http_status`), gave no complete answer in time (`timeout`), its
 * name did not resolve (`dns`), nothing listened (`connection_refused`), the connection was
 * closed or reset before the answer (`connection_closed`), TLS failed (`tls`), another network
 * failure (`network`), the worker stopped or died before recording a result (`lapsed`), anything
 * else (`other`).
 *
 * @category models
 */
export const AttemptErrorTypes = [
  "http_status",
  "timeout",
  "dns",
  "connection_refused",
  "connection_closed",
  "tls",
  "network",
  "lapsed",
  "other"
] as const

/**
 * @category schemas
 */
export const AttemptErrorType = Schema.Literals(AttemptErrorTypes).annotate({
  identifier: "WebhookAttemptErrorType",
  description: "Why an attempt did not deliver: http_status (an answer other than 2xx), timeout, dns, " +
    "connection_refused, connection_closed (before the answer), tls, network, lapsed (the worker stopped or died " +
    "before recording a result), other"
})

/**
 * @category models
 */
export type AttemptErrorType = typeof AttemptErrorType.Type

/**
 * How many attempts of one delivery are kept, the newest: more than the default schedule makes
 * (8), so only a longer schedule or a worker that keeps dying mid-attempt loses the oldest.
 *
 * @category constructors
 */
export const attemptsKept = 10

/**
 * One attempt of a delivery.
 *
 * @category models
 */
export interface WebhookAttempt {
  /** Its number, from 1 (the delivery's `attempts` counts them all, kept or not). */
  readonly attempt: number
  readonly attemptedAt: Date
  /** From the request's start to the answer read or the failure; `null` for a `lapsed` one. */
  readonly durationMs: number | null
  /** `null` when no answer came. */
  readonly responseStatus: number | null
  /** `null` for the attempt that delivered. */
  readonly errorType: AttemptErrorType | null
  /** A short message (`HTTP 500`, `connect ECONNREFUSED 127.0.0.1:9`); `null` when delivered. */
  readonly error: string | null
}

/**
 * An event to write for an organization; the store fans it out to the endpoints subscribed.
 * `data` must be plain JSON.
 *
 * @category models
 */
export interface OutgoingEvent {
  readonly organizationId: string
  readonly type: WebhookEventType
  readonly data: { readonly [key: string]: unknown }
}

/**
 * A registered endpoint, as stored (without its secret).
 *
 * @category models
 */
export interface WebhookEndpoint {
  readonly id: string
  readonly organizationId: string
  readonly url: string
  /** `null`: every type. */
  readonly events: ReadonlyArray<WebhookEventType> | null
  readonly createdAt: Date
}

/**
 * A delivery as listed for its endpoint.
 *
 * @category models
 */
export interface WebhookDelivery {
  /** The delivery's own id (the keyset of the list). */
  readonly id: string
  /** The message id (`msg_…`), the `webhook-id` header. */
  readonly eventId: string
  readonly eventType: WebhookEventType
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly createdAt: Date
  readonly lastAttemptAt: Date | null
  /** When the next attempt is due (or the one in flight lapses); `null` once not pending. */
  readonly nextAttemptAt: Date | null
  readonly deliveredAt: Date | null
  readonly lastResponseStatus: number | null
  readonly lastError: string | null
  /** The newest {@link attemptsKept} attempts, newest first. */
  readonly history: ReadonlyArray<WebhookAttempt>
}

/**
 * No endpoint with this id in this organization.
 *
 * @category errors
 */
export class WebhookEndpointNotFound extends Schema.TaggedError<WebhookEndpointNotFound>()(
  "WebhookEndpointNotFound",
  { endpointId: Schema.String }
) {}

// ------------------------------------------------------------------------------------ events

/**
 * `call.started`: the call's conversation record exists and the carrier is being asked to
 * place it.
 *
 * @category constructors
 */
export const callStarted = (conversation: ConversationRecord): OutgoingEvent => ({
  organizationId: conversation.organizationId,
  type: "call.started",
  data: { conversation: toConversation(conversation), contact_id: conversation.contactId }
})

/**
 * `call.ended`: the conversation as it ended (duration and termination reason set).
 *
 * @category constructors
 */
export const callEnded = (conversation: ConversationRecord): OutgoingEvent => ({
  organizationId: conversation.organizationId,
  type: "call.ended",
  data: { conversation: toConversation(conversation), contact_id: conversation.contactId }
})

/**
 * The contact as `contact.status_changed` shows it.
 *
 * @category models
 */
export interface ContactChange {
  readonly id: string
  readonly campaignId: string
  readonly organizationId: string
  readonly phoneNumber: string
  readonly data: ContactData
  readonly previousStatus: ContactStatus
  readonly status: ContactStatus
}

/**
 * `contact.status_changed`: the contact (the Contact resource, with its new status), its
 * previous status and its campaign.
 *
 * @category constructors
 */
export const contactStatusChanged = (change: ContactChange): OutgoingEvent => ({
  organizationId: change.organizationId,
  type: "contact.status_changed",
  data: {
    contact: { id: change.id, phone_number: change.phoneNumber, status: change.status, data: change.data },
    previous_status: change.previousStatus,
    campaign_id: change.campaignId
  }
})

/**
 * `message.received`: an inbound message, as the message list shows it.
 *
 * @category constructors
 */
export const messageReceived = (message: MessageRecord): OutgoingEvent => ({
  organizationId: message.organizationId,
  type: "message.received",
  data: { message: toInboundMessage(message) }
})

/**
 * Writes `events` for delivery, stamped with the current time, through the WebhookRepository;
 * answers how many deliveries they made. Run inside a transaction of the store's SQL client,
 * they commit or roll back with it.
 *
 * @category constructors
 */
export const emit = (events: ReadonlyArray<OutgoingEvent>): Effect.Effect<number, never, WebhookRepository> =>
  WebhookRepository.use((webhooks) => Effect.flatMap(Clock.currentTimeMillis, (now) => webhooks.enqueue(events, now)))

/**
 * `message.received` for an inbound message just stored (for the carriers' inbound SMS and the
 * admin API's simulated one).
 *
 * @category constructors
 */
export const emitMessageReceived = (message: MessageRecord): Effect.Effect<number, never, WebhookRepository> =>
  emit([messageReceived(message)])

/**
 * The JSON body of a delivery: `{type, timestamp, data}`, `timestamp` the event's instant.
 *
 * @category encoding
 */
export const toBody = (
  type: WebhookEventType,
  createdAt: number,
  data: unknown
): { readonly type: WebhookEventType; readonly timestamp: string; readonly data: unknown } => ({
  type,
  timestamp: toIso(fromMillis(createdAt)),
  data
})

// ------------------------------------------------------------------------------------ secret

/**
 * Prefix of a signing secret's text form (Standard Webhooks).
 *
 * @category constructors
 */
export const secretPrefix = "whsec_"

/**
 * Bytes of a new endpoint's secret (Standard Webhooks asks for 24 to 64).
 *
 * @category constructors
 */
export const secretBytes = 24

/**
 * `whsec_` + base64 of the bytes.
 *
 * @category encoding
 */
export const formatSecret = (bytes: Uint8Array): string => secretPrefix + btoa(String.fromCharCode(...bytes))

/**
 * The key bytes of a secret in its text form (`whsec_` prefix optional); none when the rest is
 * not base64.
 *
 * @category decoding
 */
export const parseSecret = (secret: string): Result.Result<Uint8Array, string> => {
  const text = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    return Result.fail("the secret is not base64 after its whsec_ prefix")
  }
  return Result.succeed(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)))
}

// ----------------------------------------------------------------------------------- retries

/**
 * The delays before each retry, in milliseconds: the Standard Webhooks / Svix schedule.
 *
 * @category constructors
 */
export const defaultRetrySchedule: ReadonlyArray<number> = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000
]

/**
 * When to try again after attempt number `attempts` (counting from 1) failed at `now`: the
 * schedule's delay for that attempt, or `null` when the schedule is exhausted (the delivery has
 * failed for good). A schedule of n delays allows n + 1 attempts.
 *
 * @category math
 */
export const retryAt = (schedule: ReadonlyArray<number>, attempts: number, now: number): number | null => {
  const delay = schedule[Math.max(1, attempts) - 1]
  return delay === undefined ? null : now + delay
}

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * A schedule written as durations separated by commas, each a number and a unit (`ms`, `s`,
 * `m`, `h`, `d`), e.g. `5s,5m,30m,2h,5h,10h,10h`; `none` for no retry at all.
 *
 * @category decoding
 */
export const parseRetrySchedule = (text: string): Result.Result<ReadonlyArray<number>, string> => {
  if (text.trim() === "none") return Result.succeed([])
  const delays: Array<number> = []
  for (const part of text.split(",")) {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(part)
    if (match === null) {
      return Result.fail(
        `expected durations separated by commas such as 5s,5m,30m,2h (units ms, s, m, h, d), got ${
          JSON.stringify(part.trim())
        }`
      )
    }
    delays.push(Math.round(Number(match[1]) * units[match[2]!]!))
  }
  return Result.succeed(delays)
}
