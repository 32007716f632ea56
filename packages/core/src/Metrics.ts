/**
 * The engine's metrics, by their Prometheus names: one list, so the names, labels and buckets
 * that operators' dashboards rely on are defined once (docs/OPERATIONS.md lists them). They are
 * Effect `Metric`s in the process's default registry; the daemon serves them at `GET /metrics`
 * (Prometheus text format) and counts most of them at seams of its own (wrappers around the
 * storage, carrier, provider and recording ports, and the HTTP server). Two are measured where
 * only the call's code knows the value: the turn latency (agents' pipeline) and the frame lag
 * (the engine's media session), through {@link observeUnsafe}.
 *
 * Label values are bounded sets (directions, termination reasons, provider names, route
 * patterns, status codes), never ids.
 *
 * @since 0.1.0
 */
import { Context, Metric } from "effect"

/** Seconds, from a few milliseconds to a minute: latencies of turns, providers and requests. */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60]

/** Seconds: how late media frames are handled, from 1 ms to 2 s. */
const lagBuckets = [0.001, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2]

/**
 * Calls in progress in this process (ringing included), by `direction`.
 *
 * @category metrics
 */
export const callsActive = Metric.gauge("voice_agent_calls_active", {
  description: "Calls in progress in this process (ringing included), by direction"
})

/**
 * Calls ended, by `direction` and `termination_reason` (the conversation's).
 *
 * @category metrics
 */
export const callsTotal = Metric.counter("voice_agent_calls_total", {
  description: "Calls ended, by direction and termination reason",
  incremental: true
})

/**
 * Outbound calls the carrier accepted to place.
 *
 * @category metrics
 */
export const callsPlaced = Metric.counter("voice_agent_calls_placed_total", {
  description: "Outbound calls the carrier accepted to place",
  incremental: true
})

/**
 * Contacts this process's dialer claimed to call.
 *
 * @category metrics
 */
export const dialerClaims = Metric.counter("voice_agent_dialer_claims_total", {
  description: "Contacts the dialer of this process claimed",
  incremental: true
})

/**
 * Contacts whose lease had expired (a daemon died mid-call) and that this process recovered.
 *
 * @category metrics
 */
export const leasesRecovered = Metric.counter("voice_agent_dialer_leases_recovered_total", {
  description: "Contacts whose expired lease this process recovered",
  incremental: true
})

/**
 * Carrier requests that failed, by `operation` (`place_call`, `hang_up`, `transfer`, `send_sms`).
 *
 * @category metrics
 */
export const carrierErrors = Metric.counter("voice_agent_carrier_errors_total", {
  description: "Carrier requests that failed, by operation",
  incremental: true
})

/**
 * Voice-to-voice latency of each agent reply: from the end of the person's speech to the start
 * of the reply's audio, on the call's timeline.
 *
 * @category metrics
 */
export const turnLatency = Metric.histogram("voice_agent_turn_latency_seconds", {
  description: "Voice-to-voice latency of agent replies: end of the person's speech to the reply's first audio",
  boundaries: latencyBuckets
})

/**
 * How late each frame of the person's audio is handled: the time since the stream started
 * less the frame's media timestamp.
 *
 * @category metrics
 */
export const mediaFrameLag = Metric.histogram("voice_agent_media_frame_lag_seconds", {
  description: "How late the person's audio frames are handled after their media timestamp",
  boundaries: lagBuckets
})

/**
 * Time to the first output of a provider request, by `kind` (`llm`: first token, `tts`: first
 * audio) and `provider`.
 *
 * @category metrics
 */
export const providerLatency = Metric.histogram("voice_agent_provider_latency_seconds", {
  description: "Time to a provider's first output (llm: first token, tts: first audio), by kind and provider",
  boundaries: latencyBuckets
})

/**
 * Provider requests that failed, by `kind` (`llm`, `stt`, `tts`) and `provider`.
 *
 * @category metrics
 */
export const providerErrors = Metric.counter("voice_agent_provider_errors_total", {
  description: "Provider requests that failed, by kind and provider",
  incremental: true
})

/**
 * Writes of recording audio that failed.
 *
 * @category metrics
 */
export const recordingWriteErrors = Metric.counter("voice_agent_recording_write_errors_total", {
  description: "Recording writes that failed",
  incremental: true
})

/**
 * Event webhook deliveries waiting to be delivered (all daemons on the database).
 *
 * @category metrics
 */
export const webhookDeliveriesPending = Metric.gauge("voice_agent_webhook_deliveries_pending", {
  description: "Event webhook deliveries pending (all daemons on the database)"
})

/**
 * Age of the oldest pending event webhook delivery (0 when none is pending).
 *
 * @category metrics
 */
export const webhookOldestPendingAge = Metric.gauge("voice_agent_webhook_oldest_pending_age_seconds", {
  description: "Age of the oldest pending event webhook delivery (0 when none)"
})

/**
 * HTTP requests answered, by `method`, `route` (the route's pattern) and `status`.
 *
 * @category metrics
 */
export const httpRequests = Metric.counter("voice_agent_http_requests_total", {
  description: "HTTP requests answered, by method, route pattern and status",
  incremental: true
})

/**
 * How long HTTP requests took to answer, by `method` and `route`.
 *
 * @category metrics
 */
export const httpRequestDuration = Metric.histogram("voice_agent_http_request_duration_seconds", {
  description: "Time to answer HTTP requests, by method and route pattern",
  boundaries: latencyBuckets
})

const defaultContext = Context.empty()

/**
 * Updates `metric` in the default registry from synchronous code (a frame handler, a callback):
 * for the few places in a call's path that are not an Effect.
 *
 * @category constructors
 */
export const observeUnsafe = <Input, State>(metric: Metric.Metric<Input, State>, input: Input): void =>
  metric.updateUnsafe(input, defaultContext)

/**
 * Adds `delta` to a gauge (or a counter) in the default registry, from synchronous code.
 *
 * @category constructors
 */
export const addUnsafe = <State>(metric: Metric.Metric<number, State>, delta: number): void =>
  metric.modifyUnsafe(delta, defaultContext)

/**
 * Registers `metric` (with its current state, zero for a new one), so that it is exposed before
 * its first update.
 *
 * @category constructors
 */
export const registerUnsafe = <Input, State>(metric: Metric.Metric<Input, State>): void => {
  metric.valueUnsafe(defaultContext)
}

/**
 * One agent reply's turn latency: the end of the speech it answers and the start of its audio,
 * both in ms on the call's timeline (never negative).
 *
 * @category constructors
 */
export const observeTurnUnsafe = (heardEndMs: number, replyStartMs: number): void =>
  observeUnsafe(turnLatency, Math.max(0, replyStartMs - heardEndMs) / 1000)

/**
 * `metric` with `labels`, one instance per distinct set (cached: label sets are few).
 *
 * @category constructors
 */
export const labelled = <Input, State>(metric: Metric.Metric<Input, State>) => {
  const cache = new Map<string, Metric.Metric<Input, State>>()
  return (labels: Readonly<Record<string, string>>): Metric.Metric<Input, State> => {
    const key = Object.values(labels).join("\u0000")
    let found = cache.get(key)
    if (found === undefined) {
      found = Metric.withAttributes(metric, labels)
      cache.set(key, found)
    }
    return found
  }
}
