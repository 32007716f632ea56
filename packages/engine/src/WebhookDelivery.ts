/**
 * The webhook delivery worker of one process (docs/WEBHOOKS.md): a loop that claims due
 * deliveries from the durable queue (`WebhookRepository.claimDue`, exclusive across every
 * daemon on the database), POSTs each, signed per Standard Webhooks, with at most
 * `concurrency` in flight, and records each attempt (its start, duration, answer or failure,
 * see WebhookFailure) with its result: any 2xx delivers; another status, a timeout
 * (`timeoutMs`) or a connection failure schedules the next attempt by `retrySchedule`, or fails
 * the delivery for good when the schedule is exhausted.
 *
 * Between claims it sleeps until the earliest pending delivery falls due (a retry, or another
 * worker's lapsed claim), a wake-up (deliveries enqueued anywhere on the database), an attempt
 * of its own finishing, or `pollMs`, whichever comes first.
 *
 * Redirects are not followed (a 3xx is a failed attempt), as the specification advises.
 *
 * Shutdown (the scope closing): claiming stops at once; attempts in flight get `timeoutMs` to
 * finish and be recorded; any left then is interrupted, and its claim lapses after `leaseMs`
 * for any worker to retry (at least once: the receiver may have seen it already). A process
 * that dies leaves claims that lapse the same way.
 *
 * @since 0.1.0
 */
import type { DueDelivery } from "@voice-agent/core/ports/WebhookRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { defaultRetrySchedule, retryAt, toBody } from "@voice-agent/core/Webhook"
import { Clock, Duration, Effect, FiberSet, Layer, Queue, Result, Stream } from "effect"
import type { Scope } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as WebhookFailure from "./WebhookFailure.ts"
import * as WebhookSignature from "./WebhookSignature.ts"

/**
 * @category models
 */
export interface WebhookSettings {
  /** Delays before each retry (ms); a delivery gets one attempt more than it has entries. */
  readonly retrySchedule: ReadonlyArray<number>
  /** An attempt with no complete answer by then has failed. */
  readonly timeoutMs: number
  /** How long a claim holds; longer than `timeoutMs`, so no two workers attempt one delivery at once. */
  readonly leaseMs: number
  /** Most attempts in flight in this process. */
  readonly concurrency: number
  /** Longest sleep with nothing due: the backstop for missed wake-ups. */
  readonly pollMs: number
  /** The `user-agent` of deliveries. */
  readonly userAgent: string
}

/**
 * Settings with the defaults of docs/WEBHOOKS.md: the Standard Webhooks schedule, 10 s
 * timeout, a lease of three timeouts, 16 attempts at once, a 10 s backstop poll.
 *
 * @category constructors
 */
export const makeSettings = (overrides: Partial<WebhookSettings> = {}): WebhookSettings => {
  const timeoutMs = overrides.timeoutMs ?? 10_000
  return {
    retrySchedule: defaultRetrySchedule,
    timeoutMs,
    leaseMs: 3 * timeoutMs,
    concurrency: 16,
    pollMs: 10_000,
    userAgent: "voice-agent-webhooks/0.1",
    ...overrides
  }
}

/** Shortest sleep when something is due but was not claimable (another worker is claiming it). */
const busyRetryMs = 50

/** A delay as a person reads it: `200 ms`, `5 s`, `30 min`, `2 h`. */
const formatDelay = (ms: number): string =>
  ms < 1_000 ? `${ms} ms` : ms < 60_000 ? `${Math.round(ms / 1_000)} s` : ms < 3_600_000
    ? `${Math.round(ms / 60_000)} min`
    : `${Math.round(ms / 360_000) / 10} h`

/**
 * One attempt: POST the signed body, read the answer (within the timeout), and say how it went:
 * the answer's status (`null`: none came) and, unless it was a 2xx, why it failed.
 *
 * @category constructors
 */
