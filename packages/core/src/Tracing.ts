/**
 * A call's spans (docs/OPERATIONS.md, "Traces"): the work of one call runs under a span of its
 * own, and every span made inside it carries the call's id as `voice_agent.call_id`, whichever
 * code makes it (the engine's, a provider's, the SQL client's). Without a tracer to export to
 * (the daemon's default) it changes nothing and costs nothing: no span is made.
 *
 * One trace per call: the call's `call` span ({@link call}, around the dial, the ring, the
 * answer and the end) starts a trace of its own, linked to the span it was started from (the
 * request that placed or accepted it); the call's other spans made elsewhere in the process
 * ({@link forCall}: its media session, which runs in the media WebSocket's request) go under it,
 * linked to where they were made. A process that does not follow the call (the media stream of
 * a call another daemon placed) starts a trace of the call's with the span it makes.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, References, Tracer } from "effect"
import type { Fiber } from "effect"

/**
 * The attribute every span of a call carries.
 *
 * @category constructors
 */
export const callIdAttribute = "voice_agent.call_id"

/**
 * The span each call followed in this process hangs its trace from, by call id, while it runs.
 *
 * @category references
 */
export const CallSpans = Context.Reference<Map<string, Tracer.Span>>("@voice-agent/core/Tracing/CallSpans", {
  defaultValue: () => new Map()
})

/**
 * True when the spans `fiber` makes are exported: a tracer other than Effect's native one is
 * installed, and spans are on.
 *
 * @category guards
 */
export const isTracedUnsafe = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.cache.tracerEnabled && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/**
 * Whether the spans made here are exported ({@link isTracedUnsafe}): work that makes spans of
 * its own by hand checks it once and costs nothing when it is false.
 *
 * @category guards
 */
export const traced: Effect.Effect<boolean> = Effect.withFiber((fiber) => Effect.succeed(isTracedUnsafe(fiber)))

/** The current span, as a link, when it is exported. */
const linkFrom = (fiber: Fiber.Fiber<unknown, unknown>): Array<Tracer.SpanLink> => {
  const from = fiber.cache.span
  return from !== undefined && from.sampled ? [{ span: from, attributes: {} }] : []
}

/**
 * Runs `self` as the span `name` of the call `callId` (a root, or under `parent`), linked to
 * the current span, which gets the call id; every span inside carries the call id, and spans are
 * made inside even where the process has them off elsewhere (the daemon's background work).
 */
const callSpan = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  fiber: Fiber.Fiber<unknown, unknown>,
  options: {
    readonly name: string
    readonly callId: string
    readonly parent: Tracer.Span | undefined
    readonly attributes: Record<string, unknown> | undefined
    readonly register: boolean
  }
): Effect.Effect<A, E, R> => {
  const { callId } = options
  const calls = fiber.getRef(CallSpans)
  const inside = Effect.annotateSpans(self, callIdAttribute, callId)
  return Effect.andThen(
    Effect.annotateCurrentSpan(callIdAttribute, callId),
    Effect.useSpan(
      options.name,
      {
        attributes: { ...options.attributes, [callIdAttribute]: callId },
        links: linkFrom(fiber),
        ...(options.parent === undefined ? { root: true } : { parent: options.parent })
      },
      (span) => {
        const run = Effect.withParentSpan(inside, span)
        if (!options.register) return run
        calls.set(callId, span)
        return Effect.ensuring(
          run,
          Effect.sync(() => {
            if (calls.get(callId) === span) calls.delete(callId)
          })
        )
      }
    )
  ).pipe(Effect.provideService(References.TracerEnabled, true))
}

/**
 * Runs `self`, the following of the call `callId` from its start to its recorded end, as its
 * span `call`: the start of the call's trace (module header), linked to the span it was
 * started from, with every span inside carrying the call id and `attributes` on it. Without a
 * tracer other than Effect's native one, `self` as it is.
 *
 * @category combinators
 */
export const call =
  (callId: string, attributes?: Record<string, unknown>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? self
        : callSpan(self, fiber, { name: "call", callId, parent: undefined, attributes, register: true })
    )

/**
 * Runs `self`, more work of the call `callId` (its media session, in the media WebSocket's
 * request), as the call's span `name`: under its `call` span when this process follows the
 * call, else the start of a trace of its own; linked to the current span either way, with every
 * span inside carrying the call id. Without a tracer other than Effect's native one, `self` as
 * it is.
 *
 * @category combinators
 */
export const forCall =
  (name: string, callId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? self
        : callSpan(self, fiber, {
          name,
          callId,
          parent: fiber.getRef(CallSpans).get(callId),
          attributes: undefined,
          register: false
        })
    )

/**
 * Runs `self`, work another party does for the call `callId` in this process (the simulated
 * carrier's script of the call: its events, its person's media stream), as the span `name` of a
 * trace of its own, linked to the current span, with every span inside carrying the call id:
 * the call's trace keeps to the engine's work.
 *
 * @category combinators
 */
export const apart =
  (name: string, callId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? self
        : self.pipe(
          Effect.annotateSpans(callIdAttribute, callId),
          Effect.withSpan(name, { root: true, attributes: { [callIdAttribute]: callId }, links: linkFrom(fiber) })
        )
    )

/**
 * Runs `self`, work for the call `callId` done outside its span (a media stream finding its
 * call before its session starts), with its spans, and the current one, carrying the call id.
 *
 * @category combinators
 */
export const ofCall = (callId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? self
      : Effect.andThen(
        Effect.annotateCurrentSpan(callIdAttribute, callId),
        Effect.annotateSpans(self, callIdAttribute, callId)
      )
  )

/**
 * Adds the event `name` (at `atMillis`, epoch ms, else now; with `attributes`) to the current
 * span: in a call's work, the moments of its `call` span (ringing, answered, ended). Nothing
 * when no span is exported.
 *
 * @category combinators
 */
export const event = (name: string, attributes?: Record<string, unknown>, atMillis?: number): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const span = fiber.cache.span
    if (span?._tag === "Span" && span.sampled && isTracedUnsafe(fiber)) {
      const at = atMillis === undefined
        ? fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()
        : BigInt(Math.round(atMillis)) * 1_000_000n
      span.event(name, at, attributes)
    }
    return Effect.void
  })