export const attempt = (
  client: HttpClient.HttpClient,
  delivery: DueDelivery,
  settings: WebhookSettings
): Effect.Effect<{ readonly status: number | null; readonly failure: WebhookFailure.Failure | null }> =>
  Effect.gen(function*() {
    const body = JSON.stringify(toBody(delivery.eventType, delivery.eventCreatedAt, delivery.data))
    const sentAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const request = HttpClientRequest.post(delivery.url).pipe(
      HttpClientRequest.setHeaders({
        ...WebhookSignature.headers(delivery.secret, delivery.eventId, sentAt, body),
        "user-agent": settings.userAgent
      }),
      HttpClientRequest.bodyText(body, "application/json")
    )
    const answered = yield* client.execute(request).pipe(
      // The answer's body is read (and dropped) so the connection is free for the next one.
      Effect.flatMap((response) => Effect.as(Effect.ignore(response.text), response.status)),
      Effect.timeoutOption(Duration.millis(settings.timeoutMs)),
      Effect.result
    )
    if (Result.isFailure(answered)) {
      return { status: null, failure: WebhookFailure.fromHttpClientError(answered.failure) }
    }
    if (answered.success._tag === "None") return { status: null, failure: WebhookFailure.timedOut(settings.timeoutMs) }
    const status = answered.success.value
    return { status, failure: status >= 200 && status < 300 ? null : WebhookFailure.httpStatus(status) }
  })

/**
 * Runs the worker until the scope closes.
 *
 * @category constructors
 */
export const run = (
  settings: WebhookSettings
): Effect.Effect<void, never, WebhookRepository | HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const repository = yield* WebhookRepository
    const client = yield* HttpClient.HttpClient
    const inFlight = yield* FiberSet.make<void>()
    // Finalizers run in reverse order: the loop stops first (forked last), then attempts in
    // flight get `timeoutMs`, then the FiberSet interrupts what is left.
    yield* Effect.addFinalizer(() =>
      FiberSet.awaitEmpty(inFlight).pipe(Effect.timeoutOption(Duration.millis(settings.timeoutMs)))
    )
    const signal = yield* Queue.sliding<void>(1)
    const poke = Queue.offer(signal, undefined)
    const wakeups = yield* repository.wakeups
    yield* Effect.forkScoped(Stream.runForEach(wakeups, () => poke))

    const deliver = (delivery: DueDelivery) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        const outcome = yield* attempt(client, delivery, settings)
        const now = yield* Clock.currentTimeMillis
        const { failure } = outcome
        const next = failure === null ? null : retryAt(settings.retrySchedule, delivery.attempt, now)
        const recorded = yield* repository.recordAttempt({
          deliveryId: delivery.deliveryId,
          attempt: delivery.attempt,
          startedAt,
          now,
          result: failure === null
            ? { _tag: "Delivered", responseStatus: outcome.status! }
            : {
              _tag: "Failed",
              responseStatus: outcome.status,
              errorType: failure.type,
              error: failure.message,
              retryAt: next
            }
        })
        const what = `Webhook ${delivery.eventId} (${delivery.eventType}) to endpoint ${delivery.endpointId}, ` +
          `attempt ${delivery.attempt}`
        if (!recorded) return yield* Effect.logWarning(`${what}: its claim had lapsed; result not recorded`)
        if (failure === null) return yield* Effect.logInfo(`${what}: delivered (HTTP ${outcome.status})`)
        yield* Effect.logInfo(
          `${what} failed (${failure.type}: ${failure.message}); ${
            next === null ? "no retry left, delivery failed" : `retry in ${formatDelay(next - now)}`
          }`
        )
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.logError("Webhook attempt failed; its claim will lapse and be retried", cause)
        ),
        Effect.ensuring(poke)
      )

    const tick = Effect.gen(function*() {
      const room = settings.concurrency - (yield* FiberSet.size(inFlight))
      // Full: an attempt finishing pokes the loop.
      if (room <= 0) return settings.pollMs
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* repository.claimDue({ now, leaseMs: settings.leaseMs, limit: room })
      for (const delivery of claimed) yield* FiberSet.run(inFlight, deliver(delivery))
      if (claimed.length === room) return 0
      const due = yield* repository.nextDueAt
      if (due === null) return settings.pollMs
      return Math.min(settings.pollMs, Math.max(busyRetryMs, due - now))
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.logError("Webhook worker tick failed; trying again", cause).pipe(Effect.as(1_000))
      )
    )

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function*() {
          const sleepMs = yield* tick
          if (sleepMs > 0) yield* Effect.raceFirst(Effect.sleep(Duration.millis(sleepMs)), Queue.take(signal))
        })
      )
    )
    yield* Effect.logInfo("Webhook worker started")
  })

/**
 * The worker as a layer: it runs while the layer lives.
 *
 * @category layers
 */
export const layer = (
  settings: WebhookSettings
): Layer.Layer<never, never, WebhookRepository | HttpClient.HttpClient> => Layer.effectDiscard(run(settings))
